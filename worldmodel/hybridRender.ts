// The hybrid renderer of a forecast: what the forecaster keeps is read from the aggregated past sweeps (4D-Occ's
// ray-trace of past points, ground fallback), only rays that meet a token column the forecaster changed go through
// the tokenizer's decoder (Copilot4D's renderer) — so a forecaster that changes nothing is the ray-trace baseline.
import { gridGeometry, type TokenizerConfig } from './config.ts';
import type { RayTraceDepths } from './baselines/rayTracePast.ts';
import type { Rays } from './rays.ts';

/** What a ray with no past point near it (a ray-trace miss) takes: the flat ground / region exit, or the decoder. */
export type HybridMisses = 'ground' | 'decoder';

export interface HybridRule {
  /** The forecaster's token replaces the prior's where its probability ≥ this (above 1: never). */
  threshold: number;
  /** Observed sweeps (0.2 s apart, the last at t0) aggregated in each future frame. */
  pastSweeps: number;
  misses: HybridMisses;
}

/** 1 per token column where `grid` differs from the prior (the columns the forecaster changed). */
export function changedColumns(grid: Int32Array, prior: Int32Array): Uint8Array {
  const out = new Uint8Array(grid.length);
  for (let i = 0; i < grid.length; i++) out[i] = grid[i] !== prior[i] ? 1 : 0;
  return out;
}

/** Number of changed columns (0: the hybrid needs no decoder unless misses go to it). */
export function countChanged(changed: Uint8Array): number {
  let n = 0;
  for (let i = 0; i < changed.length; i++) n += changed[i];
  return n;
}

/**
 * Depth per ray (sensor at the origin of the frame): the ray-trace's ground-fallback depth, except where the
 * point at that depth or at the decoded depth lies in a changed column (a mover left, or one came between),
 * or where the ray-trace found no past point and `misses` is 'decoder' — there the decoded depth.
 * `decoded` may be null only when nothing is changed and misses stay on the ground.
 */
export function hybridDepth(
  cfg: TokenizerConfig,
  rays: Rays,
  rt: RayTraceDepths,
  decoded: Float32Array | null,
  changed: Uint8Array,
  misses: HybridMisses,
): Float32Array {
  const geo = gridGeometry(cfg);
  const t = geo.tokensXY;
  const r = cfg.grid.rangeM;
  const column = (x: number, y: number) => {
    const c = Math.floor((x + r) / geo.tokenM);
    const w = Math.floor((y + r) / geo.tokenM);
    return c < 0 || c >= t || w < 0 || w >= t ? -1 : w * t + c;
  };
  const anyChanged = countChanged(changed) > 0;
  if ((anyChanged || misses === 'decoder') && !decoded)
    throw new Error('hybridDepth: changed columns or decoder misses need the decoded depth');
  const out = rt.ground.slice();
  for (let k = 0; k < rays.count; k++) {
    if (misses === 'decoder' && rt.miss[k]) {
      out[k] = decoded![k];
      continue;
    }
    if (!anyChanged) continue;
    const dx = rays.dirX[k];
    const dy = rays.dirY[k];
    const a = column(dx * rt.ground[k], dy * rt.ground[k]);
    const b = column(dx * decoded![k], dy * decoded![k]);
    if ((a >= 0 && changed[a]) || (b >= 0 && changed[b])) out[k] = decoded![k];
  }
  return out;
}
