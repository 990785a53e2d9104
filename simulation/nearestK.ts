// K-nearest search over a hashed uniform grid (spatialGrid.ts, map/staticGrid.ts) for the observations of
// learned agents: cells nearest first, far cells pruned, each bucket visited once per query.
//
// The result is defined as the plain search defines it — scan the window's cells column by column, keep
// the k smallest distances, an equal distance losing to the item met first — so the observation does not
// depend on the visiting order: every item carries its rank in that scan as a tie-break key.
import { cellHash } from './cellHash.ts';
import type { StaticGrid } from './map/staticGrid.ts';

// A local binding: an imported function may be reached through a getter per call once transpiled.
const hashOf = cellHash;

/** Keeps the k smallest (key, tie) pairs offered, with their item ids, sorted ascending. */
export class NearestK {
  readonly keys: Float64Array;
  readonly ties: Float64Array;
  readonly ids: Int32Array;
  count = 0;
  constructor(readonly k: number) {
    this.keys = new Float64Array(k);
    this.ties = new Float64Array(k);
    this.ids = new Int32Array(k);
  }
  reset(): void {
    this.count = 0;
  }
  /** Nothing at a squared distance above this can enter any more (radius² until full). */
  bound(r2: number): number {
    return this.count === this.k ? this.keys[this.k - 1] : r2;
  }
  offer(key: number, tie: number, id: number): void {
    const k = this.k;
    const keys = this.keys;
    const ties = this.ties;
    if (this.count === k && (key > keys[k - 1] || (key === keys[k - 1] && tie > ties[k - 1]))) return;
    let i = this.count < k ? this.count++ : k - 1;
    while (i > 0 && (keys[i - 1] > key || (keys[i - 1] === key && ties[i - 1] > tie))) {
      keys[i] = keys[i - 1];
      ties[i] = ties[i - 1];
      this.ids[i] = this.ids[i - 1];
      i--;
    }
    keys[i] = key;
    ties[i] = tie;
    this.ids[i] = id;
  }
}

// Cell bounds are compared with a margin, as a point's cell comes from a rounded division.
const MARGIN_M = 1e-3;

/**
 * Cells of a (2R+1)² window nearest the centre first: scan index (column-major) and offsets, and for
 * each position the least squared gap (m²) any cell from there on can have to a query in the centre cell.
 */
interface RingOrder {
  index: Int32Array;
  ox: Int32Array;
  oy: Int32Array;
  restMin: Float64Array;
}

function ringOrder(reach: number, cellM: number): RingOrder {
  const w = 2 * reach + 1;
  const idx = Array.from({ length: w * w }, (_, i) => i);
  const d2 = (i: number) => (Math.floor(i / w) - reach) ** 2 + ((i % w) - reach) ** 2;
  const index = Int32Array.from(idx.sort((a, b) => d2(a) - d2(b) || a - b));
  const ox = index.map((i) => Math.floor(i / w) - reach);
  const oy = index.map((i) => (i % w) - reach);
  // A query lies inside its cell, so a cell n columns away is at least (n − 1) cells off; twice the
  // margin keeps this below the gap bucketAt computes.
  const axis = (n: number) => Math.max(0, (Math.abs(n) - 1) * cellM - 2 * MARGIN_M);
  const restMin = new Float64Array(index.length + 1).fill(Infinity);
  for (let k = index.length - 1; k >= 0; k--) {
    restMin[k] = Math.min(restMin[k + 1], axis(ox[k]) ** 2 + axis(oy[k]) ** 2);
  }
  return { index, ox, oy, restMin };
}

/** Hashed static windows a GridWindow keeps (each 2 × (2·reach + 1)² ints: 648 bytes at reach 4). */
export const WINDOW_CACHE_LIMIT = 16_384;

/** bucketAt: the cell is skipped (visited already, or beyond the bound). */
export const CELL_SKIPPED = -1;
/** bucketAt: this cell and every later one lie beyond the bound — the query is complete. */
export const WINDOW_DONE = -2;

/**
 * One query window over a hashed grid. `begin` hashes the window's cells in scan order (the tie-break
 * base of each bucket is the scan position where it first appears); `bucketAt(k, bound)` then yields the
 * k-th cell in nearest-first order — or CELL_SKIPPED when its bucket was already visited or the cell
 * lies wholly beyond `bound` (squared metres), so none of its items could be kept, or WINDOW_DONE when
 * no cell from the k-th on can come within it (the query is complete).
 */
export class GridWindow {
  private stamp = new Int32Array(0);
  private first = new Int32Array(0);
  private query = 0;
  private orders = new Map<number, RingOrder>();
  /** The window in use: each cell's bucket (scan order), then the first scan index of that bucket. */
  private cellInfo: Int32Array = new Int32Array(0);
  private scratch: Int32Array = new Int32Array(0);
  /** Hashed windows of static grids by centre cell and reach (a map's grid never changes). */
  private windows = new WeakMap<object, Map<number, Int32Array>>();
  private windowCount = 0;
  private order: RingOrder = ringOrder(0, 1);
  /** Cells in the window. */
  cells = 0;
  /** Tie key of the first item of the bucket last yielded (add the item's position in the bucket). */
  tieBase = 0;
  private cx = 0;
  private cy = 0;
  private x = 0;
  private y = 0;
  private cellM = 1;
  private stride = 0;

  /** `cacheLimit`: hashed static windows kept before all are dropped. */
  constructor(readonly cacheLimit = WINDOW_CACHE_LIMIT) {}

