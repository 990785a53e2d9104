import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { readLearnedModel, SHIPPED_AGENT_MODEL } from '../../../simulation/agents/learned.ts';
import { RuleAgents, type RuleAgentsConfig } from '../../../simulation/agents/ruleAgents.ts';
import { SimEnv } from '../../../simulation/env.ts';
import { EXPERT_SCALAR_FEATURES } from '../../../simulation/expertFeatures.ts';
import { observationOffsets, observationSize, Observer } from '../../../simulation/observation.ts';
import type { Scenario } from '../../../simulation/scenario.ts';
import { daggerBeta, DEFAULT_DAGGER } from '../../../simulation/training/dagger.ts';
import { controlAllPresent } from '../../../simulation/training/evaluate.ts';
import { DAGGER_SET_FILE, TRAIN_FILES, trainAgents } from '../../../simulation/training/trainAgents.ts';
import { runTrainAgents } from '../../../tools/commands/trainAgents.ts';
import { straightRoadScenario } from '../fixtures.ts';

/** Set agent r's logged track to start at (x, y) with velocity (vx, vy) and keep it. */
function track(s: Scenario, r: number, x: number, y: number, vx: number, vy: number): void {
  const T = s.numSteps;
  for (let t = 0; t < T; t++) {
    const k = r * T + t;
    s.agents.x[k] = x + vx * s.dtS * t;
    s.agents.y[k] = y + vy * s.dtS * t;
    s.agents.vx[k] = vx;
    s.agents.vy[k] = vy;
    s.agents.yaw[k] = vx === 0 && vy === 0 ? 0 : Math.atan2(vy, vx);
  }
}

describe('observation version 2', () => {
  it("carries the expert's inputs: lane offset, leader gap and the route ahead", () => {
    // The leader 30 m ahead at my speed does not hold me back enough for IDM to change lanes.
    const s = straightRoadScenario({ numAgents: 2, spacingM: 30 });
    track(s, 0, 10, 0.3, 10, 0);
    const env = new SimEnv([s]);
    const ob = new Observer();
    expect(ob.cfg.version).toBe(2);
    const { obs } = ob.observe(env);
    const e = observationOffsets(ob.cfg).expert;
    expect(obs[e]).toBe(1); // on a lane
    expect(obs[e + 1]).toBeCloseTo(0.3, 4); // left of the centreline
    expect(obs[e + 8]).toBe(1); // a leader …
    expect(obs[e + 9]).toBeCloseTo(30 - 4.5, 3); // … bumper to bumper
    expect(obs[e + 10]).toBeCloseTo(0, 6); // same speed
    // The third route point, 10 m ahead along the lane: 10 m forward, back on the centreline.
    const p = e + EXPERT_SCALAR_FEATURES + 2 * 5;
    expect(obs[p]).toBe(1);
    expect(obs[p + 1]).toBeCloseTo(10, 1);
    expect(obs[p + 2]).toBeCloseTo(-0.3, 4);
  });

  it('older models (no version in their metadata) read as version 1, the layout they were trained on', () => {
    const bc = path.join(path.dirname(SHIPPED_AGENT_MODEL), 'agent-bc.onnx');
    const { spec } = readLearnedModel(bc);
    expect(spec.observation.version).toBe(1);
    expect(spec.ruleAgents).toBe(false);
    expect(observationSize(spec.observation)).toBe(12 + 16 * 10 + 32 * 6 + 16 * 3);
  });
});

/** Rule walkers without their speed and heading walks, for the geometry. */
const STEADY: Partial<RuleAgentsConfig> = {
  speedWalkPerSqrtS: 0,
  headingWalkRadPerSqrtS: 0,
  inattentiveShare: 0,
};

