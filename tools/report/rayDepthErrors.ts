// Where the learned ray-depth head wins and loses against the ray-trace it corrects: per-ray depth errors of both
// on a log's true future rays, by reference range, elevation and horizon (mean and median, and the gate's share).
// Run: node --import tsx tools/report/rayDepthErrors.ts --log <dir> --model <raydepth.onnx> [--starts 4,12,20,28]
// [--ray-stride 16] [--json file]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import { InputError } from '../../core/errors.ts';
import { median } from '../../core/stats.ts';
import { LogReader } from '../../datasets/logstore.ts';
import type { TokenizerConfig } from '../../worldmodel/config.ts';
import { protocolOffsets, truthRays } from '../../worldmodel/forecastProtocol.ts';
import { rayDepthInputs } from '../../worldmodel/rayDepthInputs.ts';
import {
  depthFromOutputs,
  keepBelowElevationFor,
  keepLogRatioBelowFor,
  keepBelowDirZ,
  keepThresholdFor,
  RayDepthHead,
} from '../../worldmodel/rayDepthModel.ts';
import { sensorOrigin } from '../../worldmodel/sweep.ts';
import { ENCODER_FILE, readTokenizerSpec } from '../../worldmodel/tokenizerModel.ts';
import { SHIPPED_TOKENIZER } from '../commands/tokenize.ts';
import { checkReportFlags } from './reportFlags.ts';

/** Reference-depth bands (m) the rays are grouped by: the near field apart, where the training towns have none. */
export const REFERENCE_BANDS_M = [2.5, 3.5, 5, 10, 20] as const;

export interface ErrorBucket {
  bucket: string;
  rays: number;
  /** Share of the rays where the gate kept the reference. */
  keptShare: number;
  rayTraceMeanM: number;
  rayTraceMedianM: number;
  headMeanM: number;
  headMedianM: number;
}

/** The band label of a reference depth. */
export function referenceBand(depthM: number): string {
  const b = REFERENCE_BANDS_M;
  if (depthM < b[0]) return `< ${b[0]} m`;
  for (let i = 1; i < b.length; i++) if (depthM < b[i]) return `${b[i - 1]}–${b[i]} m`;
  return `≥ ${b[b.length - 1]} m`;
}

/** Per-ray |depth − truth| of the head and of the ray-trace (`rt.ground`) over `starts` at the 1 s protocol. */
export async function rayDepthErrors(
  log: LogReader,
  cfg: TokenizerConfig,
  head: RayDepthHead,
  starts: readonly number[],
  rayStride: number,
): Promise<ErrorBucket[]> {
  const offsets = protocolOffsets('1s', log.meta.rateHz);
  const groups = new Map<string, { rt: number[]; head: number[]; kept: number }>();
  const add = (key: string, rt: number, hd: number, kept: boolean) => {
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { rt: [], head: [], kept: 0 }));
    g.rt.push(rt);
    g.head.push(hd);
    if (kept) g.kept++;
  };
  const keepThreshold = keepThresholdFor(head.card, log.meta.source);
  const keepBelow = keepLogRatioBelowFor(head.card, log.meta.source);
  const keepBelowElevation = keepBelowElevationFor(head.card, log.meta.source);
  const belowDirZ = keepBelowDirZ(keepBelowElevation);
  for (const t0 of starts) {
    if (t0 + offsets[offsets.length - 1] >= log.frameCount)
      throw new InputError(log.dir, `start ${t0} has no 1 s ahead in ${log.frameCount} frames`);
    const cache = new Map();
    for (const d of offsets) {
      const rays = truthRays(cfg, (await log.readFrame(t0 + d)).points, sensorOrigin(log.meta), rayStride);
      const { features, rt } = await rayDepthInputs(log, cfg, t0, t0 + d, head.card.pastSweeps, rays, cache);
      const out = await head.outputs(features, rays.count);
      const depth = depthFromOutputs(cfg, rays, rt.ground, out, keepThreshold, keepBelow, keepBelowElevation);
      for (let k = 0; k < rays.count; k++) {
        const truth = rays.depthM[k];
        const eRt = Math.abs(rt.ground[k] - truth);
        const eHead = Math.abs(depth[k] - truth);
        const kept =
          out.keepLogit[k] >= keepThreshold ||
          Math.abs(out.logRatio[k]) < keepBelow ||
          rays.dirZ[k] < belowDirZ;
        add('all', eRt, eHead, kept);
        add(`reference ${referenceBand(rt.ground[k])}`, eRt, eHead, kept);
        add(rays.dirZ[k] < -0.05 ? 'looking down' : 'level or up', eRt, eHead, kept);
        add(`${(d / log.meta.rateHz).toFixed(1)} s ahead`, eRt, eHead, kept);
      }
    }
  }
  const mean = (a: number[]) => a.reduce((x, y) => x + y, 0) / a.length;
  // All rays, then the bands nearest first, then the rest by name.
  const bands = [0, ...REFERENCE_BANDS_M].map((m) => `reference ${referenceBand(m)}`);
  const order = (key: string) =>
    key === 'all' ? 'a' : bands.includes(key) ? `b${bands.indexOf(key)}` : `c${key}`;
  return [...groups.entries()]
    .sort(([a], [b]) => order(a).localeCompare(order(b)))
    .map(([bucket, g]) => ({
      bucket,
      rays: g.rt.length,
      keptShare: g.kept / g.rt.length,
      rayTraceMeanM: mean(g.rt),
      rayTraceMedianM: median(g.rt),
      headMeanM: mean(g.head),
      headMedianM: median(g.head),
    }));
}

