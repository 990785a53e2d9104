// Every labelled real frame of ../shared/data as one evaluation set (issue 18): imported as a user would
// (`drivekit import`'s importLog), scored for the DBSCAN baseline, raw discovery, refined tracks and a detector.
import fs from 'node:fs';
import path from 'node:path';
import type { Boxes } from '../../core/arrow/records.ts';
import { realData } from '../../core/paths.ts';
import { importLog } from '../../datasets/import.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { baselineLog, type BaselineConfig } from '../../perception/baseline.ts';
import type { Detector } from '../../perception/detector/model.ts';
import {
  discoverLog,
  type PipelineConfigInput,
  resolvePipelineConfig,
} from '../../perception/discoverLog.ts';
import { CLASS_GROUPS } from '../../perception/eval/classGroups.ts';
import {
  type RangeClassScore,
  scoreRangeClass,
  type ScoredSet,
} from '../../perception/eval/rangeClassScore.ts';
import { detectLog } from '../../perception/selftrain.ts';
import { fillGtPointCounts } from '../commands/eval.ts';

/** A labelled source: where it lives under ../shared/data, its import format and labelled view. */
export interface LabelledSource {
  name: string;
  /** Row label in the tables. */
  dataset: string;
  folder: string;
  format: string;
  /** KITTI labels only what the front camera sees (±45° of +x). */
  halfFovDeg: number | null;
  /** Consecutive sweeps with poses: tracking and refinement apply. */
  sequence: boolean;
}

export const REAL_SOURCES: LabelledSource[] = [
  {
    name: 'kitti-object',
    dataset: 'KITTI object (3 frames, HDL-64E)',
    folder: 'kitti-object',
    format: 'kitti',
    halfFovDeg: 45,
    sequence: false,
  },
  {
    name: 'av2',
    dataset: 'AV2 (2 sweeps, 2× VLP-32C)',
    folder: 'av2-7fab2350',
    format: 'av2',
    halfFovDeg: null,
    sequence: true,
  },
];

export const METHODS = ['dbscan', 'detections', 'tracks', 'detector'] as const;
export type Method = (typeof METHODS)[number];

export const METHOD_NAMES: Record<Method, string> = {
  dbscan: 'DBSCAN baseline',
  detections: 'discovery, raw (`detections`)',
  tracks: 'discovery, tracked + refined',
  detector: 'detector (`models/detector.onnx`)',
};

/** A labelled log ready to score: its directory, ground truth with point counts, and view. */
export interface LabelledLog {
  source: LabelledSource;
  dir: string;
  gt: Boxes;
}

/** Import each real source found under ../shared/data into `outDir/<name>` (skipped when already there). */
export async function importRealSources(outDir: string, force = false): Promise<LabelledLog[]> {
  const out: LabelledLog[] = [];
  for (const src of REAL_SOURCES) {
    const input = realData(src.folder);
    if (!fs.existsSync(input)) continue;
    const dir = path.join(outDir, src.name);
    if (force || !fs.existsSync(path.join(dir, 'meta.json')))
      await importLog(input, src.format, dir, { overwrite: true });
    out.push(await openLabelled(dir, src));
  }
  return out;
}

/** A labelled log (e.g. a synthetic one) with its ground truth's point counts filled in. */
export async function openLabelled(dir: string, source: LabelledSource): Promise<LabelledLog> {
  const log = await LogReader.open(dir);
  try {
    const labels = log.readBoxes('labels');
    if (!labels) throw new Error(`${dir}: no labels.arrow to score against`);
    return { source, dir, gt: await fillGtPointCounts(labels, dir) };
  } finally {
    await log.close();
  }
}

export interface MethodOptions {
  discover?: PipelineConfigInput;
  baseline?: Partial<BaselineConfig>;
  detector?: Detector | null;
}

/**
 * The boxes one method predicts on a log (null where it does not apply: tracks need a sequence, the
 * detector a model). Tracks shorter than the refinement's minimum are kept when the whole log is shorter.
 */
export async function predict(l: LabelledLog, methods: readonly Method[], opts: MethodOptions = {}) {
  const out: Partial<Record<Method, Boxes | null>> = {};
  const log = await LogReader.open(l.dir);
  try {
    if (methods.includes('dbscan')) out.dbscan = await baselineLog(log, opts.baseline);
    if (methods.includes('detections') || methods.includes('tracks')) {
      const cfg = resolvePipelineConfig(opts.discover);
      cfg.refine.minTrackFrames = Math.min(cfg.refine.minTrackFrames, log.frameCount);
      const r = await discoverLog(log, cfg);
      out.detections = r.detections;
      out.tracks = l.source.sequence ? r.tracks : null;
    }
    if (methods.includes('detector'))
      out.detector = opts.detector ? await detectLog(opts.detector, log) : null;
  } finally {
    await log.close();
  }
  return out;
}

export interface RealRow {
  dataset: string;
  method: Method;
  score: RangeClassScore | null;
}

/** Per-dataset rows and pooled rows ("all real frames") for each method. */
export function scoreRows(
  logs: readonly LabelledLog[],
  preds: readonly Partial<Record<Method, Boxes | null>>[],
  methods: readonly Method[],
  pooledName = 'pooled',
): RealRow[] {
  const rows: RealRow[] = [];
  const setOf = (k: number, m: Method): ScoredSet | null => {
    const p = preds[k][m];
    return p ? { pred: p, gt: logs[k].gt, halfFovDeg: logs[k].source.halfFovDeg } : null;
  };
  if (logs.length > 1)
    for (const m of methods) {
      const sets = logs.map((_, k) => setOf(k, m));
      // A pooled row only when the method applies to every set (tracks do not to single frames).
      const ok = sets.every((s) => s !== null);
      rows.push({ dataset: pooledName, method: m, score: ok ? scoreRangeClass(sets as ScoredSet[]) : null });
    }
  logs.forEach((l, k) => {
    for (const m of methods) {
      const s = setOf(k, m);
      rows.push({ dataset: l.source.dataset, method: m, score: s ? scoreRangeClass([s]) : null });
    }
  });
  return rows;
}

const pct = (v: number | null | undefined) => (v === null || v === undefined ? '–' : (100 * v).toFixed(1));

/** The rows as a markdown table: AP at BEV IoU 0.3 by range, recall per class group at 0–80 m. */
export function realMarkdownTable(rows: readonly RealRow[]): string {
  const head =
    '| data | method | AP 0–40 m | AP 40–80 m | ' +
    CLASS_GROUPS.map((g) => `${g} recall`).join(' | ') +
    ' | GT 0–40 / 40–80 m |';
  const sep = '|---|---|---:|---:|' + CLASS_GROUPS.map(() => '---:|').join('') + '---:|';
  const lines = rows.map(({ dataset, method, score: s }) => {
    if (!s)
      return `| ${dataset} | ${METHOD_NAMES[method]} | n/a | n/a |${CLASS_GROUPS.map(() => ' – |').join('')} – |`;
    const rec = CLASS_GROUPS.map((g) => {
      const { tp, gt } = s.recall[g];
      return gt ? `${tp}/${gt}` : '–';
    });
    return `| ${dataset} | ${METHOD_NAMES[method]} | ${pct(s.ap['0-40'])} | ${pct(s.ap['40-80'])} | ${rec.join(' | ')} | ${s.gt['0-40']} / ${s.gt['40-80']} |`;
  });
  return [head, sep, ...lines].join('\n');
}
