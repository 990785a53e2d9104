// `npm run eval:real`: every labelled real frame in ../shared/data (KITTI object, AV2), imported as a user
// would, scored for the DBSCAN baseline, raw discovery, refined tracks and the shipped detector (issue 18).
// Usage: node --import tsx tools/report/evalReal.ts [--out DIR] [--config JSON] [--no-detector] [--json]
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { InputError } from '../../core/errors.ts';
import { REPO_ROOT, sharedDataDir } from '../../core/paths.ts';
import { createProgress } from '../../core/progress.ts';
import { Detector } from '../../perception/detector/model.ts';
import { readPipelineConfig } from '../commands/discover.ts';
import { SHIPPED_MODEL } from '../commands/detect.ts';
import {
  importRealSources,
  type Method,
  METHODS,
  predict,
  realMarkdownTable,
  scoreRows,
} from './realEval.ts';

const USAGE = `usage: npm run eval:real -- [--out DIR] [--config JSON] [--model ONNX] [--no-detector] [--json]

Scores every labelled real frame in ${sharedDataDir()} (KITTI object: 3 frames in the camera's ±45°;
AV2: 2 sweeps, all around) with the protocol of issue 18: class-agnostic AP at BEV IoU 0.3 for 0–40 m and
40–80 m, pooled over the frames and per data set, and recall per class group (car, pedestrian, cyclist,
other) at 0–80 m (ground truth matched by any box). Methods: the DBSCAN baseline (drivekit discover
--method dbscan), raw discovery (detections), tracked + refined discovery (AV2 only: a sequence), the
detector (default models/detector.onnx).

  --out DIR       where the imported logs go (default out/eval-real)
  --config JSON   discovery overrides, as drivekit discover --config
  --model ONNX    detector model (default the shipped one)
  --no-detector   leave the detector out
  --json          print {rows: [{dataset, method, ap, recall, gt, frames, predictions}]} on stdout
`;

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: path.join(REPO_ROOT, 'out', 'eval-real') },
    config: { type: 'string' },
    model: { type: 'string', default: SHIPPED_MODEL },
    'no-detector': { type: 'boolean', default: false },
    json: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  },
});

async function main(): Promise<void> {
  if (values.help) {
    process.stdout.write(USAGE);
    return;
  }
  const discover = readPipelineConfig(values.config);
  const methods: Method[] = METHODS.filter((m) => m !== 'detector' || !values['no-detector']);
  if (methods.includes('detector') && !fs.existsSync(values.model!))
    throw new InputError(values.model!, 'no such detector model (or pass --no-detector)');
  const logs = await importRealSources(values.out!);
  if (logs.length === 0)
    throw new InputError(sharedDataDir(), 'no labelled real data here (kitti-object, av2-7fab2350)');
  const detector = methods.includes('detector') ? await Detector.load(values.model!) : null;
  const bar = createProgress('eval real', logs.length, { silent: values.json });
  const preds = [];
  try {
    for (const l of logs) {
      preds.push(await predict(l, methods, { discover, detector }));
      bar.tick(1, l.source.name);
    }
  } finally {
    bar.stop();
    await detector?.dispose();
  }
  const rows = scoreRows(logs, preds, methods, 'all real frames');
  if (values.json) {
    const out = rows.map((r) => ({ dataset: r.dataset, method: r.method, ...(r.score ?? { score: null }) }));
    process.stdout.write(JSON.stringify({ protocol: 'BEV IoU 0.3, class-agnostic', rows: out }) + '\n');
    return;
  }
  process.stdout.write(
    [
      `Real labelled frames (${logs.map((l) => l.dir).join(', ')}); AP in %, BEV IoU 0.3, all classes;`,
      'recall = ground truth at 0–80 m matched by any box / ground truth of that group.',
      '',
      realMarkdownTable(rows),
      '',
    ].join('\n'),
  );
}

main().catch((e: unknown) => {
  process.stderr.write(`eval:real: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