const USAGE = `usage: node --import tsx tools/report/rayDepthErrors.ts --log <dir> --model <raydepth.onnx>
  [--starts 4,12,20,28] [--ray-stride 16] [--tokenizer <dir>] [--json <file>]
Per-ray depth errors of the ray-depth head and of the ray-trace baseline it corrects, on the 1 s protocol's
five sweeps of each start, grouped by reference depth, elevation and horizon.`;

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  checkReportFlags(process.argv, USAGE, [
    '--log',
    '--model',
    '--starts',
    '--ray-stride',
    '--tokenizer',
    '--json',
  ]);
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const logDir = arg('--log');
  const model = arg('--model');
  if (!logDir || !model) {
    process.stderr.write(`error: --log and --model are required\n${USAGE}\n`);
    process.exit(2);
  }
  const starts = (arg('--starts') ?? '4,12,20,28').split(',').map(Number);
  const rayStride = Number(arg('--ray-stride') ?? 16);
  if (starts.some((s) => !Number.isInteger(s) || s < 0))
    throw new InputError('--starts', 'frame numbers ≥ 0');
  if (!Number.isInteger(rayStride) || rayStride < 1) throw new InputError('--ray-stride', 'an integer ≥ 1');
  const cfg = readTokenizerSpec(path.join(arg('--tokenizer') ?? SHIPPED_TOKENIZER, ENCODER_FILE)).config;
  const head = await RayDepthHead.load(model, 2);
  const log = await LogReader.open(logDir);
  try {
    const rows = await rayDepthErrors(log, cfg, head, starts, rayStride);
    const f = (v: number) => v.toFixed(3);
    process.stdout.write(
      `| rays | bucket | gate kept | ray-trace mean / median m | head mean / median m |\n|---:|---|---:|---|---|\n` +
        rows
          .map(
            (r) =>
              `| ${r.rays} | ${r.bucket} | ${(100 * r.keptShare).toFixed(0)} % | ${f(r.rayTraceMeanM)} / ${f(r.rayTraceMedianM)} | ${f(r.headMeanM)} / ${f(r.headMedianM)} |`,
          )
          .join('\n') +
        '\n',
    );
    const json = arg('--json');
    if (json)
      writeFileAtomicSync(json, JSON.stringify({ log: logDir, model, starts, rayStride, rows }, null, 2));
  } finally {
    await log.close();
    await head.dispose();
  }
}
