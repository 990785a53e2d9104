// A trained ray-depth head given its gate for real sweeps, chosen on the validation starts of the real logs of the
// head's own split: a threshold (the trainer's rule, as --real-gate), a dead zone (chooseKeepLogRatioBelow's rule) or
// an elevation below which the reference is kept (chooseKeepBelowElevation's rule).
// Run: node --import tsx tools/models/gateRayDepth.ts --model <raydepth.onnx> --logs <dir> --out <dir>
// [--choose threshold|dead-zone|elevation] [--tokenizer <dir>]
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../core/atomic.ts';
import { InputError } from '../../core/errors.ts';
import { coreCount } from '../../core/workers.ts';
import { LogReader } from '../../datasets/logstore.ts';
import {
  keepLogRatioBelowFor,
  keepThresholdFor,
  type RayDepthCard,
  RayDepthHead,
  withRayDepthCard,
} from '../../worldmodel/rayDepthModel.ts';
import { createRayDepthPool } from '../../worldmodel/rayDepthPool.ts';
import { ENCODER_FILE, readTokenizerSpec } from '../../worldmodel/tokenizerModel.ts';
import {
  baselineErrors,
  chooseKeepBelowElevation,
  chooseKeepLogRatioBelow,
  chooseRealKeepThreshold,
  concatRays,
  errorsOf,
  gateTableForJson,
  headRayErrors,
  rayDepthSamples,
  thresholdForJson,
  type TrainingRays,
} from '../../worldmodel/trainRayDepth.ts';
import { SHIPPED_TOKENIZER } from '../commands/tokenize.ts';
import { checkReportFlags, isMain } from '../report/reportFlags.ts';
import { validationStarts } from '../report/rayDepthValidation.ts';

const USAGE = `usage: node --import tsx tools/models/gateRayDepth.ts --model <raydepth.onnx> --logs <dir> --out <dir>
  [--choose threshold|dead-zone|elevation] [--tokenizer <dir>]
Chooses the head's gate for real sweeps on the validation starts of the real logs of its card's split (read from
<dir>/<name>), and writes the head with that card to <out>/raydepth.onnx and card.json: 'threshold' (default)
its gate threshold (realKeepThresholdLogit), by train-ray-depth's rule; 'dead-zone' the |log ratio| below which the
reference is kept too (realKeepLogRatioBelow: the least median error among the zones whose mean is no worse than
without one), the threshold left as it is; 'elevation' the elevation below which a ray keeps the reference
(realKeepBelowElevationDeg, by the dead zone's rule), the threshold and dead zone left as they are. Synthetic logs
keep the card's gate.`;

/** The card with a real-sweep dead zone chosen on the real validation rays `rays` (gate at the real threshold). */
export async function cardWithRealDeadZone(
  head: RayDepthHead,
  cfg: Parameters<typeof chooseRealKeepThreshold>[0],
  rays: TrainingRays,
  command: string,
): Promise<RayDepthCard> {
  const threshold = keepThresholdFor(head.card, 'real');
  const out = await head.outputs(rays.x, rays.count);
  const pick = chooseKeepLogRatioBelow(cfg, rays, out, threshold);
  return {
    ...head.card,
    realKeepLogRatioBelow: pick.below,
    realDeadZoneTable: pick.table,
    realDeadZone: {
      rule: 'the least median among dead zones whose mean is no worse than none, on the real logs’ validation starts alone, the weights unchanged',
      command,
    },
    validation: withRealValidation(head.card, rays, headRayErrors(cfg, rays, out, threshold, pick.below)),
  };
}

/** The card's validation figures with the real rays' ones (the head's per-ray errors `headErrors`) added. */
function withRealValidation(
  card: RayDepthCard,
  rays: TrainingRays,
  headErrors: Float64Array,
): Record<string, unknown> {
  return {
    ...((card.validation ?? {}) as Record<string, unknown>),
    real: { rays: rays.count, headL1M: errorsOf(headErrors), rayTraceGroundL1M: baselineErrors(rays) },
  };
}

/** The card with a real-sweep elevation rule chosen on the real validation rays `rays` (gate and zone as they are). */
export async function cardWithRealElevationKeep(
  head: RayDepthHead,
  cfg: Parameters<typeof chooseRealKeepThreshold>[0],
  rays: TrainingRays,
  command: string,
): Promise<RayDepthCard> {
  const threshold = keepThresholdFor(head.card, 'real');
  const below = keepLogRatioBelowFor(head.card, 'real');
  const out = await head.outputs(rays.x, rays.count);
  const pick = chooseKeepBelowElevation(cfg, rays, out, threshold, below);
  return {
    ...head.card,
    realKeepBelowElevationDeg: pick.belowDeg,
    realElevationTable: pick.table,
    realElevationKeep: {
      rule: 'the least median among elevations whose mean is no worse than none, on the real logs’ validation starts alone, the weights unchanged',
      command,
    },
    validation: withRealValidation(
      head.card,
      rays,
      headRayErrors(cfg, rays, out, threshold, below, pick.belowDeg),
    ),
  };
}

