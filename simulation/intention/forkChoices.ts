// The turn choices of logged agents at lane forks (the training data of the junction-intention head): each
// vehicle or cyclist track is map-matched to lanes, and a fork it drove through yields the branch it took.
import { drivenLanes } from '../map/drivenLanes.ts';
import { mapIndex } from '../map/mapIndex.ts';
import type { Scenario } from '../scenario.ts';

export interface ForkChoiceConfig {
  /** A logged position farther than this from every lane is not matched, metres. */
  laneSnapM: number;
  /** The agent must have driven this far into the branch (or to its end) for the choice to count, metres. */
  minIntoBranchM: number;
}

export const DEFAULT_FORK_CHOICE: ForkChoiceConfig = { laneSnapM: 3, minIntoBranchM: 8 };

/** One logged choice: agent `row` left lane `fork` (map index) by `branches[chosen]`. */
export interface ForkChoice {
  row: number;
  fork: number;
  branches: Int32Array;
  chosen: number;
}

/**
 * Every fork (a lane with ≥ 2 successors) a vehicle or cyclist of `s` drove through, with the branch it took
 * (map/drivenLanes.ts), counted only when the track went `minIntoBranchM` along it (or to its end) — a track
 * that ends where the branches still overlap says nothing.
 */
export function forkChoices(s: Scenario, cfg: ForkChoiceConfig = DEFAULT_FORK_CHOICE): ForkChoice[] {
  const m = mapIndex(s.map);
  const out: ForkChoice[] = [];
  for (let row = 0; row < s.agents.ids.length; row++) {
    const type = s.agents.types[row];
    if (type !== 'vehicle' && type !== 'cyclist') continue;
    const seq = drivenLanes(m, s, row, cfg.laneSnapM);
    for (let i = 0; i + 1 < seq.length; i++) {
      const branches = m.successors[seq[i].lane];
      const took = seq[i + 1];
      const chosen = branches.indexOf(took.lane);
      if (branches.length < 2 || chosen < 0) continue;
      if (took.maxS < Math.min(cfg.minIntoBranchM, m.laneLength[took.lane] - 0.5)) continue;
      out.push({ row, fork: seq[i].lane, branches, chosen });
    }
  }
  return out;
}
