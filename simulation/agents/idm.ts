// The Intelligent Driver Model car-following law (Treiber, Hennecke & Helbing 2000) as a pure function:
// acceleration from own speed, gap to the leader and closing speed. Used by the town generator and the IDM agent.

/** IDM parameters; defaults are the usual urban-traffic values of Treiber & Kesting, "Traffic Flow Dynamics". */
export interface IdmConfig {
  /** Desired (free-road) speed v0, m/s. Usually the lane's speed limit. */
  desiredSpeedMps: number;
  /** Safe time headway T, seconds. */
  timeHeadwayS: number;
  /** Maximum acceleration a, m/s². */
  maxAccelMps2: number;
  /** Comfortable deceleration b, m/s² (positive). */
  comfortDecelMps2: number;
  /** Minimum bumper-to-bumper gap s0 at standstill, metres. */
  minGapM: number;
  /** Acceleration exponent δ. */
  accelExponent: number;
  /** Hard floor on the returned acceleration (physical braking limit), m/s² (negative). */
  maxBrakeMps2: number;
}

export const DEFAULT_IDM: IdmConfig = {
  desiredSpeedMps: 13.9, // 50 km/h
  timeHeadwayS: 1.5,
  maxAccelMps2: 1.0,
  comfortDecelMps2: 1.5,
  minGapM: 2.0,
  accelExponent: 4,
  maxBrakeMps2: -8.0,
};

/** IDM with defaults overridden by `over`. */
export function idmConfig(over: Partial<IdmConfig> = {}): IdmConfig {
  return { ...DEFAULT_IDM, ...over };
}

/**
 * IDM acceleration (m/s²).
 * @param speedMps own speed v ≥ 0
 * @param gapM bumper-to-bumper distance to the leader (Infinity when the road ahead is free)
 * @param closingSpeedMps v − v_leader (positive when approaching); ignored when the gap is infinite
 */
export function idmAcceleration(cfg: IdmConfig, speedMps: number, gapM: number, closingSpeedMps = 0): number {
  const v = Math.max(0, speedMps);
  const v0 = Math.max(cfg.desiredSpeedMps, 1e-3);
  const free = 1 - Math.pow(v / v0, cfg.accelExponent);
  let interaction = 0;
  if (Number.isFinite(gapM)) {
    const sStar =
      cfg.minGapM +
      Math.max(
        0,
        v * cfg.timeHeadwayS +
          (v * closingSpeedMps) / (2 * Math.sqrt(cfg.maxAccelMps2 * cfg.comfortDecelMps2)),
      );
    const s = Math.max(gapM, 0.01);
    interaction = (sStar / s) * (sStar / s);
  }
  const a = cfg.maxAccelMps2 * (free - interaction);
  return Math.max(cfg.maxBrakeMps2, a);
}

/**
 * Advance speed and position by one step with the IDM acceleration, never reversing (the speed is
 * clamped at zero, with the distance of the stopping manoeuvre, as in Treiber's ballistic update).
 * Returns [newSpeed, distanceTravelled].
 */
export function idmStep(speedMps: number, accelMps2: number, dtS: number): [number, number] {
  const vNext = speedMps + accelMps2 * dtS;
  if (vNext >= 0) return [vNext, (speedMps + vNext) * 0.5 * dtS];
  // Stops within the step: distance v²/(2|a|).
  return [0, accelMps2 < 0 ? (speedMps * speedMps) / (-2 * accelMps2) : 0];
}
