// The generic stream stage: receive batches (PULL/SUB) or produce them (a source), transform each,
// send the results (PUSH/PUB), count everything, skip bad messages, and stop cleanly on end-of-stream,
// source end or abort (SIGINT/SIGTERM): stop taking work, finish what is in flight, forward EOS, close.
import type { RecordBatch } from 'apache-arrow';
import type { XPublisher } from 'zeromq';
import type { RecordKind } from '../arrow/schemas.ts';
import { SchemaError } from '../arrow/validate.ts';
import { newCounters, SkipLog, type StageCounters } from './counters.ts';
import type { Endpoint } from './endpoint.ts';
import type { PeerWatch } from './peerWatch.ts';
import {
  batchMessage,
  type BeginOfStream,
  bosMessage,
  checkTopic,
  eosMessage,
  parseMessage,
  type EndOfStream,
  type EosInfo,
} from './message.ts';
import {
  DEFAULT_SOCKET_CONFIG,
  openInput,
  openOutput,
  waitForSubscribers,
  type InputSocket,
  type OutputSocket,
  type SocketConfig,
} from './sockets.ts';

export interface StageInput {
  endpoint: Endpoint;
  /** Record kind every batch must match; others are skipped as 'wrong-schema'. */
  kind?: RecordKind;
  /** SUB topic prefixes (all when empty). */
  topics?: string[];
  /** End-of-stream markers to wait for (one per upstream producer). Default 1. */
  eosCount?: number;
}

export interface StageOutput {
  endpoint: Endpoint;
  topic: string;
  /** PUB only: wait for this many subscribers before the first send (PUB drops until then). */
  subscribers?: number;
  /** Facts for the end-of-stream marker (a replay's log id and frame range); `complete` is set here. */
  eosInfo?: EosInfo;
  /** Sent as a begin-of-stream marker before the first batch (a source's log id and range). */
  bos?: Omit<BeginOfStream, 'topic'>;
}

/**
 * Thrown by a transform when the stage cannot go on (its output cannot be written, e.g. a full disk): the
 * stage stops and runStage rejects, instead of counting the message as skipped and carrying on.
 */
export class StageFatalError extends Error {
  override name = 'StageFatalError';
}

export interface BatchContext {
  topic: string;
  /** Index of this batch among the valid ones received (or produced). */
  index: number;
}

/** A stage's work on one batch: a batch to send, several (sent in order), or null to send nothing. */
export type TransformResult = RecordBatch | RecordBatch[] | null;
export type Transform = (batch: RecordBatch, ctx: BatchContext) => TransformResult | Promise<TransformResult>;

/** A source stage's batches, produced until done or until the signal aborts. */
export type Source = (signal: AbortSignal) => AsyncIterable<RecordBatch>;

export interface StageConfig {
  /** Used in log lines. */
  name: string;
  input?: StageInput;
  /** Instead of `input`: produce batches (a replay, a simulator). */
  source?: Source;
  output?: StageOutput;
  /** Default: pass batches through unchanged. */
  transform?: Transform;
  sockets?: Partial<SocketConfig>;
  /** After a stop is requested, how long a blocked send may keep waiting for a peer (ms). */
  drainMs?: number;
  /** Aborting stops the stage (wire SIGINT/SIGTERM here with onShutdownSignals). */
  signal?: AbortSignal;
  /**
   * Aborting this one fails the stage: the input closes, nothing more is handled, no end-of-stream goes
   * out, and runStage rejects with the signal's reason (e.g. a recorder that got nothing valid in time).
   */
  failSignal?: AbortSignal;
  log?: (line: string) => void;
  /** Called once the sockets are bound/connected (ephemeral ports resolved). */
  onReady?: (addresses: { input?: string; output?: string }) => void;
  /**
   * Called when an end-of-stream marker arrives; returning false means it does not end this stage's
   * input (e.g. another source's marker, or a sender that stopped early and may be restarted).
   */
  onEos?: (eos: EndOfStream) => boolean | void;
  /** Called when a begin-of-stream marker arrives (a source announcing its topic and log). */
  onBos?: (bos: BeginOfStream) => void;
}

export type StopReason = 'eos' | 'signal' | 'source-end';

export interface StageResult {
  counters: StageCounters;
  stoppedBy: StopReason;
  /** Whether the end-of-stream marker went out on the output (false when there is none). */
  eosSent: boolean;
  /** Results that could not be sent before the drain deadline. */
  unsent: number;
  elapsedS: number;
  /**
   * Where the time went from the first batch on (s): in the transform or the source producing it, waiting
   * for input, waiting on a full output; and the process's CPU over the same span (all its threads).
   */
  profile: StageProfile;
  addresses: { input?: string; output?: string };
}

