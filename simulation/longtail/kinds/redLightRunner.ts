// Red-light runner: the ego crosses on green; a car from the left runs its red light into the junction.
import { CAR, FRAME, type LongtailKind } from '../kind.ts';
import { buildScenario, pathPose, speedProfile } from '../scenarioBuilder.ts';
import { conflict, signalledIntersection, turn } from './intersectionFrame.ts';

export const redLightRunner: LongtailKind = {
  name: 'red-light-runner',
  summary:
    'a car from the left runs its red at 10–16 m/s, reaching the crossing point within ±0.6 s of the ego',
  build(rng, id) {
    const v = rng.uniform(9, 14);
    const vr = rng.uniform(10, 16);
    const dist = rng.uniform(25, 45);
    const offset = rng.uniform(-0.6, 0.6);
    const x = signalledIntersection(14);
    const ego = turn(x, 'south', 'north');
    const runner = turn(x, 'west', 'east');
    const c = conflict(ego.path, runner.path);
    const s0 = c.sa - dist;
    const tMeet = dist / v + offset;
    const r0 = c.sb - vr * tMeet;
    const ep = speedProfile(v, []);
    const rp = speedProfile(vr, []);
    const scenario = buildScenario({ id, source: 'longtail:red-light-runner', map: x.map, ...FRAME }, [
      {
        id: 0,
        type: 'vehicle',
        ...CAR,
        controlled: true,
        ego: true,
        route: ego.lanes,
        pose: (t) => pathPose(ego.path, s0 + ep(t).s),
      },
      { id: 1, type: 'vehicle', ...CAR, pose: (t) => pathPose(runner.path, r0 + rp(t).s) },
    ]);
    return {
      scenario,
      route: ego.path,
      s0,
      v0: v,
      params: { speed_mps: v, runner_mps: vr, distance_m: dist, offset_s: offset },
    };
  },
};
