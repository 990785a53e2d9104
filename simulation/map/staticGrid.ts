// A spatial hash for static map items (segments, sampled points) that may cover several cells: built
// once by counting sort, queried per cell. Buckets may mix cells (hashing): callers filter by distance.
import { cellHash } from '../cellHash.ts';

export interface StaticGrid {
  cellM: number;
  mask: number;
  /** Bucket b holds items[start[b] .. start[b + 1]). */
  start: Int32Array;
  items: Int32Array;
}

export function gridBucket(g: StaticGrid, cx: number, cy: number): number {
  return cellHash(cx, cy, 0) & g.mask;
}

/**
 * Index `count` items; `cells(i, emit)` calls emit(cx, cy) for every cell item i covers (an item
 * emitting the same cell twice is stored twice).
 */
export function buildStaticGrid(
  cellM: number,
  count: number,
  cells: (i: number, emit: (cx: number, cy: number) => void) => void,
): StaticGrid {
  const pairs: number[] = [];
  let size = 16;
  const g: StaticGrid = { cellM, mask: 0, start: new Int32Array(0), items: new Int32Array(0) };
  const buckets: number[] = [];
  for (let i = 0; i < count; i++) {
    cells(i, (cx, cy) => {
      pairs.push(i);
      buckets.push(cx, cy);
    });
  }
  while (size < 2 * pairs.length) size <<= 1;
  g.mask = size - 1;
  g.start = new Int32Array(size + 1);
  const b = new Int32Array(pairs.length);
  for (let p = 0; p < pairs.length; p++) {
    b[p] = gridBucket(g, buckets[2 * p], buckets[2 * p + 1]);
    g.start[b[p] + 1]++;
  }
  for (let k = 0; k < size; k++) g.start[k + 1] += g.start[k];
  const cursor = g.start.slice(0, size);
  g.items = new Int32Array(pairs.length);
  for (let p = 0; p < pairs.length; p++) g.items[cursor[b[p]]++] = pairs[p];
  return g;
}

/** Emit every cell of the box [x0, x1] × [y0, y1]. */
export function emitBox(
  g: { cellM: number },
  x0: number,
  y0: number,
  x1: number,
  y1: number,
  emit: (cx: number, cy: number) => void,
): void {
  const c0 = Math.floor(Math.min(x0, x1) / g.cellM);
  const c1 = Math.floor(Math.max(x0, x1) / g.cellM);
  const r0 = Math.floor(Math.min(y0, y1) / g.cellM);
  const r1 = Math.floor(Math.max(y0, y1) / g.cellM);
  for (let cx = c0; cx <= c1; cx++) for (let cy = r0; cy <= r1; cy++) emit(cx, cy);
}
