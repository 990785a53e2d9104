// Object discovery over a whole log (OYSTER's seed labels): per-sweep ground → clusters → boxes, then
// offline tracking in the world frame and temporal refinement. Reads only sweeps and poses, never labels.
import { type Boxes, concatBoxes } from '../core/arrow/records.ts';
import type { Progress } from '../core/progress.ts';
import type { LogReader } from '../datasets/logstore.ts';
import {
  DEFAULT_DISCOVER_CONFIG,
  DISCOVER_CONFIG_RANGES,
  type DiscoverConfig,
  type DiscoverConfigInput,
  discoverSweep,
  sweepBuffers,
  resolveDiscoverConfig,
} from './discover.ts';
import {
  DEFAULT_REFINE_CONFIG,
  REFINE_CONFIG_RANGES,
  refineTracks,
  type RefineConfig,
  type RefineStats,
} from './refine.ts';
import type { SequenceInput } from './sequence.ts';
import { DEFAULT_TRACKER_CONFIG, TRACKER_CONFIG_RANGES, trackBoxes, type TrackerConfig } from './track.ts';
import type { ConfigRanges } from '../core/configSchema.ts';

export interface PipelineConfig {
  sweep: DiscoverConfig;
  tracker: TrackerConfig;
  refine: RefineConfig;
}

export interface PipelineConfigInput extends DiscoverConfigInput {
  tracker?: Partial<TrackerConfig>;
  refine?: Partial<RefineConfig>;
}

/** A pipeline override's shape at its defaults ({ground, cluster, …, tracker, refine}), for validation. */
export const DEFAULT_PIPELINE_INPUT = {
  ...DEFAULT_DISCOVER_CONFIG,
  tracker: DEFAULT_TRACKER_CONFIG,
  refine: DEFAULT_REFINE_CONFIG,
};

/** Allowed values of a pipeline override's fields (each module's ranges). */
export const PIPELINE_INPUT_RANGES: ConfigRanges<typeof DEFAULT_PIPELINE_INPUT> = {
  ...DISCOVER_CONFIG_RANGES,
  tracker: TRACKER_CONFIG_RANGES,
  refine: REFINE_CONFIG_RANGES,
};

export function resolvePipelineConfig(input: PipelineConfigInput = {}): PipelineConfig {
  return {
    sweep: resolveDiscoverConfig(input),
    tracker: { ...DEFAULT_TRACKER_CONFIG, ...input.tracker },
    refine: { ...DEFAULT_REFINE_CONFIG, ...input.refine },
  };
}

export interface DiscoverLogSummary {
  log: string;
  frames: number;
  points: number;
  nonFinitePoints: number;
  groundShare: number;
  detections: number;
  detectionsPerFrame: number;
  tracks: number;
  refined: RefineStats;
  trackingFrame: 'world' | 'vehicle';
  warnings: string[];
  seconds: number;
}

export interface DiscoverLogResult {
  detections: Boxes;
  tracks: Boxes;
  summary: DiscoverLogSummary;
}

/**
 * The poses of a log, or null when it has none: readers without a pose source write identity poses and
 * say so in meta.extra.poses ("none given…").
 */
export function logSequence(log: LogReader): SequenceInput {
  const note = log.meta.extra?.poses;
  const missing = typeof note === 'string' && note.startsWith('none');
  const timesS = new Float64Array(log.frameCount);
  for (let i = 0; i < log.frameCount; i++)
    timesS[i] = Number(log.timestampsNs[i] - log.timestampsNs[0]) / 1e9;
  return {
    frameCount: log.frameCount,
    poses: missing ? null : Float64Array.from(log.poses),
    timesS,
    rateHz: log.meta.rateHz,
  };
}

/** Boxes of one sweep at a time, then tracks and refinement over the whole log. */
export async function discoverLog(
  log: LogReader,
  config: PipelineConfig,
  progress?: Progress,
): Promise<DiscoverLogResult> {
  const t0 = Date.now();
  const perFrame: Boxes[] = [];
  let points = 0;
  let nonFinite = 0;
  let ground = 0;
  const buffers = sweepBuffers();
  for await (const frame of log.iterFrames()) {
    const r = discoverSweep(frame.points, config.sweep, frame.frameIndex, buffers);
    perFrame.push(r.boxes);
    points += r.stats.points;
    nonFinite += r.stats.nonFinite;
    ground += r.stats.ground;
    progress?.tick(1, `${r.stats.boxes} boxes`);
  }
  const detections = concatBoxes(perFrame);
  const seq = logSequence(log);
  const tracked = trackBoxes(detections, seq, config.tracker);
  const refined = refineTracks(tracked.boxes, seq, config.refine);
  const frames = log.frameCount;
  return {
    detections,
    tracks: refined.boxes,
    summary: {
      log: log.dir,
      frames,
      points,
      nonFinitePoints: nonFinite,
      groundShare: points > 0 ? ground / (points - nonFinite) : 0,
      detections: detections.cx.length,
      detectionsPerFrame: frames ? detections.cx.length / frames : 0,
      tracks: tracked.tracks,
      refined: refined.stats,
      trackingFrame: tracked.frame,
      warnings: tracked.warnings,
      seconds: (Date.now() - t0) / 1000,
    },
  };
}
