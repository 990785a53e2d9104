// Residual steering (actionBins.ts residualSteering, policyStep.ts actionBase) and factorised heads
// (policyNet.ts factorisedHeads): correction bins ride on the route's pure pursuit; pair logits add.
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import { SimEnv, TYPE_CODE } from '../../../simulation/env.ts';
import { IDM_ACCEL_FEATURE, PURSUIT_CURVATURE_FEATURE } from '../../../simulation/expertFeatures.ts';
import { DEFAULT_OBSERVATION, Observer, observationOffsets } from '../../../simulation/observation.ts';
import { ActionBins, DEFAULT_ACTION_BINS } from '../../../simulation/training/actionBins.ts';
import { AgentModel } from '../../../simulation/training/agentModel.ts';
import { actionBase, writeActions } from '../../../simulation/training/policyStep.ts';
import { scenariosFromSpec } from '../../../simulation/training/scenarioSpec.ts';

const residual = new ActionBins({ ...DEFAULT_ACTION_BINS, residualSteering: true });
const absolute = new ActionBins(DEFAULT_ACTION_BINS);

describe('residual steering', () => {
  it('labels an expert curvature with the correction bin whose sum with pure pursuit is nearest', () => {
    const rng = new Rng(5);
    for (let i = 0; i < 500; i++) {
      const base = 0.2 * (rng.uniform() - 0.5);
      const want = base + 0.1 * (rng.uniform() - 0.5);
      const b = residual.label(1, want, base);
      const got = residual.curvatureOf(b, base);
      // Nearest: no correction bin lands closer to the expert's curvature.
      for (const k of residual.curvature)
        expect(Math.abs(got - want)).toBeLessThanOrEqual(Math.abs(k + base - want) + 1e-12);
      expect(residual.accelOf(b)).toBe(1.2);
      // Absolute bins ignore the base.
      expect(absolute.curvatureOf(b, base)).toBe(absolute.curvature[b % absolute.curvature.length]);
    }
  });

  it('reads pure pursuit and IDM acceleration from the expert block, and 0 from a layout without it', () => {
    const cfg = DEFAULT_OBSERVATION;
    const { expert, size } = observationOffsets(cfg);
    const obs = new Float32Array(3 * size);
    [0.01, -0.05, 0].forEach((k, q) => (obs[q * size + expert + PURSUIT_CURVATURE_FEATURE] = k));
    [0.5, -2, 1].forEach((a, q) => (obs[q * size + expert + IDM_ACCEL_FEATURE] = a));
    expect(Array.from(actionBase(obs, 3, cfg))).toEqual([0.01, 0.5, -0.05, -2, 0, 1].map(Math.fround));
    expect(Array.from(actionBase(obs, 3, { ...cfg, version: 1 }))).toEqual([0, 0, 0, 0, 0, 0]);
  });

  it('adds IDM acceleration only where acceleration is residual', () => {
    const both = new ActionBins({ ...DEFAULT_ACTION_BINS, residualSteering: true, residualAccel: true });
    const b = both.label(-1.5, 0.02, 0.015, -1.2);
    expect(both.accelOf(b, -1.2)).toBeCloseTo(-1.2 - 0.25, 12); // correction −0.3 → bin −0.25
    expect(both.curvatureOf(b, 0.015)).toBeCloseTo(0.015 + 0.004, 12); // correction 0.005 → bin 0.004
    expect(residual.accelOf(b, -1.2)).toBe(both.accel[Math.floor(b / both.curvature.length)]);
  });

  it('with zero correction keeps moving town vehicles on the road where zero curvature does not', () => {
    const town = scenariosFromSpec('town:3', 'town');
    const offroadSteps = (bins: ActionBins) => {
      const env = new SimEnv(town, { collisions: false });
      env.setDynamics('bicycle');
      const observer = new Observer(DEFAULT_OBSERVATION);
      // Moving vehicles at the start, driven by "keep speed, no correction"; the rest stand still.
      const movers = Int32Array.from({ length: env.n }, (_, g) => g).filter(
        (g) =>
          env.typeCode[g] === TYPE_CODE.vehicle && env.live[g] === 1 && Math.hypot(env.vx[g], env.vy[g]) > 3,
      );
      const keep = bins.label(0, 0, 0);
      const action = new Int32Array(movers.length).fill(keep);
      let off = 0;
      let steps = 0;
      for (let t = 0; t < 60 && !env.done; t++) {
        env.actions.fill(0);
        const { obs } = observer.observe(env, movers);
        writeActions(env, movers, action, bins, actionBase(obs, movers.length, observer.cfg));
        env.step();
        for (const g of movers) {
          if (!env.live[g]) continue;
          steps++;
          off += env.offroad[g];
        }
      }
      return { off, steps, movers: movers.length };
    };
    const res = offroadSteps(residual);
    const abs = offroadSteps(absolute);
    expect(res.movers).toBeGreaterThan(10);
    expect(res.steps).toBeGreaterThan(0);
    // Straight ahead leaves curved lanes; pure pursuit follows them.
    expect(abs.off).toBeGreaterThan(0);
    expect(res.off).toBeLessThan(abs.off / 4);
  });
});

