// Hard brake: the car ahead, at a short headway, brakes harder (7–10 m/s²) than the ego can, to a stop.
import { straightRoad } from '../roads.ts';
import { buildScenario, laneChain, pathPose, speedProfile } from '../scenarioBuilder.ts';
import { CAR, FRAME, egoCar, type LongtailKind } from '../kind.ts';

export const hardBrake: LongtailKind = {
  name: 'hard-brake',
  summary: 'the lead car at 0.3–0.9 s headway brakes at 7–10 m/s² (harder than the ego can) to a stop',
  build(rng, id) {
    const v = rng.uniform(10, 20);
    const headway = rng.uniform(0.3, 0.9);
    const brakeAt = rng.uniform(0.5, 3);
    const decel = rng.uniform(7, 10);
    const map = straightRoad({ lanes: 1, lengthM: 400, laneWidthM: 3.6, speedLimitMps: 20, shoulderM: 0 });
    const route = laneChain(map, [1]);
    const s0 = 60;
    const lead0 = s0 + CAR.length + v * headway;
    const lead = speedProfile(v, [{ fromS: brakeAt, accel: -decel }]);
    const scenario = buildScenario({ id, source: 'longtail:hard-brake', map, ...FRAME }, [
      egoCar(route, [1], s0, v),
      { id: 1, type: 'vehicle', ...CAR, pose: (t) => pathPose(route, lead0 + lead(t).s) },
    ]);
    return {
      scenario,
      route,
      s0,
      v0: v,
      params: { speed_mps: v, headway_s: headway, brake_at_s: brakeAt, decel_mps2: decel },
    };
  },
};
