// Narrow streets (`synth --streets narrow`): one lane each way between parked cars and building fronts, so the
// traffic drives close beside parked cars far more often than on the default town's wide roads.
import { describe, expect, it } from 'vitest';
import { generateTown } from '../../simulation/town/town.ts';
import { NARROW_STREETS, type TownConfig } from '../../simulation/town/townConfig.ts';

/** Share of moving vehicle-steps with a parked car's centre within 3.5 m. */
function besideParked(over: Partial<TownConfig>, steps: number): { share: number; leaked: number } {
  const town = generateTown({ seed: 3, ...over }, steps);
  const tr = town.traffic.tracks;
  const roles = town.traffic.roles;
  const parked = roles.flatMap((r, a) => (r === 'parked' ? [a] : []));
  let near = 0;
  let total = 0;
  roles.forEach((role, a) => {
    if (role !== 'vehicle' && role !== 'ego') return;
    for (let s = 0; s < steps; s++) {
      const k = a * steps + s;
      if (!tr.valid[k]) continue;
      total++;
      if (parked.some((p) => Math.hypot(tr.x[p * steps] - tr.x[k], tr.y[p * steps] - tr.y[k]) < 3.5)) near++;
    }
  });
  return { share: near / total, leaked: town.traffic.leakedReservations };
}

describe('narrow streets', () => {
  it('puts the traffic beside parked cars several times as often as the default town', () => {
    const wide = besideParked({}, 40);
    const narrow = besideParked(NARROW_STREETS, 40);
    expect(narrow.leaked).toBe(0);
    expect(narrow.share).toBeGreaterThan(0.08);
    expect(narrow.share).toBeGreaterThan(2 * wide.share);
  });
});
