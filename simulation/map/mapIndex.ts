// Query structures of one road map, built once and cached per map: the lane graph by index (topology,
// arc lengths, signals), a segment grid for nearest-lane lookups, sampled lane and road-edge points for
// observations, and the drivable-area signed-distance field.
import type { RoadMap } from '../scenario.ts';
import {
  buildDrivableField,
  DEFAULT_FIELD,
  type DrivableField,
  type DrivableFieldConfig,
} from './drivableField.ts';
import { inferLaneSuccessors } from './inferLaneLinks.ts';
import { buildStaticGrid, emitBox, gridBucket, type StaticGrid } from './staticGrid.ts';

export interface MapIndexConfig {
  /** Cell size of the lane-segment and point grids, metres. */
  gridCellM: number;
  /** Spacing of the sampled lane / road-edge points used by observations, metres. */
  pointSpacingM: number;
  field: DrivableFieldConfig;
}

export const DEFAULT_MAP_INDEX: MapIndexConfig = { gridCellM: 10, pointSpacingM: 2, field: DEFAULT_FIELD };

/** Sampled points of polylines with their heading and owner, indexed by a grid. */
export interface PointSet {
  x: Float32Array;
  y: Float32Array;
  heading: Float32Array;
  /** Lane index (lanes) or road-edge index (edges). */
  owner: Int32Array;
  grid: StaticGrid;
}

export interface MapIndex {
  laneCount: number;
  laneIds: Int32Array;
  laneIndexOf: Map<number, number>;
  laneXy: Float64Array[];
  /** Cumulative arc length at each vertex of each lane. */
  laneCum: Float64Array[];
  laneLength: Float64Array;
  laneWidth: Float32Array;
  /** Speed limit, m/s (0 when unknown). */
  laneSpeed: Float32Array;
  laneInIntersection: Uint8Array;
  successors: Int32Array[];
  /** True when the source carried no lane links and the successors were inferred (inferLaneLinks.ts). */
  successorsInferred: boolean;
  leftNeighbor: Int32Array;
  rightNeighbor: Int32Array;
  /** Index into map.trafficLights of the signal controlling each lane, or −1. */
  laneLight: Int32Array;
  /** Arc length of the lane's signal stop point (where vehicles must stop), NaN when none. */
  laneStopS: Float64Array;
  /** Segment grid: item k is segment segIndex[k] of lane segLane[k]. */
  segLane: Int32Array;
  segIndex: Int32Array;
  segGrid: StaticGrid;
  lanePoints: PointSet;
  edgePoints: PointSet;
  field: DrivableField;
}

const cache = new WeakMap<RoadMap, MapIndex>();

/** The index of a map, built on first use and cached for the map object. */
export function mapIndex(map: RoadMap, cfg: MapIndexConfig = DEFAULT_MAP_INDEX): MapIndex {
  let idx = cache.get(map);
  if (!idx) {
    idx = buildMapIndex(map, cfg);
    cache.set(map, idx);
  }
  return idx;
}

function cumulative(xy: Float64Array): Float64Array {
  const n = xy.length >> 1;
  const c = new Float64Array(n);
  for (let i = 1; i < n; i++)
    c[i] = c[i - 1] + Math.hypot(xy[2 * i] - xy[2 * i - 2], xy[2 * i + 1] - xy[2 * i - 1]);
  return c;
}

function samplePoints(polylines: Float64Array[], spacing: number, cellM: number): PointSet {
  const x: number[] = [];
  const y: number[] = [];
  const h: number[] = [];
  const o: number[] = [];
  polylines.forEach((xy, owner) => {
    const n = xy.length >> 1;
    if (n === 1) {
      x.push(xy[0]);
      y.push(xy[1]);
      h.push(0);
      o.push(owner);
    }
    for (let s = 0; s < n - 1; s++) {
      const ax = xy[2 * s];
      const ay = xy[2 * s + 1];
      const dx = xy[2 * s + 2] - ax;
      const dy = xy[2 * s + 3] - ay;
      const len = Math.hypot(dx, dy);
      // A hair of tolerance so float rounding of the length does not add a sample.
      const k = Math.max(1, Math.ceil(len / spacing - 1e-3));
      const last = s === n - 2 ? k : k - 1;
      for (let j = 0; j <= last; j++) {
        x.push(ax + (dx * j) / k);
        y.push(ay + (dy * j) / k);
        h.push(Math.atan2(dy, dx));
        o.push(owner);
      }
    }
  });
  const set = {
    x: Float32Array.from(x),
    y: Float32Array.from(y),
    heading: Float32Array.from(h),
    owner: Int32Array.from(o),
  };
  const grid = buildStaticGrid(cellM, x.length, (i, emit) =>
    emit(Math.floor(set.x[i] / cellM), Math.floor(set.y[i] / cellM)),
  );
  return { ...set, grid };
}

