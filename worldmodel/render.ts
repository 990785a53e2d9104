// Differentiable depth rendering along LiDAR rays through the decoded voxel grid (Copilot4D §3.1):
// αᵢ = σ(fᵢ), wᵢ = αᵢ ∏ⱼ<ᵢ(1 − αⱼ), depth = Σ wᵢhᵢ (+ the light that escapes, at the region's edge).
import type { Graph, Tensor } from '../core/nn/graph.ts';
import * as o from '../core/nn/ops/index.ts';

/** The sample table of rays.ts as graph inputs. */
export interface RayInputs {
  /** [R, S, 8] int32 flat corner indices (frame offset included when several frames are batched). */
  corner: Tensor;
  /** [R, S, 8] trilinear weights. */
  cornerWeight: Tensor;
  /** [R, S] depth of each sample. */
  sampleDepth: Tensor;
  /** [R, S] 1 inside the region, 0 past the exit. */
  inside: Tensor;
  /** [R] depth at which each ray leaves the region. */
  exit: Tensor;
}

/** The sample table as inputs of `g` (`S` samples per ray, any number of rays). */
export function rayInputs(g: Graph, S: number): RayInputs {
  return {
    corner: g.input('corner', ['rays', S, 8], 'int32'),
    cornerWeight: g.input('corner_weight', ['rays', S, 8]),
    sampleDepth: g.input('sample_depth', ['rays', S]),
    inside: g.input('inside', ['rays', S]),
    exit: g.input('exit', ['rays']),
  };
}

export interface Rendered {
  /** [R] rendered depth. */
  depth: Tensor;
  /** [R, S] compositing weights wᵢ. */
  weights: Tensor;
  /** [R, S] interpolated density logits fᵢ (before the occupancy gate). */
  logits: Tensor;
}

/** softplus(x) = log(1 + eˣ), stably: max(x, 0) + log(1 + e^−|x|). */
export function softplus(x: Tensor): Tensor {
  return o.add(o.relu(x), o.log(o.add(o.exp(o.neg(o.abs(x))), 1)));
}

/** Trilinear interpolation of a flat grid at the samples: Σ_c w_c · grid[corner_c] → [R, S]. */
export function interpolate(gridFlat: Tensor, rays: RayInputs): Tensor {
  return o.reduceSum(o.mul(o.gather(gridFlat, rays.corner, 0), rays.cornerWeight), [2]);
}

/**
 * Render depth from `densityFlat` (logits fᵢ of α, one per voxel, flattened). Where `occupancyFlat` is
 * given, samples whose interpolated occupancy probability is below `skipBelow` get α = 0 — empty space
 * as the occupancy head sees it, without a gradient through that choice.
 */
export function renderDepth(
  densityFlat: Tensor,
  rays: RayInputs,
  gate: { occupancyFlat: Tensor; skipBelow: number } | null = null,
): Rendered {
  const f = interpolate(densityFlat, rays);
  let mask = rays.inside;
  if (gate && gate.skipBelow > 0) {
    const occ = o.sigmoid(interpolate(o.stopGradient(gate.occupancyFlat), rays));
    mask = o.mul(mask, o.cast(o.greaterOrEqual(occ, gate.skipBelow), f.dtype));
  }
  const alpha = o.mul(o.sigmoid(f), mask);
  // log(1 − m·σ(f)) = −m·softplus(f) for a 0/1 mask m: stable where α → 1.
  const logPass = o.neg(o.mul(softplus(f), mask));
  const logT = o.cumSum(logPass, 1, { exclusive: true });
  const weights = o.mul(alpha, o.exp(logT));
  const escaped = o.exp(o.reduceSum(logPass, [1]));
  const depth = o.add(o.reduceSum(o.mul(weights, rays.sampleDepth), [1]), o.mul(escaped, rays.exit));
  return { depth, weights, logits: f };
}

/**
 * UnO-style free-space loss: BCE of the density logits against 0 at samples before the return (`free`
 * mask) and 1 at samples at the return (`hit` mask), each averaged over its own samples so the few hit
 * samples weigh as much as the many free ones.
 */
export function freeSpaceLoss(logits: Tensor, free: Tensor, hit: Tensor): Tensor {
  const sp = softplus(logits); // −log(1 − σ(f))
  const spNeg = softplus(o.neg(logits)); // −log σ(f)
  const mean = (x: Tensor, m: Tensor) => o.div(o.reduceSum(o.mul(x, m)), o.add(o.reduceSum(m), 1));
  return o.add(mean(sp, free), mean(spNeg, hit));
}

/** Σᵢ 1(|hᵢ − d| > margin)·wᵢ², averaged over rays; `far` [R, S] is that indicator (known from the data). */
export function surfaceConcentration(weights: Tensor, far: Tensor): Tensor {
  return o.reduceMean(o.reduceSum(o.mul(o.mul(weights, weights), far), [1]));
}
