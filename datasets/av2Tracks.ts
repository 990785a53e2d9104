// Argoverse 2 agent tracks: every cuboid of annotations.feather (ego frame, one row per track and
// sweep) moved into the city frame with city_SE3_egovehicle, as a (track × timestamp) grid, plus the
// ego's own track. The feathers are LZ4-compressed: the codec is registered by datasets/av2.ts.
import fs from 'node:fs';
import path from 'node:path';
import { InputError } from '../core/errors.ts';
import { composePoses, poseFromQuaternion, translationOfPose, yawOfPose } from '../core/geometry/pose.ts';
import { poseAt, readAnnotations, readPoses } from './av2.ts';
import { upperMedian } from '../core/stats.ts';

export interface Av2Tracks {
  logId: string;
  /** Sorted unique annotation timestamps (one per annotated sweep). */
  timestampsNs: BigInt64Array;
  trackUuids: string[];
  /** AV2 category of each track (its first row's). */
  categories: string[];
  /** Per (track, timestamp) at track * numTimestamps + t, city frame; size is the track's median. */
  x: Float64Array;
  y: Float64Array;
  z: Float64Array;
  yaw: Float64Array;
  valid: Uint8Array;
  length: Float32Array;
  width: Float32Array;
  height: Float32Array;
  /** The ego vehicle at each timestamp (city frame). */
  egoX: Float64Array;
  egoY: Float64Array;
  egoZ: Float64Array;
  egoYaw: Float64Array;
}

/** The middle size sample (a size that was annotated), 0 for none. */
function medianSize(xs: number[]): number {
  return xs.length ? upperMedian(xs) : 0;
}

/** Read the tracks of an AV2 log directory (annotations.feather + city_SE3_egovehicle.feather). */
export function readAv2Tracks(logDir: string): Av2Tracks {
  const annFile = path.join(logDir, 'annotations.feather');
  const poseFile = path.join(logDir, 'city_SE3_egovehicle.feather');
  for (const f of [annFile, poseFile]) if (!fs.existsSync(f)) throw new InputError(f, 'no such file');
  const { timestampNs: stamps, trackUuid: uuid, category, ...ann } = readAnnotations(annFile);
  if (stamps.length === 0) throw new InputError(annFile, 'no annotations');
  const { length: len, width: wid, height: hei, qw, qx, qy, qz, tx, ty, tz } = ann;
  const track = readPoses(poseFile);

  const times = BigInt64Array.from([...new Set(stamps)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)));
  const timeIndex = new Map<bigint, number>();
  times.forEach((t, i) => timeIndex.set(t, i));
  const trackIndex = new Map<string, number>();
  const categories: string[] = [];
  uuid.forEach((u, r) => {
    if (!trackIndex.has(u)) {
      trackIndex.set(u, trackIndex.size);
      categories.push(category[r]);
    }
  });
  const T = times.length;
  const N = trackIndex.size;
  const egoPoses = Array.from(times, (t) => poseAt(track, t, poseFile));
  const out: Av2Tracks = {
    logId: path.basename(path.resolve(logDir)),
    timestampsNs: times,
    trackUuids: [...trackIndex.keys()],
    categories,
    x: new Float64Array(N * T),
    y: new Float64Array(N * T),
    z: new Float64Array(N * T),
    yaw: new Float64Array(N * T),
    valid: new Uint8Array(N * T),
    length: new Float32Array(N),
    width: new Float32Array(N),
    height: new Float32Array(N),
    egoX: new Float64Array(T),
    egoY: new Float64Array(T),
    egoZ: new Float64Array(T),
    egoYaw: new Float64Array(T),
  };
  egoPoses.forEach((p, t) => {
    [out.egoX[t], out.egoY[t], out.egoZ[t]] = translationOfPose(p);
    out.egoYaw[t] = yawOfPose(p);
  });
  const sizes: number[][][] = Array.from({ length: N }, () => [[], [], []]);
  for (let r = 0; r < stamps.length; r++) {
    const a = trackIndex.get(uuid[r])!;
    const t = timeIndex.get(stamps[r])!;
    const k = a * T + t;
    const world = composePoses(
      egoPoses[t],
      poseFromQuaternion(qw[r], qx[r], qy[r], qz[r], tx[r], ty[r], tz[r]),
    );
    [out.x[k], out.y[k], out.z[k]] = translationOfPose(world);
    out.yaw[k] = yawOfPose(world);
    out.valid[k] = 1;
    sizes[a][0].push(len[r]);
    sizes[a][1].push(wid[r]);
    sizes[a][2].push(hei[r]);
  }
  for (let a = 0; a < N; a++) {
    out.length[a] = medianSize(sizes[a][0]);
    out.width[a] = medianSize(sizes[a][1]);
    out.height[a] = medianSize(sizes[a][2]);
  }
  return out;
}
