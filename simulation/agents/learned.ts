// The learned traffic agent (RTR / BC / PPO policies from `drivekit train-agents`): one network drives
// every controlled agent, one batched onnxruntime call per step, actions sampled per agent and rollout.
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { checkAgentGraph } from './agentGraph.ts';
import type { Worker } from 'node:worker_threads';
import { InputError } from '../../core/errors.ts';
import { startTsWorker } from '../../core/workers.ts';
import type { SimEnv } from '../env.ts';
import type { AgentType } from '../scenario.ts';
import { type ObservationConfig, Observer, observationSize } from '../observation.ts';
import { ActionBins, type ActionBinsConfig } from '../training/actionBins.ts';
import { actionBase, drivenAgents, writeActions } from '../training/policyStep.ts';
import { agentKey } from './agentNoise.ts';
import {
  allPicked,
  CTRL_PICK_MODE,
  CTRL_POSTED,
  CTRL_STEP,
  type PickBuffers,
  pickReadyChunks,
} from './chunkPicking.ts';
import type { Policy } from './policy.ts';
import { checkedProbeDriven, keepProbeActions, probeDrivenMask } from './probeDriven.ts';
import { DEFAULT_RULE_AGENTS, RuleAgents, type RuleAgentsConfig } from './ruleAgents.ts';

/** The shipped model (`--agents learned`). */
export const SHIPPED_AGENT_MODEL = fileURLToPath(new URL('../../models/agent.onnx', import.meta.url));

/** What the learned agent needs besides the ONNX bytes: from the model's metadata JSON. */
export interface LearnedModelSpec {
  observation: ObservationConfig;
  bins: ActionBinsConfig;
  /**
   * True: the network drives moving vehicles and cyclists only; parked vehicles and pedestrians follow
   * the rules of ruleAgents.ts. Absent (older models): the network drives every agent.
   */
  ruleAgents?: boolean;
  /** Overrides of those rules' settings (ruleAgents.ts DEFAULT_RULE_AGENTS), where the metadata gives some. */
  ruleAgentsConfig?: Partial<RuleAgentsConfig>;
  /**
   * Softmax temperature the model samples at unless told otherwise (absent: 1), chosen on the model's
   * selection scenarios: sampling at 1 spreads mass onto the far, mostly braking, acceleration bins,
   * and the agents drift below the speed they were taught.
   */
  temperature?: number;
  /**
   * Classes the network leaves to its observation's IDM probe (probeDriven.ts): their action is the zero
   * correction of residual bins. Absent: the network drives every class it drives.
   */
  probeDriven?: AgentType[];
}

export interface LearnedOptions {
  /** Seed of the sampled actions; absent: argmax (deterministic). */
  seed?: number;
  /** Softmax temperature of the sampled actions (default: the model's own, else 1). */
  temperature?: number;
  /** onnxruntime intra-op threads of the inference thread (default 2). */
  threads?: number;
}

/** The metadata JSON next to an .onnx model (agent.onnx → agent.json). */
export function modelMetaPath(onnx: string): string {
  return onnx.replace(/\.onnx$/, '') + '.json';
}

/** Read a learned agent model: the ONNX bytes and its observation / action-bin settings. */
export function readLearnedModel(onnx: string): { bytes: Uint8Array; spec: LearnedModelSpec } {
  if (!fs.existsSync(onnx))
    throw new InputError(onnx, 'no such model file (train one with drivekit train-agents)');
  const metaFile = modelMetaPath(onnx);
  if (!fs.existsSync(metaFile))
    throw new InputError(metaFile, 'missing: the learned model needs its metadata JSON');
  let meta: { settings?: Partial<LearnedModelSpec> };
  try {
    meta = JSON.parse(fs.readFileSync(metaFile, 'utf8')) as typeof meta;
  } catch (e) {
    throw new InputError(metaFile, `not valid JSON (${(e as Error).message})`);
  }
  const s = meta?.settings;
  if (!s?.observation || !s?.bins)
    throw new InputError(
      metaFile,
      "no settings.observation / settings.bins (not a drivekit agent model's metadata)",
    );
  // Metadata written before observation versions existed describes the version-1 layout.
  const observation = { ...s.observation, version: s.observation.version ?? 1 };
  return {
    bytes: new Uint8Array(fs.readFileSync(onnx)),
    spec: {
      observation,
      bins: s.bins,
      ruleAgents: s.ruleAgents === true,
      ...(s.ruleAgentsConfig !== undefined
        ? { ruleAgentsConfig: checkedRuleConfig(metaFile, s.ruleAgentsConfig) }
        : {}),
      ...(s.temperature !== undefined ? { temperature: checkedTemperature(metaFile, s.temperature) } : {}),
      ...(s.probeDriven !== undefined
        ? { probeDriven: checkedProbeDriven(metaFile, s.probeDriven, new ActionBins(s.bins)) }
        : {}),
    },
  };
}

