// Grid DBSCAN against known truth: blobs farther apart than eps are separate, chains within eps are one,
// minPoints decides core vs noise, and the result equals a brute-force O(n²) DBSCAN on random points.
import { describe, expect, it } from 'vitest';
import { dbscan } from '../../perception/dbscan.ts';
import { mulberry32 } from './scene.ts';

const cloud = (xs: number[], ys: number[], zs: number[]) => ({
  x: Float32Array.from(xs),
  y: Float32Array.from(ys),
  z: Float32Array.from(zs),
});

/** Points uniformly in an axis-aligned box. */
function blob(rnd: () => number, c: number[], half: number[], n: number, out: number[][]) {
  for (let i = 0; i < n; i++) for (let k = 0; k < 3; k++) out[k].push(c[k] + (rnd() * 2 - 1) * half[k]);
}

/** Textbook DBSCAN by brute force: core flags and, per point, the cores within eps. */
function bruteForce(p: { x: Float32Array; y: Float32Array; z: Float32Array }, eps: number, minPts: number) {
  const n = p.x.length;
  const near = (i: number, j: number) =>
    (p.x[i] - p.x[j]) ** 2 + (p.y[i] - p.y[j]) ** 2 + (p.z[i] - p.z[j]) ** 2 <= eps * eps;
  const core = Array.from({ length: n }, (_, i) => {
    let c = 0;
    for (let j = 0; j < n; j++) if (near(i, j)) c++;
    return c >= minPts;
  });
  // Connected components of the core points.
  const comp = new Array<number>(n).fill(-1);
  let k = 0;
  for (let s = 0; s < n; s++) {
    if (!core[s] || comp[s] >= 0) continue;
    const stack = [s];
    comp[s] = k;
    while (stack.length) {
      const i = stack.pop()!;
      for (let j = 0; j < n; j++)
        if (core[j] && comp[j] < 0 && near(i, j)) {
          comp[j] = k;
          stack.push(j);
        }
    }
    k++;
  }
  return { core, comp, near, count: k };
}

describe('dbscan', () => {
  it('splits two blobs whose gap exceeds eps and keeps each whole', () => {
    const rnd = mulberry32(3);
    const c: number[][] = [[], [], []];
    blob(rnd, [10, 0, 0.8], [1, 0.5, 0.5], 400, c); // x in [9, 11]
    blob(rnd, [12.7, 0, 0.8], [1, 0.5, 0.5], 400, c); // x in [11.7, 13.7]: a 0.7 m gap > eps 0.5
    const r = dbscan(cloud(c[0], c[1], c[2]), null, { epsM: 0.5, minPoints: 5 });
    expect(r.count).toBe(2);
    const a = new Set(r.labels.subarray(0, 400));
    const b = new Set(r.labels.subarray(400));
    expect(a.size).toBe(1);
    expect(b.size).toBe(1);
    expect([...a][0]).not.toBe([...b][0]);
    expect([...a][0]).toBeGreaterThanOrEqual(0);
  });

  it('chains points within eps into one cluster however long the chain, and cuts it at a gap > eps', () => {
    const xs: number[] = [];
    for (let i = 0; i < 100; i++) xs.push(i * 0.2); // a 20 m line, 0.2 m spacing: 5 points within 0.5 m
    const line = cloud(
      xs,
      xs.map(() => 0),
      xs.map(() => 1),
    );
    const one = dbscan(line, null, { epsM: 0.5, minPoints: 5 });
    expect(one.count).toBe(1);
    expect([...one.labels].every((l) => l === 0)).toBe(true);
    // Move the second half 0.6 m further: the step between points 49 and 50 becomes 0.8 m > eps.
    const cut = cloud(
      xs.map((x, i) => (i >= 50 ? x + 0.6 : x)),
      xs.map(() => 0),
      xs.map(() => 1),
    );
    const two = dbscan(cut, null, { epsM: 0.5, minPoints: 5 });
    expect(two.count).toBe(2);
    expect(new Set(two.labels.subarray(0, 50)).size).toBe(1);
    expect(new Set(two.labels.subarray(50)).size).toBe(1);
    expect(two.labels[0]).not.toBe(two.labels[99]);
  });

  it('counts a point itself toward minPoints: 5 points within eps are a cluster, 4 are noise', () => {
    const five = cloud([0, 0.1, 0.2, 0, 0.1], [0, 0, 0, 0.1, 0.1], [0, 0, 0, 0, 0]);
    expect(dbscan(five, null, { epsM: 0.5, minPoints: 5 }).count).toBe(1);
    const four = cloud([0, 0.1, 0.2, 0], [0, 0, 0, 0.1], [0, 0, 0, 0]);
    const r = dbscan(four, null, { epsM: 0.5, minPoints: 5 });
    expect(r.count).toBe(0);
    expect([...r.labels]).toEqual([-1, -1, -1, -1]);
  });

  it('equals brute-force DBSCAN on random points (cores partitioned alike, noise alike, borders on a near core)', () => {
    const rnd = mulberry32(11);
    const c: number[][] = [[], [], []];
    blob(rnd, [0, 0, 0], [3, 3, 1], 500, c); // sparse: many border and noise points
    blob(rnd, [-2, 4, 0.5], [0.6, 0.6, 0.6], 150, c);
    const pts = cloud(c[0], c[1], c[2]);
    const eps = 0.5;
    const bf = bruteForce(pts, eps, 5);
    const r = dbscan(pts, null, { epsM: eps, minPoints: 5 });
    expect(r.count).toBe(bf.count);
    expect(bf.count).toBeGreaterThan(1);
    const map = new Map<number, number>();
    let borders = 0;
    for (let i = 0; i < pts.x.length; i++) {
      if (bf.core[i]) {
        const m = map.get(bf.comp[i]);
        if (m === undefined) map.set(bf.comp[i], r.labels[i]);
        else expect(r.labels[i]).toBe(m);
        continue;
      }
      let nearCore = -1;
      for (let j = 0; j < pts.x.length && nearCore < 0; j++) if (bf.core[j] && bf.near(i, j)) nearCore = j;
      if (nearCore < 0) expect(r.labels[i]).toBe(-1);
      else {
        borders++;
        // A border point joins a cluster one of its core neighbours is in.
        const ok = [...Array(pts.x.length).keys()].some(
          (j) => bf.core[j] && bf.near(i, j) && r.labels[j] === r.labels[i],
        );
        expect(ok).toBe(true);
      }
    }
    expect(borders).toBeGreaterThan(0);
    expect(new Set(map.values()).size).toBe(bf.count);
  });

  it('clusters only masked, finite points', () => {
    const rnd = mulberry32(5);
    const c: number[][] = [[], [], []];
    blob(rnd, [5, 5, 0], [0.3, 0.3, 0.3], 50, c);
    c[0].push(NaN);
    c[1].push(5);
    c[2].push(0);
    const pts = cloud(c[0], c[1], c[2]);
    const mask = new Uint8Array(51).fill(1);
    mask.fill(0, 0, 20);
    const r = dbscan(pts, mask, { epsM: 0.5, minPoints: 5 });
    expect(r.count).toBe(1);
    expect([...r.labels.subarray(0, 20)].every((l) => l === -1)).toBe(true);
    expect([...r.labels.subarray(20, 50)].every((l) => l === 0)).toBe(true);
    expect(r.labels[50]).toBe(-1);
    expect(() => dbscan(pts, null, { epsM: 0 })).toThrow(/epsM/);
  });
});
