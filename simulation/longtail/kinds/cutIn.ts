// Cut-in: a car in the next lane, slightly ahead, swerves into the ego's lane with a small gap and brakes.
import { CAR, FRAME, egoCar, type LongtailKind, smoothstep } from '../kind.ts';
import { straightRoad } from '../roads.ts';
import { buildScenario, laneChain, speedProfile } from '../scenarioBuilder.ts';

export const cutIn: LongtailKind = {
  name: 'cut-in',
  summary: 'a car 2–12 m ahead in the next lane cuts in over 1.2–2.5 s, then brakes at 2–5 m/s²',
  build(rng, id) {
    const w = 3.6;
    const v = rng.uniform(10, 18);
    const ahead = rng.uniform(2, 12);
    const slower = rng.uniform(0, 3);
    const cutAt = rng.uniform(0.5, 2.5);
    const cutFor = rng.uniform(1.2, 2.5);
    const decel = rng.uniform(2, 5);
    const map = straightRoad({ lanes: 2, lengthM: 400, laneWidthM: w, speedLimitMps: 20, shoulderM: 0 });
    const route = laneChain(map, [1]);
    const s0 = 60;
    const va = v - slower;
    const adv = speedProfile(va, [
      { fromS: cutAt + cutFor, accel: -decel },
      { fromS: cutAt + cutFor + 2, accel: 0 },
    ]);
    const scenario = buildScenario({ id, source: 'longtail:cut-in', map, ...FRAME }, [
      egoCar(route, [1], s0, v),
      {
        id: 1,
        type: 'vehicle',
        ...CAR,
        pose: (t) => {
          const q = adv(t);
          const [k, dk] = smoothstep(t, cutAt, cutFor);
          return { x: s0 + ahead + q.s, y: w * (1 - k), yaw: Math.atan2(-w * dk, Math.max(q.v, 0.1)) };
        },
      },
    ]);
    return {
      scenario,
      route,
      s0,
      v0: v,
      params: {
        speed_mps: v,
        ahead_m: ahead,
        slower_mps: slower,
        cut_at_s: cutAt,
        cut_for_s: cutFor,
        decel_mps2: decel,
      },
    };
  },
};
