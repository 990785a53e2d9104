// `drivekit import <path> [--format <fmt>] --out <log>`: any supported dataset into a drivekit log; the
// format is detected from the path's layout when not given, and a poses*.txt beside the frames is read.
import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { createProgress } from '../../core/progress.ts';
import { detectFormat } from '../../datasets/formatDetect.ts';
import { importLog, READERS } from '../../datasets/import.ts';
import { posesBeside } from '../../datasets/posesBeside.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { numberOption } from '../numberOption.ts';
import { LASER_BLOCKS } from '../../worldmodel/laserLines.ts';
import { formatLogSummary, logSummary } from '../report/logSummary.ts';
import { addForce, printJson } from '../cliOptions.ts';

export function register(program: Command): void {
  const cmd = program
    .command('import')
    .description('import a dataset into a drivekit log')
    .argument('<path>', 'file or directory of the source dataset')
    .option(
      '--format <format>',
      `source format: ${Object.keys(READERS).join(' | ')} (default: detected from the path's file names and layout)`,
    )
    .requiredOption('--out <log>', 'output log directory')
    .option(
      '--poses <file>',
      'poses file, one 3×4 row-major transform per frame (KITTI odometry format; default: the one poses*.txt beside the frames, if any)',
    )
    .option(
      '--no-poses',
      'ignore a poses*.txt beside the frames (identity poses unless the source has its own)',
    )
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
    .option(
      '--lasers <sensor>',
      `where the sensor's lasers sit above its origin, when the source does not say: ${Object.keys(LASER_BLOCKS).join(' | ')} (written to meta.json as extra.laserBlocks; KITTI-format logs have it already)`,
    )
    .option('--json', 'print the log summary as one JSON object (snake_case keys, docs/cli.md)');
  addForce(cmd, 'an existing log at --out').action(
    async (
      input: string,
      opts: {
        format?: string;
        out: string;
        poses?: string | false;
        posesFrame?: string;
        keepOriginPoints?: boolean;
        dropImplausible?: boolean;
        rate?: number;
        lasers?: string;
        force?: boolean;
        json?: boolean;
      },
    ) => {
      if (opts.posesFrame !== undefined && opts.posesFrame !== 'camera' && opts.posesFrame !== 'vehicle')
        throw new InputError('--poses-frame', `'${opts.posesFrame}' is not 'camera' or 'vehicle'`);
      if (opts.lasers !== undefined && !Object.hasOwn(LASER_BLOCKS, opts.lasers))
        throw new InputError(
          '--lasers',
          `unknown sensor '${opts.lasers}' (known: ${Object.keys(LASER_BLOCKS).join(', ')})`,
        );
      let format = opts.format;
      let source = input;
      if (format === undefined) {
        const found = detectFormat(input);
        if (!found)
          throw new InputError(
            input,
            `cannot tell the format from its file names (give --format: ${Object.keys(READERS).join(', ')})`,
          );
        format = found.format;
        source = found.input ?? input;
        process.stderr.write(
          `import: format ${format} (detected: ${found.evidence}; --format to choose)${source !== input ? `, reading ${source}` : ''}\n`,
        );
      }
      let posesPath = typeof opts.poses === 'string' ? opts.poses : undefined;
      // AV2 and nuScenes carry their own ego poses; a text file beside them is not theirs to use.
      if (opts.poses === undefined && READERS[format] && format !== 'av2') {
        const beside = posesBeside(source);
        if (beside) {
          posesPath = beside;
          process.stderr.write(
            `import: poses from ${beside}, found beside the frames (--no-poses to ignore)\n`,
          );
        }
      }
      await importLog(source, format, opts.out, {
        posesPath,
        posesFrame: opts.posesFrame,
        keepOriginPoints: opts.keepOriginPoints,
        dropImplausible: opts.dropImplausible,
        rateHz: opts.rate,
        extra: opts.lasers === undefined ? undefined : { laserBlocks: LASER_BLOCKS[opts.lasers] },
        overwrite: opts.force,
        progress: (total) => createProgress('import', total, { silent: opts.json, unit: 'frames' }),
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