/** settings.ruleAgentsConfig: known keys of the rules' settings with finite numbers. */
function checkedRuleConfig(file: string, c: unknown): Partial<RuleAgentsConfig> {
  if (typeof c !== 'object' || c === null || Array.isArray(c))
    throw new InputError(file, 'settings.ruleAgentsConfig must be an object of rule settings');
  for (const [k, v] of Object.entries(c)) {
    const known = DEFAULT_RULE_AGENTS[k as keyof RuleAgentsConfig];
    if (typeof known !== 'number')
      throw new InputError(
        file,
        `settings.ruleAgentsConfig.${k} is not a numeric rule setting (ruleAgents.ts)`,
      );
    if (typeof v !== 'number' || !Number.isFinite(v))
      throw new InputError(
        file,
        `settings.ruleAgentsConfig.${k} must be a finite number, got ${JSON.stringify(v)}`,
      );
  }
  return c as Partial<RuleAgentsConfig>;
}

function checkedTemperature(file: string, t: unknown): number {
  if (typeof t !== 'number' || !(t > 0) || !Number.isFinite(t))
    throw new InputError(file, `settings.temperature must be a number > 0, got ${JSON.stringify(t)}`);
  return t;
}

/** Rows per onnxruntime run on the inference thread: small enough that a run's intermediates stay in cache. */
export const INFERENCE_CHUNK_ROWS = 512;

/**
 * A synchronous front to an onnxruntime session on a worker thread: the caller blocks (Atomics.wait)
 * while the worker runs the batch, so the learned agent fits the simulator's synchronous Policy.act.
 * Streamed use (`begin` → write rows, `ready` → `finish`) lets the worker infer the rows already
 * written while the caller writes the next: observation and inference overlap on two cores.
 */
export class SyncInference {
  private worker: Worker | null = null;
  private ctrl: Int32Array<ArrayBufferLike> = new Int32Array(0);
  private obsBuf: Float32Array<ArrayBufferLike> = new Float32Array(0);
  private outBuf: Float32Array<ArrayBufferLike> = new Float32Array(0);
  private capacity = 0;
  private rows = 0;
  private errBuf: Uint8Array<ArrayBufferLike> = new Uint8Array(0);
  private keyBuf: Uint32Array<ArrayBufferLike> = new Uint32Array(0);
  private actionBuf: Int32Array<ArrayBufferLike> = new Int32Array(0);
  private logpBuf: Float32Array<ArrayBufferLike> = new Float32Array(0);
  private temperatureBuf: Float64Array<ArrayBufferLike> = new Float64Array(1);
  private picks: PickBuffers | null = null;
  /** Chunks whose actions this (the calling) thread picked, over the object's life. */
  chunksPickedHere = 0;

  constructor(
    readonly model: Uint8Array,
    readonly obsSize: number,
    readonly actions: number,
    readonly threads = 2,
    readonly chunkRows = INFERENCE_CHUNK_ROWS,
  ) {}

  private start(capacity: number): void {
    this.close();
    const ctrl = new SharedArrayBuffer(32);
    const obs = new SharedArrayBuffer(capacity * this.obsSize * 4);
    const out = new SharedArrayBuffer(capacity * this.actions * 4);
    const err = new SharedArrayBuffer(1024);
    const key = new SharedArrayBuffer(capacity * 4);
    const action = new SharedArrayBuffer(capacity * 4);
    const logp = new SharedArrayBuffer(capacity * 4);
    const temperature = new SharedArrayBuffer(8);
    const chunks = new SharedArrayBuffer(4 * Math.ceil(capacity / this.chunkRows));
    this.errBuf = new Uint8Array(err);
    this.keyBuf = new Uint32Array(key);
    this.actionBuf = new Int32Array(action);
    this.logpBuf = new Float32Array(logp);
    this.temperatureBuf = new Float64Array(temperature);
    this.ctrl = new Int32Array(ctrl);
    this.obsBuf = new Float32Array(obs);
    this.outBuf = new Float32Array(out);
    this.picks = {
      ctrl: this.ctrl,
      chunks: new Int32Array(chunks),
      logits: this.outBuf,
      key: this.keyBuf,
      action: this.actionBuf,
      logp: this.logpBuf,
      temperature: this.temperatureBuf,
      actions: this.actions,
      chunkRows: this.chunkRows,
    };
    this.capacity = capacity;
    const w = startTsWorker(new URL('./learnedWorker.ts', import.meta.url), {
      workerData: {
        model: this.model,
        threads: this.threads,
        ctrl,
        obs,
        out,
        err,
        key,
        action,
        logp,
        temperature,
        chunks,
        obsSize: this.obsSize,
        actions: this.actions,
        chunkRows: this.chunkRows,
      },
    });
    w.unref();
    this.worker = w;
    this.waitWhile(0, 'start');
    if (Atomics.load(this.ctrl, 0) !== 4)
      throw new Error(`learned agent: inference thread failed to start ${this.lastError()}`);
  }

