// Exact nearest-segment queries over a fixed set of line segments (road edges, lane centre lines): a
// lazily built table of candidate segments per small cell, with a ring search of a coarse grid behind it.

/** Fine cells holding more candidates than this fall back to the ring search (far from every segment). */
const MAX_CANDIDATES = 48;
/** At most this many fine cells per grid (the fine cell grows on very large maps). */
const MAX_FINE_CELLS = 1 << 20;
/** The fine table covers the segments' extent plus this margin; queries beyond it use the ring search. */
const FINE_MARGIN_M = 30;
const UNBUILT = -1;
const RING = -2;

/**
 * Segments s + c·d (c in [0, 1]); `mirrored` measures the distance to s − c·d instead (the official
 * lane-matching formula, see trafficLight.ts). `nearest` returns the segment nearest a point (ties:
 * the lowest index) and leaves its distance in `dist`. Exact: a fine cell lists every segment that
 * can be nearest to any point inside it, and the coarse ring search stops only where no unvisited
 * segment can be closer.
 */
export class SegmentGrid {
  readonly n: number;
  /** Distance from the last query point to the segment `nearest` returned (Infinity without segments). */
  dist = Infinity;
  private readonly sign: number;
  private readonly boxes: Float64Array;
  // Coarse grid (CSR: segments of cell c are items[start[c] … start[c+1])).
  private readonly minX: number;
  private readonly minY: number;
  private readonly nx: number;
  private readonly ny: number;
  private readonly start: Int32Array;
  private readonly items: Int32Array;
  // Fine table: per cell the offset of its candidates in `pool` (or UNBUILT / RING) and their count.
  readonly fineM: number;
  /** 1 / fineM: a cell index off by rounding at a cell's border is harmless (see buildCell's slack). */
  readonly invFineM: number;
  readonly fx0: number;
  readonly fy0: number;
  readonly fnx: number;
  readonly fny: number;
  readonly fineStart: Int32Array;
  readonly fineLen: Int32Array;
  /** Per built fine cell: every segment whose bounding box lies within this distance of it is listed. */
  private readonly fineReach: Float64Array;
  /** Candidate lists of the fine cells (reallocated as it grows: read it after `cellCandidates`). */
  pool = new Int32Array(1024);
  private poolLen = 0;
  private readonly stamp: Int32Array;
  // Running minimum of the ring search.
  private best = Infinity;
  private bestG = -1;
  // Optional heights for nearestStretched: segment start z and rise, the vertical stretch, the query z.
  private sz: Float64Array | null = null;
  private dz: Float64Array | null = null;
  private zStretch = 1;
  private qz = NaN;