export function buildMapIndex(map: RoadMap, cfg: MapIndexConfig = DEFAULT_MAP_INDEX): MapIndex {
  const n = map.lanes.length;
  const laneIndexOf = new Map<number, number>();
  map.lanes.forEach((l, i) => laneIndexOf.set(l.id, i));
  const laneXy = map.lanes.map((l) => Float64Array.from(l.xy));
  const laneCum = laneXy.map(cumulative);
  const idxOf = (ids: number[]) =>
    Int32Array.from(ids.filter((id) => laneIndexOf.has(id)).map((id) => laneIndexOf.get(id)!));
  const laneLight = new Int32Array(n).fill(-1);
  const laneStopS = new Float64Array(n).fill(NaN);
  map.trafficLights.forEach((light, k) => {
    const i = laneIndexOf.get(light.laneId);
    if (i === undefined) return;
    laneLight[i] = k;
    laneStopS[i] = projectS(laneXy[i], laneCum[i], light.stopX, light.stopY);
  });
  // Segment grid for nearest-lane queries.
  const segLane: number[] = [];
  const segIndex: number[] = [];
  laneXy.forEach((xy, li) => {
    const m = Math.max(1, (xy.length >> 1) - 1);
    for (let s = 0; s < m; s++) {
      segLane.push(li);
      segIndex.push(s);
    }
  });
  const cellM = cfg.gridCellM;
  const segGrid = buildStaticGrid(cellM, segLane.length, (k, emit) => {
    const xy = laneXy[segLane[k]];
    const s = segIndex[k];
    const last = (xy.length >> 1) - 1;
    const e = Math.min(s + 1, last);
    emitBox({ cellM }, xy[2 * s], xy[2 * s + 1], xy[2 * e], xy[2 * e + 1], emit);
  });
  // Without any link in the source, lanes would end at every joint: infer them from geometry.
  const linked = map.lanes.some((l) => l.successors.length > 0);
  const successors = linked ? map.lanes.map((l) => idxOf(l.successors)) : inferLaneSuccessors(laneXy);
  const edges = map.roadEdges.length
    ? map.roadEdges.map((e) => Float64Array.from(e.xy))
    : map.drivableAreas.map((p) => Float64Array.from([...p.xy, p.xy[0], p.xy[1]]));
  return {
    laneCount: n,
    laneIds: Int32Array.from(map.lanes, (l) => l.id),
    laneIndexOf,
    laneXy,
    laneCum,
    laneLength: Float64Array.from(laneCum, (c) => c[c.length - 1] ?? 0),
    laneWidth: Float32Array.from(map.lanes, (l) => l.widthM),
    laneSpeed: Float32Array.from(map.lanes, (l) => (Number.isFinite(l.speedLimitMps) ? l.speedLimitMps : 0)),
    laneInIntersection: Uint8Array.from(map.lanes, (l) => (l.inIntersection ? 1 : 0)),
    successors,
    successorsInferred: !linked && n > 1,
    leftNeighbor: Int32Array.from(map.lanes, (l) => idxOf(l.leftNeighbors)[0] ?? -1),
    rightNeighbor: Int32Array.from(map.lanes, (l) => idxOf(l.rightNeighbors)[0] ?? -1),
    laneLight,
    laneStopS,
    segLane: Int32Array.from(segLane),
    segIndex: Int32Array.from(segIndex),
    segGrid,
    lanePoints: samplePoints(laneXy, cfg.pointSpacingM, cellM),
    edgePoints: samplePoints(edges, cfg.pointSpacingM, cellM),
    field: buildDrivableField(map, cfg.field),
  };
}

/** Arc length of the point of a polyline closest to (px, py). */
export function projectS(xy: Float64Array, cum: Float64Array, px: number, py: number): number {
  const n = xy.length >> 1;
  let best = Infinity;
  let bestS = 0;
  for (let i = 0; i < n - 1; i++) {
    const ax = xy[2 * i];
    const ay = xy[2 * i + 1];
    const dx = xy[2 * i + 2] - ax;
    const dy = xy[2 * i + 3] - ay;
    const len2 = dx * dx + dy * dy;
    const u = len2 > 0 ? Math.min(1, Math.max(0, ((px - ax) * dx + (py - ay) * dy) / len2)) : 0;
    const d = (px - ax - u * dx) ** 2 + (py - ay - u * dy) ** 2;
    if (d < best) {
      best = d;
      bestS = cum[i] + u * Math.sqrt(len2);
    }
  }
  return bestS;
}

