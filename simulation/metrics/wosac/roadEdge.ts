// Signed distance from a point to the road-edge polylines (map_metric_features.py): negative on the
// road (port side of the edge's direction), positive off it; the sign at a vertex follows convexity.
// The nearest segment is the nearest in 3-D with heights stretched × 3 (overpasses), as the official code.
import type { MapFeature } from '../../scenario.ts';
import { SegmentGrid } from './segmentGrid.ts';

/** Road edges prepared for queries: segments, per-polyline facts, and a grid over them. */
export interface RoadEdgeIndex {
  sx: Float64Array;
  sy: Float64Array;
  dx: Float64Array;
  dy: Float64Array;
  /** Polyline of each segment and its index in it. */
  poly: Int32Array;
  local: Int32Array;
  /** Per polyline: first segment, segment count, and whether it closes on itself. */
  polyFirst: Int32Array;
  polySegs: Int32Array;
  polyCyclic: Uint8Array;
  /** Start height and rise of each segment (zeros when `hasZ` is false). */
  sz: Float64Array;
  dz: Float64Array;
  /** Every kept polyline has heights: the nearest segment is then chosen in 3-D (Z_STRETCH). */
  hasZ: boolean;
  /** Most points of any polyline: the official padding makes a wrap-around only exist at this length. */
  maxPoints: number;
  /** Nearest-segment index over the segments (stateful: its fine cells are built on first use). */
  grid: SegmentGrid;
}

/** Polylines whose ends are closer than 1 m (squared distance < 1 m²) close on themselves. */
const CYCLIC_TOLERANCE_M2 = 1;
const GRID_CELL_M = 10;
/** Fine cells of the candidate table: a few segments each on WOMD's ~0.5–1 m edge polylines. */
const FINE_CELL_M = 2;
/** Vertical distances count this much more when picking the nearest segment (official _Z_STRETCH_FACTOR). */
export const Z_STRETCH = 3;

export function buildRoadEdgeIndex(edges: readonly MapFeature[]): RoadEdgeIndex {
  const kept = edges.filter((e) => e.xy.length >= 4); // degenerate (one-point) polylines are skipped
  let nSeg = 0;
  for (const e of kept) nSeg += e.xy.length / 2 - 1;
  const sx = new Float64Array(nSeg);
  const sy = new Float64Array(nSeg);
  const dx = new Float64Array(nSeg);
  const dy = new Float64Array(nSeg);
  const sz = new Float64Array(nSeg);
  const dz = new Float64Array(nSeg);
  const hasZ = kept.length > 0 && kept.every((e) => e.z !== undefined && e.z.length === e.xy.length / 2);
  const poly = new Int32Array(nSeg);
  const local = new Int32Array(nSeg);
  const polyFirst = new Int32Array(kept.length);
  const polySegs = new Int32Array(kept.length);
  const polyCyclic = new Uint8Array(kept.length);
  let maxPoints = 0;
  let g = 0;
  kept.forEach((e, p) => {
    const xy = e.xy;
    const m = xy.length / 2;
    maxPoints = Math.max(maxPoints, m);
    polyFirst[p] = g;
    polySegs[p] = m - 1;
    const ex = xy[0] - xy[2 * m - 2];
    const ey = xy[1] - xy[2 * m - 1];
    polyCyclic[p] = ex * ex + ey * ey < CYCLIC_TOLERANCE_M2 ? 1 : 0;
    for (let k = 0; k < m - 1; k++, g++) {
      sx[g] = xy[2 * k];
      sy[g] = xy[2 * k + 1];
      dx[g] = xy[2 * k + 2] - sx[g];
      dy[g] = xy[2 * k + 3] - sy[g];
      if (hasZ) {
        sz[g] = e.z![k];
        dz[g] = e.z![k + 1] - sz[g];
      }
      poly[g] = p;
      local[g] = k;
    }
  });
  const grid = new SegmentGrid(sx, sy, dx, dy, false, GRID_CELL_M, FINE_CELL_M);
  if (hasZ) grid.setHeights(sz, dz, Z_STRETCH);
  return {
    sx,
    sy,
    dx,
    dy,
    sz,
    dz,
    hasZ,
    poly,
    local,
    polyFirst,
    polySegs,
    polyCyclic,
    maxPoints,
    grid,
  };
}

const cache = new WeakMap<readonly MapFeature[], RoadEdgeIndex>();

