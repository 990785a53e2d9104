// Classes a residual model leaves to its IDM probe (settings.probeDriven): their action is the probe's own
// (zero correction) while the network still drives the rest, and bad metadata names its file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type LearnedPolicy, learnedAgent, readLearnedModel } from '../../../simulation/agents/learned.ts';
import { ACTION_STRIDE, SimEnv } from '../../../simulation/env.ts';
import { actionBase } from '../../../simulation/training/policyStep.ts';
import { straightRoadScenario } from '../fixtures.ts';
import { shippedModelCopy } from './shippedModelCopy.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-probedriven-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** One step of a road scene whose odd agents are cyclists: the actions written and the probe's own. */
function stepWith(probeDriven: string[] | undefined) {
  const onnx = shippedModelCopy(tmp, `m${probeDriven?.join('-') ?? 'none'}`, 'probeDriven', probeDriven);
  const s = straightRoadScenario({ numAgents: 12, spacingM: 12, speedMps: 6 });
  s.controlled.fill(1);
  for (let a = 1; a < 12; a += 2) s.agents.types[a] = 'cyclist';
  const env = new SimEnv([s]);
  const policy = learnedAgent(onnx)({ seed: 5 }) as LearnedPolicy;
  policy.reset(env);
  // The probe's action, read from the observation the policy sees at this step.
  const agents = Int32Array.from({ length: env.n }, (_, g) => g);
  const obs = new Float32Array(env.n * policy.observer.size);
  policy.observer.observe(env, agents, obs);
  const base = actionBase(obs, env.n, policy.observer.cfg);
  policy.act(env);
  const accel = (g: number) => env.actions[g * ACTION_STRIDE];
  const curvature = (g: number) => env.actions[g * ACTION_STRIDE + 1];
  return { env, base, accel, curvature };
}

describe('probe-driven classes', () => {
  it("drive the listed class by the probe's acceleration and pure pursuit; the others by the network", () => {
    const { env, base, accel, curvature } = stepWith(['cyclist']);
    let networkOffProbe = 0;
    for (let g = 0; g < env.n; g++) {
      const off = Math.abs(accel(g) - base[2 * g + 1]) + Math.abs(curvature(g) - base[2 * g]);
      if (g % 2 === 1) expect(off).toBeLessThan(1e-6);
      else if (off > 1e-6) networkOffProbe++;
    }
    // Sampled corrections move at least one vehicle off the probe's action, so the check above can fail.
    expect(networkOffProbe).toBeGreaterThan(0);
    const plain = stepWith(undefined);
    const cyclistsOff = [1, 3, 5, 7, 9, 11].filter(
      (g) =>
        Math.abs(plain.accel(g) - plain.base[2 * g + 1]) + Math.abs(plain.curvature(g) - plain.base[2 * g]) >
        1e-6,
    );
    expect(cyclistsOff.length).toBeGreaterThan(0);
  });

  it('names the metadata file for a class it cannot hand over or a value that is not a list', () => {
    for (const [name, bad] of [
      ['walkers', ['pedestrian']],
      ['word', 'cyclist'],
    ] as const)
      expect(() => readLearnedModel(shippedModelCopy(tmp, name, 'probeDriven', bad))).toThrow(
        new RegExp(`${name}\\.json: settings\\.probeDriven must be an array of 'vehicle' / 'cyclist'`),
      );
  });

  it('is refused for a model whose bins are not residual', () => {
    const onnx = shippedModelCopy(tmp, 'absolute', 'probeDriven', ['cyclist']);
    const meta = JSON.parse(fs.readFileSync(onnx.replace(/\.onnx$/, '.json'), 'utf8'));
    meta.settings.bins.residualAccel = false;
    fs.writeFileSync(onnx.replace(/\.onnx$/, '.json'), JSON.stringify(meta));
    expect(() => readLearnedModel(onnx)).toThrow(/absolute\.json: settings\.probeDriven needs residual/);
  });
});
