// The road graph of the procedural town: junctions on a jittered grid, roads between them as smooth
// curves that leave every junction along one of four axis-aligned arms (so junction geometry stays simple).
import { cumulativeArcLength, pointAtArcLength } from '../../core/geometry/polyline.ts';
import type { Rng } from '../../core/rng.ts';
import type { TownConfig } from './townConfig.ts';

/** Arm directions at a junction, counter-clockwise: east, north, west, south. */
export const ARM_DIRS: readonly [number, number][] = [
  [1, 0],
  [0, 1],
  [-1, 0],
  [0, -1],
];

export interface TownNode {
  id: number;
  x: number;
  y: number;
  /** Road id on each arm (east, north, west, south), −1 where there is none. */
  arms: number[];
  degree: number;
  /** Half-size of the junction square, metres. */
  radiusM: number;
  /** Priority road through the junction: 0 = east–west arms, 1 = north–south arms (side roads yield). */
  majorAxis: number;
}

export interface TownRoad {
  id: number;
  /** Start junction and its arm (direction index); the road runs from A to B. */
  nodeA: number;
  armA: number;
  nodeB: number;
  armB: number;
  lanesPerDir: number;
  /** Parking strip on the left / right of the A→B direction. */
  parkingLeft: boolean;
  parkingRight: boolean;
  /** Curb offsets from the reference line, metres (left positive side / right side, both ≥ 0). */
  halfWidthLeftM: number;
  halfWidthRightM: number;
  speedLimitMps: number;
  /** Reference line (the centre line between the two directions) from A's arm to B's arm. */
  ref: Float32Array;
  cum: Float64Array;
  lengthM: number;
  treesLeft: boolean;
  treesRight: boolean;
}

export interface RoadNetwork {
  nodes: TownNode[];
  roads: TownRoad[];
}

/** Half-width of a road on the side facing `side` ('left' | 'right') looking out of junction `nodeId`. */
export function armHalfWidth(road: TownRoad, nodeId: number, side: 'left' | 'right'): number {
  const fromA = road.nodeA === nodeId;
  // Looking out of A is the A→B direction; looking out of B reverses left and right.
  const leftOfRoad = fromA ? side === 'left' : side === 'right';
  return leftOfRoad ? road.halfWidthLeftM : road.halfWidthRightM;
}

export interface RoadFrame {
  x: number;
  y: number;
  heading: number;
  /** Unit normal to the left of the A→B direction. */
  nx: number;
  ny: number;
}

/** Point, heading and left normal of the reference line at arc length s (from A). */
export function roadFrameAt(road: TownRoad, s: number): RoadFrame {
  const p = pointAtArcLength(road.ref, s, road.cum);
  return { x: p.x, y: p.y, heading: p.heading, nx: -Math.sin(p.heading), ny: Math.cos(p.heading) };
}

/** The reference line offset sideways (positive = left of A→B), sampled at its own vertices. */
export function offsetPolyline(ref: Float32Array, offsetM: number): Float32Array {
  const n = ref.length >> 1;
  const out = new Float32Array(ref.length);
  for (let i = 0; i < n; i++) {
    const i0 = Math.max(0, i - 1);
    const i1 = Math.min(n - 1, i + 1);
    const dx = ref[2 * i1] - ref[2 * i0];
    const dy = ref[2 * i1 + 1] - ref[2 * i0 + 1];
    const len = Math.hypot(dx, dy) || 1;
    out[2 * i] = ref[2 * i] - (dy / len) * offsetM;
    out[2 * i + 1] = ref[2 * i + 1] + (dx / len) * offsetM;
  }
  return out;
}

/** Reverse the direction of a polyline. */
export function reversePolyline(xy: Float32Array): Float32Array {
  const n = xy.length >> 1;
  const out = new Float32Array(xy.length);
  for (let i = 0; i < n; i++) {
    out[2 * i] = xy[2 * (n - 1 - i)];
    out[2 * i + 1] = xy[2 * (n - 1 - i) + 1];
  }
  return out;
}

/** Sub-range [s0, s1] of a polyline (with its cumulative arc lengths), resampled at its vertices. */
export function slicePolyline(xy: Float32Array, cum: Float64Array, s0: number, s1: number): Float32Array {
  const pts: number[] = [];
  const a = pointAtArcLength(xy, s0, cum);
  pts.push(a.x, a.y);
  for (let i = 0; i < cum.length; i++) {
    if (cum[i] > s0 + 1e-6 && cum[i] < s1 - 1e-6) pts.push(xy[2 * i], xy[2 * i + 1]);
  }
  const b = pointAtArcLength(xy, s1, cum);
  pts.push(b.x, b.y);
  return Float32Array.from(pts);
}

