// Occluded pedestrian: a pedestrian waiting behind a van parked on the shoulder walks out into the lane.
import { CAR, FRAME, egoCar, type LongtailKind, PERSON, VAN } from '../kind.ts';
import { straightRoad } from '../roads.ts';
import { buildScenario, laneChain } from '../scenarioBuilder.ts';
import { crossingPedestrian } from './jaywalker.ts';

export const occludedPedestrian: LongtailKind = {
  name: 'occluded-pedestrian',
  summary: 'a pedestrian hidden in front of a parked van steps out at 1.2–2 m/s close ahead of the ego',
  build(rng, id) {
    const w = 3.6;
    const shoulder = 2.6;
    const v = rng.uniform(7, 12);
    const walk = rng.uniform(1.2, 2);
    const startAt = rng.uniform(0.5, 2.5);
    const late = rng.uniform(0.2, 1.2);
    const map = straightRoad({
      lanes: 2,
      lengthM: 400,
      laneWidthM: w,
      speedLimitMps: 14,
      shoulderM: shoulder,
    });
    const route = laneChain(map, [1]);
    const s0 = 60;
    const yVan = -w / 2 - shoulder / 2;
    const y0 = yVan;
    const enter = startAt + (-w / 2 - PERSON.width / 2 - y0 - CAR.width / 2 + w / 2) / walk;
    const xPed = s0 + v * (enter + late) + CAR.length / 2;
    const xVan = xPed - VAN.length / 2 - PERSON.length / 2 - 0.3;
    const scenario = buildScenario({ id, source: 'longtail:occluded-pedestrian', map, ...FRAME }, [
      egoCar(route, [1], s0, v),
      { id: 1, type: 'pedestrian', ...PERSON, pose: crossingPedestrian(xPed, y0, startAt, walk) },
      { id: 2, type: 'vehicle', ...VAN, pose: () => ({ x: xVan, y: yVan, yaw: 0 }) },
    ]);
    return {
      scenario,
      route,
      s0,
      v0: v,
      params: { speed_mps: v, walk_mps: walk, start_at_s: startAt, late_s: late },
    };
  },
};
