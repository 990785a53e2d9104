// The town's overlap query skips far boxes by a bound before the exact rectangle test; it must answer as
// the exact test against every box would, including boxes placed right at the bound.
import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { type Rect2, rectsOverlap } from '../../simulation/town/obb.ts';
import { addAgent, allocateAgents, overlapsAny, rectOf } from '../../simulation/town/traffic/trafficState.ts';

function bruteForce(a: ReturnType<typeof allocateAgents>, i: number, r: Rect2, margin: number): boolean {
  for (let j = 0; j < a.count; j++) if (j !== i && rectsOverlap(r, rectOf(a, j), margin)) return true;
  return false;
}

describe('overlapsAny', () => {
  it('answers as the exact test against every box, near the bound too', () => {
    const rng = new Rng(7);
    const a = allocateAgents(60);
    // A truck among small boxes: the bound is the truck's, far larger than most pairs need.
    addAgent(a, 'truck', 'vehicle', { length: 10.1, width: 2.6, height: 3.3 }, 0, 0, 0, 0.3);
    for (let k = 1; k < 60; k++) {
      const size = { length: rng.uniform(0.5, 5), width: rng.uniform(0.5, 2), height: 1.5 };
      addAgent(a, 'car', 'vehicle', size, 0, rng.uniform(-40, 40), rng.uniform(-40, 40), rng.uniform(-3, 3));
    }
    expect(a.maxHalfDiagonalM).toBeCloseTo(Math.hypot(10.1, 2.6) / 2, 12);
    let hits = 0;
    let misses = 0;
    for (let q = 0; q < 4000; q++) {
      const margin = q % 3 === 0 ? 0 : 0.3;
      const i = q % 2 === 0 ? rng.int(0, a.count) : a.count;
      // Half the queries sit just around touching distance of some box, where the bound decides.
      const near = rng.int(0, a.count);
      const at = q % 2 === 0 && i !== near ? near : rng.int(0, a.count);
      const dist = rng.uniform(0, 14);
      const angle = rng.uniform(-Math.PI, Math.PI);
      const r: Rect2 = {
        x: a.x[at] + dist * Math.cos(angle),
        y: a.y[at] + dist * Math.sin(angle),
        yaw: rng.uniform(-3, 3),
        length: rng.uniform(0.5, 5),
        width: rng.uniform(0.5, 2),
      };
      const want = bruteForce(a, i, r, margin);
      expect(overlapsAny(a, i, r, margin)).toBe(want);
      if (want) hits++;
      else misses++;
    }
    // Both answers occur, so the comparison means something.
    expect(hits).toBeGreaterThan(400);
    expect(misses).toBeGreaterThan(400);
  });
});