describe('rule agents', () => {
  it('keep a parked car exactly in place and walkers from walking into each other', () => {
    const s = straightRoadScenario({ numAgents: 4, numSteps: 81 });
    s.agents.types[2] = 'pedestrian';
    s.agents.types[3] = 'pedestrian';
    s.agents.length[2] = s.agents.length[3] = 0.6;
    s.agents.width[2] = s.agents.width[3] = 0.6;
    track(s, 0, 30, 0, 10, 0);
    track(s, 1, 60, -6, 0, 0); // parked beyond the road edge
    track(s, 2, 100, 8, 1.4, 0); // two walkers head-on, 8 m apart at the current step
    track(s, 3, 100 + 8 + 2.8, 8, -1.4, 0);
    for (let r = 2; r < 4; r++) for (let t = 0; t < s.numSteps; t++) s.agents.y[r * s.numSteps + t] = 8;
    const sc = controlAllPresent([s])[0];
    const minGap = (rules: boolean) => {
      const env = new SimEnv([sc]);
      env.reset();
      const r = new RuleAgents(1, STEADY);
      r.reset(env);
      const still = !rules ? (r.parked.fill(0), 0) : 1;
      let gap = Infinity;
      let parkedMoved = 0;
      while (!env.done) {
        if (rules) r.act(env);
        else for (let k = 0; k < env.actions.length; k++) env.actions[k] = 0;
        if (!rules) {
          // Plain constant velocity for the walkers, as a reference.
          for (const g of [2, 3]) {
            env.actions[g * 6] = env.vx[g] * env.dtS;
            env.actions[g * 6 + 1] = env.vy[g] * env.dtS;
          }
        }
        env.step();
        gap = Math.min(gap, Math.hypot(env.x[2] - env.x[3], env.y[2] - env.y[3]));
        parkedMoved = Math.max(parkedMoved, Math.hypot(env.x[1] - 60, env.y[1] + 6));
      }
      expect(r.parked[1]).toBe(still);
      return { gap, parkedMoved };
    };
    const cv = minGap(false);
    expect(cv.gap).toBeLessThan(0.5); // walking straight on, they meet
    const ruled = minGap(true);
    expect(ruled.gap).toBeGreaterThan(0.6); // more than the two half-diagonals apart
    expect(ruled.parkedMoved).toBe(0);
  });

  /** A car and two walkers: the first at (100, 8) walking +x at 1.4 m/s, the second as given; rules reset. */
  const twoWalkers = (x: number, y: number, vx: number, cfg: Partial<RuleAgentsConfig> = STEADY) => {
    const s = straightRoadScenario({ numAgents: 3, numSteps: 81 });
    for (const r of [1, 2]) {
      s.agents.types[r] = 'pedestrian';
      s.agents.length[r] = s.agents.width[r] = 0.6;
    }
    track(s, 0, 30, 0, 10, 0);
    track(s, 1, 100, 8, 1.4, 0);
    track(s, 2, x, y, vx, 0);
    const env = new SimEnv(controlAllPresent([s]));
    env.reset();
    const rules = new RuleAgents(1, cfg);
    rules.reset(env);
    return { env, rules };
  };

  it('turn walkers no faster than a person, and not to each sidestep', () => {
    // Two walkers head-on: they sidestep around each other, facing the way they walk.
    const { env, rules } = twoWalkers(110.8, 8, -1.4);
    let worstTurn = 0;
    let sidestepped = 0;
    while (!env.done) {
      const yaw = [env.yaw[1], env.yaw[2]];
      const y = [env.y[1], env.y[2]];
      rules.act(env);
      env.step();
      for (const g of [1, 2]) {
        const d = Math.abs(Math.atan2(Math.sin(env.yaw[g] - yaw[g - 1]), Math.cos(env.yaw[g] - yaw[g - 1])));
        worstTurn = Math.max(worstTurn, d / env.dtS);
        if (Math.abs(env.y[g] - y[g - 1]) > 1e-6) sidestepped++;
      }
    }
    expect(sidestepped).toBeGreaterThan(0); // they did step aside
    expect(worstTurn).toBeLessThanOrEqual(rules.cfg.turnRateRadPerS + 1e-9);
    expect(Math.abs(env.yaw[1])).toBeLessThan(1e-9); // still facing the way it walks (+x)
  });

  it('let walkers who start within reach of each other walk on together', () => {
    // A group: two walkers side by side 0.7 m apart (closer than their radii and margin), same velocity.
    const { env, rules } = twoWalkers(100, 8.7, 1.4);
    const x0 = [env.x[1], env.x[2]];
    const t0 = env.stepCount;
    while (!env.done) {
      rules.act(env);
      env.step();
    }
    const walkedM = 1.4 * (env.stepCount - t0) * env.dtS;
    for (const g of [1, 2]) expect(env.x[g] - x0[g - 1]).toBeGreaterThan(0.9 * walkedM);
    expect(Math.abs(env.y[2] - env.y[1] - 0.7)).toBeLessThan(0.05); // still side by side
  });

  it('keep a group together even as its walkers drift towards each other', () => {
    // Side by side 0.7 m apart, the second 0.3 m ahead and slower: closing in, inside their clearance.
    const { env, rules } = twoWalkers(100.3, 8.7, 1.3);
    const y0 = env.y[2];
    while (!env.done) {
      rules.act(env);
      env.step();
    }
    expect(Math.abs(env.y[2] - y0)).toBeLessThan(1e-9); // no sidestep away from the group
    // The same two walkers not in a group at the start (the second 1.5 m behind, closing in from
    // outside the clearance) give way as strangers do.
    const apart = twoWalkers(98.5, 8.7, 2.4);
    let sidestepped = false;
    while (!apart.env.done) {
      const y = apart.env.y[2];
      apart.rules.act(apart.env);
      apart.env.step();
      sidestepped ||= Math.abs(apart.env.y[2] - y) > 1e-9;
    }
    expect(sidestepped).toBe(true);
  });

  it('let an inattentive walker drift into other walkers, but not walk into them or into a car', () => {
    const minGap = (env: SimEnv, rules: RuleAgents) => {
      let gap = Infinity;
      while (!env.done) {
        rules.act(env);
        env.step();
        gap = Math.min(gap, Math.hypot(env.x[1] - env.x[2], env.y[1] - env.y[2]));
      }
      return gap;
    };
    const gapTo = (x: number, vx: number, cfg: Partial<RuleAgentsConfig>) => {
      const { env, rules } = twoWalkers(x, 8, vx, cfg);
      return minGap(env, rules);
    };
    const inattentive = { ...STEADY, inattentiveShare: 1 };
    // Overtaking a slower walker 2 m ahead (closing at 0.4 m/s): the inattentive one walks into it.
    expect(gapTo(102, 1, STEADY)).toBeGreaterThan(0.6);
    expect(gapTo(102, 1, inattentive)).toBeLessThan(0.3);
    // Head-on at walking pace (2.8 m/s closing): even the inattentive one steps aside.
    expect(gapTo(110.8, -1.4, inattentive)).toBeGreaterThan(0.6);
    // A car parked 6 m ahead of the walker, off the road: it goes round even when it ignores walkers.
    const s = straightRoadScenario({ numAgents: 3, numSteps: 81 });
    s.agents.types[1] = 'pedestrian';
    s.agents.length[1] = s.agents.width[1] = 0.6;
    track(s, 0, 30, 0, 10, 0);
    track(s, 1, 100, 8, 1.4, 0);
    track(s, 2, 106, 8, 0, 0);
    const env = new SimEnv(controlAllPresent([s]));
    env.reset();
    const rules = new RuleAgents(1, { ...STEADY, inattentiveShare: 1 });
    rules.reset(env);
    expect(rules.parked[2]).toBe(1);
    expect(minGap(env, rules)).toBeGreaterThan(1.5);
    // The share is drawn per walker and rollout.
    const crowd = straightRoadScenario({ numAgents: 200, numSteps: 21 });
    for (let r = 0; r < 200; r++) {
      crowd.agents.types[r] = 'pedestrian';
      track(crowd, r, 10 * r, 8, 1, 0);
    }
    const crowdEnv = new SimEnv(controlAllPresent([crowd]));
    crowdEnv.reset();
    const crowdRules = new RuleAgents(1, { inattentiveShare: 0.25 });
    crowdRules.reset(crowdEnv);
    const share = crowdRules.inattentive.reduce((a, b) => a + b, 0) / 200;
    expect(share).toBeGreaterThan(0.15);
    expect(share).toBeLessThan(0.35);
  });

  it('keep a bicycle that never moved, off every lane, parked', () => {
    const s = straightRoadScenario({ numAgents: 3, numSteps: 41 });
    s.agents.types[1] = s.agents.types[2] = 'cyclist';
    track(s, 0, 30, 0, 10, 0);
    track(s, 1, 60, -6, 0, 0); // in a rack beyond the road edge
    track(s, 2, 60, 0.2, 0, 0); // waiting on its lane: not parked, the driver's own
    const env = new SimEnv(controlAllPresent([s]));
    env.reset();
    const rules = new RuleAgents(1);
    rules.reset(env);
    expect([rules.parked[1], rules.ruled[1]]).toEqual([1, 1]);
    expect([rules.parked[2], rules.ruled[2]]).toEqual([0, 0]);
  });

  it("let a walker's speed and heading wander from rollout to rollout, reproducibly", () => {
    const run = (rollout: number) => {
      const s = straightRoadScenario({ numAgents: 2, numSteps: 81 });
      s.agents.types[1] = 'pedestrian';
      s.agents.length[1] = s.agents.width[1] = 0.6;
      track(s, 0, 30, 0, 10, 0);
      track(s, 1, 100, 8, 1.4, 0);
      const env = new SimEnv(controlAllPresent([s]), {}, [rollout]);
      env.reset();
      const rules = new RuleAgents(3);
      rules.reset(env);
      let fastestTurn = 0;
      while (!env.done) {
        const yaw = env.yaw[1];
        rules.act(env);
        env.step();
        fastestTurn = Math.max(fastestTurn, Math.abs(env.yaw[1] - yaw) / env.dtS);
      }
      return { yaw: env.yaw[1], x: env.x[1], fastestTurn };
    };
    const runs = Array.from({ length: 8 }, (_, r) => run(r));
    const yaws = runs.map((r) => r.yaw);
    expect(Math.max(...yaws) - Math.min(...yaws)).toBeGreaterThan(0.02); // rollouts differ
    for (const r of runs) expect(r.fastestTurn).toBeLessThan(0.5); // small turns, not a spin
    expect(run(5)).toEqual(runs[5]); // the same rollout again: the same walk
  });
});

