// Same weights, same inputs: the agent policy's training loss and gradient norm in drivekit and in its PyTorch
// mirror (train_step.py --check-policy), so the side-by-side timing compares the same computation.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as nn from '../../../core/nn/index.ts';
import { encodeSafetensors, type NamedTensor } from '../../../core/nn/safetensors.ts';
import { policyReference } from '../policyReference.ts';

const USAGE = `usage: node --import tsx tools/bench/pytorch/checkPolicy.ts [--python PATH] [--tolerance T]

Writes the policy reference model's initial weights and inputs (tools/bench/policyReference.ts) to a
safetensors file, has train_step.py compute the loss and gradient norm on them in PyTorch, computes both
in drivekit, and prints one JSON line; exits 1 when either differs by more than T (default 1e-5, relative
for the gradient norm). PyTorch: apt-get install python3-torch libopenblas0-openmp.`;

function parseArgs(argv: string[]): { python: string; tolerance: number } {
  const o = { python: '/usr/bin/python3', tolerance: 1e-5 };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--help' || argv[i] === '-h') {
      console.log(USAGE);
      process.exit(0);
    } else if (argv[i] === '--python') o.python = argv[++i];
    else if (argv[i] === '--tolerance') {
      o.tolerance = Number(argv[++i]);
      if (!(o.tolerance > 0)) throw new Error(`--tolerance needs a number > 0, got '${argv[i]}'`);
    } else throw new Error(`unknown argument '${argv[i]}'\n\n${USAGE}`);
  }
  return o;
}

async function main(): Promise<void> {
  const opts = parseArgs(process.argv.slice(2));
  const m = policyReference();
  const tensors = new Map<string, NamedTensor>();
  for (const p of m.params.list())
    tensors.set(`param/${p.name}`, { dtype: 'float32', shape: p.shape, data: p.data.slice() });
  for (const [name, f] of Object.entries(m.feeds)) {
    const { data, dims } = f as { data: Float32Array | BigInt64Array; dims: number[] };
    tensors.set(`feed/${name}`, {
      dtype: data instanceof BigInt64Array ? 'int64' : 'float32',
      shape: dims,
      data,
    });
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-check-policy-'));
  const file = path.join(dir, 'policy.safetensors');
  try {
    fs.writeFileSync(file, encodeSafetensors(tensors));
    const script = path.join(path.dirname(fileURLToPath(import.meta.url)), 'train_step.py');
    const py = spawnSync(opts.python, [script, '--check-policy', file], { encoding: 'utf8' });
    if (py.status !== 0)
      throw new Error(
        `train_step.py --check-policy exited ${py.status}: ${py.stderr.trim().split('\n').at(-1)}`,
      );
    const torch = JSON.parse(py.stdout.trim().split('\n').at(-1)!) as { loss: number; grad_norm: number };
    // The first step's loss and (pre-clip) gradient norm are those of the initial weights.
    const trainer = await nn.Trainer.create(m.graph, {
      loss: m.loss,
      optimizer: nn.adamW({}),
      lr: 1e-3,
      clipGradNorm: m.clipGradNorm,
      threads: 2,
    });
    const ours = await trainer.step(m.feeds);
    await trainer.dispose();
    const lossDiff = Math.abs(ours.loss - torch.loss);
    const normDiff = Math.abs(ours.gradNorm - torch.grad_norm) / Math.max(torch.grad_norm, 1e-12);
    const ok = lossDiff <= opts.tolerance && normDiff <= opts.tolerance;
    console.log(
      JSON.stringify({
        name: 'check_policy_vs_pytorch',
        drivekit_loss: ours.loss,
        pytorch_loss: torch.loss,
        loss_abs_diff: lossDiff,
        drivekit_grad_norm: ours.gradNorm,
        pytorch_grad_norm: torch.grad_norm,
        grad_norm_rel_diff: normDiff,
        tolerance: opts.tolerance,
        ok,
      }),
    );
    if (!ok) process.exitCode = 1;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((e: Error) => {
  console.error(`checkPolicy: ${e.message}`);
  process.exit(1);
});
