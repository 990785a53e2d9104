// Squared-distance Chamfer (the 4D-Occ protocol's) on hand-made clouds with known answers, and the grid
// nearest-neighbour search against brute force.
import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { chamferSquared, cropBox, nearestSquaredDistances } from '../../worldmodel/chamfer.ts';

const cloud = (pts: number[][]) => ({
  x: Float32Array.from(pts, (p) => p[0]),
  y: Float32Array.from(pts, (p) => p[1]),
  z: Float32Array.from(pts, (p) => p[2]),
});

describe('chamferSquared', () => {
  it('is ½(mean a→b + mean b→a) of squared distances', () => {
    const a = cloud([
      [0, 0, 0],
      [10, 0, 0],
    ]);
    const b = cloud([[0, 1, 0]]);
    // a→b: 1 and 101 (mean 51); b→a: 1. ½(51 + 1) = 26.
    expect(chamferSquared(a, b)).toBeCloseTo(26, 6);
    expect(chamferSquared(a, a)).toBe(0);
    expect(Number.isNaN(chamferSquared(a, cloud([])))).toBe(true);
  });

  it('finds the same nearest neighbours as brute force', () => {
    const rng = new Rng(4);
    const mk = (n: number, s: number) => {
      const p = { x: new Float32Array(n), y: new Float32Array(n), z: new Float32Array(n) };
      for (let i = 0; i < n; i++) {
        p.x[i] = (rng.uniform() - 0.5) * s;
        p.y[i] = (rng.uniform() - 0.5) * s;
        p.z[i] = rng.uniform() * 3;
      }
      return p;
    };
    const a = mk(400, 60);
    const b = mk(150, 30); // sparser and smaller: many queries lie outside b's grid
    const fast = nearestSquaredDistances(a, b);
    for (let i = 0; i < a.x.length; i++) {
      let best = Infinity;
      for (let j = 0; j < b.x.length; j++)
        best = Math.min(best, (a.x[i] - b.x[j]) ** 2 + (a.y[i] - b.y[j]) ** 2 + (a.z[i] - b.z[j]) ** 2);
      expect(fast[i]).toBeCloseTo(best, 4);
    }
  });

  it('crops to the near-field box', () => {
    const c = cropBox(
      cloud([
        [0, 0, 0],
        [71, 0, 0],
        [0, 0, -5],
        [69, -69, 4],
      ]),
      70,
      70,
      4.5,
    );
    expect(Array.from(c.x)).toEqual([0, 69]);
  });
});
