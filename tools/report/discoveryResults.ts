// The discovery results of docs/discovery.md: runs discovery on labelled logs (writing detections.arrow and
// tracks.arrow into them) and prints AP/DTC tables of raw clusters vs tracked + refined boxes, pooled.
// Usage: npx tsx tools/report/discoveryResults.ts [--min-track N] [--fov DEG] [--png FILE] <log>...
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { LogReader } from '../../datasets/logstore.ts';
import { discoverSweep } from '../../perception/discover.ts';
import { discoverLog, logSequence, resolvePipelineConfig } from '../../perception/discoverLog.ts';
import { evaluateSets, type EvalSet } from '../../perception/eval/evaluate.ts';
import { fillGtPointCounts } from '../commands/eval.ts';
import { apMarkdownTable, dtcMarkdownTable } from './apTable.ts';
import { renderBev } from './bevBoxes.ts';

const { values, positionals } = parseArgs({
  options: {
    'min-track': { type: 'string' },
    fov: { type: 'string' },
    png: { type: 'string' },
    'png-frame': { type: 'string' },
  },
  allowPositionals: true,
});
if (positionals.length === 0) {
  process.stderr.write('usage: discoveryResults.ts [--min-track N] [--fov DEG] [--png FILE] <log>...\n');
  process.exit(2);
}
const cfg = resolvePipelineConfig(
  values['min-track'] ? { refine: { minTrackFrames: Number(values['min-track']) } } : {},
);
const fov = values.fov ? Number(values.fov) / 2 : null;

const raw: EvalSet[] = [];
const refined: EvalSet[] = [];
const lines: string[] = [];
for (const [k, dir] of positionals.entries()) {
  const log = await LogReader.open(dir);
  try {
    const r = await discoverLog(log, cfg);
    await log.writeBoxes('detections', r.detections);
    await log.writeBoxes('tracks', r.tracks);
    const labels = log.readBoxes('labels');
    if (!labels) throw new Error(`${dir}: no labels.arrow to score against`);
    const gt = await fillGtPointCounts(labels, dir);
    const seq = logSequence(log);
    const ego = seq.poses ? { poses: seq.poses, timesS: seq.timesS! } : null;
    raw.push({ pred: r.detections, gt, ego });
    refined.push({ pred: r.tracks, gt, ego });
    const s = r.summary;
    lines.push(
      `- ${dir}: ${s.frames} frames, ground ${(100 * s.groundShare).toFixed(1)}%, ${s.detectionsPerFrame.toFixed(1)} raw boxes/frame, ` +
        `${s.refined.tracksKept}/${s.tracks} tracks kept${s.warnings.length ? ` (${s.warnings.join('; ')})` : ''}`,
    );
    if (values.png && k === 0) {
      const f = values['png-frame'] ? Number(values['png-frame']) : Math.floor(log.frameCount / 2);
      const frame = await log.readFrame(f);
      const sweep = discoverSweep(frame.points, cfg.sweep, f);
      fs.writeFileSync(
        values.png,
        renderBev(
          {
            x: frame.points.x,
            y: frame.points.y,
            isGround: sweep.isGround,
            clusterOf: sweep.clusterOf,
            gt: { boxes: gt, frame: f },
            pred: { boxes: r.tracks, frame: f },
          },
          { halfExtentM: 45, pixels: 900, title: `${log.meta.logId} frame ${f}` },
        ),
      );
    }
  } finally {
    await log.close();
  }
}
const evalCfg = { ap: { halfFovDeg: fov } };
const rows = [
  { name: '(a) raw clusters', report: evaluateSets(raw, evalCfg) },
  { name: '(b) tracked + refined', report: evaluateSets(refined, evalCfg) },
];
process.stdout.write(
  [
    lines.join('\n'),
    '',
    apMarkdownTable(rows),
    '',
    rows[0].report.dtc.frames > 0 ? dtcMarkdownTable(rows) : '(no DTC: no frame has a logged future)',
    '',
  ].join('\n'),
);
