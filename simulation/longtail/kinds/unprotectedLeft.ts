// Unprotected left turn: the ego turns left on a green ball while an oncoming car comes straight through.
import { CAR, FRAME, type LongtailKind } from '../kind.ts';
import { buildScenario, pathPose, speedProfile } from '../scenarioBuilder.ts';
import { conflict, signalledIntersection, turn } from './intersectionFrame.ts';

export const unprotectedLeft: LongtailKind = {
  name: 'unprotected-left',
  summary:
    'the ego turns left at 5–8 m/s; an oncoming car at 9–14 m/s reaches the crossing point within −0.8…+0.5 s',
  build(rng, id) {
    const v = rng.uniform(5, 8);
    const vo = rng.uniform(9, 14);
    const dist = rng.uniform(20, 35);
    const offset = rng.uniform(-0.8, 0.5);
    const x = signalledIntersection(14);
    const ego = turn(x, 'south', 'west');
    const oncoming = turn(x, 'north', 'south');
    const c = conflict(ego.path, oncoming.path);
    const s0 = c.sa - dist;
    const tMeet = dist / v + offset;
    const o0 = c.sb - vo * tMeet;
    const ep = speedProfile(v, []);
    const op = speedProfile(vo, []);
    const scenario = buildScenario({ id, source: 'longtail:unprotected-left', map: x.map, ...FRAME }, [
      {
        id: 0,
        type: 'vehicle',
        ...CAR,
        controlled: true,
        ego: true,
        route: ego.lanes,
        pose: (t) => pathPose(ego.path, s0 + ep(t).s),
      },
      { id: 1, type: 'vehicle', ...CAR, pose: (t) => pathPose(oncoming.path, o0 + op(t).s) },
    ]);
    return {
      scenario,
      route: ego.path,
      s0,
      v0: v,
      params: { speed_mps: v, oncoming_mps: vo, distance_m: dist, offset_s: offset },
    };
  },
};
