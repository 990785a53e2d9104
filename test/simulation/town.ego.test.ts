// The recording car of a town: by default the car that covered the most ground; another quantile of ground
// covered picks a car that waits more (a slow or stationary recording, like some raw KITTI drives).
import { describe, expect, it } from 'vitest';
import { pickEgo } from '../../simulation/town/traffic.ts';
import { generateTown } from '../../simulation/town/town.ts';

describe('ego pick', () => {
  it('picks cars by ground covered, never another class, the earliest on a tie', () => {
    const agentOf = Int32Array.of(0, 1, 2, 3, 4);
    const classes = ['car', 'truck', 'car', 'car', 'car'];
    const travelled = Float64Array.of(50, 500, 10, 80, 10);
    expect(pickEgo(agentOf, classes, travelled, 1)).toBe(3);
    expect(pickEgo(agentOf, classes, travelled, 0)).toBe(2);
    expect(pickEgo(agentOf, classes, travelled, 0.5)).toBe(0);
  });

  it('records a slower car at a lower quantile of the same town', () => {
    const steps = 60;
    const speed = (q: number) => {
      const town = generateTown({ seed: 3, egoTravelQuantile: q }, steps);
      const tr = town.traffic.tracks;
      const e = town.traffic.egoIndex;
      const k0 = e * steps;
      return Math.hypot(tr.x[k0 + steps - 1] - tr.x[k0], tr.y[k0 + steps - 1] - tr.y[k0]) / (steps * 0.1);
    };
    const fast = speed(1);
    const slow = speed(0);
    expect(fast).toBeGreaterThan(3);
    expect(slow).toBeLessThan(fast / 2);
  });
});
