// The forecaster: a spatio-temporal transformer over token grids (Copilot4D §3.2, one U-Net level) — full
// attention within each frame on the 2 × 2-merged grid, causal attention across frames at each position.
import { Graph, type Tensor } from '../core/nn/graph.ts';
import { transformerBlock, type AttentionLayer } from '../core/nn/attention.ts';
import { layerNorm, linear, type Layer } from '../core/nn/layers.ts';
import * as o from '../core/nn/ops/index.ts';
import type { ParamStore, Parameter } from '../core/nn/params.ts';
import type { ForecasterConfig } from './forecastConfig.ts';

/** Numbers of a frame's relative pose fed to the network: the top 3 × 4 of target_from_frame. */
export const POSE_FEATURES = 12;
/** Translations are divided by this before the pose Linear, so every feature is O(1). */
export const POSE_TRANSLATION_SCALE_M = 10;

/** Input id of a masked token. */
export const maskId = (codes: number): number => codes;
/** Prior id where a frame has no prior (past frames, the unconditional branch). */
export const noPriorId = (codes: number): number => codes + 1;

export interface ForecasterInputs {
  /** [B, T, t, t] int32: a code, or maskId for a masked token. */
  tokens: Tensor;
  /** [B, T, t, t] int32: the ego-motion prior's code, or noPriorId where there is none. */
  prior: Tensor;
  /** [B, T, 12] relative pose of each frame to the grid's reference frame. */
  pose: Tensor;
  /** [B, T, 1] share of the frame's tokens still masked (the diffusion time). */
  maskRatio: Tensor;
  /** [B·P, 1, T, T] bool: which frames each frame may attend to (causal, or itself only). */
  temporalMask: Tensor;
}

/** Which logits the network computes. */
export type ForecastOutput = 'all' | 'future' | Tensor;

export interface ForecasterNetwork {
  config: ForecasterConfig;
  codes: number;
  tokensXY: number;
  /** Logits [B, T, t, t, codes] ('all'), [B, future, t, t, codes] ('future'), or [N, codes] of the tokens at
   * flat indices `out` [N] into B·T·t² (training). */
  forward(inp: ForecasterInputs, out: ForecastOutput): Tensor;
  params: Parameter[];
}

/** Graph inputs of the network for batch size `batch` (a number, or symbolic). */
export function forecasterInputs(
  g: Graph,
  cfg: ForecasterConfig,
  tokensXY: number,
  batch: number | string,
): ForecasterInputs {
  const T = cfg.frames.past + cfg.frames.future;
  const P = (tokensXY / cfg.network.merge) ** 2;
  const bp = typeof batch === 'number' ? batch * P : 'batch_positions';
  return {
    tokens: g.input('tokens', [batch, T, tokensXY, tokensXY], 'int32'),
    prior: g.input('prior', [batch, T, tokensXY, tokensXY], 'int32'),
    pose: g.input('pose', [batch, T, POSE_FEATURES]),
    maskRatio: g.input('mask_ratio', [batch, T, 1]),
    temporalMask: g.input('temporal_mask', [bp, 1, T, T], 'bool'),
  };
}