  /**
   * Start a query at (x, y) in cell (cx, cy) (as the grid computes it) of `cellM` metres, `reach` cells
   * each way, over a grid whose bucket of a cell is cellHash(cx, cy, salt) & mask; `items` is its item
   * count (the tie keys' stride). A grid that never changes passes itself as `unchanging`: its hashed
   * windows are kept (up to `cacheLimit`) for the next query in the same cell.
   */
  begin(
    x: number,
    y: number,
    cx: number,
    cy: number,
    cellM: number,
    reach: number,
    mask: number,
    salt: number,
    items: number,
    unchanging?: object,
  ): void {
    const buckets = mask + 1;
    if (this.stamp.length < buckets) {
      this.stamp = new Int32Array(buckets);
      this.first = new Int32Array(buckets);
      this.query = 0;
    }
    // Stamps: 2q = bucket seen in this query's scan, 2q + 1 = its items visited.
    if (++this.query >= 1 << 29) {
      this.stamp.fill(0);
      this.query = 1;
    }
    const key = reach + 1024 * cellM;
    let order = this.orders.get(key);
    if (!order) this.orders.set(key, (order = ringOrder(reach, cellM)));
    this.order = order;
    const w = 2 * reach + 1;
    this.cells = w * w;
    this.x = x;
    this.y = y;
    this.cx = cx;
    this.cy = cy;
    this.cellM = cellM;
    this.stride = items;
    if (!unchanging) {
      if (this.scratch.length < 2 * this.cells) this.scratch = new Int32Array(2 * this.cells);
      this.hashWindow(this.scratch, cx, cy, reach, mask, salt);
      this.cellInfo = this.scratch;
      return;
    }
    let byCell = this.windows.get(unchanging);
    if (!byCell) this.windows.set(unchanging, (byCell = new Map()));
    // Cells within ±2^19 of the origin and reach < 64 make a unique key below 2^53.
    const cell = ((cx + 524_288) * 1_048_576 + (cy + 524_288)) * 64 + reach;
    let info = byCell.get(cell);
    if (!info) {
      if (this.windowCount >= this.cacheLimit) {
        this.windows = new WeakMap();
        this.windowCount = 0;
        this.windows.set(unchanging, (byCell = new Map()));
      }
      info = new Int32Array(2 * this.cells);
      this.hashWindow(info, cx, cy, reach, mask, salt);
      byCell.set(cell, info);
      this.windowCount++;
    }
    this.cellInfo = info;
  }

  /** Each window cell's bucket in scan order, then the scan index where that bucket first appears. */
  private hashWindow(
    info: Int32Array,
    cx: number,
    cy: number,
    reach: number,
    mask: number,
    salt: number,
  ): void {
    const seen = 2 * this.query;
    const stamp = this.stamp;
    const first = this.first;
    const cells = this.cells;
    let i = 0;
    for (let ox = -reach; ox <= reach; ox++) {
      for (let oy = -reach; oy <= reach; oy++, i++) {
        const b = hashOf(cx + ox, cy + oy, salt) & mask;
        info[i] = b;
        if (stamp[b] < seen) {
          stamp[b] = seen;
          first[b] = i;
        }
      }
    }
    for (let j = 0; j < cells; j++) info[cells + j] = first[info[j]];
  }

  bucketAt(k: number, bound: number): number {
    const order = this.order;
    if (order.restMin[k] > bound) return WINDOW_DONE;
    const ix = this.cx + order.ox[k];
    const iy = this.cy + order.oy[k];
    const c = this.cellM;
    const x = this.x;
    const y = this.y;
    // The gap from the query to the cell per axis (0 inside its span), less the margin.
    let dx = ix * c - x;
    const dx1 = x - (ix + 1) * c;
    if (dx1 > dx) dx = dx1;
    let dy = iy * c - y;
    const dy1 = y - (iy + 1) * c;
    if (dy1 > dy) dy = dy1;
    dx -= MARGIN_M;
    dy -= MARGIN_M;
    const gx = dx > 0 ? dx : 0;
    const gy = dy > 0 ? dy : 0;
    if (gx * gx + gy * gy > bound) return CELL_SKIPPED;
    const i = order.index[k];
    const b = this.cellInfo[i];
    const visited = 2 * this.query + 1;
    if (this.stamp[b] === visited) return CELL_SKIPPED;
    this.stamp[b] = visited;
    this.tieBase = this.cellInfo[this.cells + i] * this.stride;
    return b;
  }
}

/**
 * The k nearest of points (px, py) indexed by the static grid `g` within `r` of (x, y) into `near`:
 * what a column-by-column scan of the window with a k-smallest list would keep (see above).
 */
export function nearestInStaticGrid(
  win: GridWindow,
  near: NearestK,
  g: StaticGrid,
  px: Float32Array,
  py: Float32Array,
  x: number,
  y: number,
  r: number,
): void {
  near.reset();
  const r2 = r * r;
  win.begin(
    x,
    y,
    Math.floor(x / g.cellM),
    Math.floor(y / g.cellM),
    g.cellM,
    Math.ceil(r / g.cellM),
    g.mask,
    0,
    g.items.length,
    g,
  );
  for (let k = 0; k < win.cells; k++) {
    const b = win.bucketAt(k, near.bound(r2));
    if (b === WINDOW_DONE) break;
    if (b < 0) continue;
    for (let p = g.start[b]; p < g.start[b + 1]; p++) {
      const i = g.items[p];
      const dx = px[i] - x;
      const dy = py[i] - y;
      const d2 = dx * dx + dy * dy;
      if (d2 <= r2) near.offer(d2, win.tieBase + p, i);
    }
  }
}
