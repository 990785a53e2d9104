// Merge: the lane to the ego's left ends; a slower car there merges just in front of the ego without yielding.
import { CAR, FRAME, egoCar, type LongtailKind, smoothstep } from '../kind.ts';
import { straightRoad } from '../roads.ts';
import { buildScenario, laneChain, speedProfile } from '../scenarioBuilder.ts';

export const merge: LongtailKind = {
  name: 'merge',
  summary: 'a car 1–5 m/s slower merges from an ending lane 0–10 m ahead of the ego, not yielding',
  build(rng, id) {
    const w = 3.6;
    const v = rng.uniform(12, 18);
    const slower = rng.uniform(1, 5);
    const ahead = rng.uniform(0, 10);
    const mergeAt = rng.uniform(1, 3);
    const mergeFor = 2;
    const s0 = 60;
    const vm = v - slower;
    const merger = speedProfile(vm, []);
    const x0 = s0 + ahead;
    // The ramp lane ends where the merger completes its move.
    const endM = x0 + merger(mergeAt + mergeFor).s;
    const map = straightRoad({
      lanes: 2,
      lengthM: 400,
      laneWidthM: w,
      speedLimitMps: 20,
      shoulderM: 0,
      mergeEndM: endM - 30,
    });
    const route = laneChain(map, [1]);
    const scenario = buildScenario({ id, source: 'longtail:merge', map, ...FRAME }, [
      egoCar(route, [1], s0, v),
      {
        id: 1,
        type: 'vehicle',
        ...CAR,
        pose: (t) => {
          const q = merger(t);
          const [k, dk] = smoothstep(t, mergeAt, mergeFor);
          return { x: x0 + q.s, y: w * (1 - k), yaw: Math.atan2(-w * dk, Math.max(q.v, 0.1)) };
        },
      },
    ]);
    return {
      scenario,
      route,
      s0,
      v0: v,
      params: { speed_mps: v, slower_mps: slower, ahead_m: ahead, merge_at_s: mergeAt },
    };
  },
};
