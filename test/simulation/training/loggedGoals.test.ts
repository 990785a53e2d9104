// withLoggedGoals: towns' agents given the goal real scenarios give every agent (the last logged position).
import { describe, expect, it } from 'vitest';
import { withLoggedGoals } from '../../../simulation/training/loggedGoals.ts';
import { straightRoadScenario } from '../fixtures.ts';

describe('logged goals', () => {
  it('gives a share of the agents without a goal their last valid logged position, the same agents every time', () => {
    const s = straightRoadScenario({ numAgents: 40, numSteps: 21 });
    const T = s.numSteps;
    // Agent 3's log ends early: its goal is where it was last seen.
    s.agents.valid.fill(0, 3 * T + 15, 4 * T);
    const none = withLoggedGoals(s, 0);
    expect(Array.from(none.goalX)).toEqual(Array.from(s.goalX));
    const all = withLoggedGoals(s, 1);
    // The ego keeps its own goal; every other agent gets its last logged position.
    expect(all.goalX[0]).toBe(s.goalX[0]);
    for (let a = 1; a < 40; a++) {
      const last = a === 3 ? 14 : T - 1;
      expect(all.goalX[a]).toBe(s.agents.x[a * T + last]);
      expect(all.goalY[a]).toBe(s.agents.y[a * T + last]);
    }
    const half = withLoggedGoals(s, 0.5, 7);
    const given = Array.from(half.goalX).filter(Number.isFinite).length - 1;
    expect(given).toBeGreaterThan(8);
    expect(given).toBeLessThan(31);
    expect(Array.from(withLoggedGoals(s, 0.5, 7).goalX)).toEqual(Array.from(half.goalX));
    expect(Array.from(withLoggedGoals(s, 0.5, 8).goalX)).not.toEqual(Array.from(half.goalX));
    // The scenario itself is untouched.
    expect(Number.isFinite(s.goalX[1])).toBe(false);
    expect(() => withLoggedGoals(s, 1.5)).toThrow(/share/);
  });
});
