// The last few observed sweeps aggregated in a later frame (world frame via the ego poses, then that frame's
// sensor-relative coordinates): the information every past-points baseline and the multi-sweep prior use.
import type { Pose } from '../../core/geometry/pose.ts';
import type { SensorPoints } from '../voxelize.ts';

/** One observed sweep (ego returns removed, vehicle frame) and the pose taking it into the target frame. */
export interface PlacedSource {
  points: SensorPoints;
  /** target_vehicle ← source_vehicle. */
  targetFromSource: Pose;
}

/** The sources' points in the target frame, shifted so its sensor (at `origin`) is the origin; one cloud. */
export function aggregateSweeps(
  sources: readonly PlacedSource[],
  origin: readonly [number, number, number],
): SensorPoints {
  let n = 0;
  for (const s of sources) n += s.points.x.length;
  const x = new Float32Array(n);
  const y = new Float32Array(n);
  const z = new Float32Array(n);
  let o = 0;
  for (const s of sources) {
    const m = s.targetFromSource;
    const p = s.points;
    for (let i = 0; i < p.x.length; i++, o++) {
      const px = p.x[i];
      const py = p.y[i];
      const pz = p.z[i];
      x[o] = m[0] * px + m[1] * py + m[2] * pz + m[3] - origin[0];
      y[o] = m[4] * px + m[5] * py + m[6] * pz + m[7] - origin[1];
      z[o] = m[8] * px + m[9] * py + m[10] * pz + m[11] - origin[2];
    }
  }
  return { x, y, z };
}

/** Raw frames of the observed sweeps before (and including) `t0`, `step` apart, at most `count`, never < 0. */
export function pastFrames(t0: number, step: number, count: number): number[] {
  const out: number[] = [];
  for (let k = 0; k < count && t0 - k * step >= 0; k++) out.push(t0 - k * step);
  return out;
}
