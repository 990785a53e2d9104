// OYSTER's self-training loop (Zhang et al., CVPR 2023): near-range discovery → tracks → refined seed
// labels → train the BEV detector → detect on every frame at all ranges → track → refine → retrain, R rounds,
// with AP by range and DTC after each round wherever a log has ground truth.
import fs from 'node:fs';
import path from 'node:path';
import { type Boxes, boxAt, concatBoxes, rowsByFrame, selectBoxes } from '../core/arrow/records.ts';
import { writeFileAtomic } from '../core/atomic.ts';
import { countPointsInBox } from '../core/geometry/box.ts';
import { createProgress, type Progress } from '../core/progress.ts';
import { type LogReader, writeBoxesFile } from '../datasets/logstore.ts';
import { type DetectorConfig, DEFAULT_DETECTOR_CONFIG } from './detector/config.ts';
import { Detector } from './detector/model.ts';
import { type TrainingFrame, trainDetector, trainingFrame } from './detector/train.ts';
import { discoverLog, logSequence, type PipelineConfig, resolvePipelineConfig } from './discoverLog.ts';
import { type EvalReport, type EvalSet, evaluateSets } from './eval/evaluate.ts';
import { refineTracks } from './refine.ts';
import { trackBoxes } from './track.ts';
import type { ConfigRanges } from '../core/configSchema.ts';
import { InputError } from '../core/errors.ts';
import { makeDirs } from '../core/dirs.ts';

export interface SelfTrainConfig {
  /** Train → detect → track → refine rounds (OYSTER: a few; default 3). */
  rounds: number;
  detector: DetectorConfig;
  /** Discovery (seed labels) and the tracking + refinement applied to every round's detections. */
  pipeline: PipelineConfig;
  /**
   * Label range of the rounds after the first, whose labels come from the detector at all ranges
   * (null: the whole grid). The first round uses detector.targets.labelRangeM (near range, 40 m).
   */
  laterLabelRangeM: number | null;
  /**
   * Labels of the rounds after the first: 'detector' — the previous round's detections, tracked and
   * refined, at every range (OYSTER); 'seeds+far' — the discovery seeds where they exist (within the
   * first round's label range) and the detector's tracked boxes only beyond it.
   */
  laterLabels: 'detector' | 'seeds+far';
  /** Detections below this score are left out of the tracks that become the next round's labels. */
  labelScoreThreshold: number;
  /** Optimizer steps of the rounds after the first (null: detector.train.steps). */
  laterSteps: number | null;
  /**
   * Peak learning rate of the later rounds as a share of round 1's: they fine-tune a trained detector on
   * labels it made itself, and a full restart of the schedule lets it drift towards its own mistakes.
   */
  laterLrScale: number;
  /** Start each later round from the previous round's weights (fine-tune) instead of from scratch. */
  warmStart: boolean;
  /** Range buckets of the AP table (the near range the seeds cover, and beyond it). */
  evalBucketsM: [number, number][];
}

export const DEFAULT_SELFTRAIN_CONFIG: SelfTrainConfig = {
  rounds: 3,
  detector: DEFAULT_DETECTOR_CONFIG,
  pipeline: resolvePipelineConfig(),
  laterLabelRangeM: null,
  labelScoreThreshold: 0.4,
  laterSteps: 1500,
  laterLrScale: 0.25,
  laterLabels: 'seeds+far',
  warmStart: true,
  evalBucketsM: [
    [0, 40],
    [40, 80],
  ],
};

/** Allowed values of the self-training fields (the detector and pipeline sections have their own). */
export const SELFTRAIN_CONFIG_RANGES: ConfigRanges<Omit<SelfTrainConfig, 'detector' | 'pipeline'>> = {
  rounds: { integer: true, min: 1 },
  laterLabelRangeM: { above: 0, nullable: true, type: 'number' },
  laterLabels: { oneOf: ['detector', 'seeds+far'] },
  labelScoreThreshold: { min: 0, max: 1 },
  laterSteps: { integer: true, min: 1, nullable: true },
  laterLrScale: { above: 0 },
};

/** A log taking part: its reader and a short name for tables. */
export interface SelfTrainLog {
  name: string;
  reader: LogReader;
  /** Ground truth to score against (default: the log's labels.arrow, if any); only ever used to score. */
  groundTruth?: Boxes | null;
}

/** One row of the per-round table: a method's boxes scored on one set of logs. */
export interface SelfTrainRow {
  /** 'clustering', 'refined tracks', 'detector', 'detector + tracks'. */
  method: string;
  /** Round (1-based) for detector rows; 0 for the discovery baselines. */
  round: number;
  /** 'train' (the logs self-trained on, auto-labelling) or 'held-out' (logs never trained on). */
  set: 'train' | 'held-out';
  report: EvalReport;
}

