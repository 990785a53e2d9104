// Scan-to-map ICP by Gauss-Newton on SE(3): point-to-plane residuals where the map voxel is planar,
// point-to-point elsewhere, each weighted by a Geman-McClure kernel (KISS-ICP, Vizzo et al. 2023, §III-E).
import type { Pose } from '../../core/geometry/pose.ts';
import { composePoses, invertPose } from '../../core/geometry/pose.ts';
import { expSE3, logSE3 } from './se3.ts';
import { type Neighbour, SHAPE_LINE, SHAPE_PLANE, type VoxelHashMap } from './voxelHashMap.ts';

export interface IcpConfig {
  /** Gauss-Newton iterations at most. */
  maxIterations: number;
  /** Stop when the update's norm (rad and m together) falls below this. */
  convergence: number;
  /**
   * Point-to-plane residuals where the map is locally planar, none where it is a line (a lone scan ring),
   * point-to-point elsewhere; false: point-to-point everywhere, as KISS-ICP.
   */
  pointToPlane: boolean;
  /**
   * Weight of the constant-velocity prediction as a share of the points' total kernel weight: a pull
   * towards the predicted pose that matters only along directions the scene does not constrain (an open
   * road: ground planes fix z, roll and pitch, nothing fixes the travel direction).
   */
  motionPriorWeight: number;
}

export interface IcpResult {
  /** world_from_vehicle after registration. */
  pose: Pose;
  iterations: number;
  /** Source points with a correspondence in the last iteration. */
  inliers: number;
  /** How many of those used a plane. */
  planar: number;
}

/** Solve the 6×6 SPD system H·x = b in place by Cholesky (H row-major, 36 numbers); false if singular. */
export function solve6(H: Float64Array, b: Float64Array, x: Float64Array): boolean {
  const L = new Float64Array(36);
  for (let i = 0; i < 6; i++) {
    for (let j = 0; j <= i; j++) {
      let s = H[i * 6 + j];
      for (let k = 0; k < j; k++) s -= L[i * 6 + k] * L[j * 6 + k];
      if (i === j) {
        if (!(s > 1e-12)) return false;
        L[i * 6 + i] = Math.sqrt(s);
      } else L[i * 6 + j] = s / L[j * 6 + j];
    }
  }
  const y = new Float64Array(6);
  for (let i = 0; i < 6; i++) {
    let s = b[i];
    for (let k = 0; k < i; k++) s -= L[i * 6 + k] * y[k];
    y[i] = s / L[i * 6 + i];
  }
  for (let i = 5; i >= 0; i--) {
    let s = y[i];
    for (let k = i + 1; k < 6; k++) s -= L[k * 6 + i] * x[k];
    x[i] = s / L[i * 6 + i];
  }
  return true;
}

/** Add w·JᵀJ and w·Jᵀr of one residual row J (6) to the upper triangle of H and to g; returns w. */
function accumulate(H: Float64Array, g: Float64Array, J: Float64Array, r: number, w: number): number {
  for (let i = 0; i < 6; i++) {
    const wi = w * J[i];
    g[i] += wi * r;
    for (let j = i; j < 6; j++) H[i * 6 + j] += wi * J[j];
  }
  return w;
}

/**
 * Register packed vehicle-frame points `source` to the map, starting from `initial` (world_from_vehicle).
 * Correspondences farther than `maxCorrespondenceM` are ignored; `kernelScale` is the Geman-McClure κ in
 * w = κ² / (κ + r²)², as KISS-ICP writes it.
 */
