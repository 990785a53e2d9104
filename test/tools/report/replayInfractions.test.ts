// The replay-infraction report: a car parked beside the road is counted off-road and parked, a moving car on
// the road is neither, and two overlapping parked boxes count as colliding while standing.
import { describe, expect, it } from 'vitest';
import { replayInfractions } from '../../../tools/report/replayInfractions.ts';
import { straightRoadScenario } from '../../simulation/fixtures.ts';

describe('replay infractions', () => {
  it('splits off-road and colliding agents of the log by whether they move', () => {
    const s = straightRoadScenario({ numAgents: 3, numSteps: 31 });
    s.agents.types[2] = 'vehicle';
    s.controlled.fill(1);
    const T = s.numSteps;
    // Agents 1 and 2 stand still 4 m outside the road edge (y = -1.75), overlapping each other.
    for (const i of [1, 2])
      for (let t = 0; t < T; t++) {
        s.agents.x[i * T + t] = 50 + 2 * (i - 1);
        s.agents.y[i * T + t] = -6;
        s.agents.vx[i * T + t] = 0;
      }
    const r = replayInfractions([s]);
    expect(r).toEqual({
      vehicles: 3,
      offroadVehicles: 2,
      offroadParked: 2,
      collidingAgents: 2,
      collidingParked: 2,
      collidingOther: 0,
    });
  });
});