  constructor(
    readonly sx: Float64Array,
    readonly sy: Float64Array,
    readonly dx: Float64Array,
    readonly dy: Float64Array,
    mirrored: boolean,
    readonly cellM: number,
    fineCellM: number,
  ) {
    const n = sx.length;
    this.n = n;
    this.sign = mirrored ? -1 : 1;
    const boxes = new Float64Array(4 * n);
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (let g = 0; g < n; g++) {
      const ex = sx[g] + this.sign * dx[g];
      const ey = sy[g] + this.sign * dy[g];
      boxes[4 * g] = Math.min(sx[g], ex);
      boxes[4 * g + 1] = Math.min(sy[g], ey);
      boxes[4 * g + 2] = Math.max(sx[g], ex);
      boxes[4 * g + 3] = Math.max(sy[g], ey);
      x0 = Math.min(x0, boxes[4 * g]);
      y0 = Math.min(y0, boxes[4 * g + 1]);
      x1 = Math.max(x1, boxes[4 * g + 2]);
      y1 = Math.max(y1, boxes[4 * g + 3]);
    }
    if (n === 0) x0 = y0 = x1 = y1 = 0;
    this.boxes = boxes;
    this.minX = x0;
    this.minY = y0;
    this.nx = Math.max(1, Math.floor((x1 - x0) / cellM) + 1);
    this.ny = Math.max(1, Math.floor((y1 - y0) / cellM) + 1);
    const counts = new Int32Array(this.nx * this.ny + 1);
    for (let g = 0; g < n; g++)
      for (let j = this.cellY(boxes[4 * g + 1]); j <= this.cellY(boxes[4 * g + 3]); j++)
        for (let i = this.cellX(boxes[4 * g]); i <= this.cellX(boxes[4 * g + 2]); i++)
          counts[j * this.nx + i + 1]++;
    for (let c = 0; c < this.nx * this.ny; c++) counts[c + 1] += counts[c];
    this.start = counts.slice();
    const fill = counts.slice();
    this.items = new Int32Array(this.start[this.nx * this.ny]);
    for (let g = 0; g < n; g++)
      for (let j = this.cellY(boxes[4 * g + 1]); j <= this.cellY(boxes[4 * g + 3]); j++)
        for (let i = this.cellX(boxes[4 * g]); i <= this.cellX(boxes[4 * g + 2]); i++)
          this.items[fill[j * this.nx + i]++] = g;

    const w = x1 - x0 + 2 * FINE_MARGIN_M;
    const h = y1 - y0 + 2 * FINE_MARGIN_M;
    this.fineM = Math.max(fineCellM, Math.sqrt((w * h) / MAX_FINE_CELLS));
    this.invFineM = 1 / this.fineM;
    this.fx0 = x0 - FINE_MARGIN_M;
    this.fy0 = y0 - FINE_MARGIN_M;
    this.fnx = n === 0 ? 0 : Math.ceil(w / this.fineM);
    this.fny = n === 0 ? 0 : Math.ceil(h / this.fineM);
    this.fineStart = new Int32Array(this.fnx * this.fny).fill(UNBUILT);
    this.fineLen = new Int32Array(this.fnx * this.fny);
    this.fineReach = new Float64Array(this.fnx * this.fny);
    this.stamp = new Int32Array(n).fill(-1);
  }

  private cellX(x: number): number {
    return Math.min(this.nx - 1, Math.max(0, Math.floor((x - this.minX) / this.cellM)));
  }
  private cellY(y: number): number {
    return Math.min(this.ny - 1, Math.max(0, Math.floor((y - this.minY) / this.cellM)));
  }

  /** Distance from (px, py) to segment g by this grid's measure. */
  segmentDistance(g: number, px: number, py: number): number {
    const ax = px - this.sx[g];
    const ay = py - this.sy[g];
    const dx = this.dx[g];
    const dy = this.dy[g];
    const len2 = dx * dx + dy * dy;
    const t = len2 > 0 ? (ax * dx + ay * dy) / len2 : 0;
    const c = (t < 0 ? 0 : t > 1 ? 1 : t) * this.sign;
    const ex = ax - dx * c;
    const ey = ay - dy * c;
    return Math.sqrt(ex * ex + ey * ey);
  }

  /** Give the segments heights (start z, rise): nearestStretched then measures in 3-D with z × zStretch. */
  setHeights(sz: Float64Array, dz: Float64Array, zStretch: number): void {
    this.sz = sz;
    this.dz = dz;
    this.zStretch = zStretch;
  }

  /**
   * 3-D distance from (px, py, pz) to segment g with the vertical part scaled by zStretch, at the point
   * of the segment nearest in the plane (the projection parameter is the 2-D one, as the official code).
   */
  stretchedDistance(g: number, px: number, py: number, pz: number): number {
    const ax = px - this.sx[g];
    const ay = py - this.sy[g];
    const dx = this.dx[g];
    const dy = this.dy[g];
    const len2 = dx * dx + dy * dy;
    const t = len2 > 0 ? (ax * dx + ay * dy) / len2 : 0;
    const c = t < 0 ? 0 : t > 1 ? 1 : t;
    const ex = ax - dx * c;
    const ey = ay - dy * c;
    const ez = (pz - this.sz![g] - this.dz![g] * c) * this.zStretch;
    return Math.sqrt(ex * ex + ey * ey + ez * ez);
  }

