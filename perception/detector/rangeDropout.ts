// Range-dependent point dropout: far returns are lost more often than near ones, as on real sensors whose
// weak far echoes fall below the detection threshold (the synthetic world returns too many far points).
import type { Rng } from '../../core/rng.ts';

export interface RangeDropoutConfig {
  /** Chance that a sample is thinned at all (0: off). */
  probability: number;
  /** Drop chance at `farM` and beyond, drawn uniform in [0, maxDrop] per sample; it grows as (r/farM)². */
  maxDrop: number;
  /** Range at which the drop chance reaches the sample's maximum. */
  farM: number;
}

export const DEFAULT_RANGE_DROPOUT_CONFIG: RangeDropoutConfig = { probability: 0, maxDrop: 0.6, farM: 60 };

/**
 * Which points survive dropping each with chance drop·min(1, (r/farM)²), r its horizontal range from
 * (egoX, egoY): the quadratic keeps near objects intact (they are what the seeds label) while thinning the
 * far field. Returns a keep mask (1 = kept).
 */
export function rangeDropoutMask(
  x: Float32Array,
  y: Float32Array,
  drop: number,
  farM: number,
  rng: Rng,
  egoX = 0,
  egoY = 0,
): Uint8Array {
  const inv2 = 1 / (farM * farM);
  const keep = new Uint8Array(x.length);
  for (let i = 0; i < keep.length; i++) {
    const dx = x[i] - egoX;
    const dy = y[i] - egoY;
    const share = Math.min(1, (dx * dx + dy * dy) * inv2);
    keep[i] = rng.uniform() >= drop * share ? 1 : 0;
  }
  return keep;
}
