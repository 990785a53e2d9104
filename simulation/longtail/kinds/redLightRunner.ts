// Red-light runner: the ego crosses on green; a car from the left runs its red light into the junction.
import type { LongtailKind } from '../kind.ts';
import { crossingPairDraft } from './intersectionFrame.ts';

export const redLightRunner: LongtailKind = {
  name: 'red-light-runner',
  summary:
    'a car from the left runs its red at 10–16 m/s, reaching the crossing point within ±0.6 s of the ego',
  build(rng, id) {
    const v = rng.uniform(9, 14);
    const vr = rng.uniform(10, 16);
    const dist = rng.uniform(25, 45);
    const offset = rng.uniform(-0.6, 0.6);
    const draft = crossingPairDraft(id, {
      kind: 'red-light-runner',
      ego: { from: 'south', to: 'north', speedMps: v },
      other: { from: 'west', to: 'east', speedMps: vr },
      speedLimitMps: 14,
      distanceM: dist,
      offsetS: offset,
    });
    return { ...draft, params: { speed_mps: v, runner_mps: vr, distance_m: dist, offset_s: offset } };
  },
};
