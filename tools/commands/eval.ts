// `drivekit eval --pred <boxes> --gt <log>`: class-agnostic AP by range at BEV IoU 0.3/0.5 and 3D IoU 0.3,
// best-F1 operating point and distance-to-collision, for boxes from a log, Arrow, Parquet or JSON.
import type { Command } from 'commander';
import { type Boxes, boxAt, rowsByFrame } from '../../core/arrow/records.ts';
import { countPointsInBox } from '../../core/geometry/box.ts';
import { InputError } from '../../core/errors.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { DEFAULT_AP_CONFIG } from '../../perception/eval/ap.ts';
import { checkSameLog, readBoxSource } from '../../perception/eval/boxSources.ts';
import { evaluateBoxes, formatEvalReport } from '../../perception/eval/evaluate.ts';
import { intOption, numberOption } from '../numberOption.ts';
import { AP_UNITS_HELP, printJson } from '../cliOptions.ts';

interface EvalOptions {
  pred: string;
  gt: string;
  fov?: number;
  minGtPoints?: number;
  classes?: string;
  dtcScore?: number;
  json?: boolean;
}

/**
 * Ground truth whose point counts are unknown (−1) gets them from the log's sweeps, so the rule "boxes
 * with fewer than minGtPoints points are ignored" applies to every source. Returns a copy.
 */
export async function fillGtPointCounts(gt: Boxes, logDir: string): Promise<Boxes> {
  const unknown = [...gt.numPoints].some((n) => n < 0);
  if (!unknown) return gt;
  const numPoints = Int32Array.from(gt.numPoints);
  const log = await LogReader.open(logDir);
  try {
    for (const [f, rows] of rowsByFrame(gt)) {
      const todo = rows.filter((r) => numPoints[r] < 0);
      if (todo.length === 0 || f < 0 || f >= log.frameCount) continue;
      const frame = await log.readFrame(f);
      for (const r of todo)
        numPoints[r] = countPointsInBox(boxAt(gt, r), frame.points.x, frame.points.y, frame.points.z);
    }
  } finally {
    await log.close();
  }
  return { ...gt, numPoints };
}

export function register(program: Command): void {
  program
    .command('eval')
    .description('score predicted boxes against ground truth: AP by range and distance-to-collision')
    .requiredOption(
      '--pred <boxes>',
      'predictions: a log (its tracks.arrow, else detections.arrow; <log>:<name> for another), or a .arrow/.parquet/.json file',
    )
    .requiredOption('--gt <boxes>', 'ground truth: a log (its labels.arrow), or a .arrow/.parquet/.json file')
    .option(
      '--fov <deg>',
      'score only boxes within ±deg/2 of straight ahead (camera-labelled sets like KITTI)',
      numberOption('--fov', { above: 0, max: 360 }),
    )
    .option(
      '--min-gt-points <n>',
      `ground truth with fewer LiDAR points is ignored (default: ${DEFAULT_AP_CONFIG.minGtPoints})`,
      intOption('--min-gt-points', 0),
    )
    .option(
      '--classes <list>',
      'comma-separated ground-truth labels to score; other labels become ignore boxes',
    )
    .option(
      '--dtc-score <s>',
      'score threshold of detections for DTC (default: best-F1 threshold at BEV IoU 0.3)',
      numberOption('--dtc-score'),
    )
    .option('--json', 'print one JSON object (snake_case keys; AP, F1, rates as fractions)')
    .addHelpText('after', AP_UNITS_HELP)
    .action(async (opts: EvalOptions) => {
      if (opts.fov !== undefined && !(opts.fov > 0 && opts.fov <= 360))
        throw new InputError('--fov', 'must be in (0, 360] degrees');
      if (opts.minGtPoints !== undefined && !(opts.minGtPoints >= 0))
        throw new InputError('--min-gt-points', 'must be ≥ 0');
      const pred = await readBoxSource(opts.pred, ['tracks', 'detections']);
      const truth = await readBoxSource(opts.gt, ['labels']);
      checkSameLog(pred, truth);
      const gt = truth.logDir ? await fillGtPointCounts(truth.boxes, truth.logDir) : truth.boxes;
      let ignore: Uint8Array | null = null;
      if (opts.classes) {
        const keep = new Set(opts.classes.split(',').map((s) => s.trim().toLowerCase()));
        ignore = Uint8Array.from(gt.label, (l) => (keep.has(l.toLowerCase()) ? 0 : 1));
      }
      const report = evaluateBoxes(
        pred.boxes,
        gt,
        truth.ego ?? pred.ego,
        {
          ap: {
            halfFovDeg: opts.fov !== undefined ? opts.fov / 2 : null,
            ...(opts.minGtPoints !== undefined ? { minGtPoints: opts.minGtPoints } : {}),
          },
          dtcScoreThreshold: opts.dtcScore ?? null,
        },
        ignore,
      );
      if (opts.json) {
        printJson(report);
        return;
      }
      process.stdout.write(
        `predictions: ${pred.origin}\nground truth: ${truth.origin}\n${formatEvalReport(report)}\n`,
      );
    });
}
