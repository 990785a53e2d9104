// A learned model's rule settings (settings.ruleAgentsConfig in its metadata): the rule agents beside it take
// them, and the metadata file is named when a key is unknown or a value not a number.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { LearnedPolicy, learnedAgent, readLearnedModel } from '../../../simulation/agents/learned.ts';
import { DEFAULT_RULE_AGENTS } from '../../../simulation/agents/ruleAgents.ts';
import { shippedModelCopy } from './shippedModelCopy.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-rulecfg-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** A copy of the shipped model whose metadata sets ruleAgentsConfig (or lacks it when undefined). */
function modelWith(name: string, ruleAgentsConfig: unknown): string {
  return shippedModelCopy(tmp, name, 'ruleAgentsConfig', ruleAgentsConfig);
}

describe("a learned model's rule settings", () => {
  it('reach the rule agents beside it; absent, the defaults hold', () => {
    const p = learnedAgent(modelWith('share', { inattentiveShare: 0.25 }))({ seed: 1 }) as LearnedPolicy;
    expect(p.rules?.cfg.inattentiveShare).toBe(0.25);
    expect(p.rules?.cfg.marginM).toBe(DEFAULT_RULE_AGENTS.marginM);
    const plain = learnedAgent(modelWith('plain', undefined))({ seed: 1 }) as LearnedPolicy;
    expect(plain.rules?.cfg).toEqual(DEFAULT_RULE_AGENTS);
  });

  it('names the metadata file for an unknown key or a value that is not a number', () => {
    expect(() => readLearnedModel(modelWith('unknown', { walkFaster: 2 }))).toThrow(
      /unknown\.json: settings\.ruleAgentsConfig\.walkFaster is not a numeric rule setting/,
    );
    expect(() => readLearnedModel(modelWith('text', { marginM: 'wide' }))).toThrow(
      /text\.json: settings\.ruleAgentsConfig\.marginM must be a finite number/,
    );
    expect(() => readLearnedModel(modelWith('list', [1]))).toThrow(
      /list\.json: settings\.ruleAgentsConfig must be an object/,
    );
  });
});
