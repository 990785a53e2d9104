import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import { SHIPPED_AGENT_MODEL } from '../../../simulation/agents/learned.ts';
import { AgentModel } from '../../../simulation/training/agentModel.ts';
import { collectExperience, discountedReturnStd } from '../../../simulation/training/closedLoop.ts';
import { withLogRoutes } from '../../../simulation/training/logExpert.ts';
import { rlIteration } from '../../../simulation/training/rtr.ts';
import { scenariosFromSpec } from '../../../simulation/training/scenarioSpec.ts';
import { AggregateSet } from '../../../simulation/training/dagger.ts';
import { shippedAgentConfig } from './shippedAgent.ts';

// The RTR recipe's parts (`--rl-recipe full`): rule agents and expert labels in the rollouts, bootstrap at the
// time limit, return scaling, a separate value network, dual ascent on a smoothed rate.
describe('RL recipe', () => {
  it('measures the std of the discounted returns-to-go over valid steps', () => {
    // One agent, rewards 1, 0, 2 at γ = 0.5: returns-to-go 1.5, 1, 2.
    const std = discountedReturnStd(Float32Array.of(1, 0, 2), Uint8Array.of(1, 1, 1), 3, 1, 0.5);
    const m = 1.5;
    expect(std).toBeCloseTo(Math.sqrt(((1.5 - m) ** 2 + (1 - m) ** 2 + (2 - m) ** 2) / 3), 6);
    // A gap cuts the return: the step after it does not flow back.
    const cut = discountedReturnStd(Float32Array.of(1, 5, 2), Uint8Array.of(1, 0, 1), 3, 1, 0.5);
    expect(cut).toBeCloseTo(0.5, 6); // returns 1 and 2
    expect(discountedReturnStd(Float32Array.of(3), Uint8Array.of(1), 1, 1, 0.9)).toBe(1);
  });

  it('a separate value network starts fresh on a shipped model and leaves its policy as it was', async () => {
    const shipped = shippedAgentConfig();
    const shared = await AgentModel.create({ threads: 1, ...shipped });
    const separate = await AgentModel.create({
      threads: 1,
      ...shipped,
      net: { ...shipped.net, valueHidden: [16] },
    });
    try {
      await shared.loadWeights(SHIPPED_AGENT_MODEL);
      await separate.loadWeights(SHIPPED_AGENT_MODEL);
      const rng = new Rng(3);
      const obs = Float32Array.from({ length: 4 * shared.obsSize }, () => rng.uniform() - 0.5);
      const a = await shared.evaluate(obs, 4);
      const b = await separate.evaluate(obs, 4);
      expect(Array.from(b.logits)).toEqual(Array.from(a.logits));
      expect(Array.from(b.value)).not.toEqual(Array.from(a.value));
      expect(separate.parameterCount()).toBeGreaterThan(shared.parameterCount());
      // And the reverse: a model trained with its own value network loads into the shared-trunk network
      // (as `--agents` and the self-play student do), its policy intact.
      const file = path.join(os.tmpdir(), `rl-recipe-${process.pid}.onnx`);
      fs.writeFileSync(file, separate.onnxBytes());
      const back = await AgentModel.create({ threads: 1, ...shipped });
      try {
        await back.loadWeights(file);
        expect(Array.from((await back.evaluate(obs, 4)).logits)).toEqual(Array.from(b.logits));
      } finally {
        await back.dispose();
        fs.rmSync(file, { force: true });
      }
    } finally {
      await shared.dispose();
      await separate.dispose();
    }
  }, 60_000);

  it('collects rule-agent, expert-labelled, bootstrapped and scaled experience on a town', async () => {
    const town = scenariosFromSpec('town:1', 'town').map((s) => withLogRoutes(s));
    const model = await AgentModel.create({ threads: 1, ...shippedAgentConfig() });
    try {
      await model.loadWeights(SHIPPED_AGENT_MODEL);
      const run = (over: Parameters<typeof collectExperience>[3]) =>
        collectExperience(model, town, new Rng(7), over);
      const all = await run({});
      const ruled = await run({ ruleAgents: true });
      // Parked cars and walkers are the rules' own: fewer rows, none of them driven by the network.
      expect(ruled.count).toBeLessThan(all.count);
      expect(ruled.labelled.count).toBe(0);

      const plain = await run({ ruleAgents: true, labelStride: 2 });
      expect(plain.labelled.count).toBeGreaterThan(0);
      // Every other step's vehicles and cyclists: at most half the rows, each a valid action bin.
      expect(plain.labelled.count).toBeLessThanOrEqual(Math.ceil(plain.count / 2) + 64);
      expect(plain.labelled.obs.length).toBe(plain.labelled.count * model.obsSize);
      for (const a of plain.labelled.action) expect(a >= 0 && a < model.bins.count).toBe(true);

      // The same trajectory (same seed): bootstrap changes the returns, not the actions.
      const boot = await run({ ruleAgents: true, labelStride: 2, bootstrap: true });
      expect(Array.from(boot.action)).toEqual(Array.from(plain.action));
      expect(Array.from(boot.return)).not.toEqual(Array.from(plain.return));

      // Scaled returns: value targets shrink by the scale; the reported episode return stays in reward units.
      const scaled = await run({ ruleAgents: true, labelStride: 2, normaliseReturns: true });
      expect(scaled.returnScale).not.toBe(1);
      expect(plain.returnScale).toBe(1);
      expect(scaled.meanEpisodeReturn).toBeCloseTo(plain.meanEpisodeReturn, 4);
      expect(Array.from(scaled.action)).toEqual(Array.from(plain.action));
    } finally {
      await model.dispose();
    }
  }, 120_000);

  it('RTR adds the labelled rows to its imitation set and steps λ on the smoothed rate', async () => {
    const town = scenariosFromSpec('town:2', 'town').map((s) => withLogRoutes(s));
    const model = await AgentModel.create({ threads: 1, ...shippedAgentConfig() });
    try {
      await model.loadWeights(SHIPPED_AGENT_MODEL);
      const ilSet = new AggregateSet(model.obsSize, 100_000);
      const dual = { targetRate: 0.5, stepSize: 2, maxLambda: 10 };
      const r = await rlIteration(model, town, new Rng(1), {
        mode: 'rtr',
        lambda: 1,
        ppo: { epochs: 1, minibatch: 256, demoRows: 64 },
        dual,
        closedLoop: { ruleAgents: true, labelStride: 4 },
        ilSet,
        rateSmoothing: 0.75,
        smoothedRate: 0.9,
      });
      expect(ilSet.count).toBeGreaterThan(0);
      expect(r.smoothedRate).toBeCloseTo(0.75 * 0.9 + 0.25 * r.infractionRate, 9);
      expect(r.nextLambda).toBeCloseTo(1 + 2 * (r.smoothedRate - 0.5), 9);
    } finally {
      await model.dispose();
    }
  }, 120_000);
});

