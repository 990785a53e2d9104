// Small parameterised road maps for long-tail scenarios: a straight multi-lane road (with an optional
// lane that ends, for merges, and a parking shoulder) and a signalised four-way intersection with
// right-hand traffic, turn connectors, crosswalks and drivable-area polygons.
import { emptyMap, type Lane, type RoadMap } from '../scenario.ts';

function lane(id: number, xy: number[], widthM: number, speedLimitMps: number, inIntersection = false): Lane {
  return {
    id,
    xy: Float32Array.from(xy),
    widthM,
    speedLimitMps,
    successors: [],
    predecessors: [],
    leftNeighbors: [],
    rightNeighbors: [],
    inIntersection,
  };
}

function link(a: Lane, b: Lane): void {
  a.successors.push(b.id);
  b.predecessors.push(a.id);
}

const rect = (x0: number, y0: number, x1: number, y1: number) =>
  Float32Array.of(x0, y0, x1, y0, x1, y1, x0, y1);

export interface StraightRoadSpec {
  lanes: number;
  lengthM: number;
  laneWidthM: number;
  speedLimitMps: number;
  /** Width of a parking shoulder right of lane 0 (part of the drivable area), metres. */
  shoulderM: number;
  /** When set, the leftmost lane ends here (a merge: its successor is the lane to its right). */
  mergeEndM?: number;
}

/**
 * Lanes along +x; lane k's centreline at y = k·laneWidth (lane 0 rightmost). Lane ids are 1 + k (the
 * ending lane of a merge is split into the part before the end, id 1 + k, and nothing after).
 */
export function straightRoad(spec: StraightRoadSpec): RoadMap {
  const m = emptyMap();
  const w = spec.laneWidthM;
  const L = spec.lengthM;
  for (let k = 0; k < spec.lanes; k++) {
    const end = spec.mergeEndM !== undefined && k === spec.lanes - 1 ? spec.mergeEndM : L;
    const pts: number[] = [];
    for (let x = 0; x <= end + 1e-6; x += 10) pts.push(x, k * w);
    if (pts[pts.length - 2] < end) pts.push(end, k * w);
    m.lanes.push(lane(1 + k, pts, w, spec.speedLimitMps));
  }
  for (let k = 0; k < spec.lanes; k++) {
    if (k > 0) m.lanes[k].rightNeighbors.push(k);
    if (k < spec.lanes - 1) m.lanes[k].leftNeighbors.push(k + 2);
  }
  if (spec.mergeEndM !== undefined && spec.lanes > 1) {
    // The ending lane flows into the lane to its right through a short connector.
    const k = spec.lanes - 1;
    const x0 = spec.mergeEndM;
    const conn = lane(100, [x0, k * w, x0 + 15, (k - 0.5) * w, x0 + 30, (k - 1) * w], w, spec.speedLimitMps);
    m.lanes.push(conn);
    link(m.lanes[k], conn);
  }
  const bottom = -w / 2 - spec.shoulderM;
  const top = (spec.lanes - 0.5) * w;
  const topMerged = (spec.lanes - 1.5) * w;
  if (spec.mergeEndM !== undefined) {
    const x0 = spec.mergeEndM;
    m.drivableAreas.push(
      { id: 200, xy: rect(0, bottom, L, topMerged) },
      { id: 201, xy: Float32Array.of(0, topMerged, x0, topMerged, x0 + 30, topMerged, x0, top, 0, top) },
    );
    m.roadEdges.push(
      { id: 210, xy: Float32Array.of(0, bottom, L, bottom) },
      { id: 211, xy: Float32Array.of(L, topMerged, x0 + 30, topMerged, x0, top, 0, top) },
    );
  } else {
    m.drivableAreas.push({ id: 200, xy: rect(0, bottom, L, top) });
    m.roadEdges.push(
      { id: 210, xy: Float32Array.of(0, bottom, L, bottom) },
      { id: 211, xy: Float32Array.of(L, top, 0, top) },
    );
  }
  m.sidewalks.push(
    { id: 220, xy: rect(0, bottom - 3, L, bottom) },
    { id: 221, xy: rect(0, top, L, top + 3) },
  );
  return m;
}

export type Arm = 'south' | 'east' | 'north' | 'west';
export const ARMS: Arm[] = ['south', 'east', 'north', 'west'];

export interface IntersectionSpec {
  armLengthM: number;
  laneWidthM: number;
  speedLimitMps: number;
  /** Stop lines (and connector starts) this far from the centre, metres. */
  stopM: number;
}

export interface Intersection {
  map: RoadMap;
  /** Lane id of the lane arriving from / leaving to each arm. */
  incoming: Record<Arm, number>;
  outgoing: Record<Arm, number>;
  /** Connector lane id from arm a to arm b (a ≠ b). */
  connector: (from: Arm, to: Arm) => number;
}

// Unit direction pointing from the centre out along each arm.
const OUT: Record<Arm, [number, number]> = { south: [0, -1], east: [1, 0], north: [0, 1], west: [-1, 0] };

