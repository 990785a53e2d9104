// `drivekit synth --frames <n> --seed <s> --lidar <hdl64|vlp32|os128> --out <log>`: a procedural town, its
// traffic and a simulated spinning LiDAR written as a log with exact labels and the scenario beside it.
import type { Command } from 'commander';
import { InputError } from '../../core/errors.ts';
import { createProgress } from '../../core/progress.ts';
import { coreCount } from '../../core/workers.ts';
import {
  HDL64_KITTI_APEX_M,
  LIDAR_MODELS,
  type LidarModel,
  lidarConfig,
} from '../../simulation/lidar/beams.ts';
import { writeSyntheticLog } from '../../simulation/town/synthLog.ts';
import { STREET_LAYOUTS } from '../../simulation/town/townConfig.ts';
import { upperMedianOfSorted } from '../../core/stats.ts';
import { intOption, numberOption } from '../numberOption.ts';
import { addForce, addThreads, printJson, threadsInput } from '../cliOptions.ts';

interface SynthCliOptions {
  frames: string;
  seed: string;
  lidar: string;
  out: string;
  threads?: number;
  workers?: number;
  azimuth?: string;
  returnNoise?: string;
  beamBias?: string;
  beamApex?: string;
  motion: boolean;
  scenario: boolean;
  egoTravel: string;
  streets: string;
  force?: boolean;
  json?: boolean;
}

/** One hour of driving at 10 Hz: the town simulates every agent over the whole log up front. */
export const MAX_SYNTH_FRAMES = 36_000;
/** Firing columns per revolution: 16× the densest shipped sensor's. */
export const MAX_AZIMUTH_STEPS = 32_768;

function positiveInt(flag: string, value: string, min = 1, max?: number): number {
  return intOption(flag, min, max)(value);
}

/** --beam-apex: 'kitti' (HDL-64E only) or one height in metres for every beam of the sensor. */
function beamApexInput(value: string | undefined, model: LidarModel): number[] | undefined {
  if (value === undefined) return undefined;
  if (value === 'kitti') {
    if (model !== 'hdl64')
      throw new InputError('--beam-apex', `kitti is the HDL-64E's apex table; --lidar is ${model}`);
    return [...HDL64_KITTI_APEX_M];
  }
  const h = numberOption('--beam-apex', { min: 0, max: 1 })(value);
  return lidarConfig(model).elevationsDeg.map(() => h);
}

