// Collision checks: hand-made oriented boxes 0.1 m apart or overlapping, random boxes judged against
// exact polygon clipping (core/geometry), box gaps by hand, and the grid marking equal to all-pairs.
import { describe, expect, it } from 'vitest';
import { bevIntersectionArea } from '../../core/geometry/iou.ts';
import { lcg32 } from '../../core/rng.ts';
import { boxDistance } from '../../simulation/metrics/boxDistance.ts';
import { boxesOverlap, markCollisions } from '../../simulation/metrics/collision.ts';
import { SpatialGrid } from '../../simulation/spatialGrid.ts';

function rng(seed: number) {
  const next = lcg32(seed);
  return () => next() / 2 ** 32;
}

describe('collision', () => {
  it('detects overlap of hand-made oriented boxes', () => {
    // Side by side, 0.1 m apart: no collision; 0.1 m overlap: collision.
    expect(boxesOverlap(0, 0, 0, 4, 2, 0, 2.1, 0, 4, 2)).toBe(false);
    expect(boxesOverlap(0, 0, 0, 4, 2, 0, 1.9, 0, 4, 2)).toBe(true);
    // A box rotated 45° whose corner pokes into the other's front, and one that just misses.
    const d = Math.SQRT2; // half diagonal of a 2×2 box
    expect(boxesOverlap(0, 0, 0, 4, 2, 2 + d - 0.05, 0, Math.PI / 4, 2, 2)).toBe(true);
    expect(boxesOverlap(0, 0, 0, 4, 2, 2 + d + 0.05, 0, Math.PI / 4, 2, 2)).toBe(false);
    // Crossing T-bone.
    expect(boxesOverlap(0, 0, 0, 4.5, 2, 2.5, 0, Math.PI / 2, 4.5, 2)).toBe(true);
  });

  it('agrees with exact polygon clipping (core/geometry) on random boxes', () => {
    const r = rng(7);
    let overlaps = 0;
    for (let i = 0; i < 2000; i++) {
      const a = { cx: 0, cy: 0, cz: 0, length: 1 + 5 * r(), width: 0.5 + 2 * r(), height: 1, yaw: 6 * r() };
      const b = {
        cx: 8 * r() - 4,
        cy: 8 * r() - 4,
        cz: 0,
        length: 1 + 5 * r(),
        width: 0.5 + 2 * r(),
        height: 1,
        yaw: 6 * r(),
      };
      const area = bevIntersectionArea(a, b);
      if (area > 1e-6 && area < 1e-3) continue; // grazing contact: either answer is fine
      const sat = boxesOverlap(a.cx, a.cy, a.yaw, a.length, a.width, b.cx, b.cy, b.yaw, b.length, b.width);
      expect(sat).toBe(area > 1e-6);
      const dist = boxDistance(a.cx, a.cy, a.yaw, a.length, a.width, b.cx, b.cy, b.yaw, b.length, b.width);
      expect(dist < 0).toBe(sat);
      if (sat) overlaps++;
    }
    expect(overlaps).toBeGreaterThan(200);
  });

  it('box distance is the gap between outlines', () => {
    expect(boxDistance(0, 0, 0, 4, 2, 7, 0, 0, 4, 2)).toBeCloseTo(3, 12);
    expect(boxDistance(0, 0, 0, 4, 2, 0, 5, Math.PI / 2, 4, 2)).toBeCloseTo(5 - 1 - 2, 12);
    expect(boxDistance(0, 0, 0, 4, 2, 3, 0, 0, 4, 2)).toBeCloseTo(-1, 12);
  });

  it('grid-based marking matches all-pairs and never mixes scenarios', () => {
    const r = rng(3);
    const n = 400;
    const x = Float64Array.from({ length: n }, () => 100 * r());
    const y = Float64Array.from({ length: n }, () => 100 * r());
    const yaw = Float64Array.from({ length: n }, () => 6 * r());
    const length = Float32Array.from({ length: n }, () => 2 + 4 * r());
    const width = Float32Array.from({ length: n }, () => 1 + r());
    const valid = Uint8Array.from({ length: n }, () => (r() < 0.9 ? 1 : 0));
    const group = Int32Array.from({ length: n }, (_, i) => i % 3);
    const out = new Uint8Array(n);
    const count = markCollisions(n, { x, y, yaw, length, width, valid, group }, new SpatialGrid(), out);
    const brute = new Uint8Array(n);
    for (let i = 0; i < n; i++)
      for (let j = i + 1; j < n; j++)
        if (
          valid[i] &&
          valid[j] &&
          group[i] === group[j] &&
          boxesOverlap(x[i], y[i], yaw[i], length[i], width[i], x[j], y[j], yaw[j], length[j], width[j])
        )
          brute[i] = brute[j] = 1;
    expect(Array.from(out)).toEqual(Array.from(brute));
    expect(count).toBe(brute.reduce((a, b) => a + b, 0));
    expect(count).toBeGreaterThan(10);
  });
});