export interface SelfTrainRound {
  round: number;
  modelPath: string;
  steps: number;
  resumedFrom: number | null;
  trainSeconds: number;
  framesPerS: number;
  /** Labels this round trained on (boxes over all train logs). */
  labelBoxes: number;
  finalLoss: number | null;
}

export interface SelfTrainResult {
  rows: SelfTrainRow[];
  rounds: SelfTrainRound[];
  /** The last round's model (also copied to `<outDir>/detector.onnx`). */
  modelPath: string;
}

export interface SelfTrainOptions {
  /** Models, checkpoints and the results JSON go here; a rerun resumes from its checkpoints. */
  outDir: string;
  /** Logs to also detect on and score each round, never trained on. */
  evalLogs?: SelfTrainLog[];
  /** Progress bars (default true). */
  progress?: boolean;
  /** A line of news (round starts, tables). */
  log?: (line: string) => void;
  /** Write the final labels and detections into each training log (selftrain_labels / selftrain_detections). */
  writeToLogs?: boolean;
}

/** Ground-truth boxes of a log, or null when it has none. */
function groundTruth(reader: LogReader): Boxes | null {
  return reader.hasBoxes('labels') ? reader.readBoxes('labels') : null;
}

/** Track boxes over a log and refine the tracks into consistent labels (perception/track + refine). */
export function trackAndRefine(boxes: Boxes, reader: LogReader, cfg: PipelineConfig): Boxes {
  const seq = logSequence(reader);
  const tracked = trackBoxes(boxes, seq, cfg.tracker);
  return refineTracks(tracked.boxes, seq, cfg.refine).boxes;
}

/** The detector on every frame of a log; each box's point count is filled in (labels filter on it). */
export async function detectLog(detector: Detector, reader: LogReader, progress?: Progress): Promise<Boxes> {
  const parts: Boxes[] = [];
  for await (const f of reader.iterFrames()) {
    const b = await detector.detect(f.points, f.frameIndex);
    for (let i = 0; i < b.cx.length; i++)
      b.numPoints[i] = countPointsInBox(boxAt(b, i), f.points.x, f.points.y, f.points.z);
    parts.push(b);
    progress?.tick(1, `${b.cx.length} boxes`);
  }
  return concatBoxes(parts);
}

/** The next round's labels from a round's detections: those scoring ≥ labelScoreThreshold, tracked, refined. */
export function labelsFromDetections(
  detections: Boxes,
  reader: LogReader,
  cfg: Pick<SelfTrainConfig, 'labelScoreThreshold' | 'pipeline'>,
): Boxes {
  return trackAndRefine(aboveScore(detections, cfg.labelScoreThreshold), reader, cfg.pipeline);
}

/** Boxes whose centre lies beyond `rangeM` of the ego (BEV). */
function beyondRange(b: Boxes, rangeM: number): Boxes {
  const keep: number[] = [];
  for (let i = 0; i < b.cx.length; i++) if (Math.hypot(b.cx[i], b.cy[i]) > rangeM) keep.push(i);
  return selectBoxes(b, keep);
}

/** Boxes with score ≥ `minScore`. */
function aboveScore(b: Boxes, minScore: number): Boxes {
  const keep: number[] = [];
  for (let i = 0; i < b.cx.length; i++) if (b.score[i] >= minScore) keep.push(i);
  return selectBoxes(b, keep);
}

/** Training frames of a log with its labels (every `stride`-th frame). */
async function trainingFrames(
  reader: LogReader,
  labels: Boxes,
  cfg: DetectorConfig,
): Promise<TrainingFrame[]> {
  const byFrame = rowsByFrame(labels);
  const out: TrainingFrame[] = [];
  for (let i = 0; i < reader.frameCount; i += Math.max(1, cfg.train.frameStride)) {
    const f = await reader.readFrame(i);
    const rows = byFrame.get(i) ?? [];
    const boxes = rows.map((r) => ({ ...boxAt(labels, r), numPoints: labels.numPoints[r] }));
    out.push(trainingFrame(f.points, boxes, cfg));
  }
  return out;
}

/**
 * Score boxes of several logs against their ground truth, pooled (one PR curve, DTC over all frames), with
 * AP by the range buckets `bucketsM`; null when no log has ground truth.
 */
