// The learned agent's fast path (simulation/agents/learned.ts: observations streamed into the inference
// thread, inferred there in fixed chunks while the rest is observed) against the plain path: the whole
// batch observed first, then one onnxruntime run of the shipped model on the main thread.
import { afterAll, describe, expect, it } from 'vitest';
import ort from 'onnxruntime-node';
import { readLearnedModel, SHIPPED_AGENT_MODEL, SyncInference } from '../../../simulation/agents/learned.ts';
import { uniformAt } from '../../../simulation/agents/agentNoise.ts';
import { SimEnv } from '../../../simulation/env.ts';
import { Observer } from '../../../simulation/observation.ts';
import { ActionBins } from '../../../simulation/training/actionBins.ts';
import { controlAllPresent } from '../../../simulation/training/evaluate.ts';
import { drivenAgents, selectActions, writeActions } from '../../../simulation/training/policyStep.ts';
import { generateTown } from '../../../simulation/town/town.ts';

const { bytes, spec } = readLearnedModel(SHIPPED_AGENT_MODEL);
const bins = new ActionBins(spec.bins);
// Chunks of 7 rows: many chunks per step, the last one short.
const inference = new SyncInference(bytes, new Observer(spec.observation).size, bins.count, 1, 7);
afterAll(() => inference.close());

describe('learned agent inference, streamed in chunks', () => {
  it('gives the logits and actions of one plain run on the whole batch, step after step', async () => {
    const env = new SimEnv(controlAllPresent([generateTown({ seed: 5 }, 31).scenario]));
    env.setDynamics('bicycle');
    const plainObserver = new Observer(spec.observation);
    const fastObserver = new Observer(spec.observation);
    const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1 });
    let rows = 0;
    for (let step = 0; step < 4; step++) {
      const agents = drivenAgents(env);
      const n = agents.length;
      expect(n).toBeGreaterThan(20);
      const { obs } = plainObserver.observe(env, agents);
      const plain = (await session.run({ obs: new ort.Tensor('float32', obs, [n, obs.length / n]) })).logits
        .data as Float32Array;
      // The inference thread also picks the actions (sampled at even steps, argmax at odd ones).
      const keys = Uint32Array.from(agents, (g) => (g * 2654435761) >>> 0);
      const mode = step % 2 === 0 ? ('sample' as const) : ('argmax' as const);
      const buf = inference.begin(n, { mode, keys, step, temperature: 0.8 });
      fastObserver.observe(env, agents, buf, { every: 7, ready: (r) => inference.ready(r) });
      expect(Array.from(buf)).toEqual(Array.from(obs)); // the same observation, written in place
      const fast = inference.finish();
      const want = { action: new Int32Array(n), logp: new Float32Array(n) };
      const u = (q: number) => uniformAt(keys[q], step, 11);
      selectActions(plain, n, bins.count, mode, u, want.action, want.logp, 0.8);
      expect(Array.from(inference.picked().action)).toEqual(Array.from(want.action));
      let worst = 0;
      for (let i = 0; i < plain.length; i++) worst = Math.max(worst, Math.abs(fast[i] - plain[i]));
      expect(worst).toBeLessThan(1e-4);
      // The actions the agents take (argmax and sampled) are the same.
      for (const mode of ['argmax', 'sample'] as const) {
        const a = [new Int32Array(n), new Int32Array(n)];
        const lp = [new Float32Array(n), new Float32Array(n)];
        const v = (q: number) => ((q * 7919 + step * 104729) % 1000) / 1000;
        selectActions(plain, n, bins.count, mode, v, a[0], lp[0]);
        selectActions(fast, n, bins.count, mode, v, a[1], lp[1]);
        expect(Array.from(a[1])).toEqual(Array.from(a[0]));
      }
      // The one-call form gives the same logits too.
      const again = inference.run(obs, n);
      expect(Array.from(again)).toEqual(Array.from(fast));
      rows += n;
      // Drive on with the argmax actions so later steps see moved agents.
      const act = new Int32Array(n);
      selectActions(plain, n, bins.count, 'argmax', () => 0, act, new Float32Array(n));
      writeActions(env, agents, act, bins);
      env.step();
    }
    expect(rows).toBeGreaterThan(100);
    await session.release();
  }, 300_000); // a town is generated and 4 steps observed twice: minutes on a loaded 2-core machine

  it('gives the same logits on one intra-op thread as on two (the worker switches between them)', async () => {
    const D = new Observer(spec.observation).size;
    const one = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1 });
    const two = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 2 });
    for (const rows of [1, 7, 333, 512]) {
      const x = Float32Array.from({ length: rows * D }, (_, i) => Math.sin(i * 0.37) * 3);
      const a = (await one.run({ obs: new ort.Tensor('float32', x, [rows, D]) })).logits.data;
      const b = (await two.run({ obs: new ort.Tensor('float32', x, [rows, D]) })).logits.data;
      expect(Array.from(b as Float32Array)).toEqual(Array.from(a as Float32Array));
    }
    await one.release();
    await two.release();
  });

  it('picks the same actions when the calling thread, idle in finish, picks chunks the worker left it', () => {
    const env = new SimEnv(controlAllPresent([generateTown({ seed: 6 }, 31).scenario]));
    const agents = drivenAgents(env);
    const n = agents.length;
    const { obs } = new Observer(spec.observation).observe(env, agents);
    const keys = Uint32Array.from(agents, (g) => (g * 40503 + 17) >>> 0);
    const chunks = Math.ceil(n / inference.chunkRows);
    expect(chunks).toBeGreaterThan(3);
    let pickedHere = 0;
    for (const [mode, temperature] of [
      ['sample', 1],
      ['sample', 0.6],
      ['argmax', 1],
    ] as const) {
      // Every row written before `finish`: the worker leaves to this thread the chunks it has not picked by the
      // time this thread waits — all but the last on an idle machine, fewer when this thread is descheduled
      // meanwhile (a loaded CI runner), never the last.
      const before = inference.chunksPickedHere;
      const buf = inference.begin(n, { mode, keys, step: 3, temperature });
      buf.set(obs);
      const logits = inference.finish();
      const here = inference.chunksPickedHere - before;
      expect(here).toBeGreaterThanOrEqual(0);
      expect(here).toBeLessThanOrEqual(chunks - 1);
      pickedHere += here;
      const want = { action: new Int32Array(n), logp: new Float32Array(n) };
      const u = (q: number) => uniformAt(keys[q], 3, 11);
      selectActions(logits.slice(), n, bins.count, mode, u, want.action, want.logp, temperature);
      const got = inference.picked();
      expect(Array.from(got.action)).toEqual(Array.from(want.action));
      expect(Array.from(got.logp)).toEqual(Array.from(want.logp));
    }
    // The path under test ran: this thread picked chunks in at least one of the three steps.
    expect(pickedHere).toBeGreaterThan(0);
  }, 300_000);
});
