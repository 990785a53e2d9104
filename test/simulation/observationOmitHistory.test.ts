// The expert block without history (ObservationConfig.omitHistory): the history features read as a steady
// state at the current speed, where the default block reports a car's own acceleration from a standstill.
import { describe, expect, it } from 'vitest';
import { SimEnv } from '../../simulation/env.ts';
import { DEFAULT_OBSERVATION, observationOffsets, Observer } from '../../simulation/observation.ts';
import { controlAllPresent } from '../../simulation/training/evaluate.ts';
import { straightRoadScenario } from './fixtures.ts';

describe('observation without history', () => {
  it('reports no acceleration and past speeds equal to the current one; the default reports the history', () => {
    const s = controlAllPresent([straightRoadScenario({ numAgents: 1, numSteps: 41, speedMps: 0 })])[0];
    const env = new SimEnv([s]);
    env.reset();
    env.setDynamics('bicycle');
    const agents = Int32Array.of(0);
    const plain = new Observer({ ...DEFAULT_OBSERVATION });
    const steady = new Observer({ ...DEFAULT_OBSERVATION, omitHistory: true });
    const { expert } = observationOffsets(DEFAULT_OBSERVATION);
    // From a standstill, 2 m/s² for 1.5 s: the speed 0.5 s and 1 s ago differ from the current one.
    for (let t = 0; t < 15; t++) {
      env.actions[0] = 2;
      env.actions[1] = 0;
      env.step();
    }
    const v = Math.hypot(env.vx[0], env.vy[0]);
    expect(v).toBeGreaterThan(2);
    const a = plain.observe(env, agents).obs;
    const b = steady.observe(env, agents).obs;
    expect(a[expert + 15]).toBeCloseTo(2, 1);
    expect(a[expert + 17]).toBeLessThan(v - 0.5);
    expect(a[expert + 18]).toBeLessThan(a[expert + 17]);
    expect([b[expert + 15], b[expert + 16]]).toEqual([0, 0]);
    expect(b[expert + 17]).toBeCloseTo(v, 5);
    expect(b[expert + 18]).toBeCloseTo(v, 5);
    // Everything else in the row is the same.
    for (let k = 0; k < a.length; k++) if (k < expert + 15 || k > expert + 18) expect(b[k]).toBe(a[k]);
  });
});
