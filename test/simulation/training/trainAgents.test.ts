import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { controlAllPresent } from '../../../simulation/training/evaluate.ts';
import { DEFAULT_RL, TRAIN_FILES, trainAgents } from '../../../simulation/training/trainAgents.ts';
import type { Scenario } from '../../../simulation/scenario.ts';
import { straightRoadScenario } from '../fixtures.ts';

/** Agents on the straight road braking at 2 m/s² from 10 m/s to a stop: constant velocity is wrong here. */
function brakingScenario(id: string, numAgents: number, spacingM: number): Scenario {
  const s = straightRoadScenario({ numAgents, numSteps: 61, spacingM, speedMps: 10 });
  const T = s.numSteps;
  const dt = s.dtS;
  for (let r = 0; r < numAgents; r++) {
    let x = s.agents.x[r * T];
    for (let t = 0; t < T; t++) {
      const k = r * T + t;
      const v = Math.max(0, 10 - 2 * t * dt);
      s.agents.x[k] = x;
      s.agents.vx[k] = v;
      x += Math.max(0, (v + Math.max(0, v - 2 * dt)) / 2) * dt;
    }
  }
  return controlAllPresent([{ ...s, id }])[0];
}

// A tiny network, so the test runs in seconds.
const tiny = { model: { net: { entityWidth: 8, hidden: [32] }, threads: 1, lr: 3e-3 } };

describe('train-agents', () => {
  it('BC on a handful of scenarios drives a held-back one with lower ADE than constant velocity', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'bc-'));
    const train = [brakingScenario('a', 3, 20), brakingScenario('b', 2, 30), brakingScenario('c', 4, 15)];
    const held = [brakingScenario('held', 3, 25)];
    const res = await trainAgents(
      { scenarios: train, evalScenarios: held, data: { scenarios: 'braking fixtures' }, out },
      { ...tiny, mode: 'bc', steps: 150, batch: 64, logEvery: 50, checkpointEvery: 150 },
    );
    expect(res.heldOut!.bc.ade_m).toBeLessThan(res.heldOut!.cv.ade_m);
    for (const f of Object.values(TRAIN_FILES).filter((f) => f !== TRAIN_FILES.curveJson))
      expect(fs.existsSync(path.join(out, f))).toBe(true);
    const meta = JSON.parse(fs.readFileSync(path.join(out, TRAIN_FILES.meta), 'utf8'));
    expect(meta.settings.bins.accelMps2.length).toBeGreaterThan(1);
    expect(meta.heldOut.closedLoop.bc.ade_m).toBe(res.heldOut!.bc.ade_m);
  }, 120_000);

  it('a killed run resumes from its checkpoint and ends where an uninterrupted run ends', async () => {
    const train = [brakingScenario('a', 3, 20)];
    const a = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-a-'));
    const b = fs.mkdtempSync(path.join(os.tmpdir(), 'resume-b-'));
    const cfg = { ...tiny, mode: 'bc' as const, batch: 32, logEvery: 2, checkpointEvery: 2 };
    // "Killed" after 2 steps: the checkpoint is all that survives; the rerun asks for 4.
    await trainAgents({ scenarios: train, data: {}, out: a }, { ...cfg, steps: 2 });
    fs.rmSync(path.join(a, TRAIN_FILES.model));
    const resumed = await trainAgents({ scenarios: train, data: {}, out: a }, { ...cfg, steps: 4 });
    expect(resumed.resumedFrom).toBe(2);
    await trainAgents({ scenarios: train, data: {}, out: b }, { ...cfg, steps: 4 });
    expect(
      Buffer.compare(
        fs.readFileSync(path.join(a, TRAIN_FILES.model)),
        fs.readFileSync(path.join(b, TRAIN_FILES.model)),
      ),
    ).toBe(0);
    expect(resumed.curve.map((p) => p.step)).toEqual([2, 4]);
  }, 120_000);

  it('PPO and RTR iterations run in closed loop and RTR moves λ', async () => {
    const train = [brakingScenario('a', 3, 20)];
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'rtr-'));
    const res = await trainAgents(
      { scenarios: train, data: {}, out },
      {
        ...tiny,
        mode: 'rtr',
        steps: 2,
        scenariosPerIteration: 1,
        lambda: 0.5,
        ppo: { epochs: 1, minibatch: 64, demoRows: 32 },
      },
    );
    expect(res.curve).toHaveLength(2);
    expect(res.curve[0].lambda).toBe(0.5);
    expect(res.lambda).not.toBe(0.5);
    expect(Number.isFinite(res.curve[1].return)).toBe(true);
  }, 120_000);

  it('the RL reward follows the recipe: progress per metre scales the return (--progress-reward)', async () => {
    const train = [brakingScenario('a', 3, 20)];
    const firstReturn = async (progressPerM: number): Promise<number> => {
      const out = fs.mkdtempSync(path.join(os.tmpdir(), 'ppo-reward-'));
      const res = await trainAgents(
        { scenarios: train, data: {}, out },
        {
          ...tiny,
          mode: 'ppo',
          steps: 1,
          scenariosPerIteration: 1,
          ppo: { epochs: 1, minibatch: 64, demoRows: 32 },
          rl: { ...DEFAULT_RL, closedLoop: { ...DEFAULT_RL.closedLoop, reward: { progressPerM } } },
        },
      );
      return res.curve[0].return;
    };
    // Same seed, same rollout: only the reward differs. Without a progress term only penalties are left.
    const none = await firstReturn(0);
    const some = await firstReturn(0.2);
    const more = await firstReturn(0.4);
    expect(none).toBeLessThanOrEqual(0);
    expect(some).toBeGreaterThan(none);
    expect(more - none).toBeCloseTo(2 * (some - none), 4);
  }, 120_000);
});