export function scoreOnLogs(
  perLog: { log: SelfTrainLog; boxes: Boxes }[],
  bucketsM: [number, number][] = DEFAULT_SELFTRAIN_CONFIG.evalBucketsM,
): EvalReport | null {
  const sets: EvalSet[] = [];
  for (const { log, boxes } of perLog) {
    const gt = log.groundTruth === undefined ? groundTruth(log.reader) : log.groundTruth;
    if (!gt) continue;
    const seq = logSequence(log.reader);
    sets.push({ pred: boxes, gt, ego: seq.poses ? { poses: seq.poses, timesS: seq.timesS! } : null });
  }
  return sets.length ? evaluateSets(sets, { ap: { bucketsM } }) : null;
}

/**
 * Run the self-training loop on `logs` (their ground truth, when present, is only ever used to score).
 * Returns every table row and round summary; models and checkpoints are under `opts.outDir`.
 */
export async function selfTrain(
  logs: SelfTrainLog[],
  cfg: SelfTrainConfig = DEFAULT_SELFTRAIN_CONFIG,
  opts: SelfTrainOptions,
): Promise<SelfTrainResult> {
  if (logs.length === 0) throw new Error('selfTrain: no logs');
  const say = opts.log ?? (() => {});
  const evalLogs = opts.evalLogs ?? [];
  makeDirs(path.join(opts.outDir, 'seeds'));
  const names = [...logs, ...evalLogs].map((l) => l.name);
  if (new Set(names).size !== names.length)
    throw new Error(`selfTrain: log names must differ (${names.join(', ')})`);
  const rows: SelfTrainRow[] = [];
  const addRows = (
    method: string,
    round: number,
    train: Map<SelfTrainLog, Boxes>,
    held: Map<SelfTrainLog, Boxes>,
  ) => {
    for (const [set, m] of [
      ['train', train],
      ['held-out', held],
    ] as const) {
      const report = scoreOnLogs(
        [...m].map(([log, boxes]) => ({ log, boxes })),
        cfg.evalBucketsM,
      );
      if (report) rows.push({ method, round, set, report });
    }
  };

  // Seeds: discovery and refined tracks on every log (the held-out ones only to score the baselines).
  const clusters = new Map<SelfTrainLog, Boxes>();
  const refined = new Map<SelfTrainLog, Boxes>();
  for (const log of [...logs, ...evalLogs]) {
    const bar =
      opts.progress === false ? undefined : createProgress(`discover ${log.name}`, log.reader.frameCount);
    const found = await discoverLog(log.reader, cfg.pipeline, bar);
    bar?.stop();
    clusters.set(log, found.detections);
    refined.set(log, found.tracks);
    await writeBoxesFile(path.join(opts.outDir, 'seeds', `${log.name}.clusters.arrow`), found.detections);
    await writeBoxesFile(path.join(opts.outDir, 'seeds', `${log.name}.tracks.arrow`), found.tracks);
  }
  const isTrain = (l: SelfTrainLog) => logs.includes(l);
  const split = (m: Map<SelfTrainLog, Boxes>) =>
    [new Map([...m].filter(([l]) => isTrain(l))), new Map([...m].filter(([l]) => !isTrain(l)))] as const;
  addRows('clustering', 0, ...split(clusters));
  addRows('refined tracks', 0, ...split(refined));
  say(
    `seed labels: ${[...refined].filter(([l]) => isTrain(l)).reduce((s, [, b]) => s + b.cx.length, 0)} boxes`,
  );

  let labels = new Map([...refined].filter(([l]) => isTrain(l)));
  const rounds: SelfTrainRound[] = [];
  let prevParams: Awaited<ReturnType<typeof trainDetector>>['params'] | undefined;
  let modelPath = '';
  for (let r = 1; r <= cfg.rounds; r++) {
    const roundDir = path.join(opts.outDir, `round${r}`);
    makeDirs(roundDir);
    const det: DetectorConfig = {
      ...cfg.detector,
      targets: {
        ...cfg.detector.targets,
        labelRangeM: r === 1 ? cfg.detector.targets.labelRangeM : (cfg.laterLabelRangeM ?? 1e6),
      },
      train: {
        ...cfg.detector.train,
        steps: r === 1 ? cfg.detector.train.steps : (cfg.laterSteps ?? cfg.detector.train.steps),
        lr: r === 1 ? cfg.detector.train.lr : cfg.detector.train.lr * cfg.laterLrScale,
      },
    };
    const frames: TrainingFrame[] = [];
    for (const log of logs) frames.push(...(await trainingFrames(log.reader, labels.get(log)!, det)));
    const labelBoxes = frames.reduce((s, f) => s + f.boxes.length, 0);
    // Training on no labels "succeeds" and ships a detector that finds nothing: refuse instead.
    if (labelBoxes === 0)
      throw new InputError(
        logs.map((l) => l.reader.dir).join(', '),
        `round ${r}: ${r === 1 ? 'discovery' : 'the previous round'} yielded 0 labels within ${det.targets.labelRangeM >= 1e6 ? 'the grid' : `${det.targets.labelRangeM} m`} of the ego on ${frames.length} training frames: nothing to train on (\`drivekit discover\` shows what the log yields)`,
      );
    say(
      `round ${r}: training on ${frames.length} frames, ${labelBoxes} labels within ${det.targets.labelRangeM >= 1e6 ? 'the whole grid' : `${det.targets.labelRangeM} m`}`,
    );
    const trained = await trainDetector(frames, det, {
      checkpointPath: path.join(roundDir, 'checkpoint.safetensors'),
      progress: opts.progress === false ? false : `train round ${r}`,
      initFrom: cfg.warmStart ? prevParams : undefined,
      onStaleCheckpoint: (ck) =>
        say(`round ${r}: ${ck} is from another run (settings or labels differ): starting afresh`),
      trainingInfo: { round: r, logs: logs.map((l) => l.name), labelRangeM: det.targets.labelRangeM },
    });
    prevParams = trained.params;
    modelPath = path.join(roundDir, 'detector.onnx');
    await writeFileAtomic(modelPath, trained.onnx);
    const detector = await Detector.fromBytes(trained.onnx, modelPath, { threads: det.train.threads });
    const detections = new Map<SelfTrainLog, Boxes>();
    const nextLabels = new Map<SelfTrainLog, Boxes>();
    try {
      for (const log of [...logs, ...evalLogs]) {
        const bar =
          opts.progress === false
            ? undefined
            : createProgress(`detect ${log.name} r${r}`, log.reader.frameCount);
        const d = await detectLog(detector, log.reader, bar);
        bar?.stop();
        const next = labelsFromDetections(d, log.reader, cfg);
        detections.set(log, d);
        nextLabels.set(log, next);
        // Every round's boxes stay beside its model, so tables can be recomputed without re-running.
        await writeBoxesFile(path.join(roundDir, `${log.name}.detections.arrow`), d);
        await writeBoxesFile(path.join(roundDir, `${log.name}.labels.arrow`), next);
      }
    } finally {
      await detector.dispose();
    }
    addRows('detector', r, ...split(detections));
    addRows('detector + tracks', r, ...split(nextLabels));
    rounds.push({
      round: r,
      modelPath,
      steps: trained.steps,
      resumedFrom: trained.resumedFrom,
      trainSeconds: trained.seconds,
      framesPerS: trained.framesPerS,
      labelBoxes,
      finalLoss: trained.losses.length ? trained.losses[trained.losses.length - 1].total : null,
    });
    say(
      `round ${r}: ${trained.steps} steps in ${trained.seconds.toFixed(0)} s (${trained.framesPerS.toFixed(1)} crops/s)`,
    );
    if (r === cfg.rounds && opts.writeToLogs) {
      for (const log of logs) {
        // One group in the log's manifest: both files of a round or neither.
        log.reader.commitBoxes('selftrain', {
          selftrain_detections: detections.get(log)!,
          selftrain_labels: nextLabels.get(log)!,
        });
      }
    }
    labels = new Map(
      [...nextLabels]
        .filter(([l]) => isTrain(l))
        .map(([l, b]) =>
          cfg.laterLabels === 'seeds+far'
            ? [l, concatBoxes([refined.get(l)!, beyondRange(b, cfg.detector.targets.labelRangeM)])]
            : [l, b],
        ),
    );
  }
  const finalPath = path.join(opts.outDir, 'detector.onnx');
  fs.copyFileSync(modelPath, finalPath + '.tmp');
  fs.renameSync(finalPath + '.tmp', finalPath);
  const result: SelfTrainResult = { rows, rounds, modelPath: finalPath };
  await writeFileAtomic(
    path.join(opts.outDir, 'results.json'),
    JSON.stringify(summariseResult(result), null, 1) + '\n',
  );
  return result;
}

/** The result as plain JSON: per row the AP table, best F1 and DTC. */
export function summariseResult(r: SelfTrainResult) {
  return {
    modelPath: r.modelPath,
    rounds: r.rounds,
    rows: r.rows.map((row) => ({
      method: row.method,
      round: row.round,
      set: row.set,
      ap: row.report.ap,
      best_f1: row.report.best_f1,
      dtc: row.report.dtc,
      counts: {
        frames: row.report.counts.frames,
        gt_boxes: row.report.counts.gt_boxes,
        pred_boxes: row.report.counts.pred_boxes,
      },
    })),
  };
}
