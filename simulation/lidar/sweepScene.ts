// The moving part of one sweep: the sensor's and every agent's pose at the start, middle and end of the
// revolution (the frame's timestamp is mid-sweep), so rays fired at different times see a moving world.
import type { AgentTracks } from '../scenario.ts';
import type { TemplateId } from './agentMeshes.ts';
import { wrapAngleNearest } from '../../core/geometry/pose.ts';

export interface SweepScene {
  /** Sensor pose keyframes at τ = −T/2, 0, +T/2: (x, y, z, yaw) × 3, world frame; z is the sensor's height. */
  sensor: Float64Array;
  /** Per agent, keyframes (x, y, zBottom, yaw) × 3 — 12 numbers per agent. */
  agentKeys: Float64Array;
  /** Per agent: length, width, height. */
  agentSize: Float32Array;
  agentTemplate: Uint8Array;
  /** Paint / clothing variant (0–7) per agent. */
  agentPaint: Uint8Array;
  /** Row of each agent in the caller's agent list (reported with each hit). */
  agentRow: Int32Array;
}

export function agentCountOf(s: SweepScene): number {
  return s.agentTemplate.length;
}

/** Interpolated state of agent row `a` of the tracks at step + frac (a fraction of a step, may be ±). */
function stateAt(
  tr: AgentTracks,
  numSteps: number,
  dtS: number,
  a: number,
  step: number,
  frac: number,
): [number, number, number, number] {
  const k = a * numSteps + step;
  const nb = frac >= 0 ? step + 1 : step - 1;
  const w = Math.abs(frac);
  if (w === 0) return [tr.x[k], tr.y[k], tr.z[k], tr.yaw[k]];
  if (nb >= 0 && nb < numSteps && tr.valid[a * numSteps + nb]) {
    const kn = a * numSteps + nb;
    let dyaw = tr.yaw[kn] - tr.yaw[k];
    dyaw = wrapAngleNearest(dyaw);
    return [
      tr.x[k] + w * (tr.x[kn] - tr.x[k]),
      tr.y[k] + w * (tr.y[kn] - tr.y[k]),
      tr.z[k] + w * (tr.z[kn] - tr.z[k]),
      tr.yaw[k] + w * dyaw,
    ];
  }
  // No neighbouring step: extrapolate with the recorded velocity (m/s) over frac · dt seconds.
  return [tr.x[k] + frac * dtS * tr.vx[k], tr.y[k] + frac * dtS * tr.vy[k], tr.z[k], tr.yaw[k]];
}

export interface SceneFromTracksOptions {
  step: number;
  numSteps: number;
  dtS: number;
  /** Seconds of one revolution (the keyframes sit at ±half of it). */
  sweepPeriodS: number;
  /** Row of the sensor-carrying vehicle (excluded from the rendered agents). */
  egoRow: number;
  mountHeightM: number;
  /** Rows to render (default: every valid agent but the ego). */
  rows?: ArrayLike<number>;
  templates: ArrayLike<TemplateId>;
  paint: ArrayLike<number>;
  /** Freeze the world during the sweep. */
  motion: boolean;
}

export function sweepSceneFromTracks(tr: AgentTracks, o: SceneFromTracksOptions): SweepScene {
  const half = o.motion ? o.sweepPeriodS / 2 / o.dtS : 0;
  const fracs = [-half, 0, half];
  const sensor = new Float64Array(12);
  const egoH = tr.height[o.egoRow];
  fracs.forEach((f, j) => {
    const [x, y, z, yaw] = stateAt(tr, o.numSteps, o.dtS, o.egoRow, o.step, f);
    sensor.set([x, y, z - egoH / 2 + o.mountHeightM, yaw], 4 * j);
  });
  const rows: number[] = [];
  if (o.rows) for (let k = 0; k < o.rows.length; k++) rows.push(o.rows[k]);
  else
    for (let a = 0; a < tr.ids.length; a++)
      if (a !== o.egoRow && tr.valid[a * o.numSteps + o.step]) rows.push(a);
  const n = rows.length;
  const agentKeys = new Float64Array(12 * n);
  const agentSize = new Float32Array(3 * n);
  const agentTemplate = new Uint8Array(n);
  const agentPaint = new Uint8Array(n);
  rows.forEach((a, i) => {
    fracs.forEach((f, j) => {
      const [x, y, z, yaw] = stateAt(tr, o.numSteps, o.dtS, a, o.step, f);
      agentKeys.set([x, y, z - tr.height[a] / 2, yaw], 12 * i + 4 * j);
    });
    agentSize[3 * i] = tr.length[a];
    agentSize[3 * i + 1] = tr.width[a];
    agentSize[3 * i + 2] = tr.height[a];
    agentTemplate[i] = o.templates[a];
    agentPaint[i] = o.paint[a] & 7;
  });
  return { sensor, agentKeys, agentSize, agentTemplate, agentPaint, agentRow: Int32Array.from(rows) };
}
