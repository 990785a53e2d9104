// EMA-PG: an exponential-moving-average copy of the policy's parameters serves as the KL anchor of the
// PPO update, the KL taken over the anchor's top-k actions only (the seed papers' PPO option).
import type { AgentModel } from './agentModel.ts';

export interface EmaPgConfig {
  /** The anchor moves by (1 − decay) towards the policy after every optimizer step. */
  decay: number;
  /** The KL is restricted to the anchor's k most likely actions (the rest of its tail is noise). */
  topK: number;
  /** Weight of KL(anchor ‖ policy) inside the RL term. */
  klCoef: number;
}

// REFERENCES.md gives no EMA-PG settings: decay 0.995 spans ~200 optimizer steps (about two
// iterations of a town pair), k = 8 covers > 90 % of the BC policy's mass on held-out towns.
export const DEFAULT_EMA_PG: EmaPgConfig = { decay: 0.995, topK: 8, klCoef: 0.1 };

/** Top-k probabilities (and their logs) of each anchor row, sparse: rows × k indices and values. */
export interface AnchorTopK {
  k: number;
  index: Int32Array;
  p: Float32Array;
  logp: Float32Array;
}

export class EmaAnchor {
  private readonly ema: Float32Array[];

  constructor(
    private readonly model: AgentModel,
    readonly cfg: EmaPgConfig = DEFAULT_EMA_PG,
  ) {
    // Starts at the current parameters (also on resume: the anchor is not checkpointed, it re-forms
    // within ~1/(1 − decay) steps).
    this.ema = model.net.params.list().map((p) => Float32Array.from(p.data as Float32Array));
  }

  /** One EMA step towards the live parameters (after each optimizer step). */
  update(): void {
    const d = this.cfg.decay;
    this.model.net.params.list().forEach((p, i) => {
      const e = this.ema[i];
      const x = p.data as Float32Array;
      for (let j = 0; j < e.length; j++) e[j] = d * e[j] + (1 - d) * x[j];
    });
  }

  /**
   * The anchor's top-k distribution on `count` observation rows: the live parameters are swapped for
   * the EMA copy for the evaluation (the inference session reads the parameter buffers) and restored.
   */
  async topK(obs: Float32Array, count: number, chunk = 4096): Promise<AnchorTopK> {
    const { model } = this;
    const k = this.cfg.topK;
    const A = model.bins.count;
    const D = model.obsSize;
    const out: AnchorTopK = {
      k,
      index: new Int32Array(count * k),
      p: new Float32Array(count * k),
      logp: new Float32Array(count * k),
    };
    const params = model.net.params.list();
    const live = params.map((p) => Float32Array.from(p.data as Float32Array));
    params.forEach((p, i) => (p.data as Float32Array).set(this.ema[i]));
    try {
      const rowLogp = new Float64Array(A);
      for (let s = 0; s < count; s += chunk) {
        const m = Math.min(chunk, count - s);
        const { logits } = await model.evaluate(obs.subarray(s * D, (s + m) * D), m);
        for (let r = 0; r < m; r++) {
          logSoftmaxRow(logits, r * A, A, rowLogp);
          selectTopK(rowLogp, k, out, (s + r) * k);
        }
      }
    } finally {
      params.forEach((p, i) => (p.data as Float32Array).set(live[i]));
    }
    return out;
  }
}

function logSoftmaxRow(logits: Float32Array, at: number, A: number, out: Float64Array): void {
  let max = -Infinity;
  for (let a = 0; a < A; a++) max = Math.max(max, logits[at + a]);
  let z = 0;
  for (let a = 0; a < A; a++) z += Math.exp(logits[at + a] - max);
  const lz = max + Math.log(z);
  for (let a = 0; a < A; a++) out[a] = logits[at + a] - lz;
}

/** The k largest entries of `logp` into out.index/p/logp at `at` (k is small: insertion into a list). */
export function selectTopK(logp: Float64Array, k: number, out: AnchorTopK, at: number): void {
  let filled = 0;
  for (let a = 0; a < logp.length; a++) {
    const v = logp[a];
    if (filled === k && v <= out.logp[at + k - 1]) continue;
    let j = Math.min(filled, k - 1);
    while (j > 0 && out.logp[at + j - 1] < v) {
      out.logp[at + j] = out.logp[at + j - 1];
      out.index[at + j] = out.index[at + j - 1];
      j--;
    }
    out.logp[at + j] = v;
    out.index[at + j] = a;
    if (filled < k) filled++;
  }
  for (let j = 0; j < k; j++) out.p[at + j] = Math.exp(out.logp[at + j]);
}
