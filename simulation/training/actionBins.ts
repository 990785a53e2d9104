// The discrete action space of the learned traffic agents (RTR, Zhang et al. CoRL 2023): every pair of
// an acceleration bin and a curvature bin of the kinematic bicycle, curvature bins dense near zero.

export interface ActionBinsConfig {
  /** Acceleration values, m/s² (ascending). */
  accelMps2: readonly number[];
  /**
   * Curvature values, 1/m (ascending, symmetric). Dense near zero: coarse steps there make agents
   * zig-zag on straight lanes (each step over- then under-steers), which costs realism.
   */
  curvaturePerM: readonly number[];
  /**
   * Residual steering: a curvature bin is a correction added to the pure-pursuit curvature on the
   * agent's route (observation version 2's expert block), not the curvature itself, so holding the
   * lane costs the policy no choice and the bins dense near zero resolve the correction. Absent: false.
   */
  residualSteering?: boolean;
  /**
   * Residual acceleration: an acceleration bin is added to IDM's acceleration (leader, yielding, red
   * lights) in the expert block, so the policy learns where to depart from the car-following model
   * rather than the car-following itself. Absent: false.
   */
  residualAccel?: boolean;
}

const CURVATURE_HALF = [0.0015, 0.004, 0.008, 0.014, 0.022, 0.034, 0.05, 0.075, 0.11, 0.16, 0.22, 0.3];

export const DEFAULT_ACTION_BINS: ActionBinsConfig = {
  accelMps2: [-6, -4, -3, -2, -1.2, -0.6, -0.25, 0, 0.25, 0.6, 1.2, 2, 3],
  curvaturePerM: [...CURVATURE_HALF.map((k) => -k).reverse(), 0, ...CURVATURE_HALF],
};

/** The bins as flat arrays: action index i = accelIndex × curvatureCount + curvatureIndex. */
export class ActionBins {
  readonly accel: Float64Array;
  readonly curvature: Float64Array;
  readonly count: number;
  /** Curvature bins add to the route's pure-pursuit curvature (ActionBinsConfig.residualSteering). */
  readonly residualSteering: boolean;
  /** Acceleration bins add to IDM's acceleration (ActionBinsConfig.residualAccel). */
  readonly residualAccel: boolean;

  constructor(readonly cfg: ActionBinsConfig = DEFAULT_ACTION_BINS) {
    this.accel = Float64Array.from(cfg.accelMps2);
    this.curvature = Float64Array.from(cfg.curvaturePerM);
    for (const arr of [this.accel, this.curvature])
      for (let i = 1; i < arr.length; i++)
        if (!(arr[i] > arr[i - 1])) throw new Error('action bins must be strictly ascending');
    this.count = this.accel.length * this.curvature.length;
    this.residualSteering = cfg.residualSteering === true;
    this.residualAccel = cfg.residualAccel === true;
  }

  /** Whether any bin is a correction to the expert block's values (needs observation version 2). */
  get residual(): boolean {
    return this.residualSteering || this.residualAccel;
  }

  /** The acceleration of action i, m/s²; `baseAccel` is IDM's (residual acceleration only). */
  accelOf(i: number, baseAccel = 0): number {
    const a = this.accel[Math.floor(i / this.curvature.length)];
    return this.residualAccel ? a + baseAccel : a;
  }

  /** The curvature of action i, 1/m; `baseCurvature` is the route's pure pursuit (residual steering only). */
  curvatureOf(i: number, baseCurvature = 0): number {
    const k = this.curvature[i % this.curvature.length];
    return this.residualSteering ? k + baseCurvature : k;
  }

  /** The action nearest an expert's (acceleration, curvature), with the bases as for accelOf / curvatureOf. */
  label(accelMps2: number, curvaturePerM: number, baseCurvature = 0, baseAccel = 0): number {
    const k = this.residualSteering ? curvaturePerM - baseCurvature : curvaturePerM;
    const a = this.residualAccel ? accelMps2 - baseAccel : accelMps2;
    return this.index(ActionBins.nearest(this.accel, a), ActionBins.nearest(this.curvature, k));
  }

  index(accelIndex: number, curvatureIndex: number): number {
    return accelIndex * this.curvature.length + curvatureIndex;
  }

  /** Index of the value of `arr` nearest to v. */
  static nearest(arr: Float64Array, v: number): number {
    let best = 0;
    for (let i = 1; i < arr.length; i++) if (Math.abs(arr[i] - v) < Math.abs(arr[best] - v)) best = i;
    return best;
  }

  /** Half the gap to the neighbouring bin around bin j of arr (the resolution there). */
  static halfGap(arr: Float64Array, j: number): number {
    const lo = j > 0 ? arr[j] - arr[j - 1] : arr[j + 1] - arr[j];
    const hi = j < arr.length - 1 ? arr[j + 1] - arr[j] : lo;
    return Math.max(lo, hi) / 2;
  }
}
