// Detector ablation on real sensors: the shipped detector fine-tuned on synthetic logs, then with real unlabelled
// sequences, then with each sensor-gap augmentation, scored on every labelled real frame (eval:real).
// Usage: node --import tsx tools/report/detectorAblation.ts --synth LOG… --real LOG… --select LOG --out DIR
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type Boxes, selectBoxes } from '../../core/arrow/records.ts';
import { writeFileAtomic } from '../../core/atomic.ts';
import { makeDirs } from '../../core/dirs.ts';
import { InputError } from '../../core/errors.ts';
import { REPO_ROOT } from '../../core/paths.ts';
import { createProgress } from '../../core/progress.ts';
import { LogReader, readBoxesFile, writeBoxesFile } from '../../datasets/logstore.ts';
import {
  type DetectorConfig,
  type DetectorConfigInput,
  resolveDetectorConfig,
} from '../../perception/detector/config.ts';
import { Detector, readDetectorSpec } from '../../perception/detector/model.ts';
import { type TrainingFrame, trainDetector, trainingFrame } from '../../perception/detector/train.ts';
import { detectorParamsFromOnnx } from '../../perception/detector/warmStart.ts';
import { discoverLog, resolvePipelineConfig } from '../../perception/discoverLog.ts';
import { evaluateBoxes, evaluateSets } from '../../perception/eval/evaluate.ts';
import { detectLog } from '../../perception/selftrain.ts';
import { rowsByFrame, boxAt } from '../../core/arrow/records.ts';
import { SHIPPED_MODEL } from '../commands/detect.ts';
import { importRealSources, type LabelledLog, predict, realMarkdownTable, scoreRows } from './realEval.ts';

/** One ablation row: which logs it fine-tunes on and which augmentations/features it adds. */
export interface Variant {
  name: string;
  /** What the row adds over the one before, for the table. */
  adds: string;
  real: boolean;
  overrides: DetectorConfigInput;
}

/** The augmentation settings the rows switch on (each alone, then all together). */
export const GAP_SETTINGS: Record<string, DetectorConfigInput> = {
  intensity: { features: { intensityScale: 'quantile' } },
  beams: { augment: { beamHalving: { probability: 0.5 } } },
  dropout: { augment: { rangeDropout: { probability: 0.5 } } },
  height: { augment: { heightJitter: { stdM: 0.15 } } },
};

function merge(...parts: DetectorConfigInput[]): DetectorConfigInput {
  const out: DetectorConfigInput = {};
  for (const p of parts) {
    out.features = { ...out.features, ...p.features };
    out.augment = {
      ...out.augment,
      ...p.augment,
      beamHalving: { ...out.augment?.beamHalving, ...p.augment?.beamHalving },
      rangeDropout: { ...out.augment?.rangeDropout, ...p.augment?.rangeDropout },
      heightJitter: { ...out.augment?.heightJitter, ...p.augment?.heightJitter },
    };
  }
  return out;
}

export const VARIANTS: Variant[] = [
  { name: 'synth', adds: 'fine-tuned on synthetic logs only (control)', real: false, overrides: {} },
  { name: 'real', adds: '+ real unlabelled sequences', real: true, overrides: {} },
  {
    name: 'real+all',
    adds: '+ real + all four',
    real: true,
    overrides: merge(...Object.values(GAP_SETTINGS)),
  },
  ...Object.entries(GAP_SETTINGS).map(([k, o]) => ({
    name: `real+${k}`,
    adds: `+ real + ${k}`,
    real: true,
    overrides: o,
  })),
];

const USAGE = `usage: node --import tsx tools/report/detectorAblation.ts --synth LOG… --real LOG… --select LOG --out DIR
  [--steps N] [--lr X] [--crop CELLS] [--variants a,b] [--no-baselines] [--from ONNX] [--threads N] [--eval-dir DIR]

Fine-tunes a detector (--from, default the shipped models/detector.onnx) once per variant (${VARIANTS.map((v) => v.name).join(', ')}) on the
refined discovery tracks (near range) of the --synth logs and, for the "real" variants, of the --real logs;
scores each model on every labelled real frame (eval:real: pooled, KITTI object, AV2; AP 0–40, 40–80, 30–80 m)
and on the --select log's own refined tracks (pseudo-label agreement, AP 0–40 m; the choice is made on it,
never on the labelled frames). A rerun resumes from the checkpoints under --out.
`;