/** The index of a map's road edges, built once per edges array. */
export function roadEdgeIndexOf(edges: readonly MapFeature[]): RoadEdgeIndex {
  let idx = cache.get(edges);
  if (!idx) {
    idx = buildRoadEdgeIndex(edges);
    cache.set(edges, idx);
  }
  return idx;
}

/** Which side of segment g the point is on: +1 starboard (off-road), −1 port, 0 on its line. */
function sideOf(ix: RoadEdgeIndex, g: number, px: number, py: number): number {
  return Math.sign((px - ix.sx[g]) * ix.dy[g] - (py - ix.sy[g]) * ix.dx[g]);
}

/** Whether the turn from segment a to segment b is counter-clockwise (locally convex). */
function convex(ix: RoadEdgeIndex, a: number, b: number): boolean {
  return ix.dx[a] * ix.dy[b] - ix.dy[a] * ix.dx[b] > 0;
}

/**
 * The sign of a point's distance to segment g, as the official code: the side of that segment, or —
 * where the point projects before its start / past its end (`t`) and a neighbouring segment exists —
 * the more off-road (convex joint) or more on-road (concave joint) of the two segments' sides.
 */
function signAt(ix: RoadEdgeIndex, g: number, px: number, py: number, t: number): number {
  const n = sideOf(ix, g, px, py);
  if (t >= 0 && t <= 1) return n;
  const p = ix.poly[g];
  const k = ix.local[g];
  const last = ix.polySegs[p] - 1;
  // A wrap-around neighbour only exists for closed polylines of the longest length (official padding).
  const wraps = ix.polyCyclic[p] === 1 && ix.polySegs[p] + 1 === ix.maxPoints;
  if (t < 0 && (k > 0 || wraps)) {
    const prior = k > 0 ? g - 1 : ix.polyFirst[p] + last;
    const np = sideOf(ix, prior, px, py);
    return convex(ix, prior, g) ? Math.max(n, np) : Math.min(n, np);
  }
  if (t > 1 && (k < last || wraps)) {
    const next = k < last ? g + 1 : ix.polyFirst[p];
    const nn = sideOf(ix, next, px, py);
    return convex(ix, g, next) ? Math.max(n, nn) : Math.min(n, nn);
  }
  return n;
}

/**
 * Signed 2-D distance from (px, py) to the nearest road-edge segment (ties: the first segment in
 * map order), signed by signAt. With heights on both sides (the index's `hasZ` and a finite `pz`)
 * the nearest segment is the nearest in 3-D with z × Z_STRETCH — an overpass's edge above a road is
 * not its edge — and the distance returned is still the planar one to that segment. NaN without
 * road edges.
 */
export function signedDistanceToRoadEdge(ix: RoadEdgeIndex, px: number, py: number, pz = NaN): number {
  const { sx, sy, dx, dy } = ix;
  if (sx.length === 0) return NaN;
  const threeD = ix.hasZ && Number.isFinite(pz);
  const g = threeD ? ix.grid.nearestStretched(px, py, pz) : ix.grid.nearest(px, py);
  if (g < 0) return NaN; // a non-finite point
  const len2 = dx[g] * dx[g] + dy[g] * dy[g];
  const t = len2 > 0 ? ((px - sx[g]) * dx[g] + (py - sy[g]) * dy[g]) / len2 : 0;
  let dist = ix.grid.dist;
  if (threeD) {
    const c = t < 0 ? 0 : t > 1 ? 1 : t;
    const ex = px - sx[g] - dx[g] * c;
    const ey = py - sy[g] - dy[g] * c;
    dist = Math.sqrt(ex * ex + ey * ey);
  }
  return signAt(ix, g, px, py, t) * dist;
}

/**
 * For each agent of `agents` (rows into x/y/cos/sin/length/width/valid), the most off-road of its
 * box's four bottom corners (the official feature uses the full box, no rounding; `bottomZ`, the
 * corners' height per row, picks the nearest segment in 3-D where the edges have heights), written to
 * out[o0 + e·stride]; invalid agents get `invalidValue`. signedDistanceToRoadEdge per corner,
 * inlined over the grid's candidate table (calls with float arguments and results cost more than
 * the arithmetic); the ring search answers where the table does not.
 */
