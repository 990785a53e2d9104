// K-nearest search over a hashed uniform grid (spatialGrid.ts, map/staticGrid.ts) for the observations of
// learned agents: cells nearest first, far cells pruned, each bucket visited once per query.
//
// The result is defined as the plain search defines it — scan the window's cells column by column, keep
// the k smallest distances, an equal distance losing to the item met first — so the observation does not
// depend on the visiting order: every item carries its rank in that scan as a tie-break key.
import { gridBucket, type StaticGrid } from './map/staticGrid.ts';

// A local binding: an imported function may be reached through a getter per call once transpiled.
const staticBucketOf = gridBucket;

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

/** Cells of a (2R+1)² window nearest the centre first: scan index (column-major) and offsets. */
interface RingOrder {
  index: Int32Array;
  ox: Int32Array;
  oy: Int32Array;
}

function ringOrder(reach: number): RingOrder {
  const w = 2 * reach + 1;
  const idx = Array.from({ length: w * w }, (_, i) => i);
  const d2 = (i: number) => (Math.floor(i / w) - reach) ** 2 + ((i % w) - reach) ** 2;
  const index = Int32Array.from(idx.sort((a, b) => d2(a) - d2(b) || a - b));
  return {
    index,
    ox: index.map((i) => Math.floor(i / w) - reach),
    oy: index.map((i) => (i % w) - reach),
  };
}

// Cell bounds are compared with a margin, as a point's cell comes from a rounded division.
const MARGIN_M = 1e-3;

/**
 * One query window over a hashed grid. `begin` hashes the window's cells in scan order (the tie-break
 * base of each bucket is the scan position where it first appears); `bucketAt(k, bound)` then yields the
 * k-th cell in nearest-first order — or −1 when its bucket was already visited or the cell lies wholly
 * beyond `bound` (squared metres), so none of its items could be kept.
 */
export class GridWindow {
  private stamp = new Int32Array(0);
  private first = new Int32Array(0);
  private query = 0;
  private orders = new Map<number, RingOrder>();
  private cellBucket = new Int32Array(0);
  private order: RingOrder = ringOrder(0);
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
  /** The static grid being searched and its hash, bound once (no closure per query). */
  staticGrid: StaticGrid | null = null;
  readonly staticBucket = (cx: number, cy: number) => staticBucketOf(this.staticGrid!, cx, cy);

  /**
   * Start a query at (x, y) in cell (cx, cy) (as the grid computes it) of `cellM` metres, `reach` cells
   * each way; `buckets` is the grid's bucket count, `items` its item count (the tie keys' stride),
   * `bucket` its hash.
   */
  begin(
    x: number,
    y: number,
    cx: number,
    cy: number,
    cellM: number,
    reach: number,
    buckets: number,
    items: number,
    bucket: (cx: number, cy: number) => number,
  ): void {
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
    let order = this.orders.get(reach);
    if (!order) this.orders.set(reach, (order = ringOrder(reach)));
    this.order = order;
    const w = 2 * reach + 1;
    this.cells = w * w;
    if (this.cellBucket.length < this.cells) this.cellBucket = new Int32Array(this.cells);
    this.x = x;
    this.y = y;
    this.cx = cx;
    this.cy = cy;
    this.cellM = cellM;
    this.stride = items;
    const seen = 2 * this.query;
    const stamp = this.stamp;
    // The static grid's hash is called directly (inlined), the agents' grid's through its closure.
    const g = bucket === this.staticBucket ? this.staticGrid : null;
    let i = 0;
    for (let ox = -reach; ox <= reach; ox++) {
      for (let oy = -reach; oy <= reach; oy++, i++) {
        const b = g ? staticBucketOf(g, cx + ox, cy + oy) : bucket(cx + ox, cy + oy);
        this.cellBucket[i] = b;
        if (stamp[b] < seen) {
          stamp[b] = seen;
          this.first[b] = i;
        }
      }
    }
  }

  bucketAt(k: number, bound: number): number {
    const b = this.cellBucket[this.order.index[k]];
    const visited = 2 * this.query + 1;
    if (this.stamp[b] === visited) return -1;
    const ix = this.cx + this.order.ox[k];
    const iy = this.cy + this.order.oy[k];
    const c = this.cellM;
    const dx = Math.max(0, ix * c - this.x, this.x - (ix + 1) * c) - MARGIN_M;
    const dy = Math.max(0, iy * c - this.y, this.y - (iy + 1) * c) - MARGIN_M;
    const gx = dx > 0 ? dx : 0;
    const gy = dy > 0 ? dy : 0;
    if (gx * gx + gy * gy > bound) return -1;
    this.stamp[b] = visited;
    this.tieBase = this.first[b] * this.stride;
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
  win.staticGrid = g;
  win.begin(
    x,
    y,
    Math.floor(x / g.cellM),
    Math.floor(y / g.cellM),
    g.cellM,
    Math.ceil(r / g.cellM),
    g.start.length - 1,
    g.items.length,
    win.staticBucket,
  );
  for (let k = 0; k < win.cells; k++) {
    const b = win.bucketAt(k, near.bound(r2));
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