const SAMPLE_SPACING_M = 1.5;

/** Straight stretch at each end of a road, so crosswalks, stop lines and sidewalk ends meet the junction square-on. */
const END_STUB_M = 6;

function buildReference(
  ax: number,
  ay: number,
  bx: number,
  by: number,
  dir: [number, number],
  bulgeM: number,
): Float32Array {
  // Straight stubs along the arm direction, then a cubic Bézier between them whose end tangents are also along
  // the arm, plus a sideways bulge β·sin²(πu) with zero offset and zero slope at both ends.
  const sx = ax + dir[0] * END_STUB_M;
  const sy = ay + dir[1] * END_STUB_M;
  const ex = bx - dir[0] * END_STUB_M;
  const ey = by - dir[1] * END_STUB_M;
  const chord = Math.hypot(ex - sx, ey - sy);
  const k = chord / 3;
  const p1x = sx + dir[0] * k;
  const p1y = sy + dir[1] * k;
  const p2x = ex - dir[0] * k;
  const p2y = ey - dir[1] * k;
  const nx = -dir[1];
  const ny = dir[0];
  const count = Math.max(8, Math.ceil((chord * 1.15) / SAMPLE_SPACING_M));
  const pts: number[] = [ax, ay];
  for (let i = 0; i <= count; i++) {
    const u = i / count;
    const w = 1 - u;
    const b0 = w * w * w;
    const b1 = 3 * w * w * u;
    const b2 = 3 * w * u * u;
    const b3 = u * u * u;
    const bulge = bulgeM * Math.sin(Math.PI * u) ** 2;
    pts.push(
      b0 * sx + b1 * p1x + b2 * p2x + b3 * ex + nx * bulge,
      b0 * sy + b1 * p1y + b2 * p2y + b3 * ey + ny * bulge,
    );
  }
  pts.push(bx, by);
  return Float32Array.from(pts);
}

