// `drivekit import <path> --format <fmt> --out <log>`: any supported dataset into a drivekit log.
import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { createProgress } from '../../core/progress.ts';
import { importLog, READERS } from '../../datasets/import.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { numberOption } from '../numberOption.ts';
import { formatLogSummary, logSummary } from '../report/logSummary.ts';
import { addForce, printJson } from '../cliOptions.ts';

export function register(program: Command): void {
  const cmd = program
    .command('import')
    .description('import a dataset into a drivekit log')
    .argument('<path>', 'file or directory of the source dataset')
    .requiredOption('--format <format>', `source format: ${Object.keys(READERS).join(' | ')}`)
    .requiredOption('--out <log>', 'output log directory')
    .option('--poses <file>', 'poses file, one 3×4 row-major transform per frame (KITTI odometry format)')
    .option(
      '--poses-frame <frame>',
      "frame of the poses file: 'camera' (KITTI odometry, cam0) or 'vehicle' (default: camera for kitti, vehicle otherwise)",
    )
    .option(
      '--keep-origin-points',
      'PCD/PLY: keep points at exactly (0,0,0) (padding; dropped and counted by default)',
    )
    .option(
      '--drop-implausible',
      'drop and count points no sensor measured (out of range, non-finite, outside a LAS header bounds) instead of refusing the file',
    )
    .option('--rate <hz>', 'sweep rate when the source does not say', numberOption('--rate', { above: 0 }))
    .option('--json', 'print the log summary as one JSON object (snake_case keys, docs/cli.md)');
  addForce(cmd, 'an existing log at --out').action(
    async (
      input: string,
      opts: {
        format: string;
        out: string;
        poses?: string;
        posesFrame?: string;
        keepOriginPoints?: boolean;
        dropImplausible?: boolean;
        rate?: number;
        force?: boolean;
        json?: boolean;
      },
    ) => {
      if (opts.posesFrame !== undefined && opts.posesFrame !== 'camera' && opts.posesFrame !== 'vehicle')
        throw new InputError('--poses-frame', `'${opts.posesFrame}' is not 'camera' or 'vehicle'`);
      // A format that does not exist is a usage error (exit 2), named by its option.
      if (!Object.hasOwn(READERS, opts.format))
        throw new InputError(
          '--format',
          `unknown format '${opts.format}' (known: ${Object.keys(READERS).join(', ')})`,
        );
      await importLog(input, opts.format, opts.out, {
        posesPath: opts.poses,
        posesFrame: opts.posesFrame,
        keepOriginPoints: opts.keepOriginPoints,
        dropImplausible: opts.dropImplausible,
        rateHz: opts.rate,
        overwrite: opts.force,
        progress: (total) => createProgress('import', total, { silent: opts.json }),
      });
      const log = await LogReader.open(opts.out);
      try {
        const s = logSummary(log);
        if (opts.json) printJson(s);
        else process.stdout.write(formatLogSummary(s) + '\n');
      } finally {
        await log.close();
      }
    },
  );
}
