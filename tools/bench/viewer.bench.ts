// Viewer benchmark: frames/s streaming a 120k-point log to the page — headless Chromium fetching each frame
// from `drivekit view`'s server, decoding, colouring, uploading and drawing it, back to back — and bytes a frame.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { allocatePointCloud, boxesFromRows } from '../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { LogWriter } from '../../datasets/logstore.ts';
import { hasChromium, launchChromium, waitForViewerReady } from '../viewer/headlessChromium.ts';
import { openLogSource } from '../viewer/logSource.ts';
import { startViewerServer } from '../viewer/server.ts';
import type { Benchmark } from './benchmark.ts';

/** Settings: a 120k-point log of 20 sweeps, streamed for 10 s after a 2 s warm-up, 1280 × 720 page. */
export const VIEWER_BENCH = {
  pointsPerFrame: 120_000,
  frames: 20,
  warmupMs: 2000,
  durationMs: 10_000,
  viewport: { width: 1280, height: 720 },
};

/** HDL-64E-like sweeps (rings around the sensor, ground and walls) with a few boxes a frame. */
async function writeBenchLog(dir: string): Promise<void> {
  const { pointsPerFrame: n, frames } = VIEWER_BENCH;
  const w = LogWriter.create(dir, { source: 'synthetic' });
  const rows = [];
  for (let k = 0; k < frames; k++) {
    const p = allocatePointCloud(n);
    for (let i = 0; i < n; i++) {
      const ring = i % 64;
      const az = (i / n) * 2 * Math.PI;
      const r = 4 + ring * 0.9 + ((i * 7919 + k) % 100) / 50;
      p.x[i] = r * Math.cos(az);
      p.y[i] = r * Math.sin(az);
      p.z[i] = -1.7 + (ring > 48 ? (ring - 48) * 0.3 : 0);
      p.intensity[i] = ((i * 31) % 100) / 100;
      p.ring[i] = ring;
      p.tOffset[i] = (i / n) * 0.1;
    }
    w.appendFrame({
      timestampNs: BigInt(k) * 100_000_000n,
      pose: poseFromTranslationYaw(k, 0, 1.7, 0),
      points: p,
    });
    for (let b = 0; b < 10; b++)
      rows.push({ frameIndex: k, cx: 8 + 3 * b, cy: b % 2 ? 4 : -4, cz: -0.9, length: 4.5, width: 1.9 });
  }
  w.setLabels(boxesFromRows(rows.map((r) => ({ ...r, height: 1.6, yaw: 0, trackId: 0 }))));
  await w.close();
}

export const benchmarks: Benchmark[] = [
  {
    names: ['viewer_stream'],
    async run(emit) {
      if (!hasChromium()) {
        process.stderr.write('viewer_stream: skipped, no /usr/bin/chromium (apt-get install chromium)\n');
        return;
      }
      const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'drivekit-viewer-bench-'));
      const log = path.join(tmp, 'log');
      await writeBenchLog(log);
      const source = await openLogSource(log);
      const server = await startViewerServer(source, { port: 0 });
      const browser = await launchChromium(VIEWER_BENCH.viewport);
      try {
        const page = await browser.context.newPage();
        await page.goto(server.url);
        await waitForViewerReady(page, 60_000);
        type Result = {
          frames: number;
          seconds: number;
          fps: number;
          bytes_per_frame: number;
          points_per_frame: number;
          fetch_ms: number;
          draw_ms: number;
        };
        const stream = (ms: number) => page.evaluate(`window.viewer.benchStream(${ms})`) as Promise<Result>;
        await stream(VIEWER_BENCH.warmupMs);
        const r = await stream(VIEWER_BENCH.durationMs);
        emit({
          name: 'viewer_stream',
          frames_per_s: Number(r.fps.toFixed(2)),
          ms_per_frame: Number(((1000 * r.seconds) / r.frames).toFixed(1)),
          fetch_ms: Number(r.fetch_ms.toFixed(1)),
          draw_ms: Number(r.draw_ms.toFixed(1)),
          bytes_per_frame: Math.round(r.bytes_per_frame),
          mb_per_s: Number(((r.bytes_per_frame * r.fps) / 1e6).toFixed(1)),
          points_per_frame: Math.round(r.points_per_frame),
          frames: r.frames,
          viewport: `${VIEWER_BENCH.viewport.width}x${VIEWER_BENCH.viewport.height}`,
          renderer: 'chromium --disable-gpu (SwiftShader WebGL)',
          load_avg_1m: Number(os.loadavg()[0].toFixed(1)),
        });
      } finally {
        await browser.close();
        await server.close();
        await source.close();
        fs.rmSync(tmp, { recursive: true, force: true });
      }
    },
  },
];