export function boxRoadEdgeDistances(
  ix: RoadEdgeIndex,
  xs: Float64Array,
  ys: Float64Array,
  coss: Float64Array,
  sins: Float64Array,
  lengths: Float64Array,
  widths: Float64Array,
  valid: Uint8Array,
  invalidValue: number,
  agents: Int32Array,
  out: Float32Array | Float64Array,
  o0: number,
  stride: number,
  bottomZ: Float64Array | null = null,
): void {
  const { sx, sy, dx, dy, grid } = ix;
  const threeD = ix.hasZ && bottomZ !== null;
  const { invFineM, fx0, fy0, fineLen, fnx } = grid;
  for (let e = 0; e < agents.length; e++) {
    const a = agents[e];
    if (!valid[a]) {
      out[o0 + e * stride] = invalidValue;
      continue;
    }
    const x = xs[a];
    const y = ys[a];
    const lx = (coss[a] * lengths[a]) / 2;
    const ly = (sins[a] * lengths[a]) / 2;
    const wx = (-sins[a] * widths[a]) / 2;
    const wy = (coss[a] * widths[a]) / 2;
    let most = -Infinity;
    // The bottom corners' height (upright boxes: the same for all four); the 3-D search where known.
    const pz = threeD ? bottomZ[a] : NaN;
    for (let corner = 0; corner < 4; corner++) {
      const sl = corner & 1 ? -1 : 1;
      const sw = corner & 2 ? -1 : 1;
      const px = x + sl * lx + sw * wx;
      const py = y + sl * ly + sw * wy;
      if (pz === pz) {
        const d3 = signedDistanceToRoadEdge(ix, px, py, pz);
        if (d3 > most) most = d3;
        continue;
      }
      const ci = Math.floor((px - fx0) * invFineM);
      const cj = Math.floor((py - fy0) * invFineM);
      const start = grid.cellCandidates(ci, cj);
      let d: number;
      if (start < 0) d = signedDistanceToRoadEdge(ix, px, py);
      else {
        const pool = grid.pool;
        const end = start + fineLen[cj * fnx + ci];
        let best = Infinity;
        let best2 = Infinity;
        let g = -1;
        let bestT = 0;
        // Candidates ascend by index, so a later one wins only by a smaller distance, or an equal one
        // (its square may still be larger): the square root is only taken when it can matter.
        for (let q = start; q < end; q++) {
          const h = pool[q];
          const ax = px - sx[h];
          const ay = py - sy[h];
          const len2 = dx[h] * dx[h] + dy[h] * dy[h];
          const t = len2 > 0 ? (ax * dx[h] + ay * dy[h]) / len2 : 0;
          const c = t < 0 ? 0 : t > 1 ? 1 : t;
          const ex = ax - dx[h] * c;
          const ey = ay - dy[h] * c;
          const e2 = ex * ex + ey * ey;
          if (e2 > best2) continue; // sqrt(e2) ≥ best, and a tie would need a lower index
          const dist = Math.sqrt(e2);
          if (dist < best || (dist === best && h < g)) {
            best = dist;
            best2 = e2;
            g = h;
            bestT = t;
          }
        }
        // The sign, as signedDistanceToRoadEdge.
        const n = Math.sign((px - sx[g]) * dy[g] - (py - sy[g]) * dx[g]);
        let sign = n;
        if (bestT < 0 || bestT > 1) {
          const p = ix.poly[g];
          const k = ix.local[g];
          const last = ix.polySegs[p] - 1;
          const wraps = ix.polyCyclic[p] === 1 && ix.polySegs[p] + 1 === ix.maxPoints;
          if (bestT < 0 && (k > 0 || wraps)) {
            const prior = k > 0 ? g - 1 : ix.polyFirst[p] + last;
            const np = Math.sign((px - sx[prior]) * dy[prior] - (py - sy[prior]) * dx[prior]);
            sign = dx[prior] * dy[g] - dy[prior] * dx[g] > 0 ? Math.max(n, np) : Math.min(n, np);
          } else if (bestT > 1 && (k < last || wraps)) {
            const next = k < last ? g + 1 : ix.polyFirst[p];
            const nn = Math.sign((px - sx[next]) * dy[next] - (py - sy[next]) * dx[next]);
            sign = dx[g] * dy[next] - dy[g] * dx[next] > 0 ? Math.max(n, nn) : Math.min(n, nn);
          }
        }
        d = sign * best;
      }
      if (d > most) most = d;
    }
    out[o0 + e * stride] = most;
  }
}