/** The card with the real-sweep gate chosen on `parts` (null: the split holds no real log). */
export async function cardWithRealGate(
  head: RayDepthHead,
  cfg: Parameters<typeof chooseRealKeepThreshold>[0],
  parts: readonly { source: string | undefined; rays: TrainingRays }[],
  command: string,
): Promise<RayDepthCard | null> {
  const gate = await chooseRealKeepThreshold(cfg, parts, (x, n) => head.outputs(x, n));
  if (!gate) return null;
  const validation = (head.card.validation ?? {}) as Record<string, unknown>;
  return {
    ...head.card,
    realKeepThresholdLogit: thresholdForJson(gate.threshold),
    realGateTable: gateTableForJson(gate.table),
    realGate: {
      rule: 'train-ray-depth’s rule on the real logs’ validation starts alone, the weights unchanged',
      command,
    },
    validation: {
      ...validation,
      real: { rays: gate.rays, headL1M: gate.head, rayTraceGroundL1M: gate.rayTrace },
    },
  };
}

if (isMain(import.meta.url)) {
  checkReportFlags(process.argv, USAGE, ['--model', '--logs', '--out', '--choose', '--tokenizer']);
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const file = arg('--model');
  const logsDir = arg('--logs');
  const out = arg('--out');
  if (!file || !logsDir || !out) {
    process.stderr.write(`error: --model, --logs and --out are required\n${USAGE}\n`);
    process.exit(2);
  }
  const cfg = readTokenizerSpec(path.join(arg('--tokenizer') ?? SHIPPED_TOKENIZER, ENCODER_FILE)).config;
  const head = await RayDepthHead.load(file, 1);
  const pool = createRayDepthPool(cfg, coreCount());
  const parts: { source: string | undefined; rays: TrainingRays }[] = [];
  try {
    for (const [name, starts] of validationStarts(head.card as { split?: Record<string, { validation: number[] }> })) {
      const log = await LogReader.open(path.join(logsDir, name));
      try {
        // Only the real logs' rays are needed; the synthetic ones keep the threshold they have.
        if (log.meta.source === 'synthetic') continue;
        process.stderr.write(`validation samples of ${name} (${starts.length} starts)\n`);
        const rays = await rayDepthSamples(log, cfg, starts, { rayStride: 16, pastSweeps: head.card.pastSweeps }, undefined, pool);
        parts.push({ source: log.meta.source, rays });
      } finally {
        await log.close();
      }
    }
    const choose = arg('--choose') ?? 'threshold';
    if (choose !== 'threshold' && choose !== 'dead-zone' && choose !== 'elevation')
      throw new InputError('--choose', `'${choose}' is not threshold, dead-zone or elevation`);
    const command = `node --import tsx tools/models/gateRayDepth.ts --model ${file} --logs ${logsDir} --out ${out} --choose ${choose}`;
    if (parts.length === 0)
      throw new InputError(file, 'its split holds no real log: nothing to choose a real-sweep gate on');
    const card =
      choose === 'threshold'
        ? await cardWithRealGate(head, cfg, parts, command)
        : choose === 'dead-zone'
          ? await cardWithRealDeadZone(head, cfg, concatRays(parts.map((p) => p.rays)), command)
          : await cardWithRealElevationKeep(head, cfg, concatRays(parts.map((p) => p.rays)), command);
    if (!card) throw new InputError(file, 'its split holds no real log: nothing to choose a real-sweep gate on');
    fs.mkdirSync(out, { recursive: true });
    await writeFileAtomic(path.join(out, 'raydepth.onnx'), withRayDepthCard(new Uint8Array(fs.readFileSync(file)), card));
    await writeFileAtomic(path.join(out, 'card.json'), `${JSON.stringify(card, null, 1)}\n`);
    const real = (card.validation as { real: { rays: number; headL1M: { mean: number; median: number }; rayTraceGroundL1M: { mean: number; median: number } } }).real;
    const f = (e: { mean: number; median: number }) => `${e.mean.toFixed(4)} / ${e.median.toFixed(4)}`;
    const rows = (
      choose === 'threshold'
        ? card.realGateTable
        : choose === 'dead-zone'
          ? card.realDeadZoneTable
          : card.realElevationTable
    ) as {
      threshold?: number | string;
      below?: number;
      belowDeg?: number;
      mean: number;
      median: number;
    }[];
    const what = { threshold: 'gate logit', 'dead-zone': '|log ratio| below', elevation: 'elevation below (°)' }[choose];
    const chosen = {
      threshold: card.realKeepThresholdLogit,
      'dead-zone': card.realKeepLogRatioBelow,
      elevation: card.realKeepBelowElevationDeg,
    }[choose];
    process.stdout.write(
      `real validation rays: ${real.rays}; ray-trace ${f(real.rayTraceGroundL1M)} m\n` +
        `| ${what} | mean / median L1 (m) |\n|---:|---|\n` +
        rows.map((r) => `| ${r.threshold ?? r.below ?? r.belowDeg} | ${f(r)} |`).join('\n') +
        `\nchosen for real sweeps: ${chosen} ` +
        `(head: ${f(real.headL1M)} m); wrote ${out}/raydepth.onnx, card.json\n`,
    );
  } finally {
    await pool.close();
    await head.dispose();
  }
}
