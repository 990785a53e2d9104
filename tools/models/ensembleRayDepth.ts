// Ray-depth heads of one recipe and fold (seeds) averaged into one model: their outputs' mean, with the gate
// threshold chosen again, by the trainer's rule, on the validation starts of the members' own split.
// Run: node --import tsx tools/models/ensembleRayDepth.ts --model <a.onnx> --model <b.onnx> --logs <dir> --out <dir>
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../../core/atomic.ts';
import { coreCount } from '../../core/workers.ts';
import { InputError } from '../../core/errors.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { ensembleRayDepthOnnx } from '../../worldmodel/rayDepthEnsemble.ts';
import { type RayDepthCard, RayDepthHead } from '../../worldmodel/rayDepthModel.ts';
import { createRayDepthPool } from '../../worldmodel/rayDepthPool.ts';
import { ENCODER_FILE, readTokenizerSpec } from '../../worldmodel/tokenizerModel.ts';
import {
  baselineErrors,
  chooseKeepThreshold,
  concatRays,
  type DepthErrors,
  gateTableForJson,
  headErrors,
  rayDepthSamples,
  thresholdForJson,
  type TrainingRays,
} from '../../worldmodel/trainRayDepth.ts';
import { SHIPPED_TOKENIZER } from '../commands/tokenize.ts';
import { checkReportFlags, isMain } from '../report/reportFlags.ts';
import { validationStarts } from '../report/rayDepthValidation.ts';

/** What must agree between members for their mean to mean anything: inputs, grid and validation split. */
const SAME_KEYS = ['features', 'pastSweeps', 'featureWindow', 'grid', 'minRangeM', 'split', 'fold'] as const;

/** Throws unless every member's card agrees with the first on SAME_KEYS. */
export function checkMembersAgree(cards: readonly RayDepthCard[], files: readonly string[]): void {
  for (let k = 1; k < cards.length; k++)
    for (const key of SAME_KEYS)
      if (JSON.stringify(cards[k][key]) !== JSON.stringify(cards[0][key]))
        throw new InputError(files[k], `its card's '${key}' differs from ${files[0]}'s: not the same recipe and fold`);
}

const USAGE = `usage: node --import tsx tools/models/ensembleRayDepth.ts --model <raydepth.onnx> --model <raydepth.onnx> [--model …]
  --logs <dir> --out <dir> [--tokenizer <dir>]
Averages heads trained with the same command and fold (e.g. seeds 1 and 2) into <out>/raydepth.onnx and card.json.
The gate threshold is chosen again on the validation starts of their split (the logs read from <dir>/<name>),
by train-ray-depth's rule; each member is scored there too, at its own threshold.`;

if (isMain(import.meta.url)) {
  checkReportFlags(process.argv, USAGE, ['--model', '--logs', '--out', '--tokenizer']);
  const all = (name: string) => process.argv.flatMap((a, i) => (a === name ? [process.argv[i + 1]] : []));
  const files = all('--model');
  const logsDir = all('--logs')[0];
  const out = all('--out')[0];
  if (files.length < 2 || !logsDir || !out) {
    process.stderr.write(`error: two or more --model, --logs and --out are required\n${USAGE}\n`);
    process.exit(2);
  }
  const cfg = readTokenizerSpec(path.join(all('--tokenizer')[0] ?? SHIPPED_TOKENIZER, ENCODER_FILE)).config;
  const members: RayDepthHead[] = [];
  const logs: { name: string; log: LogReader; starts: number[] }[] = [];
  const pool = createRayDepthPool(cfg, coreCount());
  try {
    for (const f of files) members.push(await RayDepthHead.load(f, 1));
    const cards = members.map((m) => m.card);
    checkMembersAgree(cards, files);
    for (const [name, starts] of validationStarts(cards[0] as { split?: Record<string, { validation: number[] }> }))
      logs.push({ name, log: await LogReader.open(path.join(logsDir, name)), starts });
    const parts: TrainingRays[] = [];
    for (const { name, log, starts } of logs) {
      process.stderr.write(`validation samples of ${name} (${starts.length} starts)\n`);
      parts.push(await rayDepthSamples(log, cfg, starts, { rayStride: 16, pastSweeps: cards[0].pastSweeps }, undefined, pool));
    }
    const val = concatRays(parts);
    const memberErrors: DepthErrors[] = [];
    for (const m of members)
      memberErrors.push(headErrors(cfg, val, await m.outputs(val.x, val.count), m.card.keepThresholdLogit));
    // The mean model, scored and its threshold chosen as the trainer chooses a single head's.
    fs.mkdirSync(out, { recursive: true });
    const provisional = path.join(out, 'raydepth.provisional.onnx');
    const bytes = files.map((f) => new Uint8Array(fs.readFileSync(f)));
    await writeFileAtomic(provisional, ensembleRayDepthOnnx(bytes, { ...cards[0] }));
    const mean = await RayDepthHead.load(provisional, 1);
    const outputs = await mean.outputs(val.x, val.count);
    await mean.dispose();
    fs.rmSync(provisional);
    const gate = chooseKeepThreshold(cfg, val, outputs);
    const ensembleErrors = headErrors(cfg, val, outputs, gate.threshold);
    const baseline = baselineErrors(val);
    const card: Record<string, unknown> = {
      ...cards[0],
      keepThresholdLogit: thresholdForJson(gate.threshold),
      gateTable: gateTableForJson(gate.table),
      validation: { headL1M: ensembleErrors, rayTraceGroundL1M: baseline },
      ensemble: {
        rule: 'the mean of the members’ log ratio and gate logit; the gate threshold chosen again on the validation starts',
        command: `node --import tsx tools/models/ensembleRayDepth.ts ${files.map((f) => `--model ${f}`).join(' ')} --logs ${logsDir} --out ${out}`,
        members: files.map((f, k) => ({
          file: f,
          seed: (cards[k].config as { seed?: number } | undefined)?.seed,
          command: cards[k].command,
          bestEpoch: cards[k].bestEpoch,
          keepThresholdLogit: cards[k].keepThresholdLogit,
          validation: memberErrors[k],
        })),
      },
    };
    delete card.seedChoice;
    delete card.heldOut;
    await writeFileAtomic(path.join(out, 'raydepth.onnx'), ensembleRayDepthOnnx(bytes, card));
    await writeFileAtomic(path.join(out, 'card.json'), `${JSON.stringify(card, null, 1)}\n`);
    const f = (e: { mean: number; median: number }) => `${e.mean.toFixed(4)} / ${e.median.toFixed(5)}`;
    process.stdout.write(
      `validation rays: ${val.count}\n| head | gate logit | mean / median L1 (m) |\n|---|---:|---|\n` +
        `| ray-trace | – | ${f(baseline)} |\n` +
        files.map((file, k) => `| ${file} | ${cards[k].keepThresholdLogit} | ${f(memberErrors[k])} |`).join('\n') +
        `\n| mean of the ${files.length} | ${card.keepThresholdLogit} | ${f(ensembleErrors)} |\nwrote ${out}/raydepth.onnx, card.json\n`,
    );
  } finally {
    await pool.close();
    for (const { log } of logs) await log.close();
    for (const m of members) await m.dispose();
  }
}