// A tiny network, so the test runs in seconds.
const tiny = { model: { net: { entityWidth: 8, hidden: [32] }, threads: 1, lr: 3e-3 } };

describe('DAgger', () => {
  it('lets the expert share fall to 0', () => {
    const b = [0, 1, 2, 3, 4, 5].map((r) => daggerBeta(r, DEFAULT_DAGGER));
    expect(b[0]).toBe(1);
    for (let i = 1; i < b.length; i++) expect(b[i]).toBeLessThan(b[i - 1] + 1e-12);
    expect(b[DEFAULT_DAGGER.betaRounds]).toBe(0);
  });

  it('train-agents refuses DAgger options outside DAgger and unknown observation versions, naming the option', async () => {
    const base = { scenarios: 'town:1', out: os.tmpdir(), seed: 1, json: true };
    await expect(runTrainAgents({ ...base, mode: 'bc', stepsPerRound: 5 })).rejects.toThrow(
      /--steps-per-round/,
    );
    await expect(runTrainAgents({ ...base, mode: 'dagger', observation: '3' })).rejects.toThrow(
      /--observation/,
    );
    await expect(runTrainAgents({ ...base, mode: 'bc', logDemoShare: 0 })).rejects.toThrow(
      /--log-demo-share/,
    );
    await expect(runTrainAgents({ ...base, mode: 'bc', expertStartWaits: true })).rejects.toThrow(
      /--expert-start-waits/,
    );
  });

  it('aggregates expert-labelled rollouts round by round and resumes with its set', async () => {
    const s = controlAllPresent([{ ...straightRoadScenario({ numAgents: 3, numSteps: 41 }), id: 'd' }]);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'dagger-'));
    const cfg = {
      ...tiny,
      mode: 'dagger' as const,
      batch: 32,
      scenariosPerIteration: 1,
      checkpointEvery: 1,
      ruleAgents: true,
      dagger: { ...DEFAULT_DAGGER, stepsPerRound: 3 },
    };
    const one = await trainAgents({ scenarios: s, data: {}, out }, { ...cfg, steps: 1 });
    const setBytes = fs.statSync(path.join(out, DAGGER_SET_FILE)).size;
    expect(one.curve[0].samples).toBeGreaterThan(0);
    const two = await trainAgents({ scenarios: s, data: {}, out }, { ...cfg, steps: 2 });
    expect(two.resumedFrom).toBe(1);
    expect(two.curve.map((p) => p.round)).toEqual([1, 2]);
    expect(two.curve.map((p) => p.beta)).toEqual([1, 0.75]);
    // The second round added to the set the first one saved.
    expect(two.curve[1].samples).toBeGreaterThan(two.curve[0].samples);
    expect(fs.statSync(path.join(out, DAGGER_SET_FILE)).size).toBeGreaterThan(setBytes);
    const meta = JSON.parse(fs.readFileSync(path.join(out, TRAIN_FILES.meta), 'utf8'));
    expect(meta.settings.ruleAgents).toBe(true);
    expect(meta.settings.observation.version).toBe(2);
  }, 120_000);
});
