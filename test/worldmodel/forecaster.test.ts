import { describe, expect, it } from 'vitest';
import { GraphSession } from '../../core/nn/graphSession.ts';
import { ParamStore } from '../../core/nn/params.ts';
import { Rng } from '../../core/rng.ts';
import { temporalMask, windowFeeds } from '../../worldmodel/diffusionBatch.ts';
import { forecasterConfig } from '../../worldmodel/forecastConfig.ts';
import { buildInferenceGraph } from '../../worldmodel/forecasterGraph.ts';
import { createForecasterNetwork, noPriorId, POSE_FEATURES } from '../../worldmodel/forecasterNetwork.ts';
import { expSum, sampleFuture } from '../../worldmodel/sampling.ts';

const T = 4;
const cfg = forecasterConfig({
  frames: { past: 2, future: 2, frameDtS: 0.2 },
  network: { merge: 2, width: 16, tokenDim: 8, blocks: 1, heads: 2, mlpRatio: 2, egoPrior: true },
});
const codes = 16;
const t = 4;
const G = t * t;

function randomTokens(rng: Rng): Int32Array {
  return Int32Array.from({ length: G }, () => rng.int(codes));
}

describe('forecaster', () => {
  it('sampling with every future token given returns them unchanged', async () => {
    const rng = new Rng(1);
    const given = [randomTokens(rng), randomTokens(rng)];
    let calls = 0;
    const logits = async () => {
      calls++;
      return Float32Array.from({ length: 2 * 2 * G * codes }, () => rng.normal());
    };
    const out = await sampleFuture(
      logits,
      {
        cfg,
        codes,
        tokensXY: t,
        past: [randomTokens(rng), randomTokens(rng)],
        priors: [null, null],
        poses: Array.from({ length: T }, () => new Float32Array(POSE_FEATURES)),
        given,
      },
      { steps: 4, guidance: 1, temperature: 1 },
      rng,
    );
    expect(calls).toBe(4);
    expect(out).toEqual(given);
  });

  it('sampling fills every masked token with a code, K = 1 and K = 4', async () => {
    for (const steps of [1, 4]) {
      const rng = new Rng(2);
      const out = await sampleFuture(
        async () => Float32Array.from({ length: 2 * G * codes }, () => rng.normal()),
        {
          cfg,
          codes,
          tokensXY: t,
          past: [randomTokens(rng), randomTokens(rng)],
          priors: [null, null],
          poses: Array.from({ length: T }, () => new Float32Array(POSE_FEATURES)),
        },
        { steps, guidance: 0, temperature: 1 },
        rng,
      );
      for (const g of out) for (const v of g) expect(v >= 0 && v < codes).toBe(true);
    }
  });

  it('K = 1 reports the softmax probability of each chosen token (what the residual thresholds)', async () => {
    const rng = new Rng(3);
    const logits = Float32Array.from({ length: 2 * G * codes }, () => 2 * rng.normal());
    const probs: Float32Array[] = [];
    const out = await sampleFuture(
      async () => logits,
      {
        cfg,
        codes,
        tokensXY: t,
        past: [randomTokens(rng), randomTokens(rng)],
        priors: [null, null],
        poses: Array.from({ length: T }, () => new Float32Array(POSE_FEATURES)),
        confidenceOut: probs,
      },
      { steps: 1, guidance: 0, temperature: 1 },
      rng,
    );
    expect(probs.length).toBe(2);
    for (let f = 0; f < 2; f++)
      for (let i = 0; i < G; i++) {
        const l = logits.subarray((f * G + i) * codes, (f * G + i + 1) * codes);
        const max = Math.max(...l);
        const z = l.reduce((a, v) => a + Math.exp(v - max), 0);
        expect(l[out[f][i]]).toBe(max);
        expect(probs[f][i]).toBeCloseTo(1 / z, 5);
      }
  });

  it('a confidence floor keeps every choice and every probability that reaches it (the rest may read 0)', async () => {
    const rng = new Rng(4);
    const logits = Float32Array.from({ length: 2 * 2 * G * codes }, () => 3 * rng.normal());
    const past = [randomTokens(rng), randomTokens(rng)];
    const run = async (floor?: number) => {
      const probs: Float32Array[] = [];
      const out = await sampleFuture(
        async () => logits,
        {
          cfg,
          codes,
          tokensXY: t,
          past,
          priors: [null, null],
          poses: Array.from({ length: T }, () => new Float32Array(POSE_FEATURES)),
          confidenceOut: probs,
          confidenceFloor: floor,
        },
        { steps: 1, guidance: 1, temperature: 1 },
        new Rng(5),
      );
      return { out, probs };
    };
    const exact = await run();
    for (const floor of [0.2, 0.5, 0.9, 1.01]) {
      const r = await run(floor);
      expect(r.out).toEqual(exact.out);
      for (let f = 0; f < 2; f++)
        for (let i = 0; i < G; i++) {
          const p = exact.probs[f][i];
          expect(r.probs[f][i] >= floor).toBe(p >= floor);
          if (p >= floor) expect(r.probs[f][i]).toBe(p);
          else expect([0, p]).toContain(r.probs[f][i]);
        }
    }
  });

  it('expSum is the in-order sum of exp(l − max), or Infinity once it reaches the limit', () => {
    const rng = new Rng(6);
    const l = Float64Array.from({ length: 512 }, () => 5 * rng.normal());
    const max = Math.max(...l);
    let z = 0;
    for (const v of l) z += Math.exp(v - max);
    expect(expSum(l, l.length, max)).toBe(z);
    expect(expSum(l, l.length, max, z)).toBe(Infinity);
    expect(expSum(l, l.length, max, z * (1 + 1e-12))).toBe(z);
  });

  it('the ego pose conditioning changes the prediction', async () => {
    const ps = new ParamStore({ seed: 5 });
    const net = createForecasterNetwork(ps, cfg, codes, t);
    // The token read-out starts at zero (copy behaviour); give it weights so the transformer's output counts.
    const rng = new Rng(9);
    const w = ps.get('fc.unmerge.weight').data;
    for (let i = 0; i < w.length; i++) w[i] = rng.normal() * 0.3;
    const ig = buildInferenceGraph(net);
    const sess = await GraphSession.create(ig.graph, { logits: ig.logits });
    const tokens = Int32Array.from({ length: T * G }, () => rng.int(codes + 1));
    const run = async (forwardM: number) => {
      const pose = new Float32Array(T * POSE_FEATURES);
      for (let f = 0; f < T; f++) {
        pose.set([1, 0, 0, (forwardM * (f - 1)) / 10, 0, 1, 0, 0, 0, 0, 1, 0], f * POSE_FEATURES);
      }
      const feeds = windowFeeds(
        [
          {
            tokens,
            prior: new Int32Array(T * G).fill(noPriorId(codes)),
            pose,
            maskRatio: Float32Array.of(0, 0, 1, 1),
            temporal: temporalMask(T, G / 4, 'causal'),
          },
        ],
        T,
        t,
      );
      return (await sess.run(feeds)).logits.data as Float32Array;
    };
    const still = await run(0);
    const again = await run(0);
    const moving = await run(5);
    await sess.dispose();
    expect(Array.from(again)).toEqual(Array.from(still));
    let diff = 0;
    for (let i = 0; i < still.length; i++) diff = Math.max(diff, Math.abs(moving[i] - still[i]));
    expect(diff).toBeGreaterThan(1e-3);
  });
});
