// One step of a scene as the interaction features see it: every simulated agent's box, validity
// and speed, plus an order sorted by x for sweep searches that skip far agents without changing results.
import { roundingShrinkM } from './boxDistance.ts';

export class InteractionFrame {
  readonly n: number;
  x: Float64Array;
  y: Float64Array;
  yaw: Float64Array;
  cos: Float64Array;
  sin: Float64Array;
  valid: Uint8Array;
  /** 2-D speed by central differences (the official TTC speed), NaN at the trajectory ends. */
  speed: Float64Array;
  /** Static per agent: length, width, half diagonal (bounding circle). */
  readonly length: Float64Array;
  readonly width: Float64Array;
  readonly radius: Float64Array;
  readonly maxRadius: number;
  /** Largest length + width of any agent (bounds the TTC follower offsets). */
  readonly maxExtent: number;
  /**
   * Rounded boxes for the nearest-object distance at `roundingFactor` (see setRounding): each side
   * pulled in by `shrink`, leaving a core of half length / half width `coreHalfLength/Width`.
   */
  readonly shrink: Float64Array;
  readonly coreHalfLength: Float64Array;
  readonly coreHalfWidth: Float64Array;
  roundingFactor = NaN;
  /** Per agent, the nearest agent found last time (−1: none): measured first next time, a hint only. */
  readonly nearestHint: Int32Array;
  /** Agents sorted by x (kept between steps: insertion sort on an almost sorted order is linear). */
  readonly order: Int32Array;
  /** Position of each agent in `order`. */
  readonly rank: Int32Array;

  constructor(length: ArrayLike<number>, width: ArrayLike<number>) {
    const n = length.length;
    this.n = n;
    this.x = new Float64Array(n);
    this.y = new Float64Array(n);
    this.yaw = new Float64Array(n);
    this.cos = new Float64Array(n);
    this.sin = new Float64Array(n);
    this.valid = new Uint8Array(n);
    this.speed = new Float64Array(n);
    this.length = Float64Array.from(length);
    this.width = Float64Array.from(width);
    this.radius = new Float64Array(n);
    let m = 0;
    let e = 0;
    for (let i = 0; i < n; i++) {
      this.radius[i] = Math.sqrt(this.length[i] * this.length[i] + this.width[i] * this.width[i]) / 2;
      m = Math.max(m, this.radius[i]);
      e = Math.max(e, this.length[i] + this.width[i]);
    }
    this.maxRadius = m;
    this.maxExtent = e;
    this.nearestHint = new Int32Array(n).fill(-1);
    this.shrink = new Float64Array(n);
    this.coreHalfLength = new Float64Array(n);
    this.coreHalfWidth = new Float64Array(n);
    this.order = Int32Array.from({ length: n }, (_, i) => i);
    this.rank = new Int32Array(n);
  }

  /** Compute the rounded-box cores for a corner-rounding factor (once per factor). */
  setRounding(factor: number): void {
    if (factor === this.roundingFactor) return;
    for (let i = 0; i < this.n; i++) {
      const s = roundingShrinkM(this.length[i], this.width[i], factor);
      this.shrink[i] = s;
      this.coreHalfLength[i] = this.length[i] / 2 - s;
      this.coreHalfWidth[i] = this.width[i] / 2 - s;
    }
    this.roundingFactor = factor;
  }

  /**
   * Load step k of trajectories stored at a*numSteps + k (positions, headings, validity) and the
   * 2-D central-difference speed, then re-sort by x.
   */
  load(
    x: ArrayLike<number>,
    y: ArrayLike<number>,
    yaw: ArrayLike<number>,
    valid: ArrayLike<number>,
    numSteps: number,
    k: number,
    dtS: number,
  ): void {
    for (let a = 0; a < this.n; a++) {
      const j = a * numSteps + k;
      this.x[a] = x[j];
      this.y[a] = y[j];
      this.yaw[a] = yaw[j];
      this.cos[a] = Math.cos(yaw[j]);
      this.sin[a] = Math.sin(yaw[j]);
      this.valid[a] = valid[j] ? 1 : 0;
      this.speed[a] =
        k >= 1 && k + 1 < numSteps ? speed2(x[j + 1] - x[j - 1], y[j + 1] - y[j - 1]) / dtS : NaN;
    }
    const { order, rank } = this;
    const xs = this.x;
    for (let i = 1; i < this.n; i++) {
      const v = order[i];
      const key = xs[v];
      let j = i - 1;
      while (j >= 0 && (xs[order[j]] > key || Number.isNaN(xs[order[j]]))) {
        order[j + 1] = order[j];
        j--;
      }
      order[j + 1] = v;
    }
    for (let i = 0; i < this.n; i++) rank[order[i]] = i;
  }
}

/** Half the length of a two-step displacement (the central-difference distance per step). */
function speed2(dx: number, dy: number): number {
  return Math.sqrt(dx * dx + dy * dy) / 2;
}
