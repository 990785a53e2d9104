// The shared traffic-agent policy network of RTR (Zhang et al., CoRL 2023): per-entity encoders with
// max pooling per entity type (late fusion) → MLP → logits over the action bins, and a value head.
import * as nn from '../../core/nn/index.ts';
import {
  AGENT_FEATURES,
  crossingSlots,
  DEFAULT_OBSERVATION,
  EDGE_FEATURES,
  LANE_FEATURES,
  type ObservationConfig,
  observationOffsets,
  observationVersion,
  OWN_FEATURES,
} from '../observation.ts';
import { CROSSING_FEATURES, CROSSING_SCALE } from '../crossingFeatures.ts';
import { EXPERT_FEATURES, expertFeatureScale } from '../expertFeatures.ts';

export interface PolicyNetConfig {
  /** Width of each entity encoder (a 2-layer MLP shared by the entities of one type). */
  entityWidth: number;
  /** Hidden sizes of the MLP after the pooled entity features are joined. */
  hidden: readonly number[];
  /** Parameter initialisation seed. */
  seed: number;
  /**
   * Hidden sizes of a value network of its own on the pooled features, which the value loss does not
   * train (a stop-gradient): RL's value regression then leaves the policy's features to imitation and the
   * policy gradient. Empty: the value is a linear head on the policy's trunk (shared).
   */
  valueHidden: readonly number[];
  /**
   * Factorised heads: one linear head over the acceleration bins and one over the curvature bins, and
   * the logit of a pair is their sum, so softmax over the pairs is the product of the two softmaxes
   * (independent acceleration and steering). The output stays one logit per pair, so sampling, the
   * losses and the exported model read it as the joint head's. False: one head over every pair.
   */
  factorisedHeads: boolean;
}

export const DEFAULT_POLICY_NET: PolicyNetConfig = {
  entityWidth: 32,
  hidden: [192, 128],
  seed: 1,
  valueHidden: [],
  factorisedHeads: false,
};

// Fixed feature scales (metres over 20, speeds over 10, sizes over 5 / 2, flags 1), so inputs are O(1).
const OWN_SCALE = [0.1, 0.1, 0.1, 0.2, 0.5, 1, 1, 1, 1, 0.02, 0.02, 1];
const AGENT_SCALE = [1, 0.05, 0.05, 1, 1, 0.1, 0.1, 0.2, 0.5, 1];
const LANE_SCALE = [1, 0.05, 0.05, 1, 1, 1];
const EDGE_SCALE = [1, 0.05, 0.05];

/** Per-feature input scale of one observation. */
export function featureScale(obs: ObservationConfig = DEFAULT_OBSERVATION): Float32Array {
  const out: number[] = [...OWN_SCALE];
  for (let i = 0; i < obs.agents; i++) out.push(...AGENT_SCALE);
  for (let i = 0; i < obs.lanePoints; i++) out.push(...LANE_SCALE);
  for (let i = 0; i < obs.edgePoints; i++) out.push(...EDGE_SCALE);
  if (observationVersion(obs) === 2) {
    out.push(...expertFeatureScale());
    for (let i = 0; i < crossingSlots(obs); i++) out.push(...CROSSING_SCALE);
  }
  return Float32Array.from(out);
}

export interface PolicyNet {
  params: nn.ParamStore;
  obs: ObservationConfig;
  actions: number;
  cfg: PolicyNetConfig;
  /** Record the network on `x` [batch, observationSize]: logits [batch, actions], value [batch]. */
  apply(x: nn.Tensor): { logits: nn.Tensor; value: nn.Tensor };
}

/**
 * `actions`: the number of action bins, or [acceleration bins, curvature bins] (needed for factorised
 * heads; pair i = accelIndex × curvatureBins + curvatureIndex, as ActionBins).
 */