export interface StageProfile {
  workS: number;
  receiveWaitS: number;
  sendWaitS: number;
  cpuS: number;
}

export const DEFAULT_DRAIN_MS = 5000;

const isEagain = (e: unknown) => (e as { code?: string }).code === 'EAGAIN';

class Stopped extends Error {}

/** Run one stage to completion. Rejects only on setup errors (bad endpoint, bind failure). */
export async function runStage(cfg: StageConfig): Promise<StageResult> {
  if (!cfg.input === !cfg.source) throw new Error(`${cfg.name}: give exactly one of input or source`);
  if (cfg.output) checkTopic(cfg.output.topic);
  const log = cfg.log ?? ((line: string) => process.stderr.write(line + '\n'));
  const sockets: SocketConfig = { ...DEFAULT_SOCKET_CONFIG, warn: log, ...cfg.sockets };
  const drainMs = cfg.drainMs ?? DEFAULT_DRAIN_MS;
  const signal = cfg.signal ?? new AbortController().signal;
  const counters = newCounters();
  const skips = new SkipLog(counters, cfg.name, log);
  const transform = cfg.transform ?? ((b: RecordBatch) => b);
  const started = process.hrtime.bigint();

  let output: OutputSocket | undefined;
  let outputPeers: PeerWatch | undefined;
  let input: InputSocket | undefined;
  const addresses: StageResult['addresses'] = {};
  try {
    // Output first, so that a downstream stage can connect while we wait for our input.
    if (cfg.output) {
      const o = await openOutput(cfg.output.endpoint, sockets);
      output = o.socket;
      outputPeers = o.peers;
      addresses.output = o.address;
    }
    if (cfg.input) {
      const i = await openInput(cfg.input.endpoint, sockets, cfg.input.topics);
      input = i.socket;
      addresses.input = i.address;
    }
  } catch (e) {
    output?.close();
    input?.close();
    throw e;
  }
  cfg.onReady?.(addresses);

  // A stop closes the input at once (no new work) and gives a blocked send `drainMs` to finish.
  let drainTimer: NodeJS.Timeout | undefined;
  const onAbort = () => {
    if (input && !input.closed) {
      input.linger = 0;
      input.close();
    }
    drainTimer = setTimeout(() => {
      if (output && !output.closed) {
        output.linger = 0;
        output.close();
      }
    }, drainMs);
  };
  if (signal.aborted) onAbort();
  else signal.addEventListener('abort', onAbort, { once: true });
  const failSignal = cfg.failSignal;
  const onFail = () => {
    if (input && !input.closed) {
      input.linger = 0;
      input.close();
    }
  };
  if (failSignal?.aborted) onFail();
  else failSignal?.addEventListener('abort', onFail, { once: true });
  const failed = () => (failSignal?.aborted ? (failSignal.reason as Error) : null);

  let unsent = 0;
  const prof: StageProfile = { workS: 0, receiveWaitS: 0, sendWaitS: 0, cpuS: 0 };
  let cpu0: NodeJS.CpuUsage | null = null;
  /** Send a result; `ipcBytes`, when given, are its already-encoded message body. */
  const send = async (batch: RecordBatch, ipcBytes?: Uint8Array): Promise<void> => {
    if (!output || output.closed) {
      unsent++;
      return;
    }
    try {
      const topic = cfg.output!.topic;
      const message = ipcBytes ? [topic, ipcBytes] : batchMessage(topic, batch);
      const t = performance.now();
      await output.send(message);
      prof.sendWaitS += (performance.now() - t) / 1000;
      counters.out++;
    } catch (e) {
      if (!isEagain(e)) throw e;
      unsent++;
    }
  };

  const handle = async (batch: RecordBatch, topic: string, body?: Buffer): Promise<void> => {
    const index = counters.in++;
    let result: TransformResult;
    const t = performance.now();
    try {
      result = await transform(batch, { topic, index });
    } catch (e) {
      if (e instanceof StageFatalError) throw e;
      const detail = (e as Error).message?.split('\n')[0] ?? String(e);
      skips.skip(e instanceof SchemaError ? 'wrong-schema' : 'transform-failed', detail);
      return;
    }
    prof.workS += (performance.now() - t) / 1000;
    if (result === null || (Array.isArray(result) && result.length === 0)) counters.dropped++;
    // A stage with two outputs per input (a result and its input forwarded): each goes out in turn.
    else if (Array.isArray(result)) {
      if (output) for (const r of result) await send(r, r === batch ? body : undefined);
    }
    // A batch passed through unchanged goes out as the bytes it came in (no re-encoding, no copy).
    else if (output) await send(result, result === batch ? body : undefined);
  };

  let stoppedBy: StopReason;
  try {
    if (output && cfg.output?.endpoint.kind === 'pub' && (cfg.output.subscribers ?? 0) > 0) {
      await waitForSubscribers(output as XPublisher, cfg.output.subscribers!, signal);
    }
    if (output && cfg.output?.bos)
      await output.send(bosMessage({ topic: cfg.output.topic, ...cfg.output.bos }));
    if (cfg.source) {
      const source = cfg.source(signal)[Symbol.asyncIterator]();
      // As `for await` would, but timing each batch the source produces.
      try {
        for (;;) {
          const t = performance.now();
          const next = await source.next();
          if (next.done) break;
          cpu0 ??= process.cpuUsage();
          prof.workS += (performance.now() - t) / 1000;
          if (signal.aborted) throw new Stopped();
          await handle(next.value, cfg.output?.topic ?? '');
          if (signal.aborted) throw new Stopped();
        }
      } finally {
        await source.return?.(undefined);
      }
      // A source that returns early on abort (a replay sleeping between frames) was stopped, not done.
      stoppedBy = signal.aborted ? 'signal' : 'source-end';
    } else {
      const wantEos = cfg.input!.eosCount ?? 1;
      let endsTaken = 0;
      for (;;) {
        if (failed()) throw failed();
        if (signal.aborted) throw new Stopped();
        let frames: Buffer[];
        const t = performance.now();
        try {
          frames = await input!.receive();
          // Waiting before the first message is start-up (the upstream starting), not a stall.
          if (cpu0) prof.receiveWaitS += (performance.now() - t) / 1000;
        } catch (e) {
          if (failed()) throw failed();
          if (isEagain(e) && signal.aborted) throw new Stopped();
          throw e;
        }
        const msg = parseMessage(frames, cfg.input!.kind);
        if (msg.type === 'malformed') {
          skips.skip(msg.kind, msg.detail);
        } else if (msg.type === 'bos') {
          cfg.onBos?.(msg.bos);
        } else if (msg.type === 'eos') {
          counters.eos++;
          if (cfg.onEos?.(msg.eos) === false) continue;
          if (++endsTaken >= wantEos) {
            stoppedBy = 'eos';
            break;
          }
        } else {
          cpu0 ??= process.cpuUsage();
          counters.bytesIn += msg.bytes;
          await handle(msg.batch, msg.topic, msg.body);
        }
      }
    }
  } catch (e) {
    if (!(e instanceof Stopped)) {
      failSignal?.removeEventListener('abort', onFail);
      signal.removeEventListener('abort', onAbort);
      input?.close();
      output?.close();
      throw e;
    }
    stoppedBy = 'signal';
  }

  // Tell downstream the stream is over, then close: the input drops what it had not taken, the
  // output keeps `lingerMs` to deliver what is queued (process exit waits for it, bounded).
  let eosSent = false;
  if (output && !output.closed) {
    output.sendTimeout = signal.aborted ? Math.min(drainMs, 1000) : drainMs;
    try {
      const complete = stoppedBy !== 'signal';
      await output.send(eosMessage(cfg.output!.topic, counters.out, { ...cfg.output!.eosInfo, complete }));
      eosSent = true;
    } catch (e) {
      if (!isEagain(e)) throw e;
      log(`${cfg.name}: no peer took the end-of-stream marker`);
    }
    // Over ipc, hanging up while the peer still has messages to read loses them (see peerWatch.ts): stay
    // connected until it has taken the end-of-stream and hung up, within the linger time or until a stop.
    // The input is done: closing it first lets a sender waiting the same way upstream go.
    if (eosSent && outputPeers && cfg.output!.endpoint.url.startsWith('ipc://')) {
      if (input && !input.closed) {
        input.linger = 0;
        input.close();
      }
      await outputPeers.untilGone(sockets.lingerMs, signal);
    }
  }
  signal.removeEventListener('abort', onAbort);
  failSignal?.removeEventListener('abort', onFail);
  clearTimeout(drainTimer);
  if (input && !input.closed) {
    input.linger = 0;
    input.close();
  }
  if (output && !output.closed) output.close();
  if (unsent > 0) log(`${cfg.name}: ${unsent} result(s) not sent (no peer before the drain deadline)`);
  const elapsedS = Number(process.hrtime.bigint() - started) / 1e9;
  if (cpu0) {
    const cpu = process.cpuUsage(cpu0);
    prof.cpuS = (cpu.user + cpu.system) / 1e6;
  }
  return { counters, stoppedBy, eosSent, unsent, elapsedS, profile: prof, addresses };
}
