// Learning-engine benchmarks: a full training step (forward + backward + AdamW) of the three reference
// models of issue 4 (bev_unet, token_transformer, policy_mlp), RSS over 1,000 steps, and a per-op profile.
// Each figure runs in its own process so peak RSS is per model and glibc's malloc settings apply.
import { TUNED_MALLOC_ENV } from '../../core/mallocEnv.ts';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import * as nn from '../../core/nn/index.ts';
import { peakRssMb, type Benchmark, type Figure } from './benchmark.ts';
import { median } from '../../core/stats.ts';
import { lidarTokenizer } from './tokenizerReference.ts';
import { policyReference } from './policyReference.ts';

/** Settings of the training benchmarks (the protocol). */
export const NN_BENCH = {
  warmupSteps: 3,
  timedSteps: 10,
  lr: 1e-3,
  weightDecay: 1e-4,
  /** Intra-op threads (PyTorch is compared with the same count). */
  threads: 2,
  memorySteps: 1000,
  /** Sessions created, run and disposed after training, to show they are freed. */
  sessionCycles: 100,
  profileSteps: 3,
};

/** glibc malloc told to keep and reuse freed memory (core/mallocEnv.ts says why). */
export const MALLOC_ENV = TUNED_MALLOC_ENV;

export interface ReferenceModel {
  graph: nn.Graph;
  params: nn.ParamStore;
  loss: nn.Tensor;
  /** Deterministic random feeds of the right shapes. */
  feeds: nn.Feeds;
  /** Global gradient-norm clip of the model's own training (none for the three issue-4 models). */
  clipGradNorm?: number;
}

function randn(rng: nn.Rng, n: number, scale = 1): Float32Array {
  const a = new Float32Array(n);
  for (let i = 0; i < n; i++) a[i] = scale * rng.normal();
  return a;
}

/** U-Net on a [2, 8, 256, 256] BEV grid (see issue 4 for the exact layout), MSE loss. */
export function bevUnet(): ReferenceModel {
  const ps = new nn.ParamStore({ seed: 1 });
  const c = (name: string, cin: number, cout: number, k: number, stride = 1) =>
    nn.conv2d(ps, name, cin, cout, k, { padding: (k - 1) / 2, stride });
  const enc1 = [c('enc1.0', 8, 32, 3), c('enc1.1', 32, 32, 3)];
  const enc2 = [c('enc2.0', 32, 64, 3, 2), c('enc2.1', 64, 64, 3)];
  const enc3 = [c('enc3.0', 64, 128, 3, 2), c('enc3.1', 128, 128, 3)];
  const up = nn.convTranspose2d(ps, 'up', 128, 64, 2, { stride: 2 });
  const dec = c('dec', 128, 64, 3);
  const head = [c('head.0', 64, 64, 3), c('head.1', 64, 9, 1)];
  const g = new nn.Graph({ name: 'bev_unet' });
  const x = g.input('x', [2, 8, 256, 256]);
  const target = g.input('target', [2, 9, 128, 128]);
  const seq = (h: nn.Tensor, layers: nn.Layer[]) => layers.reduce((t, l) => nn.relu(l(t)), h);
  const e1 = seq(x, enc1);
  const e2 = seq(e1, enc2);
  const e3 = seq(e2, enc3);
  const u = nn.relu(up(e3));
  const d = nn.relu(dec(nn.concat([u, e2], 1)));
  const out = head[1](nn.relu(head[0](d)));
  const rng = new nn.Rng(2);
  return {
    graph: g,
    params: ps,
    loss: nn.mseLoss(out, target),
    feeds: { x: randn(rng, 2 * 8 * 256 * 256), target: randn(rng, 2 * 9 * 128 * 128) },
  };
}

/** Pre-norm transformer over [4, 1024] tokens (vocabulary 512, d 256, 8 heads, 4 blocks), cross-entropy. */
export function tokenTransformer(): ReferenceModel {
  const ps = new nn.ParamStore({ seed: 1 });
  const [B, T, V, D] = [4, 1024, 512, 256];
  const emb = nn.embedding(ps, 'tok', V, D);
  const pos = ps.add('pos', [T, D], { kind: 'normal', std: 0.02 }, { kind: 'embedding' });
  const blocks = [0, 1, 2, 3].map((i) =>
    nn.transformerBlock(ps, `block${i}`, { dim: D, heads: 8, mlpRatio: 4 }),
  );
  const lnF = nn.layerNorm(ps, 'ln_f', D);
  const head = nn.linear(ps, 'head', D, V);
  const g = new nn.Graph({ name: 'token_transformer' });
  const tokens = g.input('tokens', [B, T], 'int64');
  const targets = g.input('targets', [B, T], 'int64');
  let h = nn.add(emb(tokens), g.param(pos));
  for (const b of blocks) h = b(h);
  const logits = head(lnF(h));
  const rng = new nn.Rng(2);
  const ids = () => BigInt64Array.from({ length: B * T }, () => BigInt(rng.int(V)));
  return {
    graph: g,
    params: ps,
    loss: nn.crossEntropy(logits, targets),
    feeds: { tokens: ids(), targets: ids() },
  };
}

