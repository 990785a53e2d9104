// The drivable area of a map as a signed-distance raster (metres; negative on the road, positive off
// it), so off-road checks and distance-to-road-edge are O(1) lookups. Built from drivable polygons,
// else WOMD-style road edges (road on their left, as in the Sim Agents metrics), else lane corridors.
import type { RoadMap } from '../scenario.ts';

export type FieldSource = 'drivable_areas' | 'road_edges' | 'lanes' | 'none';

export interface DrivableFieldConfig {
  /** Raster cell size, metres (mask boundaries are exact to half a cell: 0.5 m cells rated parked cars
   * 5 cm from the curb off-road). */
  resolutionM: number;
  /** Margin around the map's extent, metres. */
  marginM: number;
  /** Road-edge mode: distances are computed exactly within this band of an edge, metres. */
  edgeBandM: number;
  /** The raster is coarsened so it never exceeds this many cells. */
  maxCells: number;
}

export const DEFAULT_FIELD: DrivableFieldConfig = {
  resolutionM: 0.25,
  marginM: 20,
  edgeBandM: 10,
  maxCells: 16_000_000,
};

export interface DrivableField {
  source: FieldSource;
  originX: number;
  originY: number;
  resM: number;
  cols: number;
  rows: number;
  /** Signed distance at cell centres, row-major (row = y). */
  sdf: Float32Array;
  /**
   * Value outside the raster: NaN (not judged — a cropped map says nothing about what lies beyond
   * it), or −Infinity when the map has no road at all.
   */
  outside: number;
}

/**
 * Signed distance to the road boundary at (x, y), bilinear between cell centres. −Infinity when the
 * map says nothing about the road (no polygons, edges or lanes): nothing is ever off-road there.
 */
export function signedDistance(f: DrivableField, x: number, y: number): number {
  if (f.source === 'none') return -Infinity;
  const u = (x - f.originX) / f.resM - 0.5;
  const v = (y - f.originY) / f.resM - 0.5;
  const i = Math.floor(u);
  const j = Math.floor(v);
  if (i < 0 || j < 0 || i >= f.cols - 1 || j >= f.rows - 1) return f.outside;
  const fu = u - i;
  const fv = v - j;
  const k = j * f.cols + i;
  const s = f.sdf;
  return (
    (s[k] * (1 - fu) + s[k + 1] * fu) * (1 - fv) + (s[k + f.cols] * (1 - fu) + s[k + f.cols + 1] * fu) * fv
  );
}

/** The largest signed distance over the four corners of an oriented box (its most off-road corner; NaN when a corner lies outside the mapped area). */
export function boxRoadDistance(
  f: DrivableField,
  x: number,
  y: number,
  yaw: number,
  length: number,
  width: number,
): number {
  if (f.source === 'none') return -Infinity;
  const c = Math.cos(yaw);
  const s = Math.sin(yaw);
  const hl = length / 2;
  const hw = width / 2;
  let worst = -Infinity;
  for (let k = 0; k < 4; k++) {
    const lx = k & 1 ? hl : -hl;
    const ly = k & 2 ? hw : -hw;
    const d = signedDistance(f, x + c * lx - s * ly, y + s * lx + c * ly);
    if (Number.isNaN(d)) return NaN;
    if (d > worst) worst = d;
  }
  return worst;
}

interface Extent {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

function extentOf(lists: readonly ArrayLike<number>[]): Extent {
  const e = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity };
  for (const xy of lists) {
    for (let i = 0; i + 1 < xy.length; i += 2) {
      e.minX = Math.min(e.minX, xy[i]);
      e.maxX = Math.max(e.maxX, xy[i]);
      e.minY = Math.min(e.minY, xy[i + 1]);
      e.maxY = Math.max(e.maxY, xy[i + 1]);
    }
  }
  return e;
}

