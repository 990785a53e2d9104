// A static analytic street for odometry tests: rough ground, building walls at several headings, box-shaped
// cars and poles, sampled afresh each sweep (random points, no ring pattern) in a known vehicle frame.
import { invertPose, type Pose } from '../../../core/geometry/pose.ts';
import { mulberry32 } from '../scene.ts';

interface Quad {
  /** Corner and two edge vectors: points o + u·a + v·b, u, v ∈ [0, 1]. */
  o: [number, number, number];
  a: [number, number, number];
  b: [number, number, number];
  weight: number;
}

const wall = (x0: number, y0: number, x1: number, y1: number, h: number): Quad => ({
  o: [x0, y0, -1.8],
  a: [x1 - x0, y1 - y0, 0],
  b: [0, 0, h],
  weight: Math.hypot(x1 - x0, y1 - y0) * h,
});

/** Walls on both sides of a road along +x that bends a little, with cross streets, cars and poles. */
function streetQuads(): Quad[] {
  const q: Quad[] = [];
  for (let k = -2; k < 12; k++) {
    const x = 20 * k;
    // Façades set back by varying amounts so the street is not a uniform corridor.
    q.push(wall(x, 9 + (k % 3), x + 14, 9 + (k % 3), 8));
    q.push(wall(x + 14, 9 + (k % 3), x + 14, 16, 8));
    q.push(wall(x + 2, -10 - (k % 2), x + 16, -10 - (k % 2), 6));
    q.push(wall(x + 2, -10 - (k % 2), x + 2, -18, 6));
    // A parked car: two sides and a front face.
    const cx = x + 5;
    q.push(wall(cx, 5, cx + 4.5, 5, 1.5));
    q.push(wall(cx + 4.5, 5, cx + 4.5, 6.8, 1.5));
    // A pole (thin, tall).
    q.push(wall(x + 12, -6, x + 12.3, -6, 5));
    q.push(wall(x + 12, -6, x + 12, -6.3, 5));
  }
  q.push({ o: [-60, -30, -1.8], a: [320, 0, 0], b: [0, 60, 0], weight: 320 * 60 * 0.3 });
  return q;
}

const QUADS = streetQuads();

/**
 * `count` points sampled on the street within `rangeM` of the vehicle, returned in the vehicle frame of
 * `worldFromVehicle` as struct-of-arrays; ground gets ±`roughM` noise so it is rough, not a perfect plane.
 */
export function sampleStreet(
  worldFromVehicle: Pose,
  count: number,
  seed: number,
  rangeM = 60,
  roughM = 0.02,
): { x: Float32Array; y: Float32Array; z: Float32Array } {
  const rnd = mulberry32(seed);
  const total = QUADS.reduce((s, q) => s + q.weight, 0);
  const cdf: number[] = [];
  let acc = 0;
  for (const q of QUADS) cdf.push((acc += q.weight / total));
  const v = invertPose(worldFromVehicle);
  const x = new Float32Array(count);
  const y = new Float32Array(count);
  const z = new Float32Array(count);
  const ox = worldFromVehicle[3];
  const oy = worldFromVehicle[7];
  let n = 0;
  let guard = 0;
  while (n < count && guard++ < count * 200) {
    const r = rnd();
    let i = 0;
    while (cdf[i] < r) i++;
    const q = QUADS[i];
    const u = rnd();
    const w = rnd();
    const px = q.o[0] + u * q.a[0] + w * q.b[0];
    const py = q.o[1] + u * q.a[1] + w * q.b[1];
    let pz = q.o[2] + u * q.a[2] + w * q.b[2];
    if (Math.hypot(px - ox, py - oy) > rangeM) continue;
    if (q.b[2] === 0) pz += (rnd() - 0.5) * 2 * roughM;
    x[n] = v[0] * px + v[1] * py + v[2] * pz + v[3];
    y[n] = v[4] * px + v[5] * py + v[6] * pz + v[7];
    z[n] = v[8] * px + v[9] * py + v[10] * pz + v[11];
    n++;
  }
  return { x: x.slice(0, n), y: y.slice(0, n), z: z.slice(0, n) };
}
