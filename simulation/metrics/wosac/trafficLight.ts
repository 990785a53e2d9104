// Red-light violations of the Sim Agents metric (traffic_light_features.py): an agent whose nearest
// lane carries a light in the stop state, and that crosses the light's stop point along that lane.
import { LIGHT, type RoadMap, SIGNAL_STATE_NAMES, type TrafficLight } from '../../scenario.ts';
import { SegmentGrid } from './segmentGrid.ts';

export interface LightIndex {
  /** Lane segments: start, vector, owning lane (index into map.lanes). */
  sx: Float64Array;
  sy: Float64Array;
  dx: Float64Array;
  dy: Float64Array;
  lane: Int32Array;
  grid: SegmentGrid;
  /**
   * Per light whose lane exists (and is matched): its lane index, whether it is in the stop state at
   * each step, and the "fence" segment across which crossing counts.
   */
  lights: {
    laneIndex: number;
    stop: Uint8Array;
    fx: number;
    fy: number;
    fdx: number;
    fdy: number;
    /** Projection parameter of the stop point along the fence segment. */
    stopT: number;
  }[];
  official: boolean;
}

const GRID_CELL_M = 10;
const FINE_CELL_M = 2;

/**
 * The official point-to-segment measure used for lane matching adds the clipped projection instead
 * of subtracting it: |p − s + t·d|. `official` false gives the true distance |p − s − t·d|.
 */
function laneSegmentDistance(ax: number, ay: number, dx: number, dy: number, official: boolean): number {
  const len2 = dx * dx + dy * dy;
  const t = len2 > 0 ? (ax * dx + ay * dy) / len2 : 0;
  const c = (t < 0 ? 0 : t > 1 ? 1 : t) * (official ? -1 : 1);
  const ex = ax - dx * c;
  const ey = ay - dy * c;
  return Math.sqrt(ex * ex + ey * ey);
}

const STOP_STATES = new Set(['stop', 'arrow_stop'].map((n) => SIGNAL_STATE_NAMES.indexOf(n as never)));

/**
 * Whether a light is in the stop state at each step. From the source's own states where the scenario
 * has them, as the official code: STOP and ARROW_STOP only — a flashing red is a stop sign, not a red
 * light; otherwise from the simplified LIGHT.red.
 */
export function stopSteps(light: TrafficLight): Uint8Array {
  const src = light.signalStates;
  if (src) return Uint8Array.from(src, (v) => (STOP_STATES.has(v) ? 1 : 0));
  return Uint8Array.from(light.states, (v) => (v === LIGHT.red ? 1 : 0));
}

/**
 * Lanes agents are matched to. The official code keeps surface-street lanes only (freeway and bike
 * lanes, and lanes of undefined type, never match); a map whose lanes carry no type at all (the
 * synthetic town) keeps every lane.
 */
export function matchedLanes(map: RoadMap): boolean[] {
  const typed = map.lanes.some((l) => l.laneType !== undefined);
  return map.lanes.map((l) => !typed || l.laneType === 'surface_street');
}

export function buildLightIndex(map: RoadMap, official: boolean): LightIndex {
  const keep = matchedLanes(map);
  let nSeg = 0;
  map.lanes.forEach((l, li) => {
    if (keep[li]) nSeg += Math.max(0, l.xy.length / 2 - 1);
  });
  const sx = new Float64Array(nSeg);
  const sy = new Float64Array(nSeg);
  const dx = new Float64Array(nSeg);
  const dy = new Float64Array(nSeg);
  const lane = new Int32Array(nSeg);
  let g = 0;
  map.lanes.forEach((l, li) => {
    if (!keep[li]) return;
    for (let k = 0; k + 1 < l.xy.length / 2; k++, g++) {
      sx[g] = l.xy[2 * k];
      sy[g] = l.xy[2 * k + 1];
      dx[g] = l.xy[2 * k + 2] - sx[g];
      dy[g] = l.xy[2 * k + 3] - sy[g];
      lane[g] = li;
    }
  });
  // Lights on lanes that are not matched never count (the official lane id lookup finds none).
  const laneIndexById = new Map(map.lanes.flatMap((l, i) => (keep[i] ? [[l.id, i] as const] : [])));
  const lights: LightIndex['lights'] = [];
  for (const light of map.trafficLights) {
    const li = laneIndexById.get(light.laneId);
    if (li === undefined) continue; // a light on a lane the map does not have never counts
    const xy = map.lanes[li].xy;
    if (xy.length < 4) continue;
    // The fence: the lane segment nearest the stop point (same measure as lane matching).
    let best = Infinity;
    let k = 0;
    for (let j = 0; j + 1 < xy.length / 2; j++) {
      const d = laneSegmentDistance(
        light.stopX - xy[2 * j],
        light.stopY - xy[2 * j + 1],
        xy[2 * j + 2] - xy[2 * j],
        xy[2 * j + 3] - xy[2 * j + 1],
        official,
      );
      if (d < best) {
        best = d;
        k = j;
      }
    }
    const fx = xy[2 * k];
    const fy = xy[2 * k + 1];
    const fdx = xy[2 * k + 2] - fx;
    const fdy = xy[2 * k + 3] - fy;
    const len2 = fdx * fdx + fdy * fdy;
    const stopT = len2 > 0 ? ((light.stopX - fx) * fdx + (light.stopY - fy) * fdy) / len2 : 0;
    lights.push({
      laneIndex: li,
      stop: stopSteps(light),
      fx,
      fy,
      fdx,
      fdy,
      stopT,
    });
  }
  // The official measure is the distance to the segment mirrored about its start.
  const grid = new SegmentGrid(sx, sy, dx, dy, official, GRID_CELL_M, FINE_CELL_M);
  return { sx, sy, dx, dy, lane, grid, lights, official };
}