function cubic(p0: number[], p1: number[], p2: number[], p3: number[], n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i <= n; i++) {
    const t = i / n;
    const u = 1 - t;
    const b = [u * u * u, 3 * u * u * t, 3 * u * t * t, t * t * t];
    out.push(
      b[0] * p0[0] + b[1] * p1[0] + b[2] * p2[0] + b[3] * p3[0],
      b[0] * p0[1] + b[1] * p1[1] + b[2] * p2[1] + b[3] * p3[1],
    );
  }
  return out;
}

/** A four-way intersection at the origin, one lane each way per arm, every turn allowed. */
export function crossIntersection(spec: IntersectionSpec): Intersection {
  const m = emptyMap();
  const w = spec.laneWidthM;
  const L = spec.armLengthM;
  const d = spec.stopM;
  const incoming = {} as Record<Arm, number>;
  const outgoing = {} as Record<Arm, number>;
  const ends = {} as Record<Arm, { inEnd: number[]; inDir: number[]; outStart: number[]; outDir: number[] }>;
  ARMS.forEach((arm, i) => {
    const [ox, oy] = OUT[arm];
    // n = OUT's left normal, which is the right-hand side of arriving traffic (it travels −OUT):
    // arriving lanes sit at +n·w/2, leaving lanes at −n·w/2 (right-hand traffic).
    const nx = -oy;
    const ny = ox;
    const inOff = [nx * (w / 2), ny * (w / 2)];
    const outOff = [-nx * (w / 2), -ny * (w / 2)];
    const inStart = [ox * L + inOff[0], oy * L + inOff[1]];
    const inEnd = [ox * d + inOff[0], oy * d + inOff[1]];
    const outStart = [ox * d + outOff[0], oy * d + outOff[1]];
    const outEnd = [ox * L + outOff[0], oy * L + outOff[1]];
    const inLane = lane(
      10 + i,
      [...inStart, (inStart[0] + inEnd[0]) / 2, (inStart[1] + inEnd[1]) / 2, ...inEnd],
      w,
      spec.speedLimitMps,
    );
    const outLane = lane(
      20 + i,
      [...outStart, (outStart[0] + outEnd[0]) / 2, (outStart[1] + outEnd[1]) / 2, ...outEnd],
      w,
      spec.speedLimitMps,
    );
    m.lanes.push(inLane, outLane);
    incoming[arm] = inLane.id;
    outgoing[arm] = outLane.id;
    ends[arm] = { inEnd, inDir: [-ox, -oy], outStart, outDir: [ox, oy] };
  });
  const byId = new Map(m.lanes.map((l) => [l.id, l]));
  const conn = new Map<string, number>();
  let next = 100;
  for (const a of ARMS) {
    for (const b of ARMS) {
      if (a === b) continue;
      const e = ends[a];
      const f = ends[b];
      const chord = Math.hypot(f.outStart[0] - e.inEnd[0], f.outStart[1] - e.inEnd[1]);
      const k = 0.45 * chord;
      const xy = cubic(
        e.inEnd,
        [e.inEnd[0] + e.inDir[0] * k, e.inEnd[1] + e.inDir[1] * k],
        [f.outStart[0] - f.outDir[0] * k, f.outStart[1] - f.outDir[1] * k],
        f.outStart,
        12,
      );
      const c = lane(next, xy, w, spec.speedLimitMps, true);
      conn.set(`${a}>${b}`, next++);
      m.lanes.push(c);
      byId.set(c.id, c);
      link(byId.get(incoming[a])!, c);
      link(c, byId.get(outgoing[b])!);
    }
  }
  // Drivable area: the two crossing road bands (their union is the cross shape).
  m.drivableAreas.push({ id: 300, xy: rect(-L, -w, L, w) }, { id: 301, xy: rect(-w, -L, w, L) });
  for (const arm of ARMS) {
    const [ox, oy] = OUT[arm];
    const nx = -oy;
    const ny = ox;
    // Road edges along each arm with the road on their left: outward on the −n side, inward on +n.
    m.roadEdges.push({
      id: 310 + 2 * ARMS.indexOf(arm),
      xy: Float32Array.of(ox * w - nx * w, oy * w - ny * w, ox * L - nx * w, oy * L - ny * w),
    });
    m.roadEdges.push({
      id: 311 + 2 * ARMS.indexOf(arm),
      xy: Float32Array.of(ox * L + nx * w, oy * L + ny * w, ox * w + nx * w, oy * w + ny * w),
    });
    // A crosswalk across each arm between the stop line and the junction box.
    const c0 = w + 0.5;
    const c1 = Math.max(c0 + 1, d - 1);
    m.crosswalks.push({
      id: 320 + ARMS.indexOf(arm),
      xy: Float32Array.of(
        ox * c0 - nx * w,
        oy * c0 - ny * w,
        ox * c1 - nx * w,
        oy * c1 - ny * w,
        ox * c1 + nx * w,
        oy * c1 + ny * w,
        ox * c0 + nx * w,
        oy * c0 + ny * w,
      ),
    });
  }
  return { map: m, incoming, outgoing, connector: (a, b) => conn.get(`${a}>${b}`)! };
}
