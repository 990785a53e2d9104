// tools/report/goalDistances.ts: the distance from each moving agent with a goal to that goal, now and at its
// log's end; standing agents and agents without a goal are left out.
import { describe, expect, it } from 'vitest';
import { goalDistances } from '../../tools/report/goalDistances.ts';
import { straightRoadScenario } from './fixtures.ts';

describe('goal distances', () => {
  it('measures each moving agent with a goal, now and at the end of its log', () => {
    // Three agents at 10 m/s along +x, 20 m apart; 21 steps of 0.1 s, the current step 10 (10 m before the end).
    const s = straightRoadScenario({ numAgents: 3, numSteps: 21, speedMps: 10 });
    const T = s.numSteps;
    s.goalX.fill(NaN);
    s.goalY.fill(NaN);
    // Agent 0: its last logged position; agent 1: 50 m beyond it; agent 2: none.
    s.goalX[0] = s.agents.x[T - 1];
    s.goalY[0] = 0;
    s.goalX[1] = s.agents.x[T + T - 1] + 50;
    s.goalY[1] = 0;
    const g = goalDistances(s);
    expect(g.withGoal).toBe(2);
    expect(g.ego).toBe(0);
    // Now (step 10): 10 m and 60 m; at the log's end: 0 and 50 m.
    expect(g.nowMinM).toBeCloseTo(10, 4);
    expect(g.nowMedianM).toBeCloseTo(35, 4);
    expect(g.endMinM).toBeCloseTo(0, 4);
    expect(g.endMedianM).toBeCloseTo(25, 4);
    // Agents that move less than the threshold (10 m logged from the current step) are not counted.
    expect(goalDistances(s, 11).withGoal).toBe(0);
    expect(goalDistances(s, 11).nowMinM).toBeNaN();
  });
});
