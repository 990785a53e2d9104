// A uniform spatial hash over agents, rebuilt every step by counting sort into reusable typed arrays
// (no per-agent objects), keyed by (group, cell) so many scenarios share one grid without mixing.
import { cellHash, groupSalt } from './cellHash.ts';

export class SpatialGrid {
  /** Bucket count − 1 (a power of two less one). */
  mask = 0;
  /** Bucket b holds items[start[b] .. start[b + 1]). */
  start = new Int32Array(1);
  items = new Int32Array(0);
  private bucketOf = new Int32Array(0);
  cellM = 1;
  private inv = 1;

  /** Bucket index of cell (cx, cy) in group g. Different cells may share a bucket: filter by distance. */
  bucket(cx: number, cy: number, g: number): number {
    return cellHash(cx, cy, groupSalt(g)) & this.mask;
  }

  cellOf(v: number): number {
    return Math.floor(v * this.inv);
  }

  /**
   * Index the `n` agents with valid[i] ≠ 0 at (x[i], y[i]) in group[i], with square cells of `cellM`.
   * Cost O(n); buffers grow only when n does.
   */
  build(
    n: number,
    x: ArrayLike<number>,
    y: ArrayLike<number>,
    valid: ArrayLike<number>,
    group: ArrayLike<number>,
    cellM: number,
  ): void {
    let size = 16;
    while (size < 2 * n) size <<= 1;
    if (this.start.length !== size + 1) this.start = new Int32Array(size + 1);
    else this.start.fill(0);
    if (this.items.length < n) {
      this.items = new Int32Array(n);
      this.bucketOf = new Int32Array(n);
    }
    this.mask = size - 1;
    this.cellM = cellM;
    this.inv = 1 / cellM;
    const start = this.start;
    const bucketOf = this.bucketOf;
    for (let i = 0; i < n; i++) {
      if (!valid[i]) {
        bucketOf[i] = -1;
        continue;
      }
      const b = this.bucket(Math.floor(x[i] * this.inv), Math.floor(y[i] * this.inv), group[i]);
      bucketOf[i] = b;
      start[b + 1]++;
    }
    for (let b = 0; b < size; b++) start[b + 1] += start[b];
    // Fill using a moving cursor per bucket (start[b] is advanced, then restored by a shift).
    const items = this.items;
    for (let i = 0; i < n; i++) {
      const b = bucketOf[i];
      if (b >= 0) items[start[b]++] = i;
    }
    for (let b = size; b > 0; b--) start[b] = start[b - 1];
    start[0] = 0;
  }
}