export function createForecasterNetwork(
  ps: ParamStore,
  cfg: ForecasterConfig,
  codes: number,
  tokensXY: number,
): ForecasterNetwork {
  const n = cfg.network;
  const m = n.merge;
  if (tokensXY % m !== 0) throw new Error(`forecaster: token grid ${tokensXY} not a multiple of merge ${m}`);
  const T = cfg.frames.past + cfg.frames.future;
  const s = tokensXY / m;
  const P = s * s;
  const W = n.width;
  const E = n.tokenDim;
  const emb = { kind: 'normal', std: 0.02 } as const;
  // One table for the input tokens, the prior and the output (tied, Press & Wolf 2017): rows 0 … codes − 1
  // are the codes, then [MASK] and [NO PRIOR].
  const table = ps.add('fc.codes', [codes + 2, E], emb, { kind: 'embedding' });
  const tokEmb = (ids: Tensor) => o.gather(ids.graph.param(table), ids, 0);
  const priorEmb = n.egoPrior ? tokEmb : null;
  const mergeIn = linear(ps, 'fc.merge', m * m * E, W);
  const posEmb = ps.add('fc.position', [P, W], emb, { kind: 'embedding' });
  const frameEmb = ps.add('fc.frame', [T, W], emb, { kind: 'embedding' });
  const poseIn = linear(ps, 'fc.pose', POSE_FEATURES, W);
  const timeIn = linear(ps, 'fc.time', 1, W);
  const spatial: AttentionLayer[] = [];
  const temporal: AttentionLayer[] = [];
  for (let b = 0; b < n.blocks; b++) {
    const opts = { dim: W, heads: n.heads, mlpRatio: n.mlpRatio };
    spatial.push(transformerBlock(ps, `fc.block${b}.spatial`, opts));
    temporal.push(transformerBlock(ps, `fc.block${b}.temporal`, opts));
  }
  // Zero at the start, so the first forecasts are the tied head's reading of the token and prior embeddings:
  // a given token comes back as itself, a masked one as its prior's code (copy-last); training learns the rest.
  const unmerge = linear(ps, 'fc.unmerge', W, m * m * E, { init: { kind: 'zeros' } });
  ps.get('fc.unmerge.bias').data.fill(0);
  const norm: Layer = layerNorm(ps, 'fc.norm', E);
  const headBias = ps.add('fc.head.bias', [codes], { kind: 'zeros' }, { kind: 'bias' });
  const head = (h: Tensor) => {
    const g = h.graph;
    const w = o.transpose(o.slice(g.param(table), [0], [codes], [0]), [1, 0]);
    return o.add(o.matmul(h, w), g.param(headBias));
  };

  const forward = (inp: ForecasterInputs, out: ForecastOutput): Tensor => {
    const g = inp.tokens.graph;
    let e = tokEmb(inp.tokens); // [B, T, t, t, E]
    if (priorEmb) e = o.add(e, priorEmb(inp.prior));
    // Merge m × m tokens: [B, T, s, m, s, m, E] → [B, T, s, s, m, m, E] → [B, T, P, m²E].
    let me = o.reshape(e, [-1, T, s, m, s, m, E]);
    me = o.transpose(me, [0, 1, 2, 4, 3, 5, 6]);
    let x = mergeIn(o.reshape(me, [-1, T, P, m * m * E])); // [B, T, P, W]
    x = o.add(x, g.param(posEmb));
    x = o.add(x, o.reshape(g.param(frameEmb), [1, T, 1, W]));
    x = o.add(x, o.unsqueeze(poseIn(inp.pose), 2));
    x = o.add(x, o.unsqueeze(timeIn(inp.maskRatio), 2));
    for (let b = 0; b < n.blocks; b++) {
      x = o.reshape(spatial[b](o.reshape(x, [-1, P, W])), [-1, T, P, W]);
      const tx = o.reshape(o.transpose(x, [0, 2, 1, 3]), [-1, T, W]); // [B·P, T, W]
      const ty = temporal[b](tx, { mask: inp.temporalMask });
      x = o.transpose(o.reshape(ty, [-1, P, T, W]), [0, 2, 1, 3]);
    }
    // Back to tokens: each merged position's m × m token features, plus the token's own input embedding
    // (a skip, as the U-Net's): copying a given or prior token is then a per-token path.
    const F = out === 'future' ? cfg.frames.future : T;
    if (out === 'future') {
      x = o.slice(x, [cfg.frames.past], [T], [1]);
      e = o.slice(e, [cfg.frames.past], [T], [1]);
    }
    let u = o.reshape(unmerge(x), [-1, F, s, s, m, m, E]);
    u = o.transpose(u, [0, 1, 2, 4, 3, 5, 6]);
    let h = o.add(o.reshape(u, [-1, F, tokensXY, tokensXY, E]), e);
    // Training scores a sample of tokens: gather them (flat indices into B·T·t²) before the head.
    if (out !== 'future' && out !== 'all') h = o.gather(o.reshape(h, [-1, E]), out, 0);
    return head(norm(h));
  };
  return { config: cfg, codes, tokensXY, forward, params: ps.list() };
}