function allocate(source: FieldSource, e: Extent, cfg: DrivableFieldConfig): DrivableField {
  const w = e.maxX - e.minX + 2 * cfg.marginM;
  const h = e.maxY - e.minY + 2 * cfg.marginM;
  let res = cfg.resolutionM;
  while ((w / res) * (h / res) > cfg.maxCells) res *= 1.5;
  const cols = Math.max(2, Math.ceil(w / res));
  const rows = Math.max(2, Math.ceil(h / res));
  return {
    source,
    originX: e.minX - cfg.marginM,
    originY: e.minY - cfg.marginM,
    resM: res,
    cols,
    rows,
    sdf: new Float32Array(cols * rows),
    outside: NaN,
  };
}

/** Build the field of a map (cache it per map: it is the costly part, O(cells)). */
export function buildDrivableField(map: RoadMap, cfg: DrivableFieldConfig = DEFAULT_FIELD): DrivableField {
  if (map.drivableAreas.length > 0) {
    const f = allocate('drivable_areas', extentOf(map.drivableAreas.map((p) => p.xy)), cfg);
    const inside = new Uint8Array(f.cols * f.rows);
    for (const p of map.drivableAreas) fillPolygon(f, p.xy, inside);
    // Lanes are drivable by definition: a polygon that clips a lane (a tight junction corner curb) would
    // rate the log's own turning vehicles off-road, so the lane corridors are added to the polygons.
    for (const l of map.lanes) stampCorridor(f, l.xy, l.widthM / 2, inside);
    signedFromMask(f, inside);
    return f;
  }
  if (map.roadEdges.length > 0) {
    const f = allocate(
      'road_edges',
      extentOf([...map.roadEdges.map((p) => p.xy), ...map.lanes.map((l) => l.xy)]),
      cfg,
    );
    signedFromEdges(f, map, cfg.edgeBandM);
    return f;
  }
  if (map.lanes.length > 0) {
    const f = allocate('lanes', extentOf(map.lanes.map((l) => l.xy)), cfg);
    const inside = new Uint8Array(f.cols * f.rows);
    for (const l of map.lanes) stampCorridor(f, l.xy, l.widthM / 2, inside);
    signedFromMask(f, inside);
    return f;
  }
  return {
    source: 'none',
    originX: 0,
    originY: 0,
    resM: 1,
    cols: 0,
    rows: 0,
    sdf: new Float32Array(0),
    outside: -Infinity,
  };
}

/** Scanline fill (even–odd) of one polygon into the mask, at cell centres. */
function fillPolygon(f: DrivableField, xy: ArrayLike<number>, inside: Uint8Array): void {
  const n = xy.length >> 1;
  const xs: number[] = [];
  for (let r = 0; r < f.rows; r++) {
    const yc = f.originY + (r + 0.5) * f.resM;
    xs.length = 0;
    for (let i = 0, j = n - 1; i < n; j = i++) {
      const yi = xy[2 * i + 1];
      const yj = xy[2 * j + 1];
      if (yi > yc !== yj > yc) xs.push(xy[2 * i] + ((yc - yi) * (xy[2 * j] - xy[2 * i])) / (yj - yi));
    }
    if (xs.length < 2) continue;
    xs.sort((a, b) => a - b);
    for (let k = 0; k + 1 < xs.length; k += 2) {
      const c0 = Math.max(0, Math.ceil((xs[k] - f.originX) / f.resM - 0.5));
      const c1 = Math.min(f.cols - 1, Math.floor((xs[k + 1] - f.originX) / f.resM - 0.5));
      for (let c = c0; c <= c1; c++) inside[r * f.cols + c] = 1;
    }
  }
}