interface Opened {
  name: string;
  reader: LogReader;
  tracks: Boxes;
}

/** Each log with its refined discovery tracks (cached under out/seeds). */
async function openWithSeeds(dir: string, out: string): Promise<Opened> {
  if (!fs.existsSync(path.join(dir, 'meta.json'))) throw new InputError(dir, 'not a drivekit log');
  const reader = await LogReader.open(dir);
  const name = path.basename(path.resolve(dir));
  const file = path.join(out, 'seeds', `${name}.tracks.arrow`);
  if (fs.existsSync(file)) return { name, reader, tracks: await readBoxesFile(file) };
  const bar = createProgress(`discover ${name}`, reader.frameCount);
  const found = await discoverLog(reader, resolvePipelineConfig(), bar);
  bar.stop();
  await writeBoxesFile(file, found.tracks);
  return { name, reader, tracks: found.tracks };
}

async function framesOf(log: Opened, cfg: DetectorConfig): Promise<TrainingFrame[]> {
  const byFrame = rowsByFrame(log.tracks);
  const out: TrainingFrame[] = [];
  for (let i = 0; i < log.reader.frameCount; i += cfg.train.frameStride) {
    const f = await log.reader.readFrame(i);
    const boxes = (byFrame.get(i) ?? []).map((r) => ({
      ...boxAt(log.tracks, r),
      numPoints: log.tracks.numPoints[r],
    }));
    out.push(trainingFrame(f.points, boxes, cfg));
  }
  return out;
}

/** Boxes whose centre is within [lo, hi) m of the ego. */
function ringOf(b: Boxes, lo: number, hi: number): number[] {
  const keep: number[] = [];
  for (let i = 0; i < b.cx.length; i++) {
    const r = Math.hypot(b.cx[i], b.cy[i]);
    if (r >= lo && r < hi) keep.push(i);
  }
  return keep;
}

/** AP at BEV IoU 0.3 over 30–80 m, each set in its camera view (as eval:real scores). */
function ap30to80(logs: LabelledLog[], preds: Boxes[]): number | null {
  const sets = logs.map((l, k) => {
    const fov = l.source.halfFovDeg;
    const inView = (x: number, y: number) =>
      fov === null || Math.abs(Math.atan2(y, x)) <= (fov * Math.PI) / 180;
    const p = preds[k];
    const keep: number[] = [];
    for (let i = 0; i < p.cx.length; i++) if (inView(p.cx[i], p.cy[i])) keep.push(i);
    const ignore = new Uint8Array(l.gt.cx.length);
    for (let i = 0; i < ignore.length; i++) ignore[i] = inView(l.gt.cx[i], l.gt.cy[i]) ? 0 : 1;
    return { pred: selectBoxes(p, keep), gt: l.gt, ego: null, gtIgnore: ignore };
  });
  const r = evaluateSets(sets, {
    ap: { bevThresholds: [0.3], iou3dThresholds: [], bucketsM: [[30, 80]], halfFovDeg: null },
  });
  return r.ap.bev['0.3']['30-80'] ?? null;
}

interface Scores {
  variant: string;
  adds: string;
  model: string;
  /** Pseudo-label agreement on the --select log: AP (BEV 0.3, 0–40 m) against its refined tracks. */
  select_ap: number | null;
  rows: { dataset: string; ap: Record<string, number | null>; ap_30_80: number | null; recall: unknown }[];
  train_seconds?: number;
}