  private waitWhile(state: number, what: string): void {
    const t0 = Date.now();
    while (Atomics.load(this.ctrl, 0) === state) {
      Atomics.wait(this.ctrl, 0, state, 1000);
      if (Date.now() - t0 > 300_000) throw new Error(`learned agent: inference thread timed out (${what})`);
    }
  }

  /**
   * Start a request of n rows: returns the (shared) buffer to write the observations [n, obsSize]
   * into; the worker starts on each chunk as soon as `ready` says its rows are written. With `pick`,
   * each row's action is also picked from its chunk's logits (selectActions; sampled rows draw
   * uniformAt(keys[q], step, 11)) — by the worker, or by this thread in `finish` once it is idle — and
   * read back with `picked()` after `finish`.
   */
  begin(
    n: number,
    pick?: { mode: 'argmax' | 'sample'; keys: ArrayLike<number>; step: number; temperature?: number },
  ): Float32Array<ArrayBufferLike> {
    if (n > this.capacity || !this.worker) this.start(Math.max(n, 256, Math.ceil(this.capacity * 1.5)));
    this.rows = n;
    const view = this.obsBuf.subarray(0, n * this.obsSize);
    if (n === 0) return view;
    this.ctrl[CTRL_PICK_MODE] = pick ? (pick.mode === 'sample' ? 2 : 1) : 0;
    if (pick) {
      this.picks!.chunks.fill(0, 0, Math.ceil(n / this.chunkRows));
      for (let q = 0; q < n; q++) this.keyBuf[q] = pick.keys[q];
      this.ctrl[CTRL_STEP] = pick.step;
      this.temperatureBuf[0] = pick.temperature ?? 1;
    }
    Atomics.store(this.ctrl, 2, 0);
    this.ctrl[1] = n;
    Atomics.store(this.ctrl, 0, 1);
    Atomics.notify(this.ctrl, 0);
    return view;
  }

  /** The first `rows` rows of the buffer `begin` returned are written. */
  ready(rows: number): void {
    Atomics.store(this.ctrl, 2, rows);
    Atomics.notify(this.ctrl, 2);
  }

  /**
   * Wait for the request's logits [n, actions] (a view valid until the next request); with `pick`,
   * this thread picks the actions of chunks the worker leaves it meanwhile (chunkPicking.ts).
   */
  finish(): Float32Array<ArrayBufferLike> {
    const n = this.rows;
    if (n === 0) return this.outBuf.subarray(0, 0);
    this.ready(n);
    if (this.ctrl[CTRL_PICK_MODE] !== 0) this.pickWhileRunning(n);
    this.waitWhile(1, 'run');
    const state = Atomics.load(this.ctrl, 0);
    Atomics.store(this.ctrl, 0, 4);
    if (state !== 2)
      throw new Error(`learned agent: inference failed: ${this.lastError() || 'unknown error'}`);
    return this.outBuf.subarray(0, n * this.actions);
  }

  private pickWhileRunning(n: number): void {
    const t0 = Date.now();
    for (;;) {
      const posted = Atomics.load(this.ctrl, CTRL_POSTED);
      this.chunksPickedHere += pickReadyChunks(this.picks!, n);
      if (allPicked(this.picks!, n) || Atomics.load(this.ctrl, 0) !== 1) return;
      Atomics.wait(this.ctrl, CTRL_POSTED, posted, 1000);
      if (Date.now() - t0 > 300_000) throw new Error('learned agent: inference thread timed out (pick)');
    }
  }

  /** The actions and log-probabilities picked in the last request (`begin` with `pick`). */
  picked(): { action: Int32Array<ArrayBufferLike>; logp: Float32Array<ArrayBufferLike> } {
    return { action: this.actionBuf.subarray(0, this.rows), logp: this.logpBuf.subarray(0, this.rows) };
  }

  /** Logits [n, actions] of the observations [n, obsSize] (a view valid until the next call). */
  run(obs: Float32Array, n: number): Float32Array<ArrayBufferLike> {
    const buf = this.begin(n);
    buf.set(obs.subarray(0, n * this.obsSize));
    return this.finish();
  }

