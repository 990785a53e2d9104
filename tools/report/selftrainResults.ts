// The detector results of docs/detector.md: on labelled logs never trained on, AP by range (0–40 m where
// the seed labels live, 40–80 m beyond them; then the evaluation's 0–30/30–50/50–80 m) and DTC for clustering
// (40 m, and 80 m for a fair long-range baseline), refined tracks, and each given detector model (raw, and
// tracked + refined), pooled over logs.
// Usage: npx tsx tools/report/selftrainResults.ts [--fov DEG] [--range M] [--model NAME=FILE]... <log>...
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import type { Boxes } from '../../core/arrow/records.ts';
import { createProgress } from '../../core/progress.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { Detector } from '../../perception/detector/model.ts';
import { discoverLog, logSequence, resolvePipelineConfig } from '../../perception/discoverLog.ts';
import { DEFAULT_AP_CONFIG } from '../../perception/eval/ap.ts';
import { type EvalSet, evaluateSets } from '../../perception/eval/evaluate.ts';
import { DEFAULT_SELFTRAIN_CONFIG, detectLog, labelsFromDetections } from '../../perception/selftrain.ts';
import { fillGtPointCounts } from '../commands/eval.ts';
import { selfTrainMarkdownTable, type TableRow } from './selftrainTable.ts';

const { values, positionals } = parseArgs({
  options: {
    fov: { type: 'string' },
    range: { type: 'string' },
    model: { type: 'string', multiple: true },
    json: { type: 'string' },
  },
  allowPositionals: true,
});
if (positionals.length === 0) {
  process.stderr.write(
    'usage: selftrainResults.ts [--fov DEG] [--range M] [--model NAME=FILE]... [--json OUT] <log>...\n',
  );
  process.exit(2);
}
/** The self-training split (seed range and beyond), then the evaluation's default buckets (issue 7's). */
const bucketSets = [DEFAULT_SELFTRAIN_CONFIG.evalBucketsM, DEFAULT_AP_CONFIG.bucketsM];
const halfFovDeg = values.fov ? Number(values.fov) / 2 : null;
const models = (values.model ?? []).map((m) => {
  const eq = m.indexOf('=');
  return { name: m.slice(0, eq), file: m.slice(eq + 1) };
});
const rangeM = values.range ? Number(values.range) : undefined;

/** Per row name, one EvalSet per log. */
const sets = new Map<string, EvalSet[]>();
const add = (name: string, s: EvalSet) => {
  if (!sets.has(name)) sets.set(name, []);
  sets.get(name)!.push(s);
};
const near = resolvePipelineConfig();
const far = resolvePipelineConfig({ cluster: { rangeM: 80 } });
const single = (log: LogReader) => log.frameCount < near.refine.minTrackFrames;
for (const dir of positionals) {
  const log = await LogReader.open(dir);
  try {
    const labels = log.readBoxes('labels');
    if (!labels) throw new Error(`${dir}: no labels.arrow to score against`);
    const gt = await fillGtPointCounts(labels, dir);
    const seq = logSequence(log);
    const ego = seq.poses ? { poses: seq.poses, timesS: seq.timesS! } : null;
    const withPred = (pred: Boxes): EvalSet => ({ pred, gt, ego });
    const a = await discoverLog(log, near);
    const b = await discoverLog(log, far);
    add('clustering (40 m, the seeds)', withPred(a.detections));
    add('clustering (80 m)', withPred(b.detections));
    // Single frames cannot be tracked: refinement needs a sequence.
    if (!single(log)) add('refined tracks (training labels of round 1)', withPred(a.tracks));
    for (const m of models) {
      const det = await Detector.load(m.file, { rangeM });
      try {
        const bar = createProgress(`${m.name} ${dir}`, log.frameCount);
        const boxes = await detectLog(det, log, bar);
        bar.stop();
        add(`detector ${m.name}`, withPred(boxes));
        if (!single(log))
          add(
            `detector ${m.name} + tracks`,
            withPred(labelsFromDetections(boxes, log, DEFAULT_SELFTRAIN_CONFIG)),
          );
      } finally {
        await det.dispose();
      }
    }
  } finally {
    await log.close();
  }
}
const tables = bucketSets.map((bucketsM) => ({
  bucketsM,
  rows: [...sets].map(([name, s]): TableRow => ({
    name,
    report: evaluateSets(s, { ap: { bucketsM, halfFovDeg } }),
  })),
}));
if (values.json) fs.writeFileSync(values.json, JSON.stringify(tables, null, 1) + '\n');
process.stdout.write(tables.map((t) => selfTrainMarkdownTable(t.rows, t.bucketsM)).join('\n\n') + '\n');