/** Generate the junctions and roads of a town. */
export function generateRoadNetwork(cfg: TownConfig, rng: Rng): RoadNetwork {
  const { gridCols: cols, gridRows: rows, blockSizeM: block } = cfg;
  if (cols < 2 || rows < 2) throw new Error('town grid needs at least 2×2 junctions');
  const colOffset = Array.from({ length: cols }, () => rng.uniform(-cfg.lineJitterM, cfg.lineJitterM));
  const rowOffset = Array.from({ length: rows }, () => rng.uniform(-cfg.lineJitterM, cfg.lineJitterM));
  const nodes: TownNode[] = [];
  for (let j = 0; j < rows; j++) {
    for (let i = 0; i < cols; i++) {
      const own = rng.chance(cfg.nodeJitterShare);
      nodes.push({
        id: nodes.length,
        x: (i - (cols - 1) / 2) * block + colOffset[i] + (own ? rng.uniform(-1, 1) * cfg.nodeJitterM : 0),
        y: (j - (rows - 1) / 2) * block + rowOffset[j] + (own ? rng.uniform(-1, 1) * cfg.nodeJitterM : 0),
        arms: [-1, -1, -1, -1],
        degree: 0,
        radiusM: 0,
        majorAxis: 0,
      });
    }
  }
  const at = (i: number, j: number) => j * cols + i;
  // Candidate edges: (a, b, arm at a); arm at b is the opposite one.
  const edges: [number, number, number][] = [];
  for (let j = 0; j < rows; j++) for (let i = 0; i + 1 < cols; i++) edges.push([at(i, j), at(i + 1, j), 0]);
  for (let j = 0; j + 1 < rows; j++) for (let i = 0; i < cols; i++) edges.push([at(i, j), at(i, j + 1), 1]);
  const degree = new Array<number>(nodes.length).fill(0);
  for (const [a, b] of edges) {
    degree[a]++;
    degree[b]++;
  }
  // Remove some interior roads, keeping every junction at degree ≥ 2, the graph connected, and at least
  // one 4-way junction when the grid has one.
  const isInterior = (a: number, b: number) => {
    const ai = a % cols;
    const aj = Math.floor(a / cols);
    const bi = b % cols;
    const bj = Math.floor(b / cols);
    return !((aj === bj && (aj === 0 || aj === rows - 1)) || (ai === bi && (ai === 0 || ai === cols - 1)));
  };
  const removed = new Set<number>();
  const order = edges.map((_, k) => k);
  for (let k = order.length - 1; k > 0; k--) {
    const r = rng.int(0, k);
    [order[k], order[r]] = [order[r], order[k]];
  }
  const fourWays = () => degree.filter((d) => d === 4).length;
  for (const k of order) {
    const [a, b] = edges[k];
    if (!isInterior(a, b) || !rng.chance(cfg.removeRoadShare)) continue;
    if (degree[a] <= 2 || degree[b] <= 2) continue;
    const lostFour = (degree[a] === 4 ? 1 : 0) + (degree[b] === 4 ? 1 : 0);
    if (lostFour > 0 && fourWays() - lostFour < 1) continue;
    removed.add(k);
    if (!connected(nodes.length, edges, removed)) {
      removed.delete(k);
      continue;
    }
    degree[a]--;
    degree[b]--;
  }
  const kept = edges.filter((_, k) => !removed.has(k));
  const roads: TownRoad[] = [];
  for (const [a, b, arm] of kept) {
    const multi = rng.chance(cfg.multiLaneShare);
    const lanes = multi ? 2 : 1;
    const parkingLeft = rng.chance(cfg.parkingShare);
    const parkingRight = rng.chance(cfg.parkingShare);
    roads.push({
      id: roads.length,
      nodeA: a,
      armA: arm,
      nodeB: b,
      armB: (arm + 2) % 4,
      lanesPerDir: lanes,
      parkingLeft,
      parkingRight,
      halfWidthLeftM: lanes * cfg.laneWidthM + (parkingLeft ? cfg.parkingWidthM : 0),
      halfWidthRightM: lanes * cfg.laneWidthM + (parkingRight ? cfg.parkingWidthM : 0),
      speedLimitMps: multi ? cfg.multiLaneSpeedLimitMps : cfg.speedLimitMps,
      ref: new Float32Array(0),
      cum: new Float64Array(0),
      lengthM: 0,
      treesLeft: rng.chance(cfg.treeSideShare),
      treesRight: rng.chance(cfg.treeSideShare),
    });
    nodes[a].arms[arm] = roads.length - 1;
    nodes[b].arms[(arm + 2) % 4] = roads.length - 1;
  }
  for (const n of nodes) {
    n.degree = n.arms.filter((r) => r >= 0).length;
    let widest = 0;
    for (const r of n.arms) {
      if (r < 0) continue;
      widest = Math.max(widest, roads[r].halfWidthLeftM, roads[r].halfWidthRightM);
    }
    n.radiusM = widest + cfg.junctionMarginM;
    // The through road of a T is the priority road; at a crossing, the wider road (or a coin toss).
    const through = [0, 1].filter((ax) => n.arms[ax] >= 0 && n.arms[ax + 2] >= 0);
    const lanesOn = (ax: number) =>
      [ax, ax + 2].reduce((sum, d) => sum + (n.arms[d] >= 0 ? roads[n.arms[d]].lanesPerDir : 0), 0);
    if (through.length === 1) n.majorAxis = through[0];
    else if (lanesOn(0) !== lanesOn(1)) n.majorAxis = lanesOn(0) > lanesOn(1) ? 0 : 1;
    else n.majorAxis = rng.int(0, 1);
  }
  for (const road of roads) {
    const A = nodes[road.nodeA];
    const B = nodes[road.nodeB];
    const dir = ARM_DIRS[road.armA];
    const bulge = rng.chance(cfg.curvedRoadShare)
      ? rng.uniform(0.5, 1) * cfg.curveBulgeM * rng.pick([-1, 1])
      : 0;
    road.ref = buildReference(
      A.x + dir[0] * A.radiusM,
      A.y + dir[1] * A.radiusM,
      B.x - dir[0] * B.radiusM,
      B.y - dir[1] * B.radiusM,
      dir,
      bulge,
    );
    road.cum = cumulativeArcLength(road.ref);
    road.lengthM = road.cum[road.cum.length - 1];
  }
  return { nodes, roads };
}

function connected(n: number, edges: [number, number, number][], removed: Set<number>): boolean {
  const adj: number[][] = Array.from({ length: n }, () => []);
  edges.forEach(([a, b], k) => {
    if (removed.has(k)) return;
    adj[a].push(b);
    adj[b].push(a);
  });
  const seen = new Uint8Array(n);
  const stack = [0];
  seen[0] = 1;
  let count = 1;
  while (stack.length) {
    const v = stack.pop()!;
    for (const w of adj[v]) {
      if (!seen[w]) {
        seen[w] = 1;
        count++;
        stack.push(w);
      }
    }
  }
  return count === n;
}