export function createPolicyNet(
  actions: number | readonly [number, number],
  obs: ObservationConfig = DEFAULT_OBSERVATION,
  over: Partial<PolicyNetConfig> = {},
): PolicyNet {
  const cfg = { ...DEFAULT_POLICY_NET, ...over };
  const [accelBins, curvatureBins] = typeof actions === 'number' ? [0, 0] : actions;
  const count = typeof actions === 'number' ? actions : accelBins * curvatureBins;
  if (cfg.factorisedHeads && accelBins === 0)
    throw new Error('policy net: factorised heads need the [acceleration, curvature] bin counts');
  const ps = new nn.ParamStore({ seed: cfg.seed });
  const W = cfg.entityWidth;
  const own = nn.mlp(ps, 'own', [OWN_FEATURES, W, W], { activateLast: true });
  const agent = nn.mlp(ps, 'agent', [AGENT_FEATURES, W, W], { activateLast: true });
  const lane = nn.mlp(ps, 'lane', [LANE_FEATURES, W, W], { activateLast: true });
  const edge = nn.mlp(ps, 'edge', [EDGE_FEATURES, W, W], { activateLast: true });
  // Version 2: the expert block (route ahead, lane offset, leader, stop line, history) has its own encoder.
  const v2 = observationVersion(obs) === 2;
  const expert = v2 ? nn.mlp(ps, 'expert', [EXPERT_FEATURES, 2 * W, 2 * W], { activateLast: true }) : null;
  // Crossing conflicts (version 2 with slots): one more entity type, pooled like the agents.
  const slots = v2 ? crossingSlots(obs) : 0;
  const crossing =
    slots > 0 ? nn.mlp(ps, 'crossing', [CROSSING_FEATURES, W, W], { activateLast: true }) : null;
  const joined = ((v2 ? 6 : 4) + (crossing ? 1 : 0)) * W;
  const trunk = nn.mlp(ps, 'trunk', [joined, ...cfg.hidden], { activateLast: true });
  const last = cfg.hidden[cfg.hidden.length - 1];
  const policyHead = cfg.factorisedHeads ? null : nn.linear(ps, 'policy', last, count);
  const accelHead = cfg.factorisedHeads ? nn.linear(ps, 'policyAccel', last, accelBins) : null;
  const curvatureHead = cfg.factorisedHeads ? nn.linear(ps, 'policyCurvature', last, curvatureBins) : null;
  // Pair logits a_i + k_j as [batch, A, 1] + [batch, 1, K], flattened row-major (i × K + j).
  const logitsOf = (z: nn.Tensor): nn.Tensor =>
    policyHead
      ? policyHead(z)
      : nn.reshape(nn.add(nn.unsqueeze(accelHead!(z), 2), nn.unsqueeze(curvatureHead!(z), 1)), [
          z.shape[0],
          count,
        ]);
  const separate = cfg.valueHidden.length > 0;
  const valueTrunk = separate
    ? nn.mlp(ps, 'valueTrunk', [joined, ...cfg.valueHidden], { activateLast: true })
    : null;
  const valueHead = separate
    ? nn.linear(ps, 'valueOut', cfg.valueHidden[cfg.valueHidden.length - 1], 1)
    : nn.linear(ps, 'value', last, 1);
  const off = observationOffsets(obs);
  const scale = featureScale(obs);
  // One entity type: slice its block, encode every entity, zero the empty slots (their features are
  // all zero but would still encode to something), max-pool over the entities. The entities are encoded
  // as the rows of one 2-D matrix: onnxruntime fuses a 2-D MatMul with its bias and ReLU into one Gemm
  // (a batched 3-D MatMul keeps them as separate passes over memory: inference 22 % slower).
  const pooled = (x: nn.Tensor, at: number, count: number, feat: number, enc: nn.Layer): nn.Tensor => {
    const rows = nn.reshape(nn.slice(x, [at], [at + count * feat], [1]), [-1, feat]);
    const valid = nn.slice(rows, [0], [1], [1]);
    const encoded = nn.mul(enc(rows), valid);
    return nn.reduceMax(nn.reshape(encoded, [-1, count, encoded.shape[1]]), 1);
  };
  return {
    params: ps,
    obs,
    actions: count,
    cfg,
    apply(raw) {
      const g = raw.graph;
      const x = nn.mul(raw, g.constant(scale, [scale.length]));
      const h = nn.concat(
        [
          own(nn.slice(x, [0], [OWN_FEATURES], [1])),
          pooled(x, off.agents, obs.agents, AGENT_FEATURES, agent),
          pooled(x, off.lanes, obs.lanePoints, LANE_FEATURES, lane),
          pooled(x, off.edges, obs.edgePoints, EDGE_FEATURES, edge),
          ...(expert ? [expert(nn.slice(x, [off.expert], [off.expert + EXPERT_FEATURES], [1]))] : []),
          ...(crossing ? [pooled(x, off.crossings, slots, CROSSING_FEATURES, crossing)] : []),
        ],
        1,
      );
      const z = trunk(h);
      const v = valueTrunk ? valueHead(valueTrunk(h.stopGradient())) : valueHead(z);
      return { logits: logitsOf(z), value: nn.squeeze(v, 1) };
    },
  };
}

