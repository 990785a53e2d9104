// Demo step: OYSTER's self-training on the synthetic log — a short detect → track → refine → retrain run
// from scratch (minutes on 2 cores; skipped with --quick) and the shipped model (trained on other seeds),
// each scored by range against the exact labels, as one per-round table.
import fs from 'node:fs';
import path from 'node:path';
import { createProgress } from '../../core/progress.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { resolveDetectorConfig } from '../../perception/detector/config.ts';
import { Detector } from '../../perception/detector/model.ts';
import {
  DEFAULT_SELFTRAIN_CONFIG,
  detectLog,
  labelsFromDetections,
  scoreOnLogs,
  type SelfTrainConfig,
  type SelfTrainLog,
  selfTrain,
} from '../../perception/selftrain.ts';
import { SHIPPED_MODEL } from '../commands/detect.ts';
import { selfTrainMarkdownTable, type TableRow } from '../report/selftrainTable.ts';
import type { DemoStep } from './context.ts';

/** The short run on one log: 3 rounds, fewer steps than docs/detector.md's (3000 + 1500 + 1500 on 5 logs). */
export const DEMO_SELFTRAIN = {
  rounds: 3,
  steps: 1200,
  laterSteps: 400,
  cropCells: 256,
  batchSize: 4,
} as const;

export const selftrainDemo: DemoStep = {
  name: 'selftrain: self-train the detector',
  async run(ctx) {
    // `demo --steps selftrain` alone reuses the synthetic log an earlier run left in the same folder.
    const left = path.join(ctx.outDir, 'synthetic');
    const dir =
      ctx.logs.get('synthetic')?.dir ?? (fs.existsSync(path.join(left, 'meta.json')) ? left : undefined);
    if (!dir) {
      ctx.report.push({ title: 'Self-trained detector', body: 'No synthetic log in this run: skipped.' });
      return;
    }
    const reader = await LogReader.open(dir);
    const log: SelfTrainLog = { name: 'synthetic', reader };
    const buckets = DEFAULT_SELFTRAIN_CONFIG.evalBucketsM;
    const rows: TableRow[] = [];
    const notes: string[] = [];
    try {
      if (!ctx.quick) {
        const cfg: SelfTrainConfig = {
          ...DEFAULT_SELFTRAIN_CONFIG,
          rounds: DEMO_SELFTRAIN.rounds,
          laterSteps: DEMO_SELFTRAIN.laterSteps,
          detector: resolveDetectorConfig({
            train: {
              steps: DEMO_SELFTRAIN.steps,
              cropCells: DEMO_SELFTRAIN.cropCells,
              batchSize: DEMO_SELFTRAIN.batchSize,
            },
          }),
        };
        const t0 = Date.now();
        // A demo run starts afresh, so that the time it reports is that of a whole run.
        const outDir = path.join(ctx.outDir, 'selftrain');
        fs.rmSync(outDir, { recursive: true, force: true });
        const res = await selfTrain([log], cfg, { outDir });
        for (const r of res.rows)
          rows.push({ name: r.round > 0 ? `${r.method}, round ${r.round}` : r.method, report: r.report });
        notes.push(
          `Short self-training from scratch on this log: ${cfg.rounds} rounds of ${DEMO_SELFTRAIN.steps}, then ` +
            `${DEMO_SELFTRAIN.laterSteps} steps (${DEMO_SELFTRAIN.batchSize} crops of ${DEMO_SELFTRAIN.cropCells}² cells) ` +
            `in ${((Date.now() - t0) / 1000).toFixed(0)} s; round 1 learns from the refined tracks within ` +
            `${cfg.detector.targets.labelRangeM} m only. Its grid is the default ±${cfg.detector.grid.rangeM} m, so ` +
            `40–80 m is only partly in view. Model: \`${res.modelPath}\`.`,
        );
      } else {
        // Quick runs skip training; the discovery step left its boxes in the log.
        for (const [name, file] of [
          ['clustering', 'detections'],
          ['refined tracks', 'tracks'],
        ] as const) {
          const b = reader.readBoxes(file);
          const report = b ? scoreOnLogs([{ log, boxes: b }], buckets) : null;
          if (report) rows.push({ name, report });
        }
      }
      if (fs.existsSync(SHIPPED_MODEL)) {
        const det = await Detector.load(SHIPPED_MODEL);
        try {
          const trained = det.spec.training as { logs?: string[]; round?: number; finetunedFrom?: string };
          const bar = createProgress('detect (shipped model)', reader.frameCount);
          const boxes = await detectLog(det, reader, bar);
          bar.stop();
          const tracked = labelsFromDetections(boxes, reader, DEFAULT_SELFTRAIN_CONFIG);
          const a = scoreOnLogs([{ log, boxes }], buckets);
          const b = scoreOnLogs([{ log, boxes: tracked }], buckets);
          if (a) rows.push({ name: 'shipped model', report: a });
          if (b) rows.push({ name: 'shipped model + tracks', report: b });
          notes.push(
            `Shipped model \`models/detector.onnx\`: ${trained.finetunedFrom ? 'self-trained, then fine-tuned' : `self-trained (round ${trained.round ?? '?'})`} on ` +
              `${(trained.logs ?? []).join(', ') || 'other logs'} — never on this log; run at ±${det.rangeM} m.`,
          );
        } finally {
          await det.dispose();
        }
      } else notes.push('No shipped model (models/detector.onnx) found.');
    } finally {
      await reader.close();
    }
    const body = rows.length
      ? `AP (%) against the exact labels by range, and distance-to-collision:\n\n${selfTrainMarkdownTable(rows, buckets)}\n\n${notes.join('\n\n')}`
      : notes.join('\n\n');
    ctx.report.push({ title: 'Self-trained detector (OYSTER detect → track → refine → retrain)', body });
  },
};
