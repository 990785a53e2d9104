// `drivekit stage agents` as its own process over real ZeroMQ sockets: one batch of observation rows of a
// road scene in, the shipped policy's actions out — equal to the in-process learned agent's argmax actions.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RecordBatch } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { Pull, Push } from 'zeromq';
import { batchToActions, observationsToBatch } from '../../../core/arrow/agentCodec.ts';
import { pointCloudToBatch } from '../../../core/arrow/codec.ts';
import { allocatePointCloud } from '../../../core/arrow/records.ts';
import { REPO_ROOT } from '../../../core/paths.ts';
import { batchMessage, eosMessage, parseMessage } from '../../../core/stream/message.ts';
import { learnedAgent, readLearnedModel, SHIPPED_AGENT_MODEL } from '../../../simulation/agents/learned.ts';
import { ACTION_STRIDE, SimEnv } from '../../../simulation/env.ts';
import { Observer } from '../../../simulation/observation.ts';
import { drivenAgents } from '../../../simulation/training/policyStep.ts';
import { straightRoadScenario } from '../../simulation/fixtures.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-stage-agents-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

/** Run the stage, send it `batches` and end-of-stream, collect its answers and its --json summary. */
async function runStage(batches: RecordBatch[]) {
  const inUrl = `ipc://${tmp}/in.sock`;
  const outUrl = `ipc://${tmp}/out.sock`;
  const child = spawn(
    process.execPath,
    [
      path.join(REPO_ROOT, 'bin/drivekit.js'),
      'stage',
      'agents',
      '--in',
      `bind:${inUrl}`,
      '--out',
      `bind:${outUrl}`,
      '--json',
    ],
    { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  let err = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (err += d));
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const pull = new Pull();
  const push = new Push({ linger: 2000 });
  try {
    pull.connect(outUrl);
    push.connect(inUrl);
    for (const b of batches) await push.send(batchMessage('observations', b));
    await push.send(eosMessage('observations', batches.length));
    const answers: RecordBatch[] = [];
    for (;;) {
      const msg = parseMessage(await pull.receive(), 'agentActions');
      if (msg.type === 'eos') break;
      if (msg.type === 'batch') answers.push(msg.batch);
    }
    const exitCode = await exit;
    if (exitCode !== 0) console.error(err);
    return {
      exitCode,
      answers,
      summary: JSON.parse(out.trim().split('\n').pop()!) as Record<string, unknown>,
    };
  } finally {
    push.close();
    pull.close();
    if (child.exitCode === null) child.kill('SIGKILL');
  }
}

describe('drivekit stage agents', () => {
  it("answers observation rows with the in-process policy's argmax actions, per agent id", async () => {
    const s = straightRoadScenario({ numAgents: 6, spacingM: 12 });
    s.controlled.fill(1);
    const env = new SimEnv([s]);
    // In process: the learned agent (argmax) writes its actions into env.actions.
    const policy = learnedAgent(SHIPPED_AGENT_MODEL)();
    policy.reset(env);
    policy.act(env);
    const agents = drivenAgents(env);
    expect(agents.length).toBe(6);
    const { spec } = readLearnedModel(SHIPPED_AGENT_MODEL);
    const observer = new Observer(spec.observation);
    const { obs } = observer.observe(env, agents);
    const ids = Int32Array.from(agents, (g) => 100 + g);
    const batch = observationsToBatch(
      { agentId: ids, size: observer.size, obs },
      { scenario_id: s.id, step: '0' },
    );
    const wrongKind = pointCloudToBatch(allocatePointCloud(5));
    const run = await runStage([batch, wrongKind]);
    expect(run.exitCode).toBe(0);
    expect(run.answers).toHaveLength(1);
    const a = batchToActions(run.answers[0]);
    expect(run.answers[0].schema.metadata.get('scenario_id')).toBe(s.id);
    expect(Array.from(a.agentId)).toEqual(Array.from(ids));
    const accel = Array.from(agents, (g) => env.actions[g * ACTION_STRIDE]);
    const curvature = Array.from(agents, (g) => env.actions[g * ACTION_STRIDE + 1]);
    expect(Array.from(a.accel)).toEqual(accel);
    expect(Array.from(a.curvature)).toEqual(curvature);
    expect(run.summary).toMatchObject({ stage: 'agents', stopped_by: 'eos' });
    expect(JSON.stringify(run.summary)).toMatch(/"wrong-schema":1/);
  });
});
