// `drivekit stage forward --in sub:bind:<a> --out pub:bind:<b>`: every message passed on as it came, topic
// and bytes unchanged (ZeroMQ multipart) — the pipeline's viewer feed merges several publishers into one PUB.
import type { Command } from 'commander';
import { parseEndpoint } from '../../core/stream/endpoint.ts';
import { onShutdownSignals } from '../../core/stream/shutdown.ts';
import { openInput, openOutput } from '../../core/stream/sockets.ts';
import { addStreamOptions, printSummary, socketConfigFrom, type StreamCliOptions } from './streamOptions.ts';
import { DEFAULT_SOCKET_CONFIG } from '../../core/stream/sockets.ts';

interface ForwardOptions extends StreamCliOptions {
  in: string;
  out: string;
}

export function register(stage: Command): void {
  const cmd = stage
    .command('forward')
    .description(
      'pass every message on unchanged, topics kept (e.g. several publishers into one PUB for a viewer); runs until a signal',
    )
    .requiredOption('--in <endpoint>', 'input endpoint (e.g. sub:bind:ipc:///tmp/feed.sock)')
    .requiredOption('--out <endpoint>', 'output endpoint (e.g. pub:bind:tcp://127.0.0.1:5600)');
  addStreamOptions(cmd).action(async (opts: ForwardOptions) => {
    const log = (line: string) => process.stderr.write(`forward: ${line}\n`);
    const sockets = { ...DEFAULT_SOCKET_CONFIG, ...socketConfigFrom(opts) };
    const input = await openInput(parseEndpoint(opts.in, 'in'), sockets);
    const output = await openOutput(parseEndpoint(opts.out, 'out'), sockets);
    log(`${input.address} → ${output.address}`);
    const shutdown = onShutdownSignals(log);
    // Ending on a signal only: end-of-stream markers are passed on too (a viewer shows them), not obeyed.
    shutdown.signal.addEventListener('abort', () => input.socket.close(), { once: true });
    let messages = 0;
    try {
      for await (const msg of input.socket) {
        // A PUB send never waits: with no subscriber or a full queue the message is dropped (a lossy feed).
        await output.socket.send(msg);
        messages++;
      }
    } catch (e) {
      if (!shutdown.signal.aborted) throw e;
    } finally {
      shutdown.dispose();
      output.socket.linger = 0;
      output.socket.close();
    }
    printSummary({ stage: 'forward', messages }, opts.json);
  });
}
