// The lanes a logged track drove, in order: each valid pose matched to its nearest lane (heading-aware), the
// flicker between the overlapping branches of a fork collapsed to the branch the track went on along.
import type { Scenario } from '../scenario.ts';
import { type LaneHit, type MapIndex, nearestLane } from './mapIndex.ts';

/** One lane of a driven sequence: its index and the farthest arc length reached on it. */
export interface DrivenLane {
  lane: number;
  maxS: number;
}

/**
 * The driven lanes of agent `row` (lane indices of m). Where branches of a fork overlap, the matcher may
 * alternate between them: a run of lanes that are all successors of the lane before keeps only its last,
 * the one the track stayed on.
 */
export function drivenLanes(m: MapIndex, s: Scenario, row: number, laneSnapM: number): DrivenLane[] {
  const a = s.agents;
  const T = s.numSteps;
  const hit: LaneHit = { lane: -1, s: 0, lateral: 0, heading: 0, segment: 0 };
  const seq: DrivenLane[] = [];
  for (let t = 0; t < T; t++) {
    const k = row * T + t;
    if (!a.valid[k] || !nearestLane(m, a.x[k], a.y[k], a.yaw[k], hit, laneSnapM)) continue;
    const last = seq[seq.length - 1];
    if (last && last.lane === hit.lane) last.maxS = Math.max(last.maxS, hit.s);
    else seq.push({ lane: hit.lane, maxS: hit.s });
  }
  const out: DrivenLane[] = [];
  for (let i = 0; i < seq.length;) {
    out.push(seq[i]);
    const branches = m.successors[seq[i].lane];
    let j = i + 1;
    if (branches.length > 1) while (j < seq.length && branches.includes(seq[j].lane)) j++;
    if (j > i + 1) out.push(seq[j - 1]);
    i = j > i + 1 ? j : i + 1;
  }
  return out;
}