/** Mark cells whose centre lies within `halfWidth` of the polyline. */
function stampCorridor(f: DrivableField, xy: ArrayLike<number>, halfWidth: number, inside: Uint8Array): void {
  const n = xy.length >> 1;
  for (let s = 0; s < Math.max(1, n - 1); s++) {
    const ax = xy[2 * s];
    const ay = xy[2 * s + 1];
    const bx = n > 1 ? xy[2 * s + 2] : ax;
    const by = n > 1 ? xy[2 * s + 3] : ay;
    const c0 = Math.max(0, Math.floor((Math.min(ax, bx) - halfWidth - f.originX) / f.resM));
    const c1 = Math.min(f.cols - 1, Math.ceil((Math.max(ax, bx) + halfWidth - f.originX) / f.resM));
    const r0 = Math.max(0, Math.floor((Math.min(ay, by) - halfWidth - f.originY) / f.resM));
    const r1 = Math.min(f.rows - 1, Math.ceil((Math.max(ay, by) + halfWidth - f.originY) / f.resM));
    const dx = bx - ax;
    const dy = by - ay;
    const len2 = dx * dx + dy * dy;
    for (let r = r0; r <= r1; r++) {
      const py = f.originY + (r + 0.5) * f.resM;
      for (let c = c0; c <= c1; c++) {
        const px = f.originX + (c + 0.5) * f.resM;
        const u = len2 > 0 ? Math.min(1, Math.max(0, ((px - ax) * dx + (py - ay) * dy) / len2)) : 0;
        const ex = px - ax - u * dx;
        const ey = py - ay - u * dy;
        if (ex * ex + ey * ey <= halfWidth * halfWidth) inside[r * f.cols + c] = 1;
      }
    }
  }
}

/** Exact 1D squared-distance transform (Felzenszwalb & Huttenlocher 2012) of `src` into `dst`. */
function edt1d(src: Float64Array, dst: Float64Array, n: number, v: Int32Array, z: Float64Array): void {
  let k = 0;
  v[0] = 0;
  z[0] = -Infinity;
  z[1] = Infinity;
  for (let q = 1; q < n; q++) {
    if (src[q] === Infinity) continue;
    if (src[v[0]] === Infinity) {
      v[0] = q;
      continue;
    }
    let s = (src[q] + q * q - (src[v[k]] + v[k] * v[k])) / (2 * q - 2 * v[k]);
    while (s <= z[k]) {
      k--;
      s = (src[q] + q * q - (src[v[k]] + v[k] * v[k])) / (2 * q - 2 * v[k]);
    }
    k++;
    v[k] = q;
    z[k] = s;
    z[k + 1] = Infinity;
  }
  if (src[v[0]] === Infinity) {
    dst.fill(Infinity, 0, n);
    return;
  }
  k = 0;
  for (let q = 0; q < n; q++) {
    while (z[k + 1] < q) k++;
    dst[q] = (q - v[k]) * (q - v[k]) + src[v[k]];
  }
}

/** Euclidean distance (in cells) from every cell to the nearest cell where feature[k] is set. */
function distanceTransform(cols: number, rows: number, feature: (k: number) => boolean): Float64Array {
  const d = new Float64Array(cols * rows);
  for (let k = 0; k < d.length; k++) d[k] = feature(k) ? 0 : Infinity;
  const len = Math.max(cols, rows);
  const src = new Float64Array(len);
  const dst = new Float64Array(len);
  const v = new Int32Array(len);
  const z = new Float64Array(len + 1);
  for (let c = 0; c < cols; c++) {
    for (let r = 0; r < rows; r++) src[r] = d[r * cols + c];
    edt1d(src, dst, rows, v, z);
    for (let r = 0; r < rows; r++) d[r * cols + c] = dst[r];
  }
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) src[c] = d[r * cols + c];
    edt1d(src, dst, cols, v, z);
    for (let c = 0; c < cols; c++) d[r * cols + c] = Math.sqrt(dst[c]);
  }
  return d;
}

/** Signed distance from a mask: outside cells get +distance to the road, inside cells −distance out. */
function signedFromMask(f: DrivableField, inside: Uint8Array): void {
  const toInside = distanceTransform(f.cols, f.rows, (k) => inside[k] === 1);
  const toOutside = distanceTransform(f.cols, f.rows, (k) => inside[k] === 0);
  // Cell-centre distances measure centre to centre; the boundary lies half a cell between them.
  for (let k = 0; k < f.sdf.length; k++) {
    f.sdf[k] = inside[k]
      ? -(Math.min(toOutside[k], 1e6) - 0.5) * f.resM
      : (Math.min(toInside[k], 1e6) - 0.5) * f.resM;
  }
}

