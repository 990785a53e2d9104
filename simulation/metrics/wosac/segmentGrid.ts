// A uniform grid over line segments for exact nearest-segment queries: each segment is listed in
// every cell its bounding box touches, and a query visits rings of cells until none can be closer.

export class SegmentGrid {
  readonly minX: number;
  readonly minY: number;
  readonly nx: number;
  readonly ny: number;
  /** CSR: segments of cell c are items[start[c] … start[c+1]). */
  readonly start: Int32Array;
  readonly items: Int32Array;

  /**
   * `boxes` holds one bounding box per segment (minX, minY, maxX, maxY); the query distance of a
   * segment must never be smaller than the distance from the query point to its box.
   */
  constructor(
    boxes: Float64Array,
    readonly cellM: number,
  ) {
    const n = boxes.length / 4;
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (let i = 0; i < n; i++) {
      x0 = Math.min(x0, boxes[4 * i]);
      y0 = Math.min(y0, boxes[4 * i + 1]);
      x1 = Math.max(x1, boxes[4 * i + 2]);
      y1 = Math.max(y1, boxes[4 * i + 3]);
    }
    if (n === 0) x0 = y0 = x1 = y1 = 0;
    this.minX = x0;
    this.minY = y0;
    this.nx = Math.max(1, Math.floor((x1 - x0) / cellM) + 1);
    this.ny = Math.max(1, Math.floor((y1 - y0) / cellM) + 1);
    const counts = new Int32Array(this.nx * this.ny + 1);
    const each = (i: number, f: (c: number) => void) => {
      const ci0 = this.cellX(boxes[4 * i]);
      const cj0 = this.cellY(boxes[4 * i + 1]);
      const ci1 = this.cellX(boxes[4 * i + 2]);
      const cj1 = this.cellY(boxes[4 * i + 3]);
      for (let j = cj0; j <= cj1; j++) for (let k = ci0; k <= ci1; k++) f(j * this.nx + k);
    };
    for (let i = 0; i < n; i++) each(i, (c) => counts[c + 1]++);
    for (let c = 0; c < this.nx * this.ny; c++) counts[c + 1] += counts[c];
    this.start = counts.slice();
    const fill = counts.slice();
    this.items = new Int32Array(this.start[this.nx * this.ny]);
    for (let i = 0; i < n; i++) each(i, (c) => (this.items[fill[c]++] = i));
  }

  private cellX(x: number): number {
    return Math.min(this.nx - 1, Math.max(0, Math.floor((x - this.minX) / this.cellM)));
  }
  private cellY(y: number): number {
    return Math.min(this.ny - 1, Math.max(0, Math.floor((y - this.minY) / this.cellM)));
  }

  /**
   * Find the nearest item to (px, py): `visit(item)` measures an item and returns the best distance
   * so far (items may be visited more than once). Rings of cells are visited outwards from the
   * point's cell, cells farther than the best distance skipped, until no unvisited item can be closer.
   */
  nearest(px: number, py: number, visit: (item: number) => number): void {
    const { nx, ny, start, items, cellM, minX, minY } = this;
    // Unclamped cell of the query: points outside the grid work too.
    const qi = Math.floor((px - minX) / cellM);
    const qj = Math.floor((py - minY) / cellM);
    let best = Infinity;
    const cell = (i: number, j: number) => {
      // Distance from the point to the cell's square: nothing in it can be closer.
      const cx = minX + i * cellM;
      const cy = minY + j * cellM;
      const ex = px < cx ? cx - px : px > cx + cellM ? px - cx - cellM : 0;
      const ey = py < cy ? cy - py : py > cy + cellM ? py - cy - cellM : 0;
      if (ex * ex + ey * ey >= best * best) return;
      const c = j * nx + i;
      for (let p = start[c]; p < start[c + 1]; p++) best = visit(items[p]);
    };
    const r0 = Math.max(0, -qi, qi - (nx - 1), -qj, qj - (ny - 1));
    for (let r = r0; ; r++) {
      const i0 = qi - r;
      const i1 = qi + r;
      const j0 = qj - r;
      const j1 = qj + r;
      const ia = Math.max(0, i0);
      const ib = Math.min(nx - 1, i1);
      for (let j = Math.max(0, j0); j <= Math.min(ny - 1, j1); j++) {
        if (j === j0 || j === j1) for (let i = ia; i <= ib; i++) cell(i, j);
        else {
          // Inner rows of a ring: only its left and right cells.
          if (i0 >= 0) cell(i0, j);
          if (i1 < nx) cell(i1, j);
        }
      }
      if (i0 <= 0 && j0 <= 0 && i1 >= nx - 1 && j1 >= ny - 1) return; // the whole grid is covered
      // Every cell outside this ring's square is at least this far from the point.
      const fx = (px - minX) / cellM - qi;
      const fy = (py - minY) / cellM - qj;
      if (best <= cellM * (r + Math.min(fx, 1 - fx, fy, 1 - fy))) return;
    }
  }
}
