// The range-repeat measurement: returns along the same direction pair up across a pose change, and the median
// |Δr| recovers the spread of i.i.d. noise and vanishes for an error that repeats.
import { describe, expect, it } from 'vitest';
import { poseFromTranslationYaw } from '../../../core/geometry/pose.ts';
import { Rng } from '../../../core/rng.ts';
import { rangeRepeatDiffs } from '../../../tools/models/rangeRepeat.ts';

/** Returns on a wall of directions (az, el) at ranges r + noise, seen from `origin` (x, y). */
function sweep(dirs: number[][], noise: (k: number) => number, origin = [0, 0]) {
  const n = dirs.length;
  const x = new Float32Array(n);
  const y = new Float32Array(n);
  const z = new Float32Array(n);
  dirs.forEach(([az, el, r], k) => {
    const rr = r + noise(k);
    x[k] = rr * Math.cos(el) * Math.cos(az) - origin[0];
    y[k] = rr * Math.cos(el) * Math.sin(az) - origin[1];
    z[k] = rr * Math.sin(el);
  });
  return { x, y, z };
}

describe('rangeRepeatDiffs', () => {
  const rng = new Rng(3, 'mulberry32');
  const dirs: number[][] = [];
  for (let k = 0; k < 6000; k++) dirs.push([rng.uniform(-3, 3), rng.uniform(-0.3, 0.05), rng.uniform(6, 28)]);
  const cfg = { maxMoveM: 0.05, maxAngleDeg: 0.03, minRangeM: 5, maxRangeM: 30, queryStride: 1 };

  it('gives a median |Δr| of 0.954 σ for noise drawn afresh, and 0 for an error that repeats', () => {
    const sigma = 0.02;
    const a = sweep(dirs, () => sigma * rng.normal());
    const b = sweep(dirs, () => sigma * rng.normal());
    const identity = poseFromTranslationYaw(0, 0, 0, 0);
    const d = rangeRepeatDiffs(a, b, identity, cfg).sort();
    expect(d.length).toBeGreaterThan(5000);
    expect(d[d.length >> 1] / sigma).toBeGreaterThan(0.954 * 0.9);
    expect(d[d.length >> 1] / sigma).toBeLessThan(0.954 * 1.1);
    const bias = dirs.map(() => sigma * rng.normal());
    const c = sweep(dirs, (k) => bias[k]);
    const e = rangeRepeatDiffs(c, c, identity, cfg).sort();
    expect(e[e.length - 1]).toBeLessThan(1e-5);
  });

  it('places the earlier sweep in the later frame by the pose', () => {
    // The same returns recorded from a sensor 0.5 m further along x: placed back by curFromPrev they match.
    const prev = sweep(dirs, () => 0, [0, 0]);
    const cur = sweep(dirs, () => 0, [0, 0]);
    const shifted = { x: prev.x.map((v) => v + 0.5), y: prev.y, z: prev.z };
    const d = rangeRepeatDiffs(shifted, cur, poseFromTranslationYaw(-0.5, 0, 0, 0), cfg);
    expect(d.length).toBeGreaterThan(5000);
    expect(Math.max(...d)).toBeLessThan(1e-4);
    // Without the pose the ranges are off by up to the shift.
    const wrong = rangeRepeatDiffs(shifted, cur, poseFromTranslationYaw(0, 0, 0, 0), cfg);
    expect(wrong.length).toBeLessThan(d.length / 2);
  });
});
