// The teacher's handle on the long-tail generator: a UniformSource whose i-th draw is the quantile the
// teacher chose for slot i (bin centres over the kind's range, widened past both ends), after Zhang et al.
import type { UniformSource } from '../longtail/kind.ts';
import { LONGTAIL_KINDS } from '../longtail/generate.ts';

export interface DrawSpace {
  /** Draw slots the teacher fills (more than any kind uses; a kind's unused slots are masked out). */
  slots: number;
  /** Choices per slot: evenly spaced quantiles over [lowQ, highQ] of the kind's own range. */
  bins: number;
  /**
   * Quantile range: [0, 1] is the procedural generator's range; past it the teacher can make an agent
   * faster, later or harsher than the hand-set kind, which the realism term then judges (WOSAC-style bounds).
   */
  lowQ: number;
  highQ: number;
}

export const DEFAULT_DRAW_SPACE: DrawSpace = { slots: 6, bins: 9, lowQ: -0.25, highQ: 1.25 };

/** The quantile of bin b. */
export function binQuantile(space: DrawSpace, b: number): number {
  return space.lowQ + ((space.highQ - space.lowQ) * b) / (space.bins - 1);
}

/** Draws in order from chosen bins; records every draw (range and value) for the labels. */
export class ChosenDraws implements UniformSource {
  private i = 0;
  readonly drawn: { lo: number; hi: number; value: number }[] = [];
  constructor(
    private readonly bins: ArrayLike<number>,
    private readonly space: DrawSpace = DEFAULT_DRAW_SPACE,
  ) {}

  uniform(lo: number, hi: number): number {
    if (this.i >= this.space.slots)
      throw new Error(`ChosenDraws: a kind drew more than ${this.space.slots} parameters`);
    const q = binQuantile(this.space, this.bins[this.i++]);
    // A negative width or speed would not be a scenario: values stay ≥ 0 where the range is ≥ 0.
    const v = Math.max(lo >= 0 ? 0 : -Infinity, lo + q * (hi - lo));
    this.drawn.push({ lo, hi, value: v });
    return v;
  }

  get used(): number {
    return this.i;
  }
}

/** Slots each kind uses (found by building it once with mid-range draws). */
export function slotsUsed(kind: string, space: DrawSpace = DEFAULT_DRAW_SPACE): number {
  const mid = new Int32Array(space.slots).fill(Math.floor(space.bins / 2));
  const d = new ChosenDraws(mid, space);
  LONGTAIL_KINDS[kind].build(d, 'probe');
  return d.used;
}

/** The kinds in a fixed order (the teacher's context one-hot follows it). */
export const TEACHER_KINDS: readonly string[] = Object.keys(LONGTAIL_KINDS);