  /**
   * The segment nearest (px, py, pz) by stretchedDistance (ties: the lowest index), −1 without segments;
   * sets `dist` to that 3-D distance. Needs setHeights. The ring search stays exact: a cell's planar
   * distance from the point bounds the 3-D distance of everything in it from below.
   */
  nearestStretched(px: number, py: number, pz: number): number {
    if (!this.sz || !Number.isFinite(pz)) return this.nearest(px, py);
    // The fine cell's list holds every segment whose box lies within its reach of the cell; one not
    // listed is farther than that in the plane, hence in 3-D. So the best listed one wins outright when
    // its 3-D distance is within the reach (ties too: the list ascends by index).
    const i = Math.floor((px - this.fx0) * this.invFineM);
    const j = Math.floor((py - this.fy0) * this.invFineM);
    const s = this.cellCandidates(i, j);
    if (s >= 0) {
      const c = j * this.fnx + i;
      const end = s + this.fineLen[c];
      let best = Infinity;
      let bestG = -1;
      for (let q = s; q < end; q++) {
        const g = this.pool[q];
        const d = this.stretchedDistance(g, px, py, pz);
        if (d < best) {
          best = d;
          bestG = g;
        }
      }
      if (best <= this.fineReach[c]) {
        this.dist = best;
        return bestG;
      }
    }
    this.qz = pz;
    try {
      return this.nearestRing(px, py);
    } finally {
      this.qz = NaN;
    }
  }

  /**
   * Offset into `pool` of the candidates of fine cell (i, j) (count in fineLen), built on first use;
   * −1 where the ring search must answer instead (outside the table or too many candidates).
   */
  cellCandidates(i: number, j: number): number {
    if (!(i >= 0 && i < this.fnx && j >= 0 && j < this.fny)) return -1; // NaN too
    const c = j * this.fnx + i;
    const s = this.fineStart[c];
    if (s !== UNBUILT) return s === RING ? -1 : s;
    const b = this.buildCell(c, i, j);
    return b === RING ? -1 : b;
  }

  /** Index of the segment nearest (px, py) (ties: the lowest index), −1 without segments; sets `dist`. */
  nearest(px: number, py: number): number {
    const i = Math.floor((px - this.fx0) * this.invFineM);
    const j = Math.floor((py - this.fy0) * this.invFineM);
    if (i >= 0 && i < this.fnx && j >= 0 && j < this.fny) {
      const c = j * this.fnx + i; // (NaN fails the test above)
      let s = this.fineStart[c];
      if (s === UNBUILT) s = this.buildCell(c, i, j);
      if (s !== RING) {
        const end = s + this.fineLen[c];
        const pool = this.pool;
        let best = Infinity;
        let bestG = -1;
        for (let p = s; p < end; p++) {
          const g = pool[p];
          const d = this.segmentDistance(g, px, py);
          if (d < best || (d === best && g < bestG)) {
            best = d;
            bestG = g;
          }
        }
        this.dist = best;
        return bestG;
      }
    }
    return this.nearestRing(px, py);
  }

  /**
   * List the candidates of fine cell c: with d0 the nearest distance from its centre, every point of
   * the cell has a segment within d0 + half its diagonal (the nearest distance is 1-Lipschitz), so
   * only segments whose bounding box lies that close to the cell can be nearest anywhere in it.
   */
  private buildCell(c: number, i: number, j: number): number {
    const f = this.fineM;
    const cx0 = this.fx0 + i * f;
    const cy0 = this.fy0 + j * f;
    this.nearestRing(cx0 + f / 2, cy0 + f / 2);
    // A little slack so rounding in the distances (and a query point rounded into a neighbouring
    // cell) can only add candidates.
    const u = (this.dist + f * Math.SQRT1_2) * (1 + 1e-9) + 1e-9;
    const start = this.poolLen;
    let count = 0;
    const { boxes, stamp } = this;
    const i0 = this.cellX(cx0 - u);
    const i1 = this.cellX(cx0 + f + u);
    const j0 = this.cellY(cy0 - u);
    const j1 = this.cellY(cy0 + f + u);
    for (let cj = j0; cj <= j1 && count <= MAX_CANDIDATES; cj++)
      for (let ci = i0; ci <= i1 && count <= MAX_CANDIDATES; ci++) {
        const cc = cj * this.nx + ci;
        for (let p = this.start[cc]; p < this.start[cc + 1]; p++) {
          const g = this.items[p];
          if (stamp[g] === c) continue;
          stamp[g] = c;
          const ex = Math.max(0, boxes[4 * g] - (cx0 + f), cx0 - boxes[4 * g + 2]);
          const ey = Math.max(0, boxes[4 * g + 1] - (cy0 + f), cy0 - boxes[4 * g + 3]);
          if (ex * ex + ey * ey > u * u) continue;
          if (this.poolLen === this.pool.length) {
            const grown = new Int32Array(this.pool.length * 2);
            grown.set(this.pool);
            this.pool = grown;
          }
          this.pool[this.poolLen++] = g;
          count++;
        }
      }
    if (count > MAX_CANDIDATES) {
      this.poolLen = start;
      this.fineStart[c] = RING;
      return RING;
    }
    // Ascending segment order: a later candidate can then only tie with a lower index by being nearer.
    this.pool.subarray(start, start + count).sort();
    this.fineStart[c] = start;
    this.fineLen[c] = count;
    this.fineReach[c] = u;
    return start;
  }

