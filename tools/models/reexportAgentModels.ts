// Re-exports learned agent models (models/agent*.onnx) with the network's current inference graph and the
// same weights, and writes one only where its logits and values on town observations match bit for bit.
// Run: node --import tsx tools/models/reexportAgentModels.ts models/agent.onnx [more.onnx …]
import fs from 'node:fs';
import * as ort from 'onnxruntime-node';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import * as nn from '../../core/nn/index.ts';
import { IdmPolicy } from '../../simulation/agents/idmAgent.ts';
import { modelMetaPath, readLearnedModel } from '../../simulation/agents/learned.ts';
import { SimEnv } from '../../simulation/env.ts';
import { Observer } from '../../simulation/observation.ts';
import { loadOnnxParams } from '../../simulation/selfplay/onnxWeights.ts';
import { ActionBins } from '../../simulation/training/actionBins.ts';
import { controlAllPresent } from '../../simulation/training/evaluate.ts';
import { createPolicyNet, inferenceGraph } from '../../simulation/training/policyNet.ts';
import { generateTown } from '../../simulation/town/town.ts';

/** Town observations the two graphs must agree on: every 5th step of an IDM rollout of two towns. */
function checkObservations(observer: Observer): { obs: Float32Array; rows: number } {
  const env = new SimEnv(
    controlAllPresent([generateTown({ seed: 3 }, 40).scenario, generateTown({ seed: 211 }, 40).scenario]),
  );
  const idm = new IdmPolicy();
  idm.reset(env);
  const parts: Float32Array[] = [];
  while (!env.done) {
    if (env.stepCount % 5 === 0) parts.push(observer.observe(env).obs);
    idm.act(env);
    env.step();
  }
  const obs = new Float32Array(parts.reduce((s, p) => s + p.length, 0));
  let at = 0;
  for (const p of parts) {
    obs.set(p, at);
    at += p.length;
  }
  return { obs, rows: obs.length / observer.size };
}

async function outputsOf(bytes: Uint8Array, obs: Float32Array, rows: number, size: number) {
  const s = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1 });
  const r = await s.run({ obs: new ort.Tensor('float32', obs, [rows, size]) });
  await s.release();
  return [r.logits.data as Float32Array, r.value.data as Float32Array];
}

async function reexport(file: string): Promise<string> {
  const { bytes, spec } = readLearnedModel(file);
  const meta = JSON.parse(fs.readFileSync(modelMetaPath(file), 'utf8')) as { settings: { net?: object } };
  const bins = new ActionBins(spec.bins);
  const net = createPolicyNet([bins.accel.length, bins.curvature.length], spec.observation, meta.settings.net);
  loadOnnxParams(file, net.params);
  const inf = inferenceGraph(net);
  const next = nn.exportOnnxBytes(inf.graph, { logits: inf.logits, value: inf.value });
  if (Buffer.from(next).equals(Buffer.from(bytes))) return 'unchanged';
  const observer = new Observer(spec.observation);
  const { obs, rows } = checkObservations(observer);
  const [was, now] = await Promise.all([
    outputsOf(bytes, obs, rows, observer.size),
    outputsOf(next, obs, rows, observer.size),
  ]);
  for (let k = 0; k < 2; k++) {
    for (let i = 0; i < was[k].length; i++) {
      if (Object.is(was[k][i], now[k][i])) continue;
      return `NOT written: ${k === 0 ? 'logit' : 'value'} ${i} differs (${was[k][i]} → ${now[k][i]})`;
    }
  }
  writeFileAtomicSync(file, next);
  return `re-exported (${rows} observations, logits and values identical; ${bytes.length} → ${next.length} bytes)`;
}

const files = process.argv.slice(2);
if (files.length === 0 || files.includes('--help')) {
  process.stderr.write('usage: node --import tsx tools/models/reexportAgentModels.ts <model.onnx>…\n');
  process.exit(files.length === 0 ? 1 : 0);
}
for (const f of files) process.stdout.write(`${f}: ${await reexport(f)}\n`);
