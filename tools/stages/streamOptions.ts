// The options every `drivekit stage` shares (endpoints, high-water marks, linger, CURVE keys, remote
// binds, --json) and the run wrapper: signals → clean stop, addresses on stderr, one summary at the end.
import type { Command } from 'commander';
import { readKeyFile, resolveServerKey, type CurveConfig } from '../../core/stream/curve.ts';
import { ENDPOINT_HELP } from '../../core/stream/endpoint.ts';
import { onShutdownSignals } from '../../core/stream/shutdown.ts';
import { anonymousNumberOption } from '../numberOption.ts';
import { DEFAULT_SOCKET_CONFIG, type SocketConfig } from '../../core/stream/sockets.ts';
import {
  DEFAULT_DRAIN_MS,
  runStage,
  type StageConfig,
  type StageResult,
} from '../../core/stream/stageRunner.ts';
import { snakeKeys } from '../cliOptions.ts';

export interface StreamCliOptions {
  hwm: number;
  lingerMs: number;
  drainMs: number;
  allowRemote?: boolean;
  curveKeys?: string;
  curveServerKey?: string;
  json?: boolean;
}

/** A whole number ≥ min (tools/numberOption.ts: strict, commander names the option on failure). */
export const intOption = (min: number) => anonymousNumberOption({ integer: true, min });

/** A number ≥ min (tools/numberOption.ts). */
export const numberOption = (min: number) => anonymousNumberOption({ min });

/** Adds the shared socket options and the endpoint syntax to a stage command's help. */
export function addStreamOptions(cmd: Command): Command {
  return cmd
    .option(
      '--hwm <n>',
      'high-water mark: messages queued per peer',
      intOption(1),
      DEFAULT_SOCKET_CONFIG.sendHighWaterMark,
    )
    .option(
      '--linger-ms <ms>',
      'how long unsent messages may delay closing',
      intOption(0),
      DEFAULT_SOCKET_CONFIG.lingerMs,
    )
    .option(
      '--drain-ms <ms>',
      'on SIGINT/SIGTERM, how long a blocked send may wait',
      intOption(0),
      DEFAULT_DRAIN_MS,
    )
    .option('--allow-remote', 'allow binding a non-loopback address')
    .option(
      '--curve-keys <file>',
      'CURVE key pair (JSON from `drivekit stage keygen`): binding sockets serve CURVE',
    )
    .option(
      '--curve-server-key <key|file>',
      'server public key (Z85 or key file): connecting sockets use CURVE',
    )
    .option('--json', 'print the summary as one JSON object on stdout')
    .addHelpText('after', `\n${ENDPOINT_HELP}`);
}

export function socketConfigFrom(opts: StreamCliOptions): Partial<SocketConfig> {
  let curve: CurveConfig | undefined;
  if (opts.curveKeys || opts.curveServerKey) {
    curve = {
      keyPair: opts.curveKeys ? readKeyFile(opts.curveKeys) : undefined,
      serverKey: opts.curveServerKey ? resolveServerKey(opts.curveServerKey) : undefined,
    };
  }
  return {
    sendHighWaterMark: opts.hwm,
    receiveHighWaterMark: opts.hwm,
    lingerMs: opts.lingerMs,
    allowRemote: !!opts.allowRemote,
    curve,
  };
}

const log = (line: string) => process.stderr.write(line + '\n');

/** Run a stage as this process: SIGINT/SIGTERM stop it cleanly; addresses go to stderr. */
export async function runCliStage(
  cfg: Omit<StageConfig, 'signal' | 'sockets' | 'log' | 'drainMs'>,
  opts: StreamCliOptions,
): Promise<StageResult> {
  const shutdown = onShutdownSignals(log);
  try {
    return await runStage({
      ...cfg,
      sockets: socketConfigFrom(opts),
      drainMs: opts.drainMs,
      signal: shutdown.signal,
      log,
      onReady: (a) => {
        if (a.input) log(`${cfg.name}: input ${a.input}`);
        if (a.output) log(`${cfg.name}: output ${a.output}`);
        cfg.onReady?.(a);
      },
    });
  } finally {
    shutdown.dispose();
  }
}

/** The summary line every stage prints at the end (stdout; JSON with --json), keys in snake_case (docs/cli.md). */
export function printSummary(raw: Record<string, unknown>, json: boolean | undefined): void {
  const summary = snakeKeys(raw) as Record<string, unknown>;
  if (json) {
    process.stdout.write(JSON.stringify(summary) + '\n');
    return;
  }
  const parts = Object.entries(summary).map(
    ([k, v]) => `${k}=${typeof v === 'object' ? JSON.stringify(v) : v}`,
  );
  process.stdout.write(parts.join(' ') + '\n');
}

export function resultSummary(r: StageResult): Record<string, unknown> {
  return {
    in: r.counters.in,
    out: r.counters.out,
    malformed: r.counters.malformed,
    eosReceived: r.counters.eos,
    eosSent: r.eosSent,
    stoppedBy: r.stoppedBy,
    unsent: r.unsent,
    elapsedS: Number(r.elapsedS.toFixed(3)),
    // From the first batch on (s): working, waiting for input, waiting on a full output, CPU of the process.
    profile: Object.fromEntries(Object.entries(r.profile).map(([k, v]) => [k, Number(v.toFixed(3))])),
  };
}
