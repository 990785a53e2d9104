// The logged contacts of walkers: the first step their rounded boxes overlap, the partner and how fast they
// closed in; none for a walker that keeps its distance.
import { describe, expect, it } from 'vitest';
import type { Scenario } from '../../../simulation/scenario.ts';
import { loggedContact } from '../../../tools/report/walkerContacts.ts';
import { straightRoadScenario } from '../../simulation/fixtures.ts';

function walk(s: Scenario, r: number, x: number, y: number, vx: number): void {
  const T = s.numSteps;
  s.agents.types[r] = 'pedestrian';
  s.agents.length[r] = s.agents.width[r] = 0.6;
  for (let t = 0; t < T; t++) {
    const k = r * T + t;
    s.agents.x[k] = x + vx * s.dtS * t;
    s.agents.y[k] = y;
    s.agents.vx[k] = vx;
    s.agents.vy[k] = 0;
    s.agents.yaw[k] = 0;
    s.agents.valid[k] = 1;
  }
}

describe('walker contacts', () => {
  it('finds the first logged contact, its partner and closing speed', () => {
    const s = straightRoadScenario({ numAgents: 4, numSteps: 41 });
    walk(s, 1, 100, 8, 1.5); // catches up with walker 2, 2 m ahead, at 0.5 m/s
    walk(s, 2, 102, 8, 1);
    walk(s, 3, 100, 20, 1); // alone, 12 m away
    const c = loggedContact(s, 1)!;
    expect(s.agents.types[c.partner]).toBe('pedestrian');
    expect(c.partner).toBe(2);
    expect(c.closingMps).toBeCloseTo(0.5, 6);
    // Two 0.6 m boxes with rounded corners touch once their centres are under 0.6 m apart: (2 − 0.6) m
    // at 0.5 m/s, 2.8 s after the first step.
    const firstTouch = Math.floor((2 - 0.6) / 0.5 / s.dtS) + 1;
    expect(Math.abs(c.step + s.currentStep - firstTouch)).toBeLessThanOrEqual(1);
    expect(loggedContact(s, 3)).toBeNull();
  });
});