describe('RL at a temperature (--rl-temperature)', () => {
  it('records the log-probabilities PPO optimises: the ratio is 1 on fresh experience, at T = 0.5 as at 1', async () => {
    const town = scenariosFromSpec('town:1', 'town').map((s) => ({ ...s, numSteps: s.currentStep + 6 }));
    const policyTerm = async (temperature: number) => {
      const model = await AgentModel.create({
        threads: 1,
        ...shippedAgentConfig(),
        ppoLoss: { clip: 0.2, valueCoef: 0.5, entropyCoef: 0, temperature },
      });
      try {
        await model.loadWeights(SHIPPED_AGENT_MODEL);
        const exp = await collectExperience(model, town, new Rng(5), { ruleAgents: true });
        const n = Math.min(exp.count, 256);
        // Advantage 1 everywhere: the clipped surrogate is the mean ratio, exactly 1 when the loss's
        // log-probabilities are those the actions were drawn with.
        const terms = await model.step({
          obs: exp.obs.subarray(0, n * model.obsSize),
          action: BigInt64Array.from(exp.action.subarray(0, n), BigInt),
          ilWeight: new Float32Array(n),
          rlWeight: new Float32Array(n).fill(1),
          oldLogp: exp.logp.subarray(0, n),
          advantage: new Float32Array(n).fill(1),
          return: new Float32Array(n),
          coef: [0, 1],
        });
        return { policy: terms.policy, logp: exp.logp.subarray(0, n) };
      } finally {
        await model.dispose();
      }
    };
    const warm = await policyTerm(1);
    const cold = await policyTerm(0.5);
    expect(warm.policy).toBeCloseTo(-1, 4);
    expect(cold.policy).toBeCloseTo(-1, 4);
    // A sharper policy draws likelier actions.
    const mean = (a: Float32Array) => a.reduce((s, v) => s + v, 0) / a.length;
    expect(mean(cold.logp)).toBeGreaterThan(mean(warm.logp));
  }, 120_000);
});