  private lastError(): string {
    const end = this.errBuf.indexOf(0);
    return new TextDecoder().decode(this.errBuf.slice(0, end < 0 ? undefined : end));
  }

  close(): void {
    void this.worker?.terminate();
    this.worker = null;
    this.capacity = 0;
  }
}

/** The learned policy: bicycle dynamics, actions from the network (sampled when seeded, else argmax). */
export class LearnedPolicy implements Policy {
  readonly name = 'learned';
  readonly bins: ActionBins;
  readonly observer: Observer;
  readonly temperature: number;
  private agents: Int32Array<ArrayBufferLike> = new Int32Array(0);
  private rowKeys = new Uint32Array(0);
  private keys = new Uint32Array(0);
  private base = new Float32Array(0);
  /** Parked vehicles and pedestrians, where the model leaves them to rules. */
  readonly rules: RuleAgents | null;
  /** Per TYPE_CODE, the classes left to the probe; null when none is. */
  private readonly probeMask: Uint8Array | null;

  constructor(
    readonly inference: SyncInference,
    spec: LearnedModelSpec,
    readonly opts: LearnedOptions = {},
  ) {
    this.bins = new ActionBins(spec.bins);
    this.observer = new Observer(spec.observation);
    this.rules = spec.ruleAgents ? new RuleAgents(opts.seed ?? 0, spec.ruleAgentsConfig) : null;
    this.temperature = opts.temperature ?? spec.temperature ?? 1;
    // readLearnedModel checked the classes and that the bins are residual.
    this.probeMask = spec.probeDriven?.length ? probeDrivenMask(spec.probeDriven) : null;
  }

  /** The agents the network drove in the last act() (global indices; a view valid until the next). */
  get driven(): Int32Array<ArrayBufferLike> {
    return this.agents;
  }

  reset(env: SimEnv): void {
    env.setDynamics('bicycle');
    this.rules?.reset(env);
    this.keys = new Uint32Array(env.n);
    const seed = this.opts.seed ?? 0;
    for (let g = 0; g < env.n; g++) {
      const si = env.scenarioOf[g];
      this.keys[g] = agentKey(seed, env.scenarios[si].id, env.rollout[si], env.rowOf[g]);
    }
  }

  act(env: SimEnv): void {
    this.rules?.act(env);
    const agents = (this.agents = drivenAgents(env, this.agents, this.rules?.ruled));
    const n = agents.length;
    if (this.rowKeys.length < n) this.rowKeys = new Uint32Array(Math.ceil(n * 1.5));
    for (let q = 0; q < n; q++) this.rowKeys[q] = this.keys[agents[q]];
    // Observed straight into the inference thread's buffer; that thread infers each chunk once it is
    // written and picks its actions, while this one observes the next.
    const inf = this.inference;
    const pick = {
      mode: this.opts.seed === undefined ? ('argmax' as const) : ('sample' as const),
      keys: this.rowKeys,
      step: env.stepCount,
      temperature: this.temperature,
    };
    const obs = inf.begin(n, pick);
    this.observer.observe(env, agents, obs, { every: inf.chunkRows, ready: (rows) => inf.ready(rows) });
    inf.finish();
    let base: Float32Array | undefined;
    if (this.bins.residual) {
      if (this.base.length < 2 * n) this.base = new Float32Array(Math.ceil(n * 3));
      base = actionBase(obs, n, this.observer.cfg, this.base);
    }
    const action = inf.picked().action;
    if (this.probeMask)
      keepProbeActions((q) => env.typeCode[agents[q]], n, action, this.bins, this.probeMask);
    writeActions(env, agents, action, this.bins, base);
  }
}

const cache = new Map<string, { inference: SyncInference; spec: LearnedModelSpec }>();

/** A factory of learned policies of one model file; its inference thread is shared by every policy. */
export function learnedAgent(onnx: string, threads = 2): (opts?: LearnedOptions) => Policy {
  let entry = cache.get(onnx);
  if (!entry) {
    const { bytes, spec } = readLearnedModel(onnx);
    checkAgentGraph(onnx, bytes, observationSize(spec.observation), new ActionBins(spec.bins).count);
    entry = {
      inference: new SyncInference(
        bytes,
        observationSize(spec.observation),
        new ActionBins(spec.bins).count,
        threads,
      ),
      spec,
    };
    cache.set(onnx, entry);
  }
  const e = entry;
  return (opts = {}) => new LearnedPolicy(e.inference, e.spec, opts);
}
