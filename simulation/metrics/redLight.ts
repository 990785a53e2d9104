// Red-light violation (the Sim Agents 2025 traffic-light metric, simplified): a vehicle or cyclist runs
// a red light when its centre crosses the stop line of a lane whose signal is red at that step, while
// heading along that lane (within 45°), so cross traffic passing over the line does not count.
import { lanePointAt, type MapIndex } from '../map/mapIndex.ts';
import { LIGHT, type Scenario } from '../scenario.ts';
import type { Trajectories } from './trajectoryFeatures.ts';

/** Stop lines of the signalled lanes: endpoints, lane heading and the light's index. */
export interface SignalLines {
  count: number;
  ax: Float64Array;
  ay: Float64Array;
  bx: Float64Array;
  by: Float64Array;
  heading: Float64Array;
  light: Int32Array;
}

export function signalLines(s: Scenario, m: MapIndex): SignalLines {
  const rows: number[][] = [];
  const p = { x: 0, y: 0, heading: 0 };
  for (let li = 0; li < m.laneCount; li++) {
    const k = m.laneLight[li];
    if (k < 0 || Number.isNaN(m.laneStopS[li])) continue;
    lanePointAt(m, li, m.laneStopS[li], p);
    const hw = m.laneWidth[li] / 2;
    const nx = -Math.sin(p.heading) * hw;
    const ny = Math.cos(p.heading) * hw;
    rows.push([p.x - nx, p.y - ny, p.x + nx, p.y + ny, p.heading, k]);
  }
  const col = (i: number) => Float64Array.from(rows, (r) => r[i]);
  return {
    count: rows.length,
    ax: col(0),
    ay: col(1),
    bx: col(2),
    by: col(3),
    heading: col(4),
    light: Int32Array.from(rows, (r) => r[5]),
  };
}

function crosses(
  px: number,
  py: number,
  qx: number,
  qy: number,
  ax: number,
  ay: number,
  bx: number,
  by: number,
): boolean {
  const d1 = (bx - ax) * (py - ay) - (by - ay) * (px - ax);
  const d2 = (bx - ax) * (qy - ay) - (by - ay) * (qx - ax);
  if (d1 * d2 > 0 || d1 === d2) return false;
  const d3 = (qx - px) * (ay - py) - (qy - py) * (ax - px);
  const d4 = (qx - px) * (by - py) - (qy - py) * (bx - px);
  return d3 * d4 <= 0;
}

/**
 * Does a move from (px, py) to (qx, qy) ending with heading `yaw` cross the stop line of a signal that is
 * red at step t, heading along its lane (within 45°)? Shared by the metric and the RL reward.
 */
export function crossesRedLine(
  s: Scenario,
  lines: SignalLines,
  t: number,
  px: number,
  py: number,
  qx: number,
  qy: number,
  yaw: number,
): boolean {
  for (let i = 0; i < lines.count; i++) {
    if (s.map.trafficLights[lines.light[i]].states[t] !== LIGHT.red) continue;
    if (Math.cos(yaw - lines.heading[i]) < Math.SQRT1_2) continue;
    if (crosses(px, py, qx, qy, lines.ax[i], lines.ay[i], lines.bx[i], lines.by[i])) return true;
  }
  return false;
}

/** Per agent: 1 when an evaluated vehicle/cyclist runs a red light in steps [from, to). */
export function redLightAgents(
  s: Scenario,
  lines: SignalLines,
  tr: Trajectories,
  canViolate: Uint8Array,
  evaluated: Uint8Array,
  from: number,
  to: number,
): Uint8Array {
  const n = s.agents.ids.length;
  const T = s.numSteps;
  const out = new Uint8Array(n);
  if (lines.count === 0) return out;
  for (let a = 0; a < n; a++) {
    if (!evaluated[a] || !canViolate[a]) continue;
    for (let t = Math.max(from, 1); t < to && !out[a]; t++) {
      const k = a * T + t;
      if (!tr.valid[k] || !tr.valid[k - 1]) continue;
      const px = tr.x[k - 1];
      const py = tr.y[k - 1];
      const qx = tr.x[k];
      const qy = tr.y[k];
      if (crossesRedLine(s, lines, t, px, py, qx, qy, tr.yaw[k])) out[a] = 1;
    }
  }
  return out;
}
