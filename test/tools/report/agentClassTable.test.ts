import { describe, expect, it } from 'vitest';
import { controlAllPresent } from '../../../simulation/training/evaluate.ts';
import {
  addClassCounts,
  agentClass,
  classTableRow,
  emptyClassCounts,
  LOG_EXPERT_AGENT,
} from '../../../tools/report/agentClassTable.ts';
import { straightRoadScenario } from '../../simulation/fixtures.ts';

describe('per-class agents table', () => {
  it('sorts agents into moving, parked, pedestrians and cyclists and counts a collision in its class', () => {
    const s = controlAllPresent([straightRoadScenario({ numAgents: 4, spacingM: 20 })])[0];
    const T = s.numSteps;
    s.agents.types[2] = 'pedestrian';
    s.agents.types[3] = 'cyclist';
    // Agent 1 stands still through the whole log, in the other lane: parked.
    for (let t = 0; t < T; t++) {
      s.agents.x[T + t] = 15;
      s.agents.y[T + t] = 3.5;
      s.agents.vx[T + t] = 0;
    }
    expect([0, 1, 2, 3].map((a) => agentClass(s, a))).toEqual([0, 1, 2, 3]);
    const log = emptyClassCounts();
    addClassCounts(log, s, s.agents);
    expect(log.agents).toEqual([1, 1, 1, 1]);
    // A "rollout" where the moving car drives into the parked one: both collide, in their own classes.
    const sim = { ...s.agents, x: s.agents.x.slice(), y: s.agents.y.slice() };
    for (let t = s.currentStep + 1; t < T; t++) {
      sim.x[t] = 15;
      sim.y[t] = 3.5;
    }
    const c = emptyClassCounts();
    addClassCounts(c, s, sim);
    expect(c.collided.slice(0, 2)).toEqual([1, 1]);
    expect(log.collided).toEqual([0, 0, 0, 0]);
  });

  it("scores DAgger's log-conditioned expert on the same scenarios and metric as the other agents", () => {
    // Cars in a row at a steady 8 m/s: the expert desires the logged speed, so it keeps pace with the log.
    const s = controlAllPresent([straightRoadScenario({ numAgents: 3, spacingM: 15, speedMps: 8 })])[0];
    const expert = classTableRow('expert', LOG_EXPERT_AGENT, [s], 1, 1);
    const replay = classTableRow('replay', 'replay', [s], 1, 1);
    expect(expert.classes['moving vehicles'].agents).toBe(replay.classes['moving vehicles'].agents);
    expect(expert.classes['moving vehicles'].agents).toBeGreaterThan(0);
    expect(expert.collision_rate).toBe(0);
    expect(replay.progress).toBe(1);
    expect(Math.abs(expert.progress - 1)).toBeLessThan(0.1);
  });
});
