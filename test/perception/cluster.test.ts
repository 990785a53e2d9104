// Voxel-hash clustering: separate blobs stay separate, sparse noise stays noise, the range limit and the
// ego box hold, the result does not depend on point order, and NaN points are skipped.
import { describe, expect, it } from 'vitest';
import { clusterPoints } from '../../perception/cluster.ts';
import { mulberry32 } from './scene.ts';

/** Points uniformly inside axis-aligned boxes, plus isolated noise points. */
function blobs(
  specs: { c: [number, number, number]; half: [number, number, number]; n: number }[],
  noise: number[][] = [],
) {
  const rnd = mulberry32(7);
  const xs: number[] = [];
  const ys: number[] = [];
  const zs: number[] = [];
  const truth: number[] = [];
  specs.forEach((s, k) => {
    for (let i = 0; i < s.n; i++) {
      xs.push(s.c[0] + (rnd() * 2 - 1) * s.half[0]);
      ys.push(s.c[1] + (rnd() * 2 - 1) * s.half[1]);
      zs.push(s.c[2] + (rnd() * 2 - 1) * s.half[2]);
      truth.push(k);
    }
  });
  for (const p of noise) {
    xs.push(p[0]);
    ys.push(p[1]);
    zs.push(p[2]);
    truth.push(-1);
  }
  return { pts: { x: Float32Array.from(xs), y: Float32Array.from(ys), z: Float32Array.from(zs) }, truth };
}

/** True when two labelings induce the same partition (noise = −1 in both). */
function samePartition(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  const ab = new Map<number, number>();
  const ba = new Map<number, number>();
  for (let i = 0; i < a.length; i++) {
    if (a[i] < 0 !== b[i] < 0) return false;
    if (a[i] < 0) continue;
    if ((ab.get(a[i]) ?? b[i]) !== b[i] || (ba.get(b[i]) ?? a[i]) !== a[i]) return false;
    ab.set(a[i], b[i]);
    ba.set(b[i], a[i]);
  }
  return true;
}

describe('clustering', () => {
  it('finds objects 1 m apart as separate clusters and leaves sparse noise unlabelled', () => {
    const { pts, truth } = blobs(
      [
        { c: [10, 0, 0.8], half: [2.2, 0.9, 0.7], n: 600 },
        { c: [15.5, 0, 0.8], half: [2.2, 0.9, 0.7], n: 600 }, // 1.1 m gap to the first
        { c: [-8, 6, 0.9], half: [0.3, 0.3, 0.9], n: 120 },
      ],
      [
        [20, 20, 1],
        [25, -10, 0.5],
        [-15, -15, 2],
      ],
    );
    const r = clusterPoints(pts, null);
    expect(r.count).toBe(3);
    expect(samePartition(r.labels, truth)).toBe(true);
  });

  it('clusters only within the configured range and outside the ego box', () => {
    const { pts } = blobs([
      { c: [45, 0, 0.8], half: [2, 1, 0.7], n: 400 },
      { c: [0.5, 0, 0.5], half: [1.5, 0.8, 0.5], n: 400 }, // returns from the ego vehicle itself
    ]);
    const near = clusterPoints(pts, null);
    expect(near.count).toBe(0);
    const far = clusterPoints(pts, null, { rangeM: 60 });
    expect(far.count).toBe(1);
    expect(far.labels[0]).toBe(0);
    expect(far.labels[400]).toBe(-1);
  });

  it('gives the same partition whatever the point order, and skips masked and NaN points', () => {
    const { pts } = blobs([
      { c: [8, 3, 0.8], half: [2, 1, 0.7], n: 500 },
      { c: [8, -3, 0.8], half: [2, 1, 0.7], n: 500 },
      { c: [-20, 10, 1], half: [3, 0.3, 1.5], n: 500 },
    ]);
    const a = clusterPoints(pts, null);
    const rnd = mulberry32(3);
    const perm = Array.from({ length: pts.x.length }, (_, i) => i).sort(() => rnd() - 0.5);
    const shuffled = {
      x: Float32Array.from(perm, (i) => pts.x[i]),
      y: Float32Array.from(perm, (i) => pts.y[i]),
      z: Float32Array.from(perm, (i) => pts.z[i]),
    };
    const b = clusterPoints(shuffled, null);
    // Back to the original order: point i sits at position perm.indexOf(i) of the shuffled cloud.
    const back = Int32Array.from({ length: perm.length }, (_, i) => b.labels[perm.indexOf(i)]);
    expect(samePartition(a.labels, back)).toBe(true);
    expect(a.count).toBe(3);

    const mask = new Uint8Array(pts.x.length).fill(1);
    mask.fill(0, 0, 500);
    pts.x[600] = NaN;
    pts.z[700] = Infinity;
    const m = clusterPoints(pts, mask);
    expect(m.count).toBe(2);
    expect(m.labels[0]).toBe(-1);
    expect(m.labels[600]).toBe(-1);
    expect(m.labels[700]).toBe(-1);
  });

  it('copes with no points and with fewer points than a cluster needs', () => {
    const none = clusterPoints(
      { x: new Float32Array(0), y: new Float32Array(0), z: new Float32Array(0) },
      null,
    );
    expect(none.count).toBe(0);
    const few = clusterPoints(
      { x: Float32Array.of(5, 5.1), y: Float32Array.of(0, 0), z: Float32Array.of(0, 0) },
      null,
    );
    expect(few.count).toBe(0);
    expect(Array.from(few.labels)).toEqual([-1, -1]);
  });
});

describe('dense voxel index', () => {
  it('gives the hash table path’s labels exactly (same voxel ids, same clusters)', () => {
    const rnd = mulberry32(11);
    const { pts } = blobs(
      Array.from({ length: 40 }, () => ({
        c: [(rnd() * 2 - 1) * 38, (rnd() * 2 - 1) * 38, rnd() * 2 - 1] as [number, number, number],
        half: [0.2 + rnd() * 2, 0.2 + rnd() * 2, 0.2 + rnd()] as [number, number, number],
        n: 5 + Math.floor(rnd() * 300),
      })),
      Array.from({ length: 500 }, () => [(rnd() * 2 - 1) * 45, (rnd() * 2 - 1) * 45, (rnd() * 2 - 1) * 3]),
    );
    const dense = clusterPoints(pts, null);
    const hash = clusterPoints(pts, null, {}, 'hash');
    expect(dense.count).toBeGreaterThan(20);
    expect(dense.count).toBe(hash.count);
    expect(Array.from(dense.labels)).toEqual(Array.from(hash.labels));
    // A second call reuses the dense grid: it must start empty again.
    expect(Array.from(clusterPoints(pts, null).labels)).toEqual(Array.from(hash.labels));
  });
});