/** Number of trained values of the network. */
export function parameterCount(net: PolicyNet): number {
  return net.params.list().reduce((s, p) => s + p.data.length, 0);
}

/** The inference graph: obs [batch, size] → logits, value. */
export function inferenceGraph(net: PolicyNet): { graph: nn.Graph; logits: nn.Tensor; value: nn.Tensor } {
  const g = new nn.Graph({ name: 'drivekit_agent_policy' });
  const x = g.input('obs', ['batch', off(net)]);
  const { logits, value } = net.apply(x);
  return { graph: g, logits, value };
}

function off(net: PolicyNet): number {
  return observationOffsets(net.obs).size;
}

export interface LossGraph {
  graph: nn.Graph;
  loss: nn.Tensor;
  /** Per-term values returned with each step: imitation CE, PPO surrogate, value loss, entropy, KL to anchor. */
  terms: Record<string, nn.Tensor>;
}

/** Coefficients of the PPO part of the loss. */
export interface PpoLossConfig {
  clip: number;
  valueCoef: number;
  entropyCoef: number;
  /**
   * The softmax temperature the policy is rolled out at, in training and once shipped: the PPO terms
   * (ratio, entropy, KL) are on softmax(logits / T), the imitation term stays on softmax(logits). Below 1
   * the imitation fits the expert's spread while RL tunes the sharper policy that actually drives.
   */
  temperature: number;
}

export const DEFAULT_PPO_LOSS: PpoLossConfig = {
  clip: 0.2,
  valueCoef: 0.5,
  entropyCoef: 0.01,
  temperature: 1,
};

/**
 * The one training graph of every mode: coef[0] · imitation cross-entropy (samples weighted by
 * il_weight: 0 drops infeasible expert steps and samples without demonstrations) + coef[1] · PPO loss
 * (clipped surrogate + value MSE − entropy over samples with rl_weight 1). BC feeds coef [1, 0], PPO
 * [0, 1], RTR [1, λ]. EMA-PG adds coef[1] · kl_coef · KL(anchor ‖ policy) with both distributions
 * restricted to the anchor's top-k actions and renormalised there (anchor_p: the anchor's renormalised
 * top-k probabilities, 0 elsewhere; all zero without an anchor, which makes the term 0).
 * `anchorTerm` false leaves the KL term and its inputs out: the same loss and gradients when no anchor is
 * fed, without a dozen passes over [batch, actions] in every step.
 */
