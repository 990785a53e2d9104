// Lanes of the town: one centreline per lane and direction of every road, plus connector lanes through each
// junction (straight, left, right) with successor/neighbour links, curve speed limits and conflict sets.
import { wrapAngle } from '../../core/geometry/pose.ts';
import { cumulativeArcLength, pointAtArcLength } from '../../core/geometry/polyline.ts';
import { vertexHeadings } from './polylineFrame.ts';
import { type RoadNetwork, offsetPolyline, reversePolyline } from './roadNetwork.ts';
import type { TownConfig } from './townConfig.ts';

export type Turn = 'straight' | 'left' | 'right';

export interface TownLane {
  id: number;
  kind: 'road' | 'connector';
  /** Road of a road lane; −1 for connectors. */
  roadId: number;
  /** Road lanes: true when running A→B. */
  forward: boolean;
  /** Road lanes: 0 = next to the centre line. */
  index: number;
  /** Connectors: their junction; road lanes: the junction they lead into. */
  nodeId: number;
  turn: Turn | null;
  xy: Float32Array;
  cum: Float64Array;
  lengthM: number;
  widthM: number;
  speedLimitMps: number;
  /** Curve speed limit at each vertex (comfortable lateral acceleration), m/s. */
  vMax: Float32Array;
  /** Heading at each vertex, for a smooth frame along the lane. */
  headings: Float32Array;
  successors: number[];
  predecessors: number[];
  left: number[];
  right: number[];
  /** Where a vehicle's front stops when it must yield before the junction (arc length); the lane length when it never yields. */
  stopS: number;
  /** Connectors of the same junction that cross or merge with this one (from other source lanes). */
  conflicts: number[];
  /** Connectors: coming from the junction's priority road (side-road traffic yields to it). */
  major: boolean;
}

/** Distance from the road end to the stop line: the crosswalk, 0.5 m before it, and 1 m of stop line gap. */
export function stopBackoffM(cfg: TownConfig): number {
  return cfg.crosswalkWidthM + 1.5;
}

function curveSpeeds(xy: Float32Array, cum: Float64Array, limit: number, aLat: number): Float32Array {
  const n = xy.length >> 1;
  const v = new Float32Array(n).fill(limit);
  for (let i = 1; i + 1 < n; i++) {
    const h0 = Math.atan2(xy[2 * i + 1] - xy[2 * i - 1], xy[2 * i] - xy[2 * i - 2]);
    const h1 = Math.atan2(xy[2 * i + 3] - xy[2 * i + 1], xy[2 * i + 2] - xy[2 * i]);
    const ds = (cum[i + 1] - cum[i - 1]) / 2;
    const kappa = ds > 1e-6 ? Math.abs(wrapAngle(h1 - h0)) / ds : 0;
    if (kappa > 1e-6) v[i] = Math.min(limit, Math.sqrt(aLat / kappa));
  }
  if (n > 2) {
    v[0] = v[1];
    v[n - 1] = v[n - 2];
  }
  return v;
}

function bezierConnector(
  x0: number,
  y0: number,
  h0: number,
  x3: number,
  y3: number,
  h3: number,
  turn: Turn,
): Float32Array {
  const chord = Math.hypot(x3 - x0, y3 - y0);
  // A quarter circle of radius r has chord r√2 and Bézier handles 0.552r ≈ 0.39·chord.
  const k = turn === 'straight' ? chord / 3 : 0.39 * chord;
  const p1x = x0 + Math.cos(h0) * k;
  const p1y = y0 + Math.sin(h0) * k;
  const p2x = x3 - Math.cos(h3) * k;
  const p2y = y3 - Math.sin(h3) * k;
  const count = Math.max(6, Math.ceil(chord * 1.3));
  const out = new Float32Array(2 * (count + 1));
  for (let i = 0; i <= count; i++) {
    const u = i / count;
    const w = 1 - u;
    out[2 * i] = w * w * w * x0 + 3 * w * w * u * p1x + 3 * w * u * u * p2x + u * u * u * x3;
    out[2 * i + 1] = w * w * w * y0 + 3 * w * w * u * p1y + 3 * w * u * u * p2y + u * u * u * y3;
  }
  return out;
}

function minPolylineDistance(a: Float32Array, b: Float32Array): number {
  let best = Infinity;
  for (let i = 0; i < a.length; i += 2) {
    for (let j = 0; j < b.length; j += 2) {
      const d = (a[i] - b[j]) ** 2 + (a[i + 1] - b[j + 1]) ** 2;
      if (d < best) best = d;
    }
  }
  return Math.sqrt(best);
}

