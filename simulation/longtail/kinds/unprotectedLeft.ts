// Unprotected left turn: the ego turns left on a green ball while an oncoming car comes straight through.
import type { LongtailKind } from '../kind.ts';
import { crossingPairDraft } from './intersectionFrame.ts';

export const unprotectedLeft: LongtailKind = {
  name: 'unprotected-left',
  summary:
    'the ego turns left at 5–8 m/s; an oncoming car at 9–14 m/s reaches the crossing point within −0.8…+0.5 s',
  build(rng, id) {
    const v = rng.uniform(5, 8);
    const vo = rng.uniform(9, 14);
    const dist = rng.uniform(20, 35);
    const offset = rng.uniform(-0.8, 0.5);
    const draft = crossingPairDraft(id, {
      kind: 'unprotected-left',
      ego: { from: 'south', to: 'west', speedMps: v },
      other: { from: 'north', to: 'south', speedMps: vo },
      speedLimitMps: 14,
      distanceM: dist,
      offsetS: offset,
    });
    return { ...draft, params: { speed_mps: v, oncoming_mps: vo, distance_m: dist, offset_s: offset } };
  },
};