describe('factorised heads', () => {
  it('give pair logits a_i + k_j (joint softmax = product of the two) and learn a factorised target', async () => {
    const model = await AgentModel.create({
      threads: 1,
      lr: 1e-2,
      bins: { ...DEFAULT_ACTION_BINS, residualSteering: true },
      net: { factorisedHeads: true, hidden: [32], entityWidth: 8 },
    });
    try {
      const A = model.bins.accel.length;
      const K = model.bins.curvature.length;
      const rng = new Rng(2);
      const rows = 64;
      const obs = Float32Array.from({ length: rows * model.obsSize }, () => rng.uniform() - 0.5);
      const additive = async () => {
        const { logits } = await model.evaluate(obs, rows);
        let worst = 0;
        for (let q = 0; q < rows; q++) {
          const L = (i: number, j: number) => logits[q * A * K + i * K + j];
          for (let i = 0; i < A; i++)
            for (let j = 0; j < K; j++)
              worst = Math.max(worst, Math.abs(L(i, j) - L(i, 0) - L(0, j) + L(0, 0)));
        }
        return worst;
      };
      expect(await additive()).toBeLessThan(1e-4);
      // Target: acceleration bin 9 and curvature bin 12 for every row; cross-entropy falls and the
      // argmax lands there, through the factorised gradient.
      const target = model.bins.index(9, 12);
      const batch = {
        obs,
        action: new BigInt64Array(rows).fill(BigInt(target)),
        ilWeight: new Float32Array(rows).fill(1),
        rlWeight: new Float32Array(rows),
        oldLogp: new Float32Array(rows),
        advantage: new Float32Array(rows),
        return: new Float32Array(rows),
        coef: [1, 0] as [number, number],
      };
      const first = (await model.step(batch)).ce;
      let last = first;
      for (let s = 0; s < 60; s++) last = (await model.step(batch)).ce;
      expect(last).toBeLessThan(first / 4);
      expect(await additive()).toBeLessThan(1e-3);
      const { logits } = await model.evaluate(obs, 1);
      let arg = 0;
      for (let i = 1; i < A * K; i++) if (logits[i] > logits[arg]) arg = i;
      expect(arg).toBe(target);
    } finally {
      await model.dispose();
    }
  }, 60_000);

  it('refuses residual bins without the expert block', async () => {
    for (const residual of [{ residualSteering: true }, { residualAccel: true }])
      await expect(
        AgentModel.create({
          threads: 1,
          observation: { ...DEFAULT_OBSERVATION, version: 1 },
          bins: { ...DEFAULT_ACTION_BINS, ...residual },
        }),
      ).rejects.toThrow(/observation version 2/);
  });
});
