// Gradient checking: compares the gradients the engine derives (grad + onnxruntime) with central
// finite differences of the same graph, element by element; for testing new ops and rules.
import { grad } from './autodiff.ts';
import { Graph, type Tensor } from './graph.ts';
import { GraphSession } from './graphSession.ts';
import { ParamStore, type Parameter } from './params.ts';
import { isStaticShape } from './shape.ts';
import type { FloatType } from './dtype.ts';
import { mul, reduceSum } from './ops/index.ts';

export interface GradCheckInput {
  shape: number[];
  /** Values (default: uniform in [low, high]). */
  values?: readonly number[];
  low?: number;
  high?: number;
}

/** Settings; float64 defaults shown, float32 checks need eps ≈ 1e-2 and looser tolerances. */
export interface GradCheckOptions {
  dtype?: FloatType;
  /** Finite-difference step (default 1e-6 in float64, 1e-2 in float32). */
  eps?: number;
  /** Pass when |analytic − numeric| ≤ atol + rtol·|numeric| (defaults 1e-6/1e-5 float64, 2e-3/2e-2 float32). */
  atol?: number;
  rtol?: number;
  seed?: number;
}

export interface GradCheckResult {
  ok: boolean;
  /** Largest |analytic − numeric| / (atol + rtol·|numeric|); ≤ 1 passes. */
  worstRatio: number;
  worst: { input: string; index: number; analytic: number; numeric: number } | null;
  /** Number of elements compared. */
  checked: number;
}

/**
 * Check d(Σ R ⊙ fn(inputs))/d(inputs) for a fixed random R. `fn` builds the op(s) under test from
 * the inputs (graph parameters, so onnxruntime computes their gradients).
 */
export async function gradCheck(
  inputs: Readonly<Record<string, GradCheckInput>>,
  fn: (g: Graph, x: Record<string, Tensor>) => Tensor,
  opts: GradCheckOptions = {},
): Promise<GradCheckResult> {
  const dtype = opts.dtype ?? 'float64';
  const eps = opts.eps ?? (dtype === 'float64' ? 1e-6 : 1e-2);
  const atol = opts.atol ?? (dtype === 'float64' ? 1e-6 : 2e-3);
  const rtol = opts.rtol ?? (dtype === 'float64' ? 1e-5 : 2e-2);
  const store = new ParamStore({ dtype, seed: opts.seed ?? 7 });
  const g = new Graph({ floatType: dtype });
  const params: Record<string, Parameter> = {};
  const xs: Record<string, Tensor> = {};
  for (const [name, spec] of Object.entries(inputs)) {
    const lo = spec.low ?? -1;
    const hi = spec.high ?? 1;
    const p = store.add(name, spec.shape, { kind: 'zeros' });
    for (let i = 0; i < p.data.length; i++)
      p.data[i] = spec.values ? spec.values[i] : lo + (hi - lo) * store.rng.uniform();
    params[name] = p;
    xs[name] = g.param(p);
  }
  const out = fn(g, xs);
  if (!isStaticShape(out.shape)) throw new Error(`gradCheck: output ${out} needs a static shape`);
  const n = out.shape.reduce((a, b) => a * b, 1);
  const weights = Array.from({ length: n }, () => 0.5 + store.rng.uniform());
  const loss = reduceSum(mul(out, g.constant(weights, out.shape)));
  const names = Object.keys(inputs);
  const grads = grad(
    loss,
    names.map((k) => xs[k]),
  );
  const outputs: Record<string, Tensor> = { loss };
  names.forEach((k, i) => (outputs[`d_${k}`] = grads[i]));
  const train = await GraphSession.create(g, outputs, { threads: 1 });
  const fwd = await GraphSession.create(g, { loss }, { threads: 1 });
  try {
    const res = await train.run({});
    const lossAt = async () => Number((await fwd.run({})).loss.data[0]);
    let worstRatio = 0;
    let worst: GradCheckResult['worst'] = null;
    let checked = 0;
    for (const k of names) {
      const p = params[k];
      const analytic = res[`d_${k}`].data as Float64Array | Float32Array;
      for (let i = 0; i < p.data.length; i++) {
        const v = p.data[i];
        p.data[i] = v + eps;
        const up = await lossAt();
        p.data[i] = v - eps;
        const down = await lossAt();
        p.data[i] = v;
        const numeric = (up - down) / (2 * eps);
        const ratio = Math.abs(analytic[i] - numeric) / (atol + rtol * Math.abs(numeric));
        checked++;
        const r = Number.isNaN(ratio) ? Infinity : ratio;
        if (worst === null || r > worstRatio) {
          worstRatio = Math.max(worstRatio, r);
          worst = { input: k, index: i, analytic: analytic[i], numeric };
        }
      }
    }
    return { ok: worstRatio <= 1, worstRatio, worst, checked };
  } finally {
    await train.dispose();
    await fwd.dispose();
  }
}