export function register(program: Command): void {
  const cmd = program
    .command('synth')
    .description(
      'generate a synthetic driving log: procedural town, IDM traffic, pedestrians and a simulated LiDAR, with exact labels',
    )
    .requiredOption('--out <log>', 'output log directory')
    .option('--frames <n>', `sweeps to record at 10 Hz (at most ${MAX_SYNTH_FRAMES})`, '100')
    .option('--seed <s>', 'seed of the town, the traffic and the sensor noise', '1')
    .option('--lidar <model>', `sensor: ${LIDAR_MODELS.join(' | ')}`, 'hdl64')
    .option('--azimuth <steps>', "firing columns per revolution (default: the sensor's)")
    .option(
      '--return-noise <m>',
      "σ of the range noise drawn afresh for every return, metres (default: the sensor's)",
    )
    .option(
      '--beam-bias <m>',
      "σ of each beam's fixed range offset, the same in every sweep, metres, a laser's calibration error (default: 0)",
    )
    .option(
      '--beam-apex <kitti|m>',
      "height of the lasers above the points' origin: metres for every beam, or kitti (HDL-64E as fitted on KITTI: upper block 0.198 m, lower 0.121 m) (default: 0)",
    )
    .option('--no-motion', 'freeze the world while the sensor spins (no rolling-shutter smear)')
    .option('--no-scenario', 'do not write the scenario (map + agent tracks) beside the log')
    .option(
      '--ego-travel <q>',
      'the recording car: the one at this quantile of ground covered among the cars (1: the most, mostly driving; 0: the least, mostly waiting)',
      '1',
    )
    .option(
      '--streets <layout>',
      `street layout: ${Object.keys(STREET_LAYOUTS).join(' | ')} (narrow: one lane each way between parked cars and building fronts)`,
      'default',
    )
    .option('--json', 'print the summary as one JSON object (snake_case keys, docs/cli.md)');
  addThreads(cmd, 'worker threads for the sweeps (default: all cores)');
  addForce(cmd, 'an existing log at --out');
  cmd
    .addHelpText(
      'after',
      '\nLabels (labels.arrow): every car, van, truck, cyclist and pedestrian (moving or parked) within the\n' +
        "sensor's range, in the vehicle frame of each frame (the LiDAR frame, ground at z = −1.73 m), with\n" +
        'stable track ids and num_points = points inside the box. The scenario is written as scenario.json\n' +
        'and as Arrow tables under scenario/.',
    )
    .action(async (opts: SynthCliOptions) => {
      const frames = positiveInt('--frames', opts.frames, 1, MAX_SYNTH_FRAMES);
      const seed = positiveInt('--seed', opts.seed, 0);
      if (!LIDAR_MODELS.includes(opts.lidar as LidarModel)) {
        throw new InputError(
          '--lidar',
          `unknown sensor '${opts.lidar}' (expected ${LIDAR_MODELS.join(', ')})`,
        );
      }
      const egoTravelQuantile = numberOption('--ego-travel', { min: 0, max: 1 })(opts.egoTravel);
      if (!Object.hasOwn(STREET_LAYOUTS, opts.streets))
        throw new InputError(
          '--streets',
          `unknown layout '${opts.streets}' (expected ${Object.keys(STREET_LAYOUTS).join(', ')})`,
        );
      const streets = STREET_LAYOUTS[opts.streets as keyof typeof STREET_LAYOUTS];
      const workers = threadsInput(opts) ?? coreCount();
      const metres = (flag: string, v: string | undefined) =>
        v === undefined ? undefined : numberOption(flag, { min: 0, max: 1 })(v);
      const rangeNoiseM = metres('--return-noise', opts.returnNoise);
      const rangeBiasM = metres('--beam-bias', opts.beamBias);
      const beamApexM = beamApexInput(opts.beamApex, opts.lidar as LidarModel);
      const sensor = {
        ...(opts.azimuth === undefined
          ? {}
          : { azimuthSteps: positiveInt('--azimuth', opts.azimuth, 16, MAX_AZIMUTH_STEPS) }),
        ...(rangeNoiseM === undefined ? {} : { rangeNoiseM }),
        ...(rangeBiasM === undefined ? {} : { rangeBiasM }),
        ...(beamApexM === undefined ? {} : { beamApexM }),
      };
      const started = Date.now();
      const result = await writeSyntheticLog({
        out: opts.out,
        frames,
        seed,
        lidar: opts.lidar as LidarModel,
        overwrite: opts.force,
        workers,
        writeScenario: opts.scenario,
        town: { ...streets, egoTravelQuantile },
        sensor: { ...sensor, motion: opts.motion },
        progress: (total) => createProgress('synth', total, { silent: opts.json, unit: 'frames' }),
      });
      const counts = [...result.meta.pointsPerFrame].sort((a, b) => a - b);
      const classes: Record<string, number> = {};
      for (const l of result.labels.label) classes[l] = (classes[l] ?? 0) + 1;
      const summary = {
        log: opts.out,
        frames: result.meta.frameCount,
        sensor: result.sensor.name,
        seed,
        pointsPerFrameMedian: upperMedianOfSorted(counts),
        labels: result.labels.cx.length,
        tracks: new Set(result.labels.trackId).size,
        classes,
        agents: result.town.traffic.tracks.ids.length,
        seconds: (Date.now() - started) / 1000,
      };
      if (opts.json) {
        printJson(summary);
      } else {
        process.stdout.write(
          [
            `synthetic log  ${summary.log}`,
            `sensor         ${summary.sensor}, seed ${seed}`,
            `frames         ${summary.frames} at 10 Hz, median ${summary.pointsPerFrameMedian} points`,
            `labels         ${summary.labels} boxes, ${summary.tracks} tracks: ${Object.entries(classes)
              .map(([k, v]) => `${k} ${v}`)
              .join(', ')}`,
            `agents         ${summary.agents} in the scenario (ego included)`,
            `time           ${summary.seconds.toFixed(1)} s`,
          ].join('\n') + '\n',
        );
      }
    });
}