async function scoreModel(
  bytes: Uint8Array,
  file: string,
  logs: LabelledLog[],
  select: Opened,
  threads: number,
): Promise<Omit<Scores, 'variant' | 'adds'>> {
  const det = await Detector.fromBytes(bytes, file, { threads });
  try {
    const preds: Boxes[] = [];
    for (const l of logs) preds.push((await predict(l, ['detector'], { detector: det })).detector!);
    const rows = scoreRows(
      logs,
      preds.map((d) => ({ detector: d })),
      ['detector'],
      'all real frames',
    );
    const mine = await detectLog(det, select.reader);
    const near = selectBoxes(select.tracks, ringOf(select.tracks, 0, 40));
    const agree = evaluateBoxes(mine, near, null, {
      ap: { bevThresholds: [0.3], iou3dThresholds: [], bucketsM: [[0, 40]], halfFovDeg: null },
    });
    const apFar = (k: number[]) =>
      ap30to80(
        k.map((i) => logs[i]),
        k.map((i) => preds[i]),
      );
    const far = [apFar(logs.map((_, i) => i)), ...logs.map((_, i) => apFar([i]))];
    return {
      model: file,
      select_ap: agree.ap.bev['0.3']['0-40'] ?? null,
      rows: rows.map((r, i) => ({
        dataset: r.dataset,
        ap: r.score?.ap ?? {},
        ap_30_80: far[i] ?? null,
        recall: r.score?.recall,
      })),
    };
  } finally {
    await det.dispose();
  }
}

const pct = (v: number | null | undefined) => (v === null || v === undefined ? '–' : (100 * v).toFixed(1));

