// The simulation environment: replaying the real WOMD log gives ADE 0 and the log's rates, a batch
// equals separate runs, and IDM passes a parked car and stops behind a stopped one and at a red light.
import { describe, expect, it } from 'vitest';
import { realData } from '../../core/paths.ts';
import { itWithSharedData } from '../sharedData.ts';
import { readWomdFile } from '../../datasets/womd.ts';
import { ConstantVelocityPolicy } from '../../simulation/agents/constantVelocity.ts';
import { IdmPolicy } from '../../simulation/agents/idmAgent.ts';
import { runPolicy } from '../../simulation/agents/policy.ts';
import { LogReplayPolicy } from '../../simulation/agents/replay.ts';
import { SimEnv } from '../../simulation/env.ts';
import { womdToScenario } from '../../simulation/import/womdScenario.ts';
import { scenarioMetrics } from '../../simulation/metrics/scenarioMetrics.ts';
import { straightRoadScenario } from './fixtures.ts';

describe('environment', () => {
  itWithSharedData(
    "log replay reproduces the real WOMD log exactly (ADE 0, the log's collision rate)",
    () => {
      const s = womdToScenario(readWomdFile(realData('womd', 'motion_data_one_scenario.tfrecord'))[0]);
      const env = new SimEnv([s]);
      runPolicy(env, new LogReplayPolicy());
      const r = env.rolloutOf(0);
      const T = s.numSteps;
      for (let a = 0; a < s.agents.ids.length; a++) {
        if (!s.controlled[a]) continue;
        for (let t = 0; t < T; t++) {
          const k = a * T + t;
          expect(r.valid[k]).toBe(s.agents.valid[k]);
          if (!r.valid[k]) continue;
          expect(r.x[k]).toBe(s.agents.x[k]);
          expect(r.y[k]).toBe(s.agents.y[k]);
          expect(r.yaw[k]).toBe(s.agents.yaw[k]);
        }
      }
      const m = scenarioMetrics(s, r);
      expect(m.agents).toBe(50);
      expect(m.ade_m).toBe(0);
      expect(m.fde_m).toBe(0);
      expect(m.collision_rate).toBe(m.log_collision_rate);
      // A constant-velocity rollout diverges from the log and scores lower.
      const cv = new SimEnv([s]);
      runPolicy(cv, new ConstantVelocityPolicy());
      const mc = scenarioMetrics(s, cv.rolloutOf(0));
      expect(mc.ade_m).toBeGreaterThan(0.5);
    },
  );

  it('batches scenarios without mixing them: a batch equals separate runs', () => {
    const a = straightRoadScenario({ numAgents: 4, numSteps: 31, spacingM: 12 });
    const b = straightRoadScenario({ numAgents: 3, numSteps: 41, speedMps: 6 });
    b.id = 'b';
    a.controlled.fill(1);
    b.controlled.fill(1);
    const batch = new SimEnv([a, b]);
    runPolicy(batch, new IdmPolicy());
    for (const [i, s] of [a, b].entries()) {
      const solo = new SimEnv([s]);
      runPolicy(solo, new IdmPolicy());
      expect(Array.from(batch.rolloutOf(i).x)).toEqual(Array.from(solo.rolloutOf(0).x));
      expect(Array.from(batch.rolloutOf(i).valid)).toEqual(Array.from(solo.rolloutOf(0).valid));
    }
    // The two scenarios overlap in space: agents of a never collide with agents of b.
    expect(batch.horizon).toBe(30);
  });

  function parkedAhead() {
    const s = straightRoadScenario({ numAgents: 2, numSteps: 121, speedMps: 10, spacingM: 60 });
    // Agent 1 is parked in lane 1, 50 m ahead of agent 0 (controlled IDM) at the current step.
    const T = s.numSteps;
    for (let t = 0; t < T; t++) {
      s.agents.x[T + t] = 70;
      s.agents.vx[T + t] = 0;
    }
    s.controlled.set([1, 0]);
    s.map.trafficLights = [];
    return s;
  }

  it('IDM changes lanes to pass a parked car when the next lane is free', () => {
    const s = parkedAhead();
    const env = new SimEnv([s]);
    runPolicy(env, new IdmPolicy());
    const r = env.rolloutOf(0);
    const T = s.numSteps;
    expect(r.x[T - 1]).toBeGreaterThan(100); // passed it
    expect(r.y[T - 1]).toBeCloseTo(3.5, 0); // in lane 2
    const m = scenarioMetrics(s, r);
    expect(m.collision_rate).toBe(0);
    expect(m.offroad_rate).toBe(0);
  });

  it('IDM keeps its distance behind a stopped car and stops at a red light', () => {
    const s = parkedAhead();
    s.map.lanes[0].leftNeighbors = []; // no lane to change into
    s.map.lanes[1].rightNeighbors = [];
    const T = s.numSteps;
    const env = new SimEnv([s]);
    runPolicy(env, new IdmPolicy());
    const r = env.rolloutOf(0);
    const end = r.x[T - 1];
    expect(end).toBeLessThan(70 - 4.5 - 1); // stopped before the parked car's rear
    expect(end).toBeGreaterThan(70 - 4.5 - 6); // and close to it (IDM's minimum gap 2 m)
    expect(Math.abs(r.vx[T - 1])).toBeLessThan(0.3);

    // A red light at x = 148 on lane 1, red from step 0: the IDM car stops before it.
    const red = straightRoadScenario({ numAgents: 1, numSteps: 200, speedMps: 10 });
    red.map.trafficLights[0].states.fill(1);
    red.agents.x[0 * 200 + red.currentStep] = 100;
    const env2 = new SimEnv([red]);
    runPolicy(env2, new IdmPolicy());
    const r2 = env2.rolloutOf(0);
    expect(r2.x[199] + 4.5 / 2).toBeLessThan(148.01);
    expect(r2.x[199]).toBeGreaterThan(140);
    const m = scenarioMetrics(red, r2);
    expect(m.red_light_rate).toBe(0);
  });
});