export function registerToMap(
  source: Float32Array,
  map: VoxelHashMap,
  initial: Pose,
  maxCorrespondenceM: number,
  kernelScale: number,
  cfg: IcpConfig,
): IcpResult {
  const n = source.length / 3;
  let T: Pose = Float64Array.from(initial);
  const H = new Float64Array(36);
  const g = new Float64Array(6);
  const J = new Float64Array(6);
  const delta = new Float64Array(6);
  const nrm = new Float64Array(3);
  const nb: Neighbour = { x: 0, y: 0, z: 0, voxel: -1, dist2: 0 };
  const step = new Float64Array(16);
  const k2 = kernelScale * kernelScale;
  let iterations = 0;
  let inliers = 0;
  let planar = 0;
  for (let it = 0; it < cfg.maxIterations; it++) {
    iterations = it + 1;
    H.fill(0);
    g.fill(0);
    inliers = 0;
    planar = 0;
    let wSum = 0;
    const [r00, r01, r02, tx, r10, r11, r12, ty, r20, r21, r22, tz] = T;
    for (let i = 0; i < n; i++) {
      const sx = source[3 * i];
      const sy = source[3 * i + 1];
      const sz = source[3 * i + 2];
      const px = r00 * sx + r01 * sy + r02 * sz + tx;
      const py = r10 * sx + r11 * sy + r12 * sz + ty;
      const pz = r20 * sx + r21 * sy + r22 * sz + tz;
      if (!map.nearest(px, py, pz, maxCorrespondenceM, nb)) continue;
      const shape = cfg.pointToPlane ? map.shape(nb.voxel, nrm) : -1;
      if (shape === SHAPE_LINE) continue;
      inliers++;
      const ex = px - nb.x;
      const ey = py - nb.y;
      const ez = pz - nb.z;
      // Left perturbation p' = p + ω×p + v: ∂p/∂ω = −[p]×, ∂p/∂v = I.
      if (shape === SHAPE_PLANE) {
        planar++;
        const r = nrm[0] * ex + nrm[1] * ey + nrm[2] * ez;
        const d = kernelScale + r * r;
        const w = k2 / (d * d);
        // ∂r/∂ω = nᵀ(−[p]×) = (p × n)ᵀ.
        J[0] = py * nrm[2] - pz * nrm[1];
        J[1] = pz * nrm[0] - px * nrm[2];
        J[2] = px * nrm[1] - py * nrm[0];
        J[3] = nrm[0];
        J[4] = nrm[1];
        J[5] = nrm[2];
        wSum += accumulate(H, g, J, r, w);
      } else {
        const d = kernelScale + ex * ex + ey * ey + ez * ez;
        const w = k2 / (d * d);
        // Rows of −[p]× : x: (0, pz, −py), y: (−pz, 0, px), z: (py, −px, 0).
        J[0] = 0;
        J[1] = pz;
        J[2] = -py;
        J[3] = 1;
        J[4] = 0;
        J[5] = 0;
        wSum += accumulate(H, g, J, ex, w);
        J[0] = -pz;
        J[1] = 0;
        J[2] = px;
        J[3] = 0;
        J[4] = 1;
        accumulate(H, g, J, ey, w);
        J[0] = py;
        J[1] = -px;
        J[2] = 0;
        J[4] = 0;
        J[5] = 1;
        accumulate(H, g, J, ez, w);
      }
    }
    // The prior: residual log(T · initial⁻¹) + δ with weight λ on every coordinate.
    const lambda = cfg.motionPriorWeight * wSum;
    if (lambda > 0) {
      const dev = logSE3(composePoses(T, invertPose(initial)));
      for (let i = 0; i < 6; i++) {
        H[i * 6 + i] += lambda;
        g[i] += lambda * dev[i];
      }
    }
    for (let i = 0; i < 6; i++) for (let j = 0; j < i; j++) H[i * 6 + j] = H[j * 6 + i];
    for (let i = 0; i < 6; i++) g[i] = -g[i];
    if (inliers < 6 || !solve6(H, g, delta) || !delta.every(Number.isFinite)) break;
    T = composePoses(expSE3(delta, step), T);
    if (Math.hypot(delta[0], delta[1], delta[2], delta[3], delta[4], delta[5]) < cfg.convergence) break;
  }
  return { pose: T, iterations, inliers, planar };
}
