// The long-tail generator: the seven kinds of the issue, each making scenarios that are hard (a
// constant-speed ego collides) yet solvable (the oracle's plan does not).
import { describe, expect, it } from 'vitest';
import { AGENTS } from '../../simulation/agents/registry.ts';
import { generateLongtail, LONGTAIL_KINDS } from '../../simulation/longtail/generate.ts';
import { rolloutScenarios } from '../../simulation/rollout.ts';
import { validateScenario } from '../../simulation/validateScenario.ts';

describe('long-tail generator', () => {
  it('has the seven kinds of the issue', () => {
    expect(Object.keys(LONGTAIL_KINDS).sort()).toEqual(
      [
        'cut-in',
        'hard-brake',
        'jaywalker',
        'merge',
        'occluded-pedestrian',
        'red-light-runner',
        'unprotected-left',
      ].sort(),
    );
  });

  for (const kind of Object.keys(LONGTAIL_KINDS)) {
    it(`makes ${kind} scenarios that are hard (constant speed collides) yet solvable (the oracle's plan does not)`, () => {
      const set = generateLongtail(kind, 2, 5);
      expect(set.length).toBe(2);
      const scenarios = set.map((x) => x.scenario);
      for (const s of scenarios) validateScenario(s, kind);
      // The ego's log is the oracle's plan: replaying it never collides, and brakes within the limit.
      const replay = rolloutScenarios(scenarios, AGENTS.replay);
      for (const r of replay) expect(r.metrics.collision_rate).toBe(0);
      for (const x of set) expect(x.oracleBrakeMps2).toBeLessThanOrEqual(6);
      // Constant velocity (driving on without reacting) collides in every straight-road kind.
      if (kind !== 'unprotected-left') {
        const cv = rolloutScenarios(scenarios, AGENTS.cv);
        expect(cv.reduce((a, r) => a + r.metrics.collision_rate, 0)).toBeGreaterThan(0);
      }
      // Same seed → same scenarios.
      const again = generateLongtail(kind, 2, 5);
      expect(Array.from(again[1].scenario.agents.x)).toEqual(Array.from(set[1].scenario.agents.x));
    });
  }
});
