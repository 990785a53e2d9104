// What every dataset reader provides: a sequence of sweeps (vehicle frame, with poses) and optional
// ground-truth boxes, so that one importer turns any source into a drivekit log.
import type { Boxes } from '../core/arrow/records.ts';
import type { FrameInput } from './logstore.ts';

export interface ReaderOptions {
  /** Poses file, one 3×4 row-major transform per frame (the KITTI odometry line format). */
  posesPath?: string;
  /**
   * Frame the poses file is written in: 'camera' = KITTI odometry (cam0 poses, converted to the
   * LiDAR frame with the calibration), 'vehicle' = already world_from_vehicle. Default: 'camera' for
   * the KITTI reader, 'vehicle' for every other reader.
   */
  posesFrame?: 'camera' | 'vehicle';
  /** PCD/PLY: keep points at exactly (0, 0, 0) (padding, not returns); default false = drop and count. */
  keepOriginPoints?: boolean;
  /**
   * Drop and count points no sensor measured (beyond any LiDAR's range, non-finite where the format
   * has no "no return" marker, outside a LAS header's bounds) instead of refusing the file (default).
   */
  dropImplausible?: boolean;
  /** Sweep rate when the source does not say (Hz). */
  rateHz?: number;
}

export interface SourceSequence {
  /** Short source name stored in meta.json ('kitti', 'pcd', 'av2', …). */
  source: string;
  sensor: string | null;
  rateHz: number;
  frameCount: number;
  /** Sweeps in order; a reader may load them lazily. */
  frames(): AsyncIterable<FrameInput> | Iterable<FrameInput>;
  /** Ground-truth boxes in each frame's vehicle frame, or null when the source has none. */
  labels(): Boxes | null;
  /** Facts worth keeping in meta.json (paths, calibration, counts). */
  extra?: Record<string, unknown>;
}

/** Opens a path as a sequence; throws InputError naming the file and problem on bad input. */
export type SourceOpener = (inputPath: string, opts: ReaderOptions) => Promise<SourceSequence>;
