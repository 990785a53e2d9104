import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import { SimEnv } from '../../../simulation/env.ts';
import { generateLongtail } from '../../../simulation/longtail/generate.ts';
import { AgentModel } from '../../../simulation/training/agentModel.ts';
import { daggerRollout, DEFAULT_DAGGER } from '../../../simulation/training/dagger.ts';
import { controlAllPresent } from '../../../simulation/training/evaluate.ts';
import { LogExpert, withLogRoutes } from '../../../simulation/training/logExpert.ts';
import {
  DAGGER_LONGTAIL_SET_FILE,
  TRAIN_FILES,
  trainAgents,
} from '../../../simulation/training/trainAgents.ts';
import { runTrainAgents } from '../../../tools/commands/trainAgents.ts';
import { collisionGeometry } from '../../../tools/report/collisionKinds.ts';
import { straightRoadScenario } from '../fixtures.ts';

const tiny = { model: { net: { entityWidth: 8, hidden: [32] }, threads: 1, lr: 3e-3 } };

/** The expert's acceleration for agent 0 of a one-lane road where the log drives at 10 m/s. */
function expertAccel(trackTimeS: number, speedMps: number, spacingM: number): number {
  const s = withLogRoutes(
    controlAllPresent([straightRoadScenario({ numAgents: 2, numSteps: 41, spacingM, speedMps: 10 })])[0],
  );
  const env = new SimEnv([s]);
  env.reset();
  env.setDynamics('bicycle');
  // Agent 0 starts behind agent 1 (the straight-road fixture spaces them along the lane).
  const back = env.x[0] < env.x[1] ? 0 : 1;
  env.speed[back] = speedMps;
  const e = new LogExpert({ trackTimeS });
  e.reset(env);
  e.prepare(env);
  return e.decide(env, back).accel;
}

describe('log-conditioned expert', () => {
  it('closes the gap to the logged speed faster than IDM on a free road, within its cap', () => {
    const idm = expertAccel(0, 5, 200);
    const tracked = expertAccel(1, 5, 200);
    expect(idm).toBeLessThanOrEqual(1);
    expect(tracked).toBeGreaterThan(idm + 0.5);
    expect(tracked).toBeLessThanOrEqual(2 + 1e-9);
  });

  it('catches up with its logged position when it has fallen behind, and only then', () => {
    const at = (catchUpS: number, behindM: number) => {
      const s = withLogRoutes(
        controlAllPresent([straightRoadScenario({ numAgents: 1, numSteps: 41, speedMps: 8 })])[0],
      );
      const env = new SimEnv([s]);
      env.reset();
      env.setDynamics('bicycle');
      env.x[0] -= behindM * Math.cos(env.yaw[0]);
      env.y[0] -= behindM * Math.sin(env.yaw[0]);
      env.speed[0] = 8;
      const e = new LogExpert({ catchUpS });
      e.reset(env);
      e.prepare(env);
      return e.decide(env, 0).accel;
    };
    expect(at(2, 10)).toBeGreaterThan(at(0, 10) + 0.5);
    expect(at(2, 0)).toBeCloseTo(at(0, 0), 9);
  });

  it('starts where the log waits for nothing it can see, and holds behind a standing leader', () => {
    // The logged agent stands for its first 3 s, then drives at 8 m/s; the expert starts at the
    // standstill with the option, and waits as the log does without it.
    const at = (startUnobservedWaits: boolean, leader: boolean) => {
      const raw = straightRoadScenario({ numAgents: leader ? 2 : 1, numSteps: 41, speedMps: 8, spacingM: 6 });
      const T = raw.numSteps;
      const back = leader && raw.agents.x[T] < raw.agents.x[0] ? 1 : 0;
      for (let r = 0; r < raw.agents.ids.length; r++) {
        const x0 = raw.agents.x[r * T];
        for (let t = 0; t < T; t++) {
          // The leader never moves; the back agent waits until step 30 (the expert looks 1 s ahead of 10).
          const v = r === back && t >= 30 ? 8 : 0;
          raw.agents.vx[r * T + t] = v;
          raw.agents.x[r * T + t] = x0 + (r === back ? 8 * Math.max(0, t - 30) * raw.dtS : 0);
        }
      }
      const s = withLogRoutes(controlAllPresent([raw])[0]);
      const env = new SimEnv([s]);
      env.reset();
      env.setDynamics('bicycle');
      const e = new LogExpert({ startUnobservedWaits });
      e.reset(env);
      e.prepare(env);
      return e.decide(env, back).accel;
    };
    expect(at(false, false)).toBeLessThanOrEqual(0);
    expect(at(true, false)).toBeGreaterThan(0.5);
    expect(at(true, true)).toBeLessThanOrEqual(0); // a leader standing 6 m ahead still holds it
  });

  it('keeps IDM braking behind a close leader', () => {
    const idm = expertAccel(0, 8, 8);
    expect(idm).toBeLessThan(0);
    expect(expertAccel(1, 8, 8)).toBeCloseTo(idm, 9);
  });
});