/** Douglas–Peucker simplification (end points kept) of a polyline [x0, y0, …]. */
export function simplifyPolyline(xy: ArrayLike<number>, toleranceM: number): Float64Array {
  const n = xy.length >> 1;
  if (n <= 2) return Float64Array.from(xy);
  const keep = new Uint8Array(n);
  keep[0] = keep[n - 1] = 1;
  const stack: number[] = [0, n - 1];
  while (stack.length) {
    const j = stack.pop()!;
    const i = stack.pop()!;
    const ax = xy[2 * i];
    const ay = xy[2 * i + 1];
    const dx = xy[2 * j] - ax;
    const dy = xy[2 * j + 1] - ay;
    const len2 = dx * dx + dy * dy;
    let worst = -1;
    let at = -1;
    for (let k = i + 1; k < j; k++) {
      const px = xy[2 * k] - ax;
      const py = xy[2 * k + 1] - ay;
      const u = len2 > 0 ? Math.min(1, Math.max(0, (px * dx + py * dy) / len2)) : 0;
      const d = (px - u * dx) ** 2 + (py - u * dy) ** 2;
      if (d > worst) {
        worst = d;
        at = k;
      }
    }
    if (at >= 0 && worst > toleranceM * toleranceM) {
      keep[at] = 1;
      stack.push(i, at, at, j);
    }
  }
  const out: number[] = [];
  for (let k = 0; k < n; k++) if (keep[k]) out.push(xy[2 * k], xy[2 * k + 1]);
  return Float64Array.from(out);
}

/**
 * Signed distance to oriented road edges (the Sim Agents definition: the road lies on an edge's left),
 * stamped segment by segment within `band` metres. Near a vertex the sign follows the pseudo-normal
 * (the mean of the two segments' normals), which settles convex and concave corners alike. Cells
 * farther than the band from any edge are on the road when a lane corridor covers them.
 */
