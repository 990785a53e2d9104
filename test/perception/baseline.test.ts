// The classical baseline (RANSAC plane + DBSCAN + minimum-area rectangle) on generated scenes with known
// truth: a tilted ground is found and removed, and rotated boxes come back with their yaw and size.
import { describe, expect, it } from 'vitest';
import { baselineSweep, ransacGroundPlane, DEFAULT_BASELINE_CONFIG } from '../../perception/baseline.ts';
import { mulberry32 } from './scene.ts';

interface Truth {
  cx: number;
  cy: number;
  length: number;
  width: number;
  height: number;
  yaw: number;
}

/** A tilted ground grid (z = 0.02·x − 1.7) and points on the four sides and roof of each box standing on it. */
function scene(boxes: Truth[]) {
  const rnd = mulberry32(9);
  const xs: number[] = [];
  const ys: number[] = [];
  const zs: number[] = [];
  const groundZ = (x: number) => 0.02 * x - 1.7;
  for (let gx = -30; gx <= 30; gx += 0.4)
    for (let gy = -30; gy <= 30; gy += 0.4) {
      xs.push(gx);
      ys.push(gy);
      zs.push(groundZ(gx) + (rnd() - 0.5) * 0.04);
    }
  for (const b of boxes) {
    const c = Math.cos(b.yaw);
    const s = Math.sin(b.yaw);
    const n = Math.round(240 * (b.length + b.width)); // about the same density on every box
    for (let i = 0; i < n; i++) {
      // A point on the box surface (sides and roof), in the box frame.
      let u = (rnd() - 0.5) * b.length;
      let v = (rnd() - 0.5) * b.width;
      let h = rnd() * b.height;
      const side = i % 5;
      if (side === 0) u = b.length / 2;
      else if (side === 1) u = -b.length / 2;
      else if (side === 2) v = b.width / 2;
      else if (side === 3) v = -b.width / 2;
      else h = b.height;
      const x = b.cx + c * u - s * v;
      const y = b.cy + s * u + c * v;
      xs.push(x);
      ys.push(y);
      zs.push(groundZ(x) + 0.25 + h); // the lowest 0.25 m hidden, as behind a kerb
    }
  }
  return { x: Float32Array.from(xs), y: Float32Array.from(ys), z: Float32Array.from(zs) };
}

const angleDiff = (a: number, b: number) => {
  let d = (a - b) % Math.PI;
  if (d > Math.PI / 2) d -= Math.PI;
  if (d < -Math.PI / 2) d += Math.PI;
  return Math.abs(d);
};

describe('baseline: RANSAC ground + DBSCAN + minimum-area rectangle', () => {
  const truth: Truth[] = [
    { cx: 12, cy: 4, length: 4.5, width: 1.9, height: 1.5, yaw: 0.6 },
    { cx: -8, cy: -10, length: 0.8, width: 0.6, height: 1.7, yaw: -1.1 },
    { cx: 20, cy: -12, length: 4.2, width: 1.8, height: 1.4, yaw: 1.4 },
  ];
  const pts = scene(truth);

  it('fits the tilted ground plane', () => {
    const [a, b, c] = ransacGroundPlane(pts, DEFAULT_BASELINE_CONFIG);
    expect(a).toBeCloseTo(0.02, 2);
    expect(Math.abs(b)).toBeLessThan(0.005);
    expect(c).toBeCloseTo(-1.7, 1);
  });

  it('finds each rotated box with its yaw and size, and nothing else', () => {
    const r = baselineSweep(pts);
    expect(r.boxes.cx.length).toBe(truth.length);
    for (const t of truth) {
      let best = -1;
      let bestD = Infinity;
      for (let i = 0; i < r.boxes.cx.length; i++) {
        const d = Math.hypot(r.boxes.cx[i] - t.cx, r.boxes.cy[i] - t.cy);
        if (d < bestD) [best, bestD] = [i, d];
      }
      expect(bestD).toBeLessThan(0.05);
      expect(angleDiff(r.boxes.yaw[best], t.yaw)).toBeLessThan(0.02);
      expect(r.boxes.length[best]).toBeCloseTo(t.length, 1);
      expect(r.boxes.width[best]).toBeCloseTo(t.width, 1);
      // The box is the points' z extent (no extension to the ground): the height plus the 2 % tilt across it.
      const tilt = 0.02 * (Math.abs(Math.cos(t.yaw)) * t.length + Math.abs(Math.sin(t.yaw)) * t.width);
      expect(Math.abs(r.boxes.height[best] - t.height - tilt)).toBeLessThan(0.03);
    }
    // Ground points are all removed; every box point is clustered.
    const groundPts = 151 * 151;
    let groundLeft = 0;
    for (let i = 0; i < groundPts; i++) if (r.clusterOf[i] >= 0) groundLeft++;
    expect(groundLeft).toBe(0);
  });

  it('ranks larger clusters first and leaves boxes beyond rangeM out', () => {
    const r = baselineSweep(pts, { rangeM: 20 });
    // The box at (20, −12) is 23 m away.
    expect(r.boxes.cx.length).toBe(2);
    const car = r.boxes.numPoints[0] > r.boxes.numPoints[1] ? 0 : 1;
    expect(r.boxes.score[car]).toBeGreaterThan(r.boxes.score[1 - car]);
  });
});
