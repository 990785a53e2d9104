// The Sim Agents submission export: a sim output written as SimAgentsChallengeSubmission and decoded by
// protobufjs from the public .proto text (an independent decoder): ids, 32 scenes, 80 steps, the values;
// a rollout directory with wrong agent ids or steps is refused with a one-line error naming the file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import protobuf from 'protobufjs';
import { afterAll, describe, expect, it } from 'vitest';
import { agentStatesToBatch, batchToAgentStates } from '../../core/arrow/codec.ts';
import { readArrowFile, writeArrowFile } from '../../core/arrow/ipc.ts';
import type { AgentStates } from '../../core/arrow/records.ts';
import { InputError } from '../../core/errors.ts';
import { readRolloutGroups } from '../../simulation/export/rolloutSet.ts';
import { saveScenario } from '../../simulation/scenarioIo.ts';
import { runExport } from '../../tools/commands/export.ts';
import { runSim } from '../../tools/commands/sim.ts';
import { straightRoadScenario } from './fixtures.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wosac-export-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const PROTO = path.join(import.meta.dirname, 'fixtures', 'sim_agents_submission.proto');

/** A 91-step road scenario (current step 10) whose last agent appears only at step 20: not simulated. */
function womdShaped(numSteps = 91) {
  const s = straightRoadScenario({ numAgents: 4, numSteps });
  s.id = 'road-91';
  s.controlled.fill(1);
  s.agents.valid.fill(0, 3 * numSteps, 3 * numSteps + 20);
  s.tracksToPredict = Int32Array.of(1);
  return s;
}

interface Decoded {
  scenario_rollouts: {
    scenario_id: string;
    joint_scenes: {
      simulated_trajectories: {
        object_id: number;
        center_x: number[];
        center_y: number[];
        center_z: number[];
        heading: number[];
      }[];
    }[];
  }[];
  submission_type: number;
}

async function simulate(name: string, s = womdShaped(), rollouts = 32): Promise<string> {
  const file = path.join(tmp, `${name}.json`);
  saveScenario(s, file);
  const out = path.join(tmp, name);
  await runSim({ scenarios: file, agents: 'cv', out, rollouts, seed: 5, json: true });
  return out;
}

/** Rewrite a sim output's rollouts.arrow keeping only the rows `keep` accepts (ids may be remapped). */
async function tamper(
  dir: string,
  keep: (st: AgentStates, k: number) => boolean,
  id?: (v: number) => number,
) {
  const file = path.join(dir, 'rollouts.arrow');
  const batches = readArrowFile(file).batches.map((b) => {
    const st = batchToAgentStates(b);
    const rows = Array.from(st.step.keys()).filter((k) => keep(st, k));
    const pick = <A extends { [i: number]: unknown; length: number }>(arr: A) => rows.map((k) => arr[k]);
    const out: AgentStates = {
      scenarioId: pick(st.scenarioId) as string[],
      type: pick(st.type) as string[],
      step: Int32Array.from(pick(st.step) as number[]),
      agentId: Int32Array.from((pick(st.agentId) as number[]).map(id ?? ((v) => v))),
      valid: Uint8Array.from(pick(st.valid) as number[]),
      ...Object.fromEntries(
        (['x', 'y', 'z', 'yaw', 'vx', 'vy', 'length', 'width', 'height'] as const).map((c) => [
          c,
          Float32Array.from(pick(st[c]) as number[]),
        ]),
      ),
    } as AgentStates;
    return agentStatesToBatch(out);
  });
  await writeArrowFile(file, batches);
}

describe('drivekit export --format wosac', () => {
  it('writes a submission the public proto decodes: ids, 32 joint scenes, 80 steps, the rollout values', async () => {
    const dir = await simulate('ok');
    const target = path.join(tmp, 'out', 'submission.binproto');
    const r = await runExport({ rollouts: dir, format: 'wosac', out: target, json: true });
    expect(r.files).toEqual([target]);
    const type = new protobuf.Root()
      .loadSync(PROTO, { keepCase: true })
      .lookupType('waymo.open_dataset.SimAgentsChallengeSubmission');
    const msg = type.toObject(type.decode(fs.readFileSync(target)), { enums: Number }) as Decoded;
    expect(msg.submission_type).toBe(1);
    expect(msg.scenario_rollouts.length).toBe(1);
    const sr = msg.scenario_rollouts[0];
    expect(sr.scenario_id).toBe('road-91');
    expect(sr.joint_scenes.length).toBe(32);
    const [g] = readRolloutGroups(dir);
    const s = g.scenario;
    for (const [n, scene] of sr.joint_scenes.entries()) {
      // Agents valid at the current step (not the late one, id 103), in row order.
      expect(scene.simulated_trajectories.map((t) => t.object_id)).toEqual([100, 101, 102]);
      for (const [a, tr] of scene.simulated_trajectories.entries()) {
        for (const f of ['center_x', 'center_y', 'center_z', 'heading'] as const)
          expect(tr[f].length).toBe(80);
        const base = a * s.numSteps + s.currentStep + 1;
        const want = (arr: Float32Array) => Array.from(arr.subarray(base, base + 80));
        expect(tr.center_x).toEqual(want(g.rollouts[n].x));
        expect(tr.center_y).toEqual(want(g.rollouts[n].y));
        expect(tr.heading).toEqual(want(g.rollouts[n].yaw));
      }
    }
    // The 32 scenes are 32 different rollouts of the same scenario.
    expect(sr.joint_scenes[0].simulated_trajectories[0].center_x).not.toEqual(
      sr.joint_scenes[1].simulated_trajectories[0].center_x,
    );
  });

  it('refuses scenarios that are not 80 future steps after step 10', async () => {
    const dir = await simulate('short', womdShaped(31), 2);
    await expect(runExport({ rollouts: dir, format: 'wosac', json: true })).rejects.toThrow(
      /rollouts\.arrow: scenario 'road-91' has 20 future steps after step 10; a Sim Agents submission needs 80 after step 10/,
    );
  });

  it('refuses a rollout directory with a simulated agent missing, an unknown agent id or missing steps', async () => {
    const missing = await simulate('missing', womdShaped(), 1);
    await tamper(missing, (st, k) => st.agentId[k] !== 101);
    const err = runExport({ rollouts: missing, format: 'wosac', json: true });
    await expect(err).rejects.toThrow(InputError);
    await expect(err).rejects.toThrow(
      /missing[/\\]rollouts\.arrow: scenario 'road-91': 1 agent\(s\) valid at the current step are not simulated \(ids 101\)/,
    );
    const unknown = await simulate('unknown', womdShaped(), 1);
    await tamper(
      unknown,
      () => true,
      (v) => (v === 102 ? 999 : v),
    );
    await expect(runExport({ rollouts: unknown, format: 'wosac', json: true })).rejects.toThrow(
      /unknown[/\\]rollouts\.arrow: row \d+: agent 999 step 0 is not in scenario 'road-91'/,
    );
    const cut = await simulate('cut', womdShaped(), 1);
    await tamper(cut, (st, k) => st.step[k] < 90);
    await expect(runExport({ rollouts: cut, format: 'wosac', json: true })).rejects.toThrow(
      /cut[/\\]rollouts\.arrow: scenario 'road-91' rollout 0: agent id 100 has no state at step 90/,
    );
  });
});
