// A learned model's own sampling temperature (settings.temperature in its metadata): the default of its
// sampled actions, overridden per agent, and a clear error when the metadata holds a bad one.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LearnedPolicy, learnedAgent, readLearnedModel } from '../../../simulation/agents/learned.ts';
import { ACTION_STRIDE, SimEnv } from '../../../simulation/env.ts';
import { straightRoadScenario } from '../fixtures.ts';
import { shippedModelCopy } from './shippedModelCopy.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-temperature-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A copy of the shipped model whose metadata says `temperature` (or lacks it when undefined). */
function modelAt(name: string, temperature: unknown): string {
  return shippedModelCopy(tmp, name, 'temperature', temperature);
}

/** The actions of one step of a 24-agent road scene. */
function actionsOf(policy: ReturnType<ReturnType<typeof learnedAgent>>): number[] {
  const s = straightRoadScenario({ numAgents: 24, spacingM: 9 });
  s.controlled.fill(1);
  const env = new SimEnv([s]);
  policy.reset(env);
  policy.act(env);
  return Array.from(env.actions.subarray(0, env.n * ACTION_STRIDE));
}

describe('a learned model samples at its own temperature', () => {
  it('reads settings.temperature; an agent option overrides it; absent means 1', () => {
    const cold = learnedAgent(modelAt('cold', 0.35));
    expect((cold({ seed: 3 }) as LearnedPolicy).temperature).toBe(0.35);
    expect((cold({ seed: 3, temperature: 2 }) as LearnedPolicy).temperature).toBe(2);
    expect((learnedAgent(modelAt('plain', undefined))({ seed: 3 }) as LearnedPolicy).temperature).toBe(1);
  });

  it('near zero, sampling picks the argmax bins; at 1 it does not always', () => {
    const frozen = learnedAgent(modelAt('frozen', 1e-4));
    const argmax = actionsOf(frozen());
    expect(actionsOf(frozen({ seed: 7 }))).toEqual(argmax);
    const warm = learnedAgent(modelAt('warm', 1));
    const draws = [1, 2, 3, 4, 5].map((seed) => actionsOf(warm({ seed })));
    expect(draws.some((d) => d.some((a, i) => a !== argmax[i]))).toBe(true);
  });

  it('names the metadata file when its temperature is not a positive number', () => {
    for (const bad of [0, -1, 'cold'])
      expect(() => readLearnedModel(modelAt(`bad${String(bad)}`, bad))).toThrow(
        /bad.*\.json: settings\.temperature must be a number > 0/,
      );
  });
});
