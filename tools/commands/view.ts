// `drivekit view <log|rollout dir|scenario|endpoint> [--port 8080]`: serves the three.js viewer page on
// localhost — points, boxes, map, agents, forecasts, frame by frame; live from a stage publisher.
import type { Command } from 'commander';
import { DEFAULT_LIVE_OPTIONS } from '../viewer/liveSource.ts';
import { openViewerSource } from '../viewer/openSource.ts';
import { DEFAULT_VIEWER_SERVER, startViewerServer } from '../viewer/server.ts';
import { anonymousNumberOption } from '../numberOption.ts';
import { logInput } from '../cliOptions.ts';

interface Options {
  port: number;
  host: string;
  allowRemote?: boolean;
  forecast?: string;
  scenario?: string;
  rollout?: number;
  keepFrames: number;
  json?: boolean;
  log?: string;
}

const int = (min: number, max?: number) => anonymousNumberOption({ integer: true, min, max });

export function register(program: Command): void {
  program
    .command('view')
    .description('serve a browser viewer of a log, a sim rollout, a scenario or a live stream on localhost')
    .argument(
      '[target]',
      'log directory, `drivekit sim --out` directory, scenario (.json or Arrow directory) or stream endpoint (tcp://…)',
    )
    .option('--log <dir>', 'the same as <target> (every command that reads a log takes --log)')
    .option('--port <n>', 'HTTP port (0: a free one)', int(0, 65535), DEFAULT_VIEWER_SERVER.port)
    .option('--host <addr>', 'address to listen on (loopback by default)', DEFAULT_VIEWER_SERVER.host)
    .option(
      '--allow-remote',
      'allow a non-loopback --host (no authentication: whoever reaches the port reads the data)',
    )
    .option(
      '--forecast <file>',
      'forecast of the log (`drivekit forecast --out`; default <log>/forecast.arrow)',
    )
    .option('--scenario <id>', 'rollout directory: the scenario shown (default: the first)')
    .option('--rollout <n>', 'rollout directory: the rollout shown', int(0), 0)
    .option(
      '--keep-frames <n>',
      'live mode: recent frames kept for scrubbing back',
      int(1),
      DEFAULT_LIVE_OPTIONS.keepFrames,
    )
    .option('--json', 'print {url, kind, frames} as one JSON line once serving')
    .addHelpText(
      'after',
      '\nThe page shows the sweep coloured by height, intensity or ring; every Boxes file of a log (ground truth,\n' +
        'discovered, tracked, detected, …) with a toggle each; the map and agents of a scenario, a rollout or a\n' +
        "synthetic log's scenario; predicted vs actual sweeps where a forecast exists. Play / pause / scrub / step\n" +
        '(space, ← →), follow-ego or free camera. Frames are fetched one at a time (GET /frames/:i, also\n' +
        '/frames/:i.arrow as Arrow IPC), so a log of any length opens at once. A tcp:// endpoint subscribes to a\n' +
        '`drivekit stage … --out pub:tcp://…` publisher and follows it live. Stop with Ctrl-C. See docs/viewer.md.',
    )
    .action(async (positional: string | undefined, opts: Options) => {
      const target = logInput(positional, opts);
      const source = await openViewerSource(target, {
        forecast: opts.forecast,
        scenario: opts.scenario,
        rollout: opts.rollout,
        keepFrames: opts.keepFrames,
      });
      let server;
      try {
        server = await startViewerServer(source, {
          port: opts.port,
          host: opts.host,
          allowRemote: !!opts.allowRemote,
        });
      } catch (e) {
        await source.close();
        throw e;
      }
      const info = source.info();
      if (opts.json)
        process.stdout.write(
          JSON.stringify({ url: server.url, kind: info.kind, frames: info.frame_count }) + '\n',
        );
      else
        process.stdout.write(
          `drivekit view: ${info.kind} ${info.name} (${info.frame_count} frames) at ${server.url}  (Ctrl-C stops)\n`,
        );
      await new Promise<void>((resolve) => {
        const stop = () => resolve();
        process.once('SIGINT', stop);
        process.once('SIGTERM', stop);
      });
      await server.close();
      await source.close();
    });
}