/** Build every lane of the network with its links. */
export function buildLaneGraph(net: RoadNetwork, cfg: TownConfig): TownLane[] {
  const lanes: TownLane[] = [];
  const w = cfg.laneWidthM;
  const backoff = stopBackoffM(cfg);
  // Per road: lane ids of each direction, index 0 next to the centre line.
  const fwdLanes: number[][] = [];
  const bwdLanes: number[][] = [];
  const addLane = (l: Omit<TownLane, 'id' | 'cum' | 'lengthM' | 'vMax' | 'headings'>): number => {
    const cum = cumulativeArcLength(l.xy);
    const lane: TownLane = {
      ...l,
      id: lanes.length,
      cum,
      lengthM: cum[cum.length - 1],
      vMax: curveSpeeds(l.xy, cum, l.speedLimitMps, cfg.lateralAccelMps2),
      headings: vertexHeadings(l.xy),
    };
    lanes.push(lane);
    return lane.id;
  };
  for (const road of net.roads) {
    const f: number[] = [];
    const b: number[] = [];
    for (let k = 0; k < road.lanesPerDir; k++) {
      const off = (k + 0.5) * w;
      const yieldB = net.nodes[road.nodeB].degree >= 3;
      const yieldA = net.nodes[road.nodeA].degree >= 3;
      const fxy = offsetPolyline(road.ref, -off);
      f.push(
        addLane({
          kind: 'road',
          roadId: road.id,
          forward: true,
          index: k,
          nodeId: road.nodeB,
          turn: null,
          xy: fxy,
          widthM: w,
          speedLimitMps: road.speedLimitMps,
          successors: [],
          predecessors: [],
          left: [],
          right: [],
          stopS: 0,
          conflicts: [],
          major: false,
        }),
      );
      lanes[f[k]].stopS = yieldB ? Math.max(0, lanes[f[k]].lengthM - backoff) : lanes[f[k]].lengthM;
      const bxy = reversePolyline(offsetPolyline(road.ref, off));
      b.push(
        addLane({
          kind: 'road',
          roadId: road.id,
          forward: false,
          index: k,
          nodeId: road.nodeA,
          turn: null,
          xy: bxy,
          widthM: w,
          speedLimitMps: road.speedLimitMps,
          successors: [],
          predecessors: [],
          left: [],
          right: [],
          stopS: 0,
          conflicts: [],
          major: false,
        }),
      );
      lanes[b[k]].stopS = yieldA ? Math.max(0, lanes[b[k]].lengthM - backoff) : lanes[b[k]].lengthM;
    }
    for (const group of [f, b]) {
      for (let k = 0; k < group.length; k++) {
        if (k > 0) lanes[group[k]].left.push(group[k - 1]);
        if (k + 1 < group.length) lanes[group[k]].right.push(group[k + 1]);
      }
    }
    fwdLanes.push(f);
    bwdLanes.push(b);
  }
  // Lanes entering / leaving each junction on each arm.
  const incoming = (nodeId: number, arm: number): number[] => {
    const r = net.nodes[nodeId].arms[arm];
    if (r < 0) return [];
    return net.roads[r].nodeB === nodeId ? fwdLanes[r] : bwdLanes[r];
  };
  const outgoing = (nodeId: number, arm: number): number[] => {
    const r = net.nodes[nodeId].arms[arm];
    if (r < 0) return [];
    return net.roads[r].nodeA === nodeId ? fwdLanes[r] : bwdLanes[r];
  };
  for (const node of net.nodes) {
    const connectors: number[] = [];
    for (let i = 0; i < 4; i++) {
      const ins = incoming(node.id, i);
      if (!ins.length) continue;
      // Travelling into the junction from arm i heads along arm (i+2); turning left is counter-clockwise.
      const plan: { k: number; j: number; turn: Turn; out: number }[] = [];
      for (let j = 0; j < 4; j++) {
        if (j === i) continue;
        const outs = outgoing(node.id, j);
        if (!outs.length) continue;
        const rel = (j - ((i + 2) % 4) + 4) % 4;
        const turn: Turn = rel === 0 ? 'straight' : rel === 1 ? 'left' : 'right';
        for (let k = 0; k < ins.length; k++) {
          if (turn === 'straight') plan.push({ k, j, turn, out: outs[Math.min(k, outs.length - 1)] });
          else if (turn === 'left' && k === 0) plan.push({ k, j, turn, out: outs[0] });
          else if (turn === 'right' && k === ins.length - 1)
            plan.push({ k, j, turn, out: outs[outs.length - 1] });
        }
      }
      // A lane the rules leave without a way on (e.g. the inner lane at a corner) may take any turn.
      for (let k = 0; k < ins.length; k++) {
        if (plan.some((p) => p.k === k)) continue;
        for (let j = 0; j < 4; j++) {
          if (j === i) continue;
          const outs = outgoing(node.id, j);
          if (!outs.length) continue;
          const rel = (j - ((i + 2) % 4) + 4) % 4;
          const turn: Turn = rel === 0 ? 'straight' : rel === 1 ? 'left' : 'right';
          plan.push({ k, j, turn, out: outs[Math.min(k, outs.length - 1)] });
        }
      }
      for (const p of plan) {
        const from = lanes[ins[p.k]];
        const to = lanes[p.out];
        const n = from.xy.length >> 1;
        const e = pointAtArcLength(from.xy, from.lengthM, from.cum);
        const s = pointAtArcLength(to.xy, 0, to.cum);
        const xy = bezierConnector(
          from.xy[2 * n - 2],
          from.xy[2 * n - 1],
          e.heading,
          to.xy[0],
          to.xy[1],
          s.heading,
          p.turn,
        );
        const limit = Math.min(from.speedLimitMps, to.speedLimitMps);
        const id = addLane({
          kind: 'connector',
          roadId: -1,
          forward: true,
          index: p.k,
          nodeId: node.id,
          turn: p.turn,
          xy,
          widthM: w,
          speedLimitMps: limit,
          successors: [to.id],
          predecessors: [from.id],
          left: [],
          right: [],
          stopS: 0,
          conflicts: [],
          major: i % 2 === node.majorAxis,
        });
        lanes[id].stopS = lanes[id].lengthM;
        from.successors.push(id);
        to.predecessors.push(id);
        connectors.push(id);
      }
    }
    // Two connectors conflict when they come from different lanes and cross, merge or pass within a car width.
    for (let a = 0; a < connectors.length; a++) {
      for (let b = a + 1; b < connectors.length; b++) {
        const la = lanes[connectors[a]];
        const lb = lanes[connectors[b]];
        if (la.predecessors[0] === lb.predecessors[0]) continue;
        const sameExit = la.successors[0] === lb.successors[0];
        if (sameExit || minPolylineDistance(la.xy, lb.xy) < 2.6) {
          la.conflicts.push(lb.id);
          lb.conflicts.push(la.id);
        }
      }
    }
  }
  return lanes;
}
