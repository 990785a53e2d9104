// A trained ray-depth head given its gate threshold for real sweeps, chosen as train-ray-depth now chooses it: the
// trainer's rule on the validation starts of the real logs of the head's own split; weights and graph untouched.
// Run: node --import tsx tools/models/gateRayDepth.ts --model <raydepth.onnx> --logs <dir> --out <dir> [--tokenizer <dir>]
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../core/atomic.ts';
import { InputError } from '../../core/errors.ts';
import { coreCount } from '../../core/workers.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { type RayDepthCard, RayDepthHead, withRayDepthCard } from '../../worldmodel/rayDepthModel.ts';
import { createRayDepthPool } from '../../worldmodel/rayDepthPool.ts';
import { ENCODER_FILE, readTokenizerSpec } from '../../worldmodel/tokenizerModel.ts';
import {
  chooseRealKeepThreshold,
  gateTableForJson,
  rayDepthSamples,
  thresholdForJson,
  type TrainingRays,
} from '../../worldmodel/trainRayDepth.ts';
import { SHIPPED_TOKENIZER } from '../commands/tokenize.ts';
import { checkReportFlags, isMain } from '../report/reportFlags.ts';
import { validationStarts } from '../report/rayDepthValidation.ts';

const USAGE = `usage: node --import tsx tools/models/gateRayDepth.ts --model <raydepth.onnx> --logs <dir> --out <dir>
  [--tokenizer <dir>]
Chooses the head's gate threshold for real sweeps (realKeepThresholdLogit) on the validation starts of the real
logs of its card's split (read from <dir>/<name>), by train-ray-depth's rule, and writes the head with that card
to <out>/raydepth.onnx and card.json. Synthetic logs keep keepThresholdLogit.`;

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
  checkReportFlags(process.argv, USAGE, ['--model', '--logs', '--out', '--tokenizer']);
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
    const command = `node --import tsx tools/models/gateRayDepth.ts --model ${file} --logs ${logsDir} --out ${out}`;
    const card = await cardWithRealGate(head, cfg, parts, command);
    if (!card) throw new InputError(file, 'its split holds no real log: nothing to choose a real-sweep gate on');
    fs.mkdirSync(out, { recursive: true });
    await writeFileAtomic(path.join(out, 'raydepth.onnx'), withRayDepthCard(new Uint8Array(fs.readFileSync(file)), card));
    await writeFileAtomic(path.join(out, 'card.json'), `${JSON.stringify(card, null, 1)}\n`);
    const real = (card.validation as { real: { rays: number; headL1M: { mean: number; median: number }; rayTraceGroundL1M: { mean: number; median: number } } }).real;
    const f = (e: { mean: number; median: number }) => `${e.mean.toFixed(4)} / ${e.median.toFixed(4)}`;
    process.stdout.write(
      `real validation rays: ${real.rays}; ray-trace ${f(real.rayTraceGroundL1M)} m\n` +
        `| gate logit | mean / median L1 (m) |\n|---:|---|\n` +
        (card.realGateTable as { threshold: number | string; mean: number; median: number }[])
          .map((r) => `| ${r.threshold} | ${f(r)} |`)
          .join('\n') +
        `\nchosen for real sweeps: ${card.realKeepThresholdLogit} (synthetic: ${card.keepThresholdLogit}); wrote ${out}/raydepth.onnx, card.json\n`,
    );
  } finally {
    await pool.close();
    await head.dispose();
  }
}