/** PPO actor-critic MLP on [4096, 64] observations: clipped surrogate + 0.5·value MSE − 0.01·entropy. */
export function policyMlp(): ReferenceModel {
  const ps = new nn.ParamStore({ seed: 1 });
  const [N, O, A] = [4096, 64, 2];
  const trunk = nn.mlp(ps, 'trunk', [O, 256, 256], { activation: 'tanh', activateLast: true });
  const meanHead = nn.linear(ps, 'mean', 256, A);
  const logStdP = ps.add('log_std', [A], { kind: 'zeros' }, { kind: 'other', decay: false });
  const valueHead = nn.linear(ps, 'value', 256, 1);
  const g = new nn.Graph({ name: 'policy_mlp' });
  const obs = g.input('obs', [N, O]);
  const actions = g.input('actions', [N, A]);
  const oldLogp = g.input('old_logp', [N]);
  const adv = g.input('advantages', [N]);
  const returns = g.input('returns', [N, 1]);
  const h = trunk(obs);
  const mean = meanHead(h);
  const logStd = g.param(logStdP);
  const logp = nn.gaussianLogProb(actions, mean, logStd);
  const ratio = nn.exp(nn.sub(logp, oldLogp));
  const surrogate = nn.minimum(nn.mul(ratio, adv), nn.mul(nn.clip(ratio, 0.8, 1.2), adv));
  const policyLoss = nn.neg(nn.reduceMean(surrogate));
  const valueLoss = nn.mseLoss(valueHead(h), returns);
  const entropy = nn.reduceSum(nn.add(logStd, 0.5 * (1 + Math.log(2 * Math.PI))));
  const loss = nn.sub(nn.add(policyLoss, nn.mul(valueLoss, 0.5)), nn.mul(entropy, 0.01));
  const rng = new nn.Rng(2);
  return {
    graph: g,
    params: ps,
    loss,
    feeds: {
      obs: randn(rng, N * O),
      actions: randn(rng, N * A),
      old_logp: randn(rng, N, 0.5).map((v) => v - 2),
      advantages: randn(rng, N),
      returns: randn(rng, N),
    },
  };
}

export const REFERENCE_MODELS: Record<string, () => ReferenceModel> = {
  bev_unet: bevUnet,
  token_transformer: tokenTransformer,
  policy_mlp: policyMlp,
};

/**
 * Every model a `step` child can time: the reference models plus later networks compared with PyTorch
 * (tools/bench/pytorch). Only REFERENCE_MODELS get a train_step figure here; the others have their own bench.
 */
export const STEP_MODELS: Record<string, () => ReferenceModel> = {
  ...REFERENCE_MODELS,
  lidar_tokenizer: lidarTokenizer,
  policy: policyReference,
};

async function makeTrainer(m: ReferenceModel, extra: nn.RuntimeOptions = {}): Promise<nn.Trainer> {
  return nn.Trainer.create(m.graph, {
    loss: m.loss,
    optimizer: nn.adamW({ weightDecay: NN_BENCH.weightDecay }),
    lr: NN_BENCH.lr,
    threads: NN_BENCH.threads,
    clipGradNorm: m.clipGradNorm,
    ...extra,
  });
}

/** Time training steps of one model (runs inside the child process). */
async function timeModel(model: string): Promise<Figure> {
  const m = STEP_MODELS[model]();
  const trainer = await makeTrainer(m);
  for (let i = 0; i < NN_BENCH.warmupSteps; i++) await trainer.step(m.feeds);
  const ms: number[] = [];
  let loss = 0;
  for (let i = 0; i < NN_BENCH.timedSteps; i++) {
    const t = process.hrtime.bigint();
    loss = (await trainer.step(m.feeds)).loss;
    ms.push(Number(process.hrtime.bigint() - t) / 1e6);
  }
  await trainer.dispose();
  return {
    name: `train_step_${model}`,
    ms_per_step_median: round(median(ms)),
    ms_min: round(Math.min(...ms)),
    ms_max: round(Math.max(...ms)),
    params: m.params.count(),
    peak_rss_mb: round(peakRssMb()),
    threads: NN_BENCH.threads,
    loss: round(loss, 4),
  };
}

/** RSS after `memorySteps` steps vs after 100 (a leak of tensors or sessions shows as growth). */
async function memoryGrowth(model: string): Promise<Figure> {
  const m = STEP_MODELS[model]();
  const trainer = await makeTrainer(m);
  let rss100 = 0;
  for (let i = 1; i <= NN_BENCH.memorySteps; i++) {
    await trainer.step(m.feeds);
    if (i === 100) rss100 = process.memoryUsage().rss / 2 ** 20;
  }
  const rssEnd = process.memoryUsage().rss / 2 ** 20;
  await trainer.dispose();
  // Sessions: create, run and dispose many; their native memory must come back.
  const cycle = async () => {
    const s = await nn.GraphSession.create(m.graph, { loss: m.loss }, { threads: NN_BENCH.threads });
    await s.run(m.feeds);
    await s.dispose();
  };
  // RSS after each window of cycles: a leak grows window by window, allocator noise does not.
  const windows: number[] = [];
  for (let w = 0; w < 4; w++) {
    for (let i = 0; i < NN_BENCH.sessionCycles; i++) await cycle();
    windows.push(round(process.memoryUsage().rss / 2 ** 20));
  }
  return {
    name: 'train_memory_growth',
    model,
    steps: NN_BENCH.memorySteps,
    rss_mb_step100: round(rss100),
    rss_mb_end: round(rssEnd),
    growth_mb: round(rssEnd - rss100),
    session_cycles_per_window: NN_BENCH.sessionCycles,
    rss_mb_after_session_windows: windows,
    session_cycles_growth_mb: round(windows[3] - windows[0]),
    peak_rss_mb: round(peakRssMb()),
  };
}