function ablationTable(all: Scores[]): string {
  const datasets = all[0].rows.map((r) => r.dataset);
  const head =
    '| detector | agreement 0048 | ' +
    datasets.map((d) => `${d.split(' (')[0]} 0–40 / 40–80 / 30–80 m`).join(' | ') +
    ' |';
  const sep = '|---|---:|' + datasets.map(() => '---:|').join('');
  const lines = all.map((s) => {
    const cells = s.rows.map((r) => `${pct(r.ap['0-40'])} / ${pct(r.ap['40-80'])} / ${pct(r.ap_30_80)}`);
    return `| ${s.adds} | ${pct(s.select_ap)} | ${cells.join(' | ')} |`;
  });
  return [head, sep, ...lines].join('\n');
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      synth: { type: 'string', multiple: true, default: [] },
      real: { type: 'string', multiple: true, default: [] },
      select: { type: 'string' },
      out: { type: 'string' },
      steps: { type: 'string', default: '800' },
      lr: { type: 'string', default: '0.0005' },
      crop: { type: 'string', default: '128' },
      'no-baselines': { type: 'boolean', default: false },
      from: { type: 'string', default: SHIPPED_MODEL },
      variants: { type: 'string' },
      threads: { type: 'string', default: '0' },
      'eval-dir': { type: 'string', default: path.join(REPO_ROOT, 'out', 'eval-real') },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return void process.stdout.write(USAGE);
  if (!values.out || !values.select || values.synth!.length === 0)
    throw new InputError('detectorAblation', 'needs --synth, --select and --out (see --help)');
  const steps = Number(values.steps);
  const lr = Number(values.lr);
  const threads = Number(values.threads);
  const cropCells = Number(values.crop);
  if (!(Number.isInteger(cropCells) && cropCells > 0 && cropCells % 8 === 0))
    throw new InputError('--crop', 'must be a positive multiple of 8 cells');
  if (!(Number.isInteger(steps) && steps > 0)) throw new InputError('--steps', 'must be a positive integer');
  if (!(lr > 0)) throw new InputError('--lr', 'must be a positive number');
  const out = path.resolve(values.out);
  makeDirs(path.join(out, 'seeds'));
  const wanted = values.variants?.split(',');
  const variants = VARIANTS.filter((v) => !wanted || wanted.includes(v.name));

  const fromFile = values.from!;
  if (!fs.existsSync(fromFile)) throw new InputError(fromFile, 'no such detector model (--from)');
  const shippedBytes = new Uint8Array(fs.readFileSync(fromFile));
  const spec = readDetectorSpec(shippedBytes, fromFile);
  const base = resolveDetectorConfig({
    grid: { rangeM: spec.rangeM, cellM: spec.cellM },
    features: spec.features,
    groundLevel: spec.groundLevel,
    network: spec.network,
    decode: spec.decode,
    train: { steps, lr, cropCells, warmupSteps: 50, threads, checkpointEvery: 100 },
  });
  const synth = [];
  for (const d of values.synth!) synth.push(await openWithSeeds(d, out));
  const real = [];
  for (const d of values.real!) real.push(await openWithSeeds(d, out));
  const select = await openWithSeeds(values.select, out);
  const trainNames = [...synth, ...real].map((l) => l.name);
  if (trainNames.includes(select.name))
    throw new InputError(values.select, 'the selection log is also a training log');
  const synthFrames = (await Promise.all(synth.map((l) => framesOf(l, base)))).flat();
  const realFrames = (await Promise.all(real.map((l) => framesOf(l, base)))).flat();

  const logs = await importRealSources(values['eval-dir']!);
  const results: Scores[] = [];
  const resultsFile = path.join(out, 'results.json');
  const save = async (extra: Record<string, unknown>) =>
    writeFileAtomic(
      resultsFile,
      JSON.stringify(
        { steps, lr, cropCells, synth: values.synth, real: values.real, ...extra, results },
        null,
        1,
      ) + '\n',
    );
  // The baselines and the shipped row once per ablation (a second process running other variants skips them).
  const baselines: Awaited<ReturnType<typeof predict>>[] = [];
  let baseRows: ReturnType<typeof scoreRows> = [];
  let baseFar: { method: string; pooled: number | null; per: (number | null)[] }[] = [];
  if (!values['no-baselines']) {
    for (const l of logs) baselines.push(await predict(l, ['dbscan', 'detections']));
    baseRows = scoreRows(logs, baselines, ['dbscan', 'detections'], 'all real frames');
    baseFar = (['dbscan', 'detections'] as const).map((m) => ({
      method: m,
      pooled: ap30to80(
        logs,
        baselines.map((b) => b[m]!),
      ),
      per: logs.map((l, i) => ap30to80([l], [baselines[i][m]!])),
    }));
    results.push({
      variant: 'shipped',
      adds: `starting model (${path.basename(fromFile)})`,
      ...(await scoreModel(shippedBytes, fromFile, logs, select, threads)),
    });
    await save({ baselines: baseRows, baselines_30_80: baseFar });
  }
  const initFrom = detectorParamsFromOnnx(shippedBytes, fromFile);
  for (const v of variants) {
    const cfg = resolveDetectorConfig(merge(v.overrides), base);
    const frames = v.real ? [...synthFrames, ...realFrames] : synthFrames;
    const dir = path.join(out, v.name);
    makeDirs(dir);
    const trained = await trainDetector(frames, cfg, {
      checkpointPath: path.join(dir, 'checkpoint.safetensors'),
      progress: `train ${v.name}`,
      initFrom,
      trainingInfo: {
        finetunedFrom: path.basename(fromFile),
        variant: v.name,
        logs: v.real ? trainNames : synth.map((l) => l.name),
        labelRangeM: cfg.targets.labelRangeM,
      },
    });
    const file = path.join(dir, 'detector.onnx');
    await writeFileAtomic(file, trained.onnx);
    results.push({
      variant: v.name,
      adds: v.adds,
      train_seconds: trained.seconds,
      ...(await scoreModel(trained.onnx, file, logs, select, threads)),
    });
    await save({ baselines: baseRows, baselines_30_80: baseFar });
    process.stderr.write(`${v.name}: done (${trained.seconds.toFixed(0)} s)\n`);
  }
  const md = [
    baseRows.length ? realMarkdownTable(baseRows) : '',
    '',
    'DBSCAN / discovery AP 30–80 m (pooled, per dataset): ' +
      baseFar.map((b) => `${b.method} ${pct(b.pooled)} (${b.per.map(pct).join(', ')})`).join('; '),
    '',
    ablationTable(results),
    '',
  ].join('\n');
  await writeFileAtomic(path.join(out, 'table.md'), md);
  process.stdout.write(md);
  for (const l of [...synth, ...real, select]) await l.reader.close();
}

main().catch((e: unknown) => {
  process.stderr.write(`detectorAblation: ${e instanceof Error ? e.message : String(e)}\n`);
  process.exitCode = 1;
});
