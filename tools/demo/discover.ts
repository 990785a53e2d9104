// Demo step: unsupervised object discovery (OYSTER's seed labels) on the synthetic log — raw clusters and
// refined tracks written into it and scored against its exact labels — and on the real KITTI sequence.
import fs from 'node:fs';
import path from 'node:path';
import { createProgress } from '../../core/progress.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { baselineLog } from '../../perception/baseline.ts';
import { discoverSweep } from '../../perception/discover.ts';
import { discoverLog, logSequence, resolvePipelineConfig } from '../../perception/discoverLog.ts';
import { evaluateBoxes, type EvalReport } from '../../perception/eval/evaluate.ts';
import { Detector } from '../../perception/detector/model.ts';
import { SHIPPED_MODEL } from '../commands/detect.ts';
import { apMarkdownTable, dtcMarkdownTable } from '../report/apTable.ts';
import { importRealSources, METHODS, predict, realMarkdownTable, scoreRows } from '../report/realEval.ts';
import { renderBev } from '../report/bevBoxes.ts';
import type { DemoContext, DemoStep } from './context.ts';

async function discoverInto(ctx: DemoContext, role: string) {
  const entry = ctx.logs.get(role);
  if (!entry) return null;
  const cfg = resolvePipelineConfig();
  const log = await LogReader.open(entry.dir);
  try {
    const bar = createProgress(`discover ${role}`, log.frameCount);
    const result = await discoverLog(log, cfg, bar);
    bar.stop();
    await log.writeBoxes('detections', result.detections);
    await log.writeBoxes('tracks', result.tracks);
    let raw: EvalReport | null = null;
    let refined: EvalReport | null = null;
    let dbscan: EvalReport | null = null;
    const labels = log.readBoxes('labels');
    if (labels) {
      const seq = logSequence(log);
      const ego = { poses: Float64Array.from(log.poses), timesS: seq.timesS! };
      // The classical baseline beside discovery, so no change can silently fall below it.
      dbscan = evaluateBoxes(await baselineLog(log), labels, ego);
      raw = evaluateBoxes(result.detections, labels, ego);
      refined = evaluateBoxes(result.tracks, labels, ego);
    }
    // A BEV picture of the middle frame: points, ground truth, refined tracks.
    const f = Math.floor(log.frameCount / 2);
    const frame = await log.readFrame(f);
    const sweep = discoverSweep(frame.points, cfg.sweep, f);
    const png = path.join(ctx.outDir, `discover-${role}-bev.png`);
    fs.writeFileSync(
      png,
      renderBev(
        {
          x: frame.points.x,
          y: frame.points.y,
          isGround: sweep.isGround,
          clusterOf: sweep.clusterOf,
          gt: labels ? { boxes: labels, frame: f } : null,
          pred: { boxes: result.tracks, frame: f },
        },
        { halfExtentM: 45, pixels: 900, title: `${role} frame ${f}` },
      ),
    );
    return { summary: result.summary, raw, refined, dbscan, png: path.basename(png) };
  } finally {
    await log.close();
  }
}

export const discover: DemoStep = {
  name: 'discover objects',
  async run(ctx) {
    const parts: string[] = [];
    const syn = await discoverInto(ctx, 'synthetic');
    if (!syn) parts.push('No synthetic log in this run: discovery on it skipped.');
    else {
      const s = syn.summary;
      parts.push(
        `Synthetic log: ${s.frames} frames, ${(100 * s.groundShare).toFixed(1)}% of points removed as ground, ` +
          `${s.detections} raw boxes (${s.detectionsPerFrame.toFixed(1)} per frame), ${s.tracks} tracks of which ` +
          `${s.refined.tracksKept} kept after refinement (${s.seconds.toFixed(1)} s).`,
      );
      if (syn.raw && syn.refined && syn.dbscan) {
        const rows = [
          { name: 'DBSCAN baseline', report: syn.dbscan },
          { name: 'raw clusters', report: syn.raw },
          { name: 'tracked + refined', report: syn.refined },
        ];
        parts.push('AP (%, class-agnostic) against the exact labels:\n\n' + apMarkdownTable(rows));
        parts.push(
          `Distance-to-collision (${syn.raw.dtc.horizon_s.toFixed(1)} s of the logged ego path):\n\n` +
            dtcMarkdownTable(rows),
        );
        const before = syn.raw.ap.bev['0.3'].all;
        const after = syn.refined.ap.bev['0.3'].all;
        if (before !== null && after !== null) {
          ctx.figures['discovery AP BEV@0.3 raw → refined'] =
            `${(100 * before).toFixed(1)} → ${(100 * after).toFixed(1)}`;
        }
      }
      parts.push(
        `![BEV of one synthetic frame: points, ground truth (green), discovered tracks (red)](${syn.png})`,
      );
    }
    const kitti = await discoverInto(ctx, 'kitti');
    if (kitti) {
      const s = kitti.summary;
      parts.push(
        `Real KITTI 0048 (no labels): ${(100 * s.groundShare).toFixed(1)}% of points removed as ground, ` +
          `${s.detectionsPerFrame.toFixed(1)} raw boxes per frame, ${s.refined.tracksKept} refined tracks ` +
          `(${s.refined.movingTracks} moving).\n\n![BEV of one KITTI frame](${kitti.png})`,
      );
    }
    parts.push(await realFrames(ctx));
    ctx.report.push({ title: 'Object discovery (OYSTER seed labels)', body: parts.join('\n\n') });
  },
};

/** The labelled real frames (KITTI object, AV2) as `npm run eval:real` scores them: DBSCAN, discovery, detector. */
async function realFrames(ctx: DemoContext): Promise<string> {
  const logs = await importRealSources(path.join(ctx.outDir, 'eval-real'), true);
  if (logs.length === 0) return 'No labelled real frames in ../shared/data: the real-data table is skipped.';
  const detector = fs.existsSync(SHIPPED_MODEL) ? await Detector.load(SHIPPED_MODEL) : null;
  try {
    const preds = [];
    for (const l of logs) preds.push(await predict(l, METHODS, { detector }));
    return (
      'Labelled real frames (`npm run eval:real`; AP in %, BEV IoU 0.3, all classes):\n\n' +
      realMarkdownTable(scoreRows(logs, preds, METHODS, 'all real frames'))
    );
  } finally {
    await detector?.dispose();
  }
}
