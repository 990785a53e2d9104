// Side-by-side timing of the learning-engine reference models and the LiDAR tokenizer against PyTorch here:
// drivekit's train_step child and train_step.py alternate, pair by pair, so both see the same load.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { TUNED_MALLOC_ENV } from '../../../core/mallocEnv.ts';
import { median } from '../../../core/stats.ts';
import { inChild, STEP_MODELS } from '../nn.bench.ts';

const MODELS = Object.keys(STEP_MODELS);

const USAGE = `usage: node --import tsx tools/bench/pytorch/sideBySide.ts [--pairs N] [--python PATH] [model ...]

Times one training step of each model (${MODELS.join(', ')}) in
drivekit and in PyTorch (train_step.py mirrors each network, loss and optimizer), alternating N pairs
(default 5), and prints a JSON line per pair and a summary per model with the ratio drivekit / PyTorch
of the medians. PyTorch is not a drivekit
dependency: on Debian, apt-get install python3-torch libopenblas0-openmp (default python:
/usr/bin/python3, where Debian's python3-torch lives).`;

interface Options {
  pairs: number;
  python: string;
  models: string[];
}

function parseArgs(argv: string[]): Options {
  const o: Options = { pairs: 5, python: '/usr/bin/python3', models: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--help' || a === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (a === '--pairs') {
      o.pairs = Number(argv[++i]);
      if (!Number.isInteger(o.pairs) || o.pairs < 1)
        throw new Error(`--pairs needs a whole number ≥ 1, got '${argv[i]}'`);
    } else if (a === '--python') {
      o.python = argv[++i];
    } else if (MODELS.includes(a)) {
      o.models.push(a);
    } else {
      throw new Error(`unknown argument '${a}' (models: ${MODELS.join(', ')})\n\n${USAGE}`);
    }
  }
  if (!o.models.length) o.models = MODELS;
  return o;
}

/** One PyTorch figure: train_step.py's JSON line for `model`. */
function pytorchStep(python: string, model: string): Promise<{ ms_per_step_median: number }> {
  const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'train_step.py');
  return new Promise((resolve, reject) => {
    const p = spawn(python, [script, model], { env: { ...process.env, ...TUNED_MALLOC_ENV } });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('error', (e) => reject(new Error(`cannot run ${python}: ${e.message}`)));
    p.on('close', (code) => {
      if (code === 0) return resolve(JSON.parse(out.trim().split('\n').at(-1)!));
      const why = /No module named 'torch'/.test(err)
        ? `PyTorch is not importable by ${python} (Debian: apt-get install python3-torch libopenblas0-openmp)`
        : err.trim().split('\n').at(-1);
      reject(new Error(`${path.basename(script)} ${model} exited ${code}: ${why}`));
    });
  });
}

const round = (v: number) => Math.round(v * 100) / 100;

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const runs = new Map(opts.models.map((m) => [m, { drivekit: [] as number[], pytorch: [] as number[] }]));
  for (let pair = 1; pair <= opts.pairs; pair++) {
    for (const model of opts.models) {
      const torch = (await pytorchStep(opts.python, model)).ms_per_step_median;
      const ours = Number((await inChild('step', model)).ms_per_step_median);
      const r = runs.get(model)!;
      r.pytorch.push(torch);
      r.drivekit.push(ours);
      const line = {
        name: `side_by_side_${model}`,
        pair,
        drivekit_ms: ours,
        pytorch_ms: torch,
        ratio: round(ours / torch),
      };
      console.log(JSON.stringify(line));
    }
  }
  for (const [model, r] of runs) {
    const ratios = r.drivekit.map((d, i) => d / r.pytorch[i]);
    console.log(
      JSON.stringify({
        name: `side_by_side_${model}_summary`,
        pairs: opts.pairs,
        drivekit_ms_median: round(median(r.drivekit)),
        pytorch_ms_median: round(median(r.pytorch)),
        ratio_of_medians: round(median(r.drivekit) / median(r.pytorch)),
        ratio_min: round(Math.min(...ratios)),
        ratio_max: round(Math.max(...ratios)),
      }),
    );
  }
}

main().catch((e: Error) => {
  console.error(`sideBySide: ${e.message}`);
  process.exit(1);
});