export function lossGraph(
  net: PolicyNet,
  ppo: PpoLossConfig = DEFAULT_PPO_LOSS,
  { anchorTerm = true }: { anchorTerm?: boolean } = {},
): LossGraph {
  const g = new nn.Graph({ name: 'drivekit_agent_train' });
  const B = 'batch';
  const x = g.input('obs', [B, off(net)]);
  const action = g.input('action', [B], 'int64');
  const ilW = g.input('il_weight', [B]);
  const rlW = g.input('rl_weight', [B]);
  const oldLogp = g.input('old_logp', [B]);
  const adv = g.input('advantage', [B]);
  const ret = g.input('return', [B]);
  const coef = g.input('coef', [2]);
  const { logits, value } = net.apply(x);
  const logpIl = nn.logSoftmax(logits, -1);
  const pick = (lp: nn.Tensor) => nn.squeeze(nn.gatherElements(lp, nn.unsqueeze(action, -1), -1), -1);
  const wMean = (v: nn.Tensor, w: nn.Tensor) =>
    nn.div(nn.reduceSum(nn.mul(v, w)), nn.maximum(nn.reduceSum(w), 1));
  const chosenIl = pick(logpIl);
  const ce = wMean(nn.neg(chosenIl), ilW);
  // The rolled-out policy: tempered when T ≠ 1 (its log-probabilities are what the rollouts recorded).
  const T = ppo.temperature ?? 1;
  const logp = T === 1 ? logpIl : nn.logSoftmax(nn.mul(logits, 1 / T), -1);
  const chosen = T === 1 ? chosenIl : pick(logp);
  const ratio = nn.exp(nn.sub(chosen, oldLogp));
  const surrogate = nn.minimum(nn.mul(ratio, adv), nn.mul(nn.clip(ratio, 1 - ppo.clip, 1 + ppo.clip), adv));
  const policyLoss = nn.neg(wMean(surrogate, rlW));
  const valueLoss = wMean(nn.mul(nn.sub(value, ret), nn.sub(value, ret)), rlW);
  const entropy = wMean(nn.neg(nn.reduceSum(nn.mul(nn.exp(logp), logp), 1)), rlW);
  const ppoLoss = nn.sub(
    nn.add(policyLoss, nn.mul(valueLoss, ppo.valueCoef)),
    nn.mul(entropy, ppo.entropyCoef),
  );
  const terms: Record<string, nn.Tensor> = { ce, policy: policyLoss, value: valueLoss, entropy };
  const rl = anchorTerm ? nn.add(ppoLoss, anchorKl(g, net, logp, rlW, wMean, terms)) : ppoLoss;
  const c0 = nn.reduceSum(nn.slice(coef, [0], [1], [0]));
  const c1 = nn.reduceSum(nn.slice(coef, [1], [2], [0]));
  const loss = nn.add(nn.mul(ce, c0), nn.mul(rl, c1));
  return { graph: g, loss, terms };
}

/** EMA-PG's kl_coef · KL(anchor ‖ policy) on the anchor's top-k (inputs anchor_p, kl_coef); adds terms.kl. */
function anchorKl(
  g: nn.Graph,
  net: PolicyNet,
  logp: nn.Tensor,
  rlW: nn.Tensor,
  wMean: (v: nn.Tensor, w: nn.Tensor) => nn.Tensor,
  terms: Record<string, nn.Tensor>,
): nn.Tensor {
  const anchorP = g.input('anchor_p', ['batch', net.actions]);
  const klCoef = g.input('kl_coef', [1]);
  // KL(p̃ ‖ q̃) = Σ_K p̃ (log p̃ − log q) + log Σ_K q; the mask K is p̃ > 0, and 1 − Σ p̃ (1 without an
  // anchor, 0 with one) keeps the last log finite and 0 on rows without an anchor.
  const tiny = 1e-30;
  const mask = nn.div(anchorP, nn.maximum(anchorP, tiny));
  const cross = nn.reduceSum(nn.mul(anchorP, nn.sub(nn.log(nn.maximum(anchorP, tiny)), logp)), 1);
  const massK = nn.reduceSum(nn.mul(nn.exp(logp), mask), 1);
  const noAnchor = nn.sub(1, nn.reduceSum(anchorP, 1));
  const kl = wMean(nn.add(cross, nn.log(nn.maximum(nn.add(massK, noAnchor), tiny))), rlW);
  terms.kl = kl;
  return nn.mul(kl, nn.reduceSum(klCoef));
}
