// The learned traffic-agent policy's training step as a learning-engine reference model (`policy`): the
// default network and loss of simulation/training (RTR minibatch: imitation + PPO rows with an EMA-PG anchor), mirrored
// in train_step.py.
import * as nn from '../../core/nn/index.ts';
import { DEFAULT_OBSERVATION, observationOffsets, observationSize } from '../../simulation/observation.ts';
import { ActionBins, DEFAULT_ACTION_BINS } from '../../simulation/training/actionBins.ts';
import { DEFAULT_EMA_PG } from '../../simulation/training/emaAnchor.ts';
import { DEFAULT_PPO } from '../../simulation/training/ppo.ts';
import { createPolicyNet, lossGraph } from '../../simulation/training/policyNet.ts';
import type { ReferenceModel } from './nn.bench.ts';

/**
 * Input sizes and distributions (train_step.py's AGENT_POLICY holds the same numbers): one RTR minibatch
 * of DEFAULT_PPO (512 RL rows + 256 imitation rows), entity slots filled with probability 0.7.
 */
export const POLICY_REFERENCE = {
  rlRows: DEFAULT_PPO.minibatch,
  ilRows: DEFAULT_PPO.demoRows,
  validShare: 0.7,
  /** [imitation, RL] coefficients: RTR with λ = 0.5, so both loss terms count. */
  coef: [1, 0.5] as [number, number],
  /** EMA-PG anchor on the RL rows: its top-k actions with random renormalised probabilities. */
  anchorTopK: DEFAULT_EMA_PG.topK,
  klCoef: DEFAULT_EMA_PG.klCoef,
  /** Gradient clipping of simulation/training/agentModel.ts. */
  clipGradNorm: 1,
  seed: 2,
};

/** The observation layout the PyTorch mirror (train_step.py policy) reproduces: version 1, without the expert block. */
const REFERENCE_OBSERVATION = { ...DEFAULT_OBSERVATION, version: 1 as const };

/** Random observations: N(0, 1) features, each entity slot valid (flag 1) or empty (all zero). */
function randomObs(rng: nn.Rng, rows: number): Float32Array {
  const cfg = REFERENCE_OBSERVATION;
  const off = observationOffsets(cfg);
  const size = observationSize(cfg);
  const x = new Float32Array(rows * size);
  const blocks: [number, number, number][] = [
    [off.agents, cfg.agents, 10],
    [off.lanes, cfg.lanePoints, 6],
    [off.edges, cfg.edgePoints, 3],
  ];
  for (let r = 0; r < rows; r++) {
    const o = r * size;
    for (let i = 0; i < off.agents; i++) x[o + i] = rng.normal();
    for (const [at, count, feat] of blocks) {
      for (let e = 0; e < count; e++) {
        if (rng.uniform() >= POLICY_REFERENCE.validShare) continue;
        const b = o + at + e * feat;
        x[b] = 1;
        for (let f = 1; f < feat; f++) x[b + f] = rng.normal();
      }
    }
  }
  return x;
}

/** Anchor probabilities [rows, A]: on RL rows, k distinct random actions with weights summing to 1. */
function randomAnchor(rng: nn.Rng, rows: number, rlRows: number, A: number): Float32Array {
  const p = new Float32Array(rows * A);
  for (let r = 0; r < rlRows; r++) {
    const picks = new Set<number>();
    while (picks.size < POLICY_REFERENCE.anchorTopK) picks.add(rng.int(A));
    const w = [...picks].map(() => 0.1 + rng.uniform());
    const sum = w.reduce((a, b) => a + b, 0);
    [...picks].forEach((a, i) => (p[r * A + a] = w[i] / sum));
  }
  return p;
}

export function policyReference(): ReferenceModel {
  const R = POLICY_REFERENCE;
  const bins = new ActionBins(DEFAULT_ACTION_BINS);
  const net = createPolicyNet(bins.count, REFERENCE_OBSERVATION);
  const lg = lossGraph(net);
  const rng = new nn.Rng(R.seed);
  const n = R.rlRows + R.ilRows;
  const size = observationSize(REFERENCE_OBSERVATION);
  const rl = (r: number) => (r < R.rlRows ? 1 : 0);
  return {
    graph: lg.graph,
    params: net.params,
    loss: lg.loss,
    clipGradNorm: R.clipGradNorm,
    feeds: {
      obs: { data: randomObs(rng, n), dims: [n, size] },
      action: { data: BigInt64Array.from({ length: n }, () => BigInt(rng.int(bins.count))), dims: [n] },
      il_weight: { data: Float32Array.from({ length: n }, (_, r) => 1 - rl(r)), dims: [n] },
      rl_weight: { data: Float32Array.from({ length: n }, (_, r) => rl(r)), dims: [n] },
      old_logp: { data: Float32Array.from({ length: n }, () => -5.8 + 0.5 * rng.normal()), dims: [n] },
      advantage: { data: Float32Array.from({ length: n }, () => rng.normal()), dims: [n] },
      return: { data: Float32Array.from({ length: n }, () => rng.normal()), dims: [n] },
      coef: { data: Float32Array.from(R.coef), dims: [2] },
      anchor_p: { data: randomAnchor(rng, n, R.rlRows, bins.count), dims: [n, bins.count] },
      kl_coef: { data: Float32Array.of(R.klCoef), dims: [1] },
    },
  };
}