  /**
   * Nearest segment by rings of coarse cells outwards from the point's cell, skipping cells farther
   * than the best distance so far, until no unvisited segment can be closer; sets `dist`.
   */
  private nearestRing(px: number, py: number): number {
    const { nx, ny, cellM, minX, minY } = this;
    this.best = Infinity;
    this.bestG = -1;
    if (this.n === 0) {
      this.dist = Infinity;
      return -1;
    }
    if (!Number.isFinite(px) || !Number.isFinite(py)) {
      // No cell to start from (the rings would never end): no segment, NaN distance.
      this.dist = NaN;
      return -1;
    }
    // Unclamped cell of the query: points outside the grid work too.
    const qi = Math.floor((px - minX) / cellM);
    const qj = Math.floor((py - minY) / cellM);
    const r0 = Math.max(0, -qi, qi - (nx - 1), -qj, qj - (ny - 1));
    for (let r = r0; ; r++) {
      const i0 = qi - r;
      const i1 = qi + r;
      const j0 = qj - r;
      const j1 = qj + r;
      const ia = Math.max(0, i0);
      const ib = Math.min(nx - 1, i1);
      for (let j = Math.max(0, j0); j <= Math.min(ny - 1, j1); j++) {
        if (j === j0 || j === j1) for (let i = ia; i <= ib; i++) this.scanCell(i, j, px, py);
        else {
          // Inner rows of a ring: only its left and right cells.
          if (i0 >= 0) this.scanCell(i0, j, px, py);
          if (i1 < nx) this.scanCell(i1, j, px, py);
        }
      }
      if (i0 <= 0 && j0 <= 0 && i1 >= nx - 1 && j1 >= ny - 1) break; // the whole grid is covered
      // Every cell outside this ring's square is at least this far from the point (equal: keep
      // going, a tie with a lower index may lie there).
      const fx = (px - minX) / cellM - qi;
      const fy = (py - minY) / cellM - qj;
      if (this.best < cellM * (r + Math.min(fx, 1 - fx, fy, 1 - fy))) break;
    }
    this.dist = this.best;
    return this.bestG;
  }

  private scanCell(i: number, j: number, px: number, py: number): void {
    // Distance from the point to the cell's square: nothing in it can be closer.
    const { cellM } = this;
    const cx = this.minX + i * cellM;
    const cy = this.minY + j * cellM;
    const ex = px < cx ? cx - px : px > cx + cellM ? px - cx - cellM : 0;
    const ey = py < cy ? cy - py : py > cy + cellM ? py - cy - cellM : 0;
    if (ex * ex + ey * ey > this.best * this.best) return;
    const c = j * this.nx + i;
    for (let p = this.start[c]; p < this.start[c + 1]; p++) {
      const g = this.items[p];
      const d =
        this.qz === this.qz ? this.stretchedDistance(g, px, py, this.qz) : this.segmentDistance(g, px, py);
      if (d < this.best || (d === this.best && g < this.bestG)) {
        this.best = d;
        this.bestG = g;
      }
    }
  }
}
