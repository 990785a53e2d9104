import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHIPPED_AGENT_MODEL } from '../../../simulation/agents/learned.ts';
import { SimEnv } from '../../../simulation/env.ts';
import { Observer } from '../../../simulation/observation.ts';
import { ActionBins } from '../../../simulation/training/actionBins.ts';
import { AgentModel } from '../../../simulation/training/agentModel.ts';
import { catkLabel, cornerDistanceM, isRealLog, topKBins } from '../../../simulation/training/catkExpert.ts';
import { DEFAULT_DAGGER } from '../../../simulation/training/dagger.ts';
import { controlAllPresent } from '../../../simulation/training/evaluate.ts';
import { trainAgents } from '../../../simulation/training/trainAgents.ts';
import { runTrainAgents } from '../../../tools/commands/trainAgents.ts';
import { shippedAgentConfig } from './shippedAgent.ts';
import { straightRoadScenario } from '../fixtures.ts';

describe('CAT-K relabelling', () => {
  it('ranks the top-k logits, largest first', () => {
    const l = Float32Array.of(0.1, 3, -1, 2, 2.5, 0);
    const out = new Int32Array(3);
    expect(topKBins(l, 0, 6, 3, out)).toBe(3);
    expect([...out]).toEqual([1, 4, 3]);
    // Row 1 of a two-row batch.
    const two = Float32Array.of(...l, 5, 4, 3, 2, 1, 0);
    topKBins(two, 1, 6, 2, out);
    expect([...out.subarray(0, 2)]).toEqual([0, 1]);
  });

  it('measures box corners: 0 for the same pose, the offset for a shift, more for a turn', () => {
    expect(cornerDistanceM(1, 2, 0.3, 1, 2, 0.3, 4.5, 2)).toBeCloseTo(0, 9);
    expect(cornerDistanceM(0, 0, 0, 0, 1, 0, 4.5, 2)).toBeCloseTo(1, 9);
    expect(cornerDistanceM(0, 0, 0, 0, 0, 0.2, 4.5, 2)).toBeGreaterThan(0.2);
  });

  it("picks, among the policy's top-K, the action that brings a drifted car back to its log", () => {
    const s = controlAllPresent([
      { ...straightRoadScenario({ numAgents: 1, numSteps: 41 }), source: 'womd' },
    ])[0];
    expect(isRealLog(s.source)).toBe(true);
    expect(isRealLog('synthetic')).toBe(false);
    expect(isRealLog('longtail:cut-in')).toBe(false);
    const env = new SimEnv([s]);
    env.reset();
    env.y[0] += 1; // 1 m left of the logged track, heading along it
    const bins = new ActionBins();
    const A = bins.count;
    const keep = ActionBins.nearest(bins.accel, 0);
    const straight = bins.index(keep, ActionBins.nearest(bins.curvature, 0));
    const right = bins.index(keep, ActionBins.nearest(bins.curvature, -0.01));
    const left = bins.index(keep, ActionBins.nearest(bins.curvature, 0.01));
    const logits = new Float32Array(A).fill(-10);
    logits[straight] = 3; // most likely: carry on, 1 m off
    logits[left] = 2; // drifts further away
    logits[right] = 1; // least likely of the three, but steers back
    expect(catkLabel(env, 0, logits, 0, bins, { topK: 3, horizonS: 1, avoidOverlap: false })).toBe(right);
    // With K = 2 the right turn is not a candidate: of those two, straight stays nearer.
    expect(catkLabel(env, 0, logits, 0, bins, { topK: 2, horizonS: 1, avoidOverlap: false })).toBe(straight);
    // Something where the steer-back would end: with avoidOverlap the label keeps clear of it.
    const s2 = controlAllPresent([
      { ...straightRoadScenario({ numAgents: 2, numSteps: 41, spacingM: 1000 }), source: 'womd' },
    ])[0];
    const env2 = new SimEnv([s2]);
    env2.reset();
    env2.y[0] += 1;
    const back = { x: 0, y: 0, yaw: 0 };
    {
      // Where the chosen right turn ends after 1 s, from env2's state.
      const probe = new SimEnv([s2]);
      probe.reset();
      probe.y[0] += 1;
      probe.setDynamics('bicycle');
      for (let t = 0; t < 10; t++) {
        probe.actions[0] = bins.accelOf(right);
        probe.actions[1] = bins.curvatureOf(right);
        probe.step();
      }
      back.x = probe.x[0];
      back.y = probe.y[0];
      back.yaw = probe.yaw[0];
    }
    // A small object (0.4 m box) just right of where the steer-back ends, clear of the straight path.
    env2.x[1] = back.x;
    env2.y[1] = back.y - 1.1;
    env2.yaw[1] = 0;
    env2.length[1] = env2.width[1] = 0.4;
    env2.vx[1] = env2.vy[1] = 0;
    expect(catkLabel(env2, 0, logits, 0, bins, { topK: 3, horizonS: 1, avoidOverlap: false })).toBe(right);
    expect(catkLabel(env2, 0, logits, 0, bins, { topK: 3, horizonS: 1, avoidOverlap: true })).toBe(straight);
    // No valid logged state ahead: no label.
    const T = s.numSteps;
    for (let t = s.currentStep + 1; t < T; t++) s.agents.valid[t] = 0;
    expect(catkLabel(env, 0, logits, 0, bins, { topK: 3, horizonS: 1, avoidOverlap: false })).toBe(-1);
  });

  it('fine-tunes the shipped model from its ONNX (same outputs before training) with CAT-K labels on a real log', async () => {
    const m = await AgentModel.create({ threads: 1, ...shippedAgentConfig() });
    try {
      await m.loadWeights(SHIPPED_AGENT_MODEL);
      const s = straightRoadScenario({ numAgents: 2 });
      const env = new SimEnv(controlAllPresent([s]));
      env.reset();
      const { obs } = new Observer(m.cfg.observation).observe(env);
      const before = (await m.evaluate(obs, 2)).logits.slice();
      // The shipped model is not the random initialisation: its logits differ from a fresh network's.
      const fresh = await AgentModel.create({ threads: 1, ...shippedAgentConfig() });
      const init = (await fresh.evaluate(obs, 2)).logits;
      await fresh.dispose();
      let diff = 0;
      for (let i = 0; i < before.length; i++) diff = Math.max(diff, Math.abs(before[i] - init[i]));
      expect(diff).toBeGreaterThan(0.1);
      // And they are the ONNX file's own (onnxruntime on models/agent.onnx).
      const ort = await import('onnxruntime-node');
      const sess = await ort.InferenceSession.create(SHIPPED_AGENT_MODEL);
      const r = await sess.run({ obs: new ort.Tensor('float32', obs, [2, m.obsSize]) });
      const want = r.logits.data as Float32Array;
      for (let i = 0; i < before.length; i++) expect(before[i]).toBeCloseTo(want[i], 3);
    } finally {
      await m.dispose();
    }
    const bad = path.join(os.tmpdir(), `catk-bad-${process.pid}.onnx`);
    fs.writeFileSync(bad, fs.readFileSync(path.join(path.dirname(SHIPPED_AGENT_MODEL), 'agent-bc.onnx')));
    const m1 = await AgentModel.create({ threads: 1 });
    await expect(m1.loadWeights(bad)).rejects.toThrow(/catk-bad.*expert\.0\.weight/);
    await m1.dispose();

    const real = controlAllPresent([
      { ...straightRoadScenario({ numAgents: 3, numSteps: 41 }), id: 'r', source: 'womd' },
    ]);
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'catk-'));
    const res = await trainAgents(
      { scenarios: real, data: {}, out, init: SHIPPED_AGENT_MODEL },
      {
        mode: 'dagger',
        steps: 1,
        batch: 32,
        scenariosPerIteration: 1,
        ruleAgents: true,
        model: { threads: 1, ...shippedAgentConfig() },
        dagger: { ...DEFAULT_DAGGER, stepsPerRound: 2, realExpert: 'catk' },
      },
    );
    expect(res.curve[0].samples).toBeGreaterThan(0);
    expect(fs.existsSync(path.join(out, 'agent.onnx'))).toBe(true);
  }, 180_000);

  it('train-agents refuses an unknown real expert, naming the option', async () => {
    const base = { scenarios: 'town:1', out: os.tmpdir(), seed: 1, json: true };
    await expect(runTrainAgents({ ...base, mode: 'dagger', realExpert: 'oracle' })).rejects.toThrow(
      /--real-expert/,
    );
    await expect(runTrainAgents({ ...base, mode: 'bc', realExpert: 'catk' })).rejects.toThrow(
      /--real-expert/,
    );
  });
});
