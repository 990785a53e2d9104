// A SourceSequence over per-frame files (KITTI .bin, PCD, nuScenes .pcd.bin, PLY): frames decoded one
// at a time as the importer asks, poses and timestamps per frame, labels attached by the reader.
import type { Boxes, PointCloud } from '../core/arrow/records.ts';
import { identityPose, type Pose } from '../core/geometry/pose.ts';
import type { FrameInput } from './logstore.ts';
import type { SourceSequence } from './source.ts';

export interface FileSequenceSpec {
  source: string;
  sensor: string | null;
  rateHz: number;
  files: readonly string[];
  /** Points of one frame file, vehicle frame. */
  decode(file: string, index: number): PointCloud;
  /** world_from_vehicle per frame; null → identity for every frame. */
  poses: readonly Pose[] | null;
  /** Per-frame timestamps; default frame index / rateHz. */
  timestampsNs?: readonly bigint[];
  labels?: () => Boxes | null;
  extra?: Record<string, unknown>;
}

export function fileSequence(spec: FileSequenceSpec): SourceSequence {
  const n = spec.files.length;
  const periodNs = spec.rateHz > 0 ? 1e9 / spec.rateHz : 1e8;
  const timestamp = (i: number) => spec.timestampsNs?.[i] ?? BigInt(Math.round(i * periodNs));
  return {
    source: spec.source,
    sensor: spec.sensor,
    rateHz: spec.rateHz,
    frameCount: n,
    *frames(): Iterable<FrameInput> {
      for (let i = 0; i < n; i++) {
        yield {
          timestampNs: timestamp(i),
          pose: spec.poses ? spec.poses[i] : identityPose(),
          points: spec.decode(spec.files[i], i),
        };
      }
    },
    labels: () => spec.labels?.() ?? null,
    extra: spec.extra,
  };
}