/** onnxruntime's profiler over a few steps, summed per op type (forward and backward nodes apart). */
async function profileModel(model: string): Promise<Figure> {
  const m = STEP_MODELS[model]();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-nn-prof-'));
  const trainer = await makeTrainer(m, { profilePrefix: path.join(dir, 'ort') });
  for (let i = 0; i < NN_BENCH.warmupSteps; i++) await trainer.step(m.feeds);
  // Profile events accumulate from session start: read only the steps after warm-up.
  const t0 = Date.now();
  for (let i = 0; i < NN_BENCH.profileSteps; i++) await trainer.step(m.feeds);
  const wall = (Date.now() - t0) / NN_BENCH.profileSteps;
  trainer.session.session.endProfiling();
  await trainer.dispose();
  const file = fs.readdirSync(dir).find((f) => f.endsWith('.json'));
  const events = JSON.parse(fs.readFileSync(path.join(dir, file!), 'utf8')) as {
    cat: string;
    name: string;
    dur: number;
    ts: number;
    args?: { op_name?: string };
  }[];
  fs.rmSync(dir, { recursive: true, force: true });
  const runs = events.filter((e) => e.cat === 'Session' && e.name === 'model_run');
  const since = runs.length > NN_BENCH.profileSteps ? runs[runs.length - NN_BENCH.profileSteps].ts : 0;
  const byOp = new Map<string, number>();
  const byNode = new Map<string, number>();
  for (const e of events) {
    if (e.cat !== 'Node' || !e.name.endsWith('_kernel_time') || e.ts < since) continue;
    const op = e.args?.op_name ?? '?';
    const ms = e.dur / 1000 / NN_BENCH.profileSteps;
    const key = `${e.name.startsWith('grad/') ? 'bwd' : 'fwd'}:${op}`;
    byOp.set(key, (byOp.get(key) ?? 0) + ms);
    const node = `${e.name.replace(/_kernel_time$/, '')} (${op})`;
    byNode.set(node, (byNode.get(node) ?? 0) + ms);
  }
  const total = [...byOp.values()].reduce((a, b) => a + b, 0);
  const top = (m: Map<string, number>, n: number) =>
    [...m.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(([k, v]) => `${k} ${round(v)}ms ${round((100 * v) / total, 1)}%`)
      .join('; ');
  return {
    name: `train_profile_${model}`,
    ms_per_step_wall: round(wall),
    ms_per_step_kernels: round(total),
    top_ops: top(byOp, 15),
    top_nodes: top(byNode, 15),
  };
}

function round(v: number, digits = 2): number {
  const f = 10 ** digits;
  return Math.round(v * f) / f;
}

/** Run a figure in a fresh child process with the malloc settings; returns its JSON line. */
export function inChild(kind: string, model: string): Promise<Figure> {
  const script = fileURLToPath(import.meta.url);
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['--import', 'tsx', script, kind, model], {
      env: { ...process.env, ...MALLOC_ENV },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.on('error', reject);
    p.on('close', (code) => {
      if (code !== 0) reject(new Error(`nn bench child ${kind} ${model} exited ${code}`));
      else resolve(JSON.parse(out.trim().split('\n').at(-1)!) as Figure);
    });
  });
}

const models = Object.keys(REFERENCE_MODELS);

export const benchmarks: Benchmark[] = [
  ...models.map((model): Benchmark => ({
    names: [`train_step_${model}`],
    async run(emit) {
      emit(await inChild('step', model));
    },
  })),
  {
    names: ['train_memory_growth'],
    async run(emit) {
      emit(await inChild('memory', 'policy_mlp'));
    },
  },
  {
    names: ['train_profile_bev_unet', 'train_profile_token_transformer'],
    async run(emit) {
      emit(await inChild('profile', 'bev_unet'));
      emit(await inChild('profile', 'token_transformer'));
    },
  },
];

// Child-process entry: `node --import tsx tools/bench/nn.bench.ts <step|memory|profile> <model>`.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  const [kind, model] = process.argv.slice(2);
  if (!STEP_MODELS[model])
    throw new Error(`unknown model '${model}' (${Object.keys(STEP_MODELS).join(', ')})`);
  const fn = kind === 'memory' ? memoryGrowth : kind === 'profile' ? profileModel : timeModel;
  process.stdout.write(JSON.stringify(await fn(model)) + '\n');
}
