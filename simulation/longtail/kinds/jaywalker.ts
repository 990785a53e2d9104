// Jaywalker: a pedestrian steps off the kerb mid-block and crosses in front of the ego.
import { FRAME, egoCar, type LongtailKind, PERSON, CAR } from '../kind.ts';
import { straightRoad } from '../roads.ts';
import { buildScenario, laneChain } from '../scenarioBuilder.ts';

/** A pedestrian standing at (x, y0) until `startS`, then walking +y at `speed`. */
export function crossingPedestrian(x: number, y0: number, startS: number, speed: number) {
  return (t: number) => ({ x, y: y0 + speed * Math.max(0, t - startS), yaw: Math.PI / 2 });
}

export const jaywalker: LongtailKind = {
  name: 'jaywalker',
  summary: 'a pedestrian crosses mid-block at 1.2–2.2 m/s, reaching the lane just before the ego',
  build(rng, id) {
    const w = 3.6;
    const v = rng.uniform(8, 14);
    const walk = rng.uniform(1.2, 2.2);
    const startAt = rng.uniform(0, 2);
    const late = rng.uniform(0.3, 1.5);
    const map = straightRoad({ lanes: 2, lengthM: 400, laneWidthM: w, speedLimitMps: 15, shoulderM: 0 });
    const route = laneChain(map, [1]);
    const s0 = 60;
    const y0 = -w / 2 - 1.5;
    // When the pedestrian's front reaches the lane edge, and where the ego is `late` s after that.
    const enter = startAt + (-w / 2 - PERSON.width / 2 - y0 - CAR.width / 2 + w / 2) / walk;
    const xPed = s0 + v * (enter + late) + CAR.length / 2;
    const scenario = buildScenario({ id, source: 'longtail:jaywalker', map, ...FRAME }, [
      egoCar(route, [1], s0, v),
      { id: 1, type: 'pedestrian', ...PERSON, pose: crossingPedestrian(xPed, y0, startAt, walk) },
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
