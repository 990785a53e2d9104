// RTR's Lagrange multiplier (Zhang et al., CoRL 2023): min imitation loss s.t. infraction rate ≤ target,
// as IL + λ·RL with λ updated by projected dual ascent on the measured constraint violation.

export interface DualAscentConfig {
  /** Allowed infraction rate (collision or off-road, per agent and rollout). */
  targetRate: number;
  /** Dual step size: λ changes by this × (rate − target) per update. */
  stepSize: number;
  /** λ stays within [0, maxLambda]. */
  maxLambda: number;
}

export const DEFAULT_DUAL_ASCENT: DualAscentConfig = { targetRate: 0.02, stepSize: 20, maxLambda: 10 };

/** λ after one dual-ascent step on the measured infraction rate: up when above target, down when below. */
export function dualAscent(
  lambda: number,
  infractionRate: number,
  cfg: DualAscentConfig = DEFAULT_DUAL_ASCENT,
): number {
  const next = lambda + cfg.stepSize * (infractionRate - cfg.targetRate);
  return Math.min(cfg.maxLambda, Math.max(0, next));
}
