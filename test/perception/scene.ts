// Small generated sweeps for the perception tests: a spinning multi-beam sensor ray-cast against a
// terrain height function and solid oriented boxes (exact, no occlusion shortcuts), with seeded noise.
import type { Box3 } from '../../core/geometry/box.ts';
import { Rng } from '../../core/rng.ts';

export interface SceneSpec {
  sensorZ: number;
  rings: number;
  azimuthSteps: number;
  minElevationDeg: number;
  maxElevationDeg: number;
  maxRangeM: number;
  terrain: (x: number, y: number) => number;
  boxes: Box3[];
  noiseM?: number;
  seed?: number;
  /** Sensor position in the world and heading, for sequences (default origin, yaw 0). */
  originX?: number;
  originY?: number;
  yaw?: number;
}

export interface Sweep {
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
}

/** Uniform draws of core/rng.ts's mulberry32, its counter started at `seed` itself (unmixed), as the test scenes were made. */
export function mulberry32(seed: number): () => number {
  const rng = Rng.fromState({ algorithm: 'mulberry32', s: [seed, 0], spare: null });
  return () => rng.next();
}

/** Ray/box slab test in the box's frame; returns the entry distance or Infinity. */
function hitBox(b: Box3, ox: number, oy: number, oz: number, dx: number, dy: number, dz: number): number {
  const c = Math.cos(b.yaw);
  const s = Math.sin(b.yaw);
  const px = c * (ox - b.cx) + s * (oy - b.cy);
  const py = -s * (ox - b.cx) + c * (oy - b.cy);
  const pz = oz - b.cz;
  const qx = c * dx + s * dy;
  const qy = -s * dx + c * dy;
  let t0 = 0;
  let t1 = Infinity;
  const slab = (p: number, q: number, h: number) => {
    if (Math.abs(q) < 1e-12) return Math.abs(p) <= h;
    let a = (-h - p) / q;
    let bb = (h - p) / q;
    if (a > bb) [a, bb] = [bb, a];
    t0 = Math.max(t0, a);
    t1 = Math.min(t1, bb);
    return t0 <= t1;
  };
  if (!slab(px, qx, b.length / 2) || !slab(py, qy, b.width / 2) || !slab(pz, dz, b.height / 2))
    return Infinity;
  return t0 > 0 ? t0 : Infinity;
}

/** Cast one sweep; points are returned in the sensor's vehicle frame (origin below the sensor at z=0). */
export function castSweep(spec: SceneSpec): Sweep {
  const rnd = mulberry32(spec.seed ?? 1);
  const ox = spec.originX ?? 0;
  const oy = spec.originY ?? 0;
  const yaw = spec.yaw ?? 0;
  const cy = Math.cos(yaw);
  const sy = Math.sin(yaw);
  const xs: number[] = [];
  const ys: number[] = [];
  const zs: number[] = [];
  const step = 0.25;
  for (let r = 0; r < spec.rings; r++) {
    const el =
      ((spec.minElevationDeg +
        ((spec.maxElevationDeg - spec.minElevationDeg) * r) / Math.max(1, spec.rings - 1)) *
        Math.PI) /
      180;
    for (let a = 0; a < spec.azimuthSteps; a++) {
      const az = (2 * Math.PI * a) / spec.azimuthSteps;
      const lx = Math.cos(el) * Math.cos(az);
      const ly = Math.cos(el) * Math.sin(az);
      const dz = Math.sin(el);
      const dx = cy * lx - sy * ly;
      const dy = sy * lx + cy * ly;
      let best = Infinity;
      for (const b of spec.boxes) best = Math.min(best, hitBox(b, ox, oy, spec.sensorZ, dx, dy, dz));
      // Terrain: march, then bisect the first crossing.
      let prev = 0;
      for (let t = step; t < Math.min(best, spec.maxRangeM); t += step) {
        const z = spec.sensorZ + dz * t;
        if (z <= spec.terrain(ox + dx * t, oy + dy * t)) {
          let lo = prev;
          let hi = t;
          for (let k = 0; k < 20; k++) {
            const mid = (lo + hi) / 2;
            if (spec.sensorZ + dz * mid <= spec.terrain(ox + dx * mid, oy + dy * mid)) hi = mid;
            else lo = mid;
          }
          best = Math.min(best, hi);
          break;
        }
        prev = t;
      }
      if (!(best < spec.maxRangeM)) continue;
      const range = best + (spec.noiseM ?? 0) * (rnd() * 2 - 1);
      // Back into the vehicle frame.
      xs.push(lx * range);
      ys.push(ly * range);
      zs.push(spec.sensorZ + dz * range);
    }
  }
  return { x: Float32Array.from(xs), y: Float32Array.from(ys), z: Float32Array.from(zs) };
}

export const flat =
  (level = 0) =>
  () =>
    level;

export interface MovingBox extends Box3 {
  /** World-frame velocity (m/s) along x and y. */
  vx: number;
  vy: number;
}

export interface SequenceSpec extends Omit<SceneSpec, 'boxes' | 'originX' | 'originY' | 'yaw'> {
  frames: number;
  rateHz: number;
  /** Ego speed along world +x (m/s). */
  egoSpeed: number;
  objects: MovingBox[];
}

export interface GeneratedSequence {
  sweeps: Sweep[];
  /** world_from_vehicle per frame. */
  poses: Float64Array;
  timesS: Float64Array;
  /** Ground truth per frame in the vehicle frame, with track id = object index and points inside. */
  gt: { frame: number; track: number; box: Box3; points: number }[];
}

/** A straight ego drive past moving boxes; ground truth boxes are exact. */
export function castSequence(spec: SequenceSpec): GeneratedSequence {
  const sweeps: Sweep[] = [];
  const poses = new Float64Array(16 * spec.frames);
  const timesS = new Float64Array(spec.frames);
  const gt: GeneratedSequence['gt'] = [];
  for (let f = 0; f < spec.frames; f++) {
    const t = f / spec.rateHz;
    const ex = spec.egoSpeed * t;
    timesS[f] = t;
    poses.set([1, 0, 0, ex, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1], 16 * f);
    const world = spec.objects.map((o) => ({ ...o, cx: o.cx + o.vx * t, cy: o.cy + o.vy * t }));
    const sweep = castSweep({
      ...spec,
      boxes: world,
      originX: ex,
      originY: 0,
      yaw: 0,
      seed: (spec.seed ?? 1) + f,
    });
    sweeps.push(sweep);
    world.forEach((o, k) => {
      const box: Box3 = {
        cx: o.cx - ex,
        cy: o.cy,
        cz: o.cz,
        length: o.length,
        width: o.width,
        height: o.height,
        yaw: o.yaw,
      };
      let points = 0;
      const c = Math.cos(box.yaw);
      const s = Math.sin(box.yaw);
      for (let i = 0; i < sweep.x.length; i++) {
        const dx = sweep.x[i] - box.cx;
        const dy = sweep.y[i] - box.cy;
        if (
          Math.abs(c * dx + s * dy) <= box.length / 2 + 0.01 &&
          Math.abs(-s * dx + c * dy) <= box.width / 2 + 0.01 &&
          Math.abs(sweep.z[i] - box.cz) <= box.height / 2 + 0.01
        )
          points++;
      }
      gt.push({ frame: f, track: k, box, points });
    });
  }
  return { sweeps, poses, timesS, gt };
}
