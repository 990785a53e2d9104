// Inferred lane links: on maps whose source has links (towns, Argoverse 2) the inference finds exactly
// those links; a map without links gets them in its index, flagged; real nuScenes maps get junction forks.
import { describe, expect, it } from 'vitest';
import { realData } from '../../../core/paths.ts';
import { inferLaneSuccessors } from '../../../simulation/map/inferLaneLinks.ts';
import { buildMapIndex } from '../../../simulation/map/mapIndex.ts';
import type { RoadMap } from '../../../simulation/scenario.ts';
import { loadScenarios } from '../../../simulation/scenarioSources.ts';
import { generateTown } from '../../../simulation/town/town.ts';
import { itWithSharedData } from '../../sharedData.ts';

/** Links as "i>j" strings, by lane index. */
function sourceLinks(map: RoadMap): Set<string> {
  const index = new Map(map.lanes.map((l, i) => [l.id, i]));
  return new Set(map.lanes.flatMap((l, i) => l.successors.map((id) => `${i}>${index.get(id)}`)));
}

function inferredLinks(map: RoadMap): Set<string> {
  const succ = inferLaneSuccessors(map.lanes.map((l) => Float64Array.from(l.xy)));
  return new Set(succ.flatMap((js, i) => Array.from(js, (j) => `${i}>${j}`)));
}

describe('inferLaneSuccessors', () => {
  it("finds a town's lane graph exactly, forks included", () => {
    const map = generateTown({ seed: 3 }, 11).scenario.map;
    const truth = sourceLinks(map);
    expect(truth.size).toBeGreaterThan(50);
    expect(inferredLinks(map)).toEqual(truth);
  });

  it('links only a lane that starts at the end heading on: not a parallel lane, not a reversed one', () => {
    const lane = (id: number, xy: number[]) => ({
      id,
      xy: Float32Array.from(xy),
      widthM: 3.5,
      speedLimitMps: 10,
      successors: [],
      predecessors: [],
      leftNeighbors: [],
      rightNeighbors: [],
      inIntersection: false,
    });
    const lanes = [
      lane(1, [0, 0, 10, 0]),
      lane(2, [10, 0, 20, 0]), // straight on
      lane(3, [10, 0, 17, 7]), // a 45° turn
      lane(4, [10, 0, 0, 0]), // back the way it came
      lane(5, [10, 3.5, 20, 3.5]), // the next lane over
      lane(6, [10.3, 0.2, 20, 2]), // a 0.36 m joint
    ];
    const succ = inferLaneSuccessors(lanes.map((l) => Float64Array.from(l.xy)));
    expect(Array.from(succ[0])).toEqual([1, 2, 5]);
    const map: RoadMap = { ...generateTown({ seed: 1 }, 2).scenario.map, lanes, trafficLights: [] };
    const idx = buildMapIndex(map);
    expect(idx.successorsInferred).toBe(true);
    expect(Array.from(idx.successors[0])).toEqual([1, 2, 5]);
    expect(buildMapIndex(generateTown({ seed: 1 }, 2).scenario.map).successorsInferred).toBe(false);
  });

  itWithSharedData('gives a nuScenes map (no links in its source) forks at its junctions', () => {
    const s = loadScenarios(
      realData('motion', 'scenarionet', 'nuscenes_0', 'sd_nuscenes_v1.0-mini_scene-0061.pkl'),
    )[0].scenario;
    expect(s.map.lanes.every((l) => l.successors.length === 0)).toBe(true);
    const idx = buildMapIndex(s.map);
    expect(idx.successorsInferred).toBe(true);
    const linked = idx.successors.filter((x) => x.length > 0).length;
    const forks = idx.successors.filter((x) => x.length > 1).length;
    expect(linked / idx.laneCount).toBeGreaterThan(0.8);
    expect(forks).toBeGreaterThan(10);
  });
});
