// The options and checks every pipeline recorder shares (record-boxes, record-tokens): the frame range it
// must end with, its journal, supervisor events, a slow-consumer delay, end-of-stream count and --force.
import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { addForce } from '../cliOptions.ts';
import { toRanges } from './recordLedger.ts';
import { intOption, numberOption } from './streamOptions.ts';

/** How long a recorder waits for its first valid frame before it fails, by default (seconds). */
export const DEFAULT_RECORDER_TIMEOUT_S = 120;

/** The source a recorder accepts, fixed by the command (--source-log-id, or a fallback such as --log's id). */
export function requireSource(sourceLogId: string | undefined, fallback?: string): string {
  const id = sourceLogId ?? fallback;
  if (!id)
    throw new InputError(
      '--source-log-id',
      'is required: the source a recording accepts is fixed by the command, never by the first message',
    );
  return id;
}

/** --timeout-s, worded the same in every recorder. */
export function addTimeoutOption(cmd: Command): Command {
  return cmd.option(
    '--timeout-s <s>',
    'fail (exit 1, nothing written) when no valid frame of the source has come this long after the start (0: wait forever)',
    numberOption(0),
    DEFAULT_RECORDER_TIMEOUT_S,
  );
}

/**
 * The first-frame deadline of a recorder: its signal aborts (failing the stage, see StageConfig.failSignal)
 * with an error saying what never came, unless `satisfied()` is called first.
 */
export function firstFrameTimeout(
  seconds: number,
  what: () => string,
): { signal: AbortSignal; satisfied: () => void; dispose: () => void } {
  const ctl = new AbortController();
  const timer =
    seconds > 0
      ? setTimeout(
          () => ctl.abort(new Error(`${what()} within ${seconds} s (--timeout-s); nothing written`)),
          seconds * 1000,
        )
      : undefined;
  timer?.unref();
  const stop = () => clearTimeout(timer);
  return { signal: ctl.signal, satisfied: stop, dispose: stop };
}

export interface RecorderCliOptions {
  sourceLogId?: string;
  timeoutS: number;
  frames?: [number, number];
  journal?: string;
  events?: boolean;
  delayMs: number;
  eosCount: number;
  force?: boolean;
}

/** `a:b` → [a, b): the source frames this sink must end with. */
export function frameRange(v: string): [number, number] {
  const m = /^(\d+):(\d+)$/.exec(v.trim());
  if (!m || Number(m[1]) > Number(m[2]))
    throw new InputError('--frames', `'${v}' is not start:end (start ≤ end)`);
  return [Number(m[1]), Number(m[2])];
}

/** Source frames of [start, end) not in `have`, as inclusive ranges. */
export function missingRanges(have: ReadonlySet<number>, start: number, end: number): [number, number][] {
  const miss: number[] = [];
  for (let i = start; i < end; i++) if (!have.has(i)) miss.push(i);
  return toRanges(miss);
}

/** --frames, --journal, --events, --delay-ms, --eos-count and --force, worded the same in every recorder. */
export function addRecorderOptions(cmd: Command, journalWhat = 'accepted frame'): Command {
  cmd
    .option('--source-log-id <id>', 'the source log whose frames are recorded (others are refused)')
    .option(
      '--frames <start:end>',
      'the source frames to end with: an end-of-stream before all came is waited past',
      frameRange,
    )
    .option('--journal <file>', `append each ${journalWhat} here and resume from it after a restart`)
    .option('--events', 'print one JSON line per accepted frame and per wait on stdout (for a supervisor)')
    .option(
      '--delay-ms <ms>',
      'wait this long per message: a slow consumer (back-pressure tests)',
      intOption(0),
      0,
    )
    .option('--eos-count <n>', 'end-of-stream markers to wait for (one per producer)', intOption(1), 1);
  addTimeoutOption(cmd);
  return addForce(cmd, 'existing output files');
}

/** A --…-metadata option's JSON object of schema metadata; {} when absent. */
export function jsonMetadata(text: string | undefined, flag: string): Record<string, string> {
  if (!text) return {};
  try {
    const v: unknown = JSON.parse(text);
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as Record<string, string>;
  } catch {
    // reported below, as for a value that is not an object
  }
  throw new InputError(flag, 'is not a JSON object');
}