/** Result of a lane lookup (reused object: copy what you keep). */
export interface LaneHit {
  lane: number;
  /** Arc length along the lane. */
  s: number;
  /** Signed offset from the centreline, left positive. */
  lateral: number;
  /** Heading of the lane at the hit. */
  heading: number;
  segment: number;
}

/** Project (px, py) on segment `seg` of lane `li`, writing into `out`; returns the squared distance. */
export function projectOnSegment(
  m: MapIndex,
  li: number,
  seg: number,
  px: number,
  py: number,
  out: LaneHit,
): number {
  const xy = m.laneXy[li];
  const last = (xy.length >> 1) - 1;
  const e = Math.min(seg + 1, last);
  const ax = xy[2 * seg];
  const ay = xy[2 * seg + 1];
  const dx = xy[2 * e] - ax;
  const dy = xy[2 * e + 1] - ay;
  const len2 = dx * dx + dy * dy;
  const u = len2 > 0 ? Math.min(1, Math.max(0, ((px - ax) * dx + (py - ay) * dy) / len2)) : 0;
  const ex = px - ax - u * dx;
  const ey = py - ay - u * dy;
  const len = Math.sqrt(len2);
  out.lane = li;
  out.segment = seg;
  out.s = m.laneCum[li][seg] + u * len;
  out.heading = len2 > 0 ? Math.atan2(dy, dx) : 0;
  out.lateral = len2 > 0 ? (dx * ey - dy * ex) / len : Math.sqrt(ex * ex + ey * ey);
  return ex * ex + ey * ey;
}

const scratch: LaneHit = { lane: -1, s: 0, lateral: 0, heading: 0, segment: 0 };

/**
 * The lane best matching a pose: least distance + headingWeightM × (1 − cos Δheading) among segments
 * within `maxDistM` (searching the neighbouring grid cells). Returns false when none is close enough.
 */
export function nearestLane(
  m: MapIndex,
  px: number,
  py: number,
  yaw: number,
  out: LaneHit,
  maxDistM = 5,
  headingWeightM = 10,
): boolean {
  const g = m.segGrid;
  const cx = Math.floor(px / g.cellM);
  const cy = Math.floor(py / g.cellM);
  const reach = Math.ceil(maxDistM / g.cellM);
  let best = Infinity;
  for (let ox = -reach; ox <= reach; ox++) {
    for (let oy = -reach; oy <= reach; oy++) {
      const b = gridBucket(g, cx + ox, cy + oy);
      for (let p = g.start[b]; p < g.start[b + 1]; p++) {
        const k = g.items[p];
        const d2 = projectOnSegment(m, m.segLane[k], m.segIndex[k], px, py, scratch);
        if (d2 > maxDistM * maxDistM) continue;
        const cost = Math.sqrt(d2) + headingWeightM * (1 - Math.cos(yaw - scratch.heading));
        if (cost < best) {
          best = cost;
          Object.assign(out, scratch);
        }
      }
    }
  }
  return best < Infinity;
}

/**
 * Re-project onto lane `li` near segment `hint` (a few segments either way), for agents that track
 * their lane step to step. Returns the squared distance.
 */
export function projectNear(
  m: MapIndex,
  li: number,
  hint: number,
  px: number,
  py: number,
  out: LaneHit,
): number {
  const last = Math.max(0, (m.laneXy[li].length >> 1) - 2);
  let best = Infinity;
  for (let s = Math.max(0, hint - 2); s <= Math.min(last, hint + 4); s++) {
    const d2 = projectOnSegment(m, li, s, px, py, scratch);
    if (d2 < best) {
      best = d2;
      Object.assign(out, scratch);
    }
  }
  return best;
}

/** Point and heading of lane `li` at arc length s (clamped), written into out.x/out.y/out.heading. */
export function lanePointAt(
  m: MapIndex,
  li: number,
  s: number,
  out: { x: number; y: number; heading: number },
): void {
  const xy = m.laneXy[li];
  const cum = m.laneCum[li];
  const n = xy.length >> 1;
  if (n === 1) {
    out.x = xy[0];
    out.y = xy[1];
    out.heading = 0;
    return;
  }
  const t = Math.min(Math.max(s, 0), cum[n - 1]);
  let lo = 0;
  let hi = n - 1;
  while (hi - lo > 1) {
    const mid = (lo + hi) >> 1;
    if (cum[mid] <= t) lo = mid;
    else hi = mid;
  }
  const seg = cum[lo + 1] - cum[lo];
  const u = seg > 0 ? (t - cum[lo]) / seg : 0;
  const dx = xy[2 * lo + 2] - xy[2 * lo];
  const dy = xy[2 * lo + 3] - xy[2 * lo + 1];
  out.x = xy[2 * lo] + u * dx;
  out.y = xy[2 * lo + 1] + u * dy;
  out.heading = Math.atan2(dy, dx);
}