const cache = new WeakMap<RoadMap, LightIndex[]>();

export function lightIndexOf(map: RoadMap, official: boolean): LightIndex {
  let pair = cache.get(map);
  if (!pair) {
    pair = [];
    cache.set(map, pair);
  }
  const k = official ? 1 : 0;
  return (pair[k] ??= buildLightIndex(map, official));
}

/** Index (into map.lanes) of the lane nearest (px, py) by the lane-matching measure; −1 without lanes. */
export function nearestLane(ix: LightIndex, px: number, py: number): number {
  if (ix.sx.length === 0) return -1;
  const g = ix.grid.nearest(px, py);
  return g < 0 ? -1 : ix.lane[g];
}

/**
 * Whether an agent moving from (x0, y0) at step k−1 to (x1, y1) at step k runs a red light at step
 * k: some light in the stop state at k whose stop point it crosses (behind before, ahead after,
 * along the fence segment) while its nearest lane at k is the light's lane.
 */
export function runsRedLight(
  ix: LightIndex,
  k: number,
  x0: number,
  y0: number,
  x1: number,
  y1: number,
): boolean {
  let lane = -2; // computed on the first crossing only
  for (const l of ix.lights) {
    if (!l.stop[k]) continue;
    const len2 = l.fdx * l.fdx + l.fdy * l.fdy;
    if (!(len2 > 0)) continue;
    const t0 = ((x0 - l.fx) * l.fdx + (y0 - l.fy) * l.fdy) / len2;
    const t1 = ((x1 - l.fx) * l.fdx + (y1 - l.fy) * l.fdy) / len2;
    if (!(t0 < l.stopT && t1 > l.stopT)) continue;
    if (lane === -2) lane = nearestLane(ix, x1, y1);
    if (lane === l.laneIndex) return true;
  }
  return false;
}

/**
 * runsRedLight for the agents at rows `rows[e]` of trajectories stored at row·numSteps + step,
 * moving from step k−1 to k, written to out[o0 + e·stride] (0 where `vehicle[e]` or the agent's
 * validity at k is 0): the lights in the stop state at k are listed once per step, and an agent far
 * from a stop point along its fence skips the divisions (a margin far above rounding keeps it exact).
 */
export function redLightViolations(
  ix: LightIndex,
  k: number,
  x: Float64Array,
  y: Float64Array,
  numSteps: number,
  rows: Int32Array,
  vehicle: Uint8Array,
  valid: Uint8Array,
  out: Uint8Array,
  o0: number,
  stride: number,
): void {
  const lights = ix.lights;
  if (redScratch.length < lights.length) redScratch = new Int32Array(lights.length);
  let reds = 0;
  for (let q = 0; q < lights.length; q++) {
    const l = lights[q];
    const len2 = l.fdx * l.fdx + l.fdy * l.fdy;
    if (l.stop[k] && len2 > 0) redScratch[reds++] = q;
  }
  for (let e = 0; e < rows.length; e++) {
    const o = o0 + e * stride;
    const j = rows[e] * numSteps + k;
    out[o] = 0;
    if (reds === 0 || !vehicle[e] || !valid[j]) continue;
    const x0 = x[j - 1];
    const y0 = y[j - 1];
    const x1 = x[j];
    const y1 = y[j];
    let lane = -2; // computed on the first crossing only
    for (let r = 0; r < reds; r++) {
      const l = lights[redScratch[r]];
      const len2 = l.fdx * l.fdx + l.fdy * l.fdy;
      const n0 = (x0 - l.fx) * l.fdx + (y0 - l.fy) * l.fdy;
      const n1 = (x1 - l.fx) * l.fdx + (y1 - l.fy) * l.fdy;
      // t = n / len2 is monotonic in n: clearly before the stop point after the move, or clearly
      // past it before, cannot cross.
      const stopN = l.stopT * len2;
      const margin = 1e-9 * (Math.abs(stopN) + 1);
      if (n1 < stopN - margin || n0 > stopN + margin) continue;
      if (!(n0 / len2 < l.stopT && n1 / len2 > l.stopT)) continue;
      if (lane === -2) lane = nearestLane(ix, x1, y1);
      if (lane === l.laneIndex) {
        out[o] = 1;
        break;
      }
    }
  }
}

let redScratch = new Int32Array(16);
