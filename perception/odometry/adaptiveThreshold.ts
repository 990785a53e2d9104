// KISS-ICP's adaptive correspondence threshold (Vizzo et al. 2023, §III-D): σ is the RMS of how far the
// constant-velocity prediction was off in past frames, measured as the displacement of a point at max range.
import { rotationAngle, translationNorm } from './se3.ts';

export interface AdaptiveThresholdConfig {
  /** σ (m) before any frame has moved enough to measure the prediction error. */
  initialThresholdM: number;
  /** Frames whose prediction error is below this (m) are not counted (standing still says nothing). */
  minMotionM: number;
  /** Range used to turn a rotation error into a point displacement: 2·r·sin(θ/2). */
  maxRangeM: number;
}

/** Displacement bound of a point within `maxRangeM` under the pose error `delta` (4×4 row-major). */
export function modelDeviation(delta: ArrayLike<number>, maxRangeM: number): number {
  return translationNorm(delta) + 2 * maxRangeM * Math.sin(rotationAngle(delta) / 2);
}

export class AdaptiveThreshold {
  private sse = 0;
  private samples = 0;

  constructor(private readonly cfg: AdaptiveThresholdConfig) {}

  /** Count one frame's prediction error: `delta` = prediction⁻¹ · registered pose. */
  update(delta: ArrayLike<number>): void {
    const e = modelDeviation(delta, this.cfg.maxRangeM);
    if (e > this.cfg.minMotionM) {
      this.sse += e * e;
      this.samples++;
    }
  }

  /** σ: the correspondence distance is 3σ and the robust kernel's scale σ/3. */
  sigma(): number {
    return this.samples === 0 ? this.cfg.initialThresholdM : Math.sqrt(this.sse / this.samples);
  }
}