function signedFromEdges(f: DrivableField, map: RoadMap, band: number): void {
  const best = new Float32Array(f.cols * f.rows).fill(Infinity);
  // 1 where the nearest edge point is the free end of an open edge: its side is undefined there.
  const atEnd = new Uint8Array(f.cols * f.rows);
  const sdf = f.sdf;
  for (const edge of map.roadEdges) {
    // Mapped edges are densely sampled (WOMD: every ~0.5 m); dropping collinear points first makes
    // the stamping several times cheaper without moving the boundary by more than 2 cm.
    let xy = simplifyPolyline(edge.xy, 0.02);
    let n = xy.length >> 1;
    if (n < 2) continue;
    // Nearly closed outlines (islands, medians; WOMD's tolerance is 1 m²) are closed explicitly.
    const closed = n > 2 && (xy[0] - xy[2 * n - 2]) ** 2 + (xy[1] - xy[2 * n - 1]) ** 2 < 1;
    if (closed && (xy[0] !== xy[2 * n - 2] || xy[1] !== xy[2 * n - 1])) {
      xy = Float64Array.from([...xy, xy[0], xy[1]]);
      n++;
    }
    // Unit left normals of the segments.
    const nx = new Float64Array(n - 1);
    const ny = new Float64Array(n - 1);
    for (let s = 0; s < n - 1; s++) {
      const dx = xy[2 * s + 2] - xy[2 * s];
      const dy = xy[2 * s + 3] - xy[2 * s + 1];
      const l = Math.hypot(dx, dy) || 1;
      nx[s] = -dy / l;
      ny[s] = dx / l;
    }
    const vertexNormal = (v: number): [number, number] => {
      const prev = v > 0 ? v - 1 : closed ? n - 2 : -1;
      const next = v < n - 1 ? v : closed ? 0 : -1;
      let ax = 0;
      let ay = 0;
      if (prev >= 0) {
        ax += nx[prev];
        ay += ny[prev];
      }
      if (next >= 0) {
        ax += nx[next];
        ay += ny[next];
      }
      return [ax, ay];
    };
    for (let s = 0; s < n - 1; s++) {
      const ax = xy[2 * s];
      const ay = xy[2 * s + 1];
      const bx = xy[2 * s + 2];
      const by = xy[2 * s + 3];
      const dx = bx - ax;
      const dy = by - ay;
      const len2 = dx * dx + dy * dy;
      if (len2 === 0) continue;
      const [n0x, n0y] = vertexNormal(s);
      const [n1x, n1y] = vertexNormal(s + 1);
      const c0 = Math.max(0, Math.floor((Math.min(ax, bx) - band - f.originX) / f.resM));
      const c1 = Math.min(f.cols - 1, Math.ceil((Math.max(ax, bx) + band - f.originX) / f.resM));
      const r0 = Math.max(0, Math.floor((Math.min(ay, by) - band - f.originY) / f.resM));
      const r1 = Math.min(f.rows - 1, Math.ceil((Math.max(ay, by) + band - f.originY) / f.resM));
      for (let r = r0; r <= r1; r++) {
        const py = f.originY + (r + 0.5) * f.resM;
        for (let c = c0; c <= c1; c++) {
          const px = f.originX + (c + 0.5) * f.resM;
          const t = ((px - ax) * dx + (py - ay) * dy) / len2;
          const u = t < 0 ? 0 : t > 1 ? 1 : t;
          const ex = px - ax - u * dx;
          const ey = py - ay - u * dy;
          const d = Math.sqrt(ex * ex + ey * ey);
          const k = r * f.cols + c;
          if (d > band || d >= best[k]) continue;
          best[k] = d;
          // Left of the edge (dot with the left normal > 0) is road: negative distance.
          const side = t <= 0 ? ex * n0x + ey * n0y : t >= 1 ? ex * n1x + ey * n1y : ex * nx[s] + ey * ny[s];
          sdf[k] = side > 0 ? -d : d;
          atEnd[k] = !closed && ((t < 0 && s === 0) || (t > 1 && s === n - 2)) ? 1 : 0;
        }
      }
    }
  }
  // Far from every edge, or beyond the free end of one: road where a lane corridor covers the cell.
  let far = false;
  for (let k = 0; k < best.length; k++) if (best[k] === Infinity || atEnd[k]) far = true;
  if (!far) return;
  const lanes = new Uint8Array(best.length);
  const ids = new Set(map.lanes.map((l) => l.id));
  for (const l of map.lanes) {
    stampCorridor(f, l.xy, l.widthM / 2, lanes);
    // Lanes cut by the map's crop (no successor / predecessor) continue straight out of it.
    const n = l.xy.length >> 1;
    if (n < 2) continue;
    const ext = (i: number, j: number) => {
      const dx = l.xy[2 * i] - l.xy[2 * j];
      const dy = l.xy[2 * i + 1] - l.xy[2 * j + 1];
      const d = Math.hypot(dx, dy) || 1;
      const k = band * 3;
      stampCorridor(
        f,
        [l.xy[2 * i], l.xy[2 * i + 1], l.xy[2 * i] + (dx / d) * k, l.xy[2 * i + 1] + (dy / d) * k],
        l.widthM / 2,
        lanes,
      );
    };
    if (!l.successors.some((id) => ids.has(id))) ext(n - 1, n - 2);
    if (!l.predecessors.some((id) => ids.has(id))) ext(0, 1);
  }
  for (let k = 0; k < best.length; k++) {
    if (best[k] === Infinity) sdf[k] = lanes[k] ? -band : band;
    else if (atEnd[k]) sdf[k] = lanes[k] ? -best[k] : best[k];
  }
}
