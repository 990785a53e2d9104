// Tokenizer training at a tiny size on a hand-made log: a killed run resumes bit-exactly from its
// checkpoint, the exported model round-trips a sweep, and sweeps with nothing to learn are refused.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LogWriter } from '../../datasets/logstore.ts';
import { tokenizerConfig } from '../../worldmodel/config.ts';
import { reconstructFrame, TokenizerScore } from '../../worldmodel/evalTokenizer.ts';
import { trainTokenizer, DEFAULT_TRAIN_TOKENIZER } from '../../worldmodel/trainTokenizer.ts';
import { trainingFeeds } from '../../worldmodel/tokenizerFeeds.ts';
import { Tokenizer } from '../../worldmodel/tokenizerModel.ts';
import { Rng } from '../../core/rng.ts';
import { tmpDir } from '../perception/tmp.ts';

const cfg = tokenizerConfig({
  grid: { rangeM: 8, zMinM: -2, zMaxM: 2, cellsXY: 16, cellsZ: 4 },
  network: {
    pointFeatures: 8,
    bevChannels: 8,
    stemChannels: 8,
    trunkChannels: 8,
    upChannels: 8,
    headChannels: 8,
  },
  quantizer: { codes: 16, codeDim: 4, warmupSteps: 2, reinitEvery: 2, memoryBank: 128 },
  render: { stepM: 0.25, raysPerFrame: 64, minRangeM: 0.5 },
});

/** A room: ground at −1.7 m and walls at |x|, |y| = 5 m, sampled on a spiral of rays; shifted per frame. */
function room(shift: number) {
  const xs: number[] = [];
  const ys: number[] = [];
  const zs: number[] = [];
  for (let i = 0; i < 1500; i++) {
    const az = (i * 2.399) % (2 * Math.PI);
    const el = -0.5 + (0.6 * (i % 37)) / 37;
    const d = [Math.cos(az) * Math.cos(el), Math.sin(az) * Math.cos(el), Math.sin(el)];
    let t = Infinity;
    if (d[2] < 0) t = -1.7 / d[2];
    for (const k of [0, 1])
      if (d[k] !== 0) t = Math.min(t, (5 + (k === 0 ? shift : 0) * Math.sign(d[k])) / Math.abs(d[k]));
    xs.push(d[0] * t);
    ys.push(d[1] * t);
    zs.push(d[2] * t);
  }
  const n = xs.length;
  return {
    x: Float32Array.from(xs),
    y: Float32Array.from(ys),
    z: Float32Array.from(zs),
    intensity: new Float32Array(n),
    ring: new Uint16Array(n),
    tOffset: new Float32Array(n),
  };
}

async function writeRoomLog(dir: string, frames: number): Promise<void> {
  const w = LogWriter.create(dir, { source: 'test' });
  const pose = new Float64Array([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]);
  for (let i = 0; i < frames; i++)
    w.appendFrame({ timestampNs: BigInt(i) * 100_000_000n, pose, points: room(0.3 * i) });
  await w.close();
}

const base = (logs: string[], out: string) => ({
  ...DEFAULT_TRAIN_TOKENIZER,
  logs,
  evalLogs: logs,
  outDir: out,
  config: cfg,
  steps: 6,
  evalEvery: 3,
  checkpointEvery: 1,
  evalFrames: 2,
  evalRays: 64,
  progress: false,
});

describe('trainTokenizer', () => {
  it('resumes a killed run bit-exactly, and its model reconstructs a sweep', async () => {
    const dir = tmpDir('dk-tok-');
    const log = path.join(dir, 'log');
    await writeRoomLog(log, 3);
    const straight = await trainTokenizer(base([log], path.join(dir, 'a')));
    expect(straight.steps).toBe(6);
    // "Killed" after 4 steps (past the warm-up and a dead-code re-initialisation), then started again.
    const first = await trainTokenizer({ ...base([log], path.join(dir, 'b')), stopAfter: 4 });
    expect(first.steps).toBe(4);
    const resumed = await trainTokenizer(base([log], path.join(dir, 'b')));
    expect(resumed.resumedFrom).toBe(4);
    const a = fs.readFileSync(path.join(dir, 'a', 'checkpoint.safetensors'));
    const b = fs.readFileSync(path.join(dir, 'b', 'checkpoint.safetensors'));
    expect(Buffer.compare(a, b)).toBe(0);
    expect(resumed.evals.map((e) => e.depthL1MeanM)).toEqual(straight.evals.map((e) => e.depthL1MeanM));

    const tok = await Tokenizer.load(path.join(dir, 'a', 'model'));
    const { LogReader } = await import('../../datasets/logstore.ts');
    const reader = await LogReader.open(log);
    const rec = await reconstructFrame(tok, await reader.readFrame(0), [0, 0, 0], 'room');
    await reader.close();
    await tok.dispose();
    expect(rec.tokens.length).toBe(4 * 4);
    expect(rec.depthError.length).toBeGreaterThan(1000);
    const score = new TokenizerScore(16);
    score.add(rec);
    const f = score.figures();
    for (const v of Object.values(f)) expect(Number.isFinite(v)).toBe(true);
    expect(f.depth_l1_mean_m).toBeLessThan(20);
  });

  it('renders a sweep from its lasers when given them: the depth to learn is from each laser', () => {
    const pts = room(0);
    const origin = trainingFeeds(cfg, pts, new Rng(3), false, 'room');
    const lasers = [{ heightM: 0.25, lowestElevationDeg: -90 }];
    const raised = trainingFeeds(cfg, pts, new Rng(3), false, 'room', lasers);
    expect(raised.rays.count).toBe(origin.rays.count);
    const gt = (raised.feeds.gt_depth as { data: Float32Array }).data;
    for (let r = 0; r < raised.rays.count; r++) {
      const i = raised.rays.pointIndex[r];
      expect(raised.rays.pointIndex[r]).toBe(origin.rays.pointIndex[r]);
      expect(gt[r]).toBeCloseTo(Math.hypot(pts.x[i], pts.y[i], pts.z[i] - 0.25), 4);
    }
  });

  it('refuses a sweep with no point in the region and an empty sweep, naming them', () => {
    const far = { x: Float32Array.of(100, 200), y: Float32Array.of(0, 0), z: Float32Array.of(0, 0) };
    expect(() => trainingFeeds(cfg, far, new Rng(1), false, 'log/a frame 2')).toThrow(
      /log\/a frame 2: no point inside/,
    );
    const empty = { x: new Float32Array(0), y: new Float32Array(0), z: new Float32Array(0) };
    expect(() => trainingFeeds(cfg, empty, new Rng(1), false, 'log/a frame 3')).toThrow(/frame 3/);
  });
});