describe('DAgger with long-tail scenarios', () => {
  it('labels long-tail rollouts into a set of their own, saved for resuming; --init reads an exported model', async () => {
    const towns = controlAllPresent([{ ...straightRoadScenario({ numAgents: 3, numSteps: 41 }), id: 'd' }]);
    const longtail = generateLongtail('hard-brake', 2, 7).map((l) => l.scenario);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'dagger-lt-'));
    const cfg = {
      ...tiny,
      mode: 'dagger' as const,
      steps: 1,
      batch: 32,
      scenariosPerIteration: 1,
      checkpointEvery: 1,
      ruleAgents: true,
      dagger: { ...DEFAULT_DAGGER, stepsPerRound: 2, longtailPerRound: 2 },
    };
    const r = await trainAgents({ scenarios: towns, longtail, data: {}, out }, cfg);
    expect(r.curve[0].longtail_samples).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(out, DAGGER_LONGTAIL_SET_FILE))).toBe(true);
    // The exported ONNX carries the very parameters of the checkpoint.
    const a = await AgentModel.create(tiny.model);
    const b = await AgentModel.create({ ...tiny.model, net: { ...tiny.model.net, seed: 9 } });
    try {
      await a.loadWeights(path.join(out, TRAIN_FILES.checkpoint));
      await b.loadWeights(path.join(out, TRAIN_FILES.model));
      const pa = a.net.params.list();
      const pb = b.net.params.list();
      expect(pb.map((p) => p.name)).toEqual(pa.map((p) => p.name));
      pa.forEach((p, i) => expect(Array.from(pb[i].data)).toEqual(Array.from(p.data)));
    } finally {
      await a.dispose();
      await b.dispose();
    }
  }, 120_000);

  it('refuses --beta-rounds outside DAgger, naming the option', async () => {
    const base = { scenarios: 'town:1', out: os.tmpdir(), seed: 1, json: true };
    await expect(runTrainAgents({ ...base, mode: 'rtr', betaRounds: 2 })).rejects.toThrow(/--beta-rounds/);
  });
});

describe('collision geometry', () => {
  it('tells rear-end, hit from behind, side by side, head-on and crossing apart', () => {
    expect(collisionGeometry(0, 0, 0, 4, 0, 0)).toBe('rear-end');
    expect(collisionGeometry(0, 0, 0, -4, 0, 0.1)).toBe('hit from behind');
    expect(collisionGeometry(0, 0, 0, 0.5, 1.8, 0.2)).toBe('side by side');
    expect(collisionGeometry(0, 0, 0, 4, 0, Math.PI)).toBe('head-on');
    expect(collisionGeometry(0, 0, 0, 2, 2, Math.PI / 2)).toBe('crossing');
  });
});

describe("DAgger's expert settings", () => {
  it('reach the labels: with catch-up, an agent that lags an accelerating log is told to speed up more', async () => {
    // One agent whose log speeds up from 4 to 12 m/s: tracking the speed 1 s ahead, the expert falls behind.
    const base = controlAllPresent([straightRoadScenario({ numAgents: 1, numSteps: 61, speedMps: 4 })])[0];
    const T = base.numSteps;
    let x = base.agents.x[0];
    for (let t = 0; t < T; t++) {
      const v = 4 + (8 * t) / (T - 1);
      base.agents.x[t] = x;
      base.agents.vx[t] = v;
      x += v * base.dtS;
    }
    const s = withLogRoutes(base);
    const model = await AgentModel.create(tiny.model);
    try {
      const meanAccel = async (catchUpS: number) => {
        const roll = await daggerRollout(model, [s], new Rng(1), 1, true, 1, {
          ...DEFAULT_DAGGER,
          expert: { catchUpS },
        });
        let sum = 0;
        for (let i = 0; i < roll.count; i++) sum += model.bins.accelOf(roll.action[i]);
        return sum / roll.count;
      };
      // Ignored settings would give the very same labels.
      expect(await meanAccel(1)).toBeGreaterThan(await meanAccel(0));
    } finally {
      await model.dispose();
    }
  });
});

describe("DAgger's cyclist repeat", () => {
  it("enters each labelled cyclist row n times, the vehicles' rows once", async () => {
    // Three agents on a straight road; the last is a cyclist (fixtures.ts).
    const s = withLogRoutes(controlAllPresent([straightRoadScenario({ numAgents: 3, numSteps: 21 })])[0]);
    const model = await AgentModel.create(tiny.model);
    try {
      const roll = (cyclistRepeat: number) =>
        daggerRollout(model, [s], new Rng(1), 1, true, 1, { ...DEFAULT_DAGGER, cyclistRepeat });
      const once = await roll(1);
      const thrice = await roll(3);
      // Every step labels the 3 agents: 2 vehicles + the cyclist once, or + the cyclist 3 times.
      const steps = once.count / 3;
      expect(Number.isInteger(steps) && steps > 0).toBe(true);
      expect(thrice.count).toBe(steps * 5);
      // Same seed, β = 1 (the expert drives): the same states, so the repeated rows are the cyclist's own.
      const D = once.obs.length / once.count;
      const firstStepCyclist = once.obs.subarray(2 * D, 3 * D);
      for (let r = 0; r < 3; r++)
        expect(thrice.obs.subarray((2 + r) * D, (3 + r) * D)).toEqual(firstStepCyclist);
      expect(thrice.action[3]).toBe(once.action[2]);
    } finally {
      await model.dispose();
    }
  });
});
