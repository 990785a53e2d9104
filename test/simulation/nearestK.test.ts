// The pruned nearest-first k-nearest search (simulation/nearestK.ts) keeps exactly what the plain search
// kept — a column-by-column scan of the whole window into a k-smallest list — on hashed grids with bucket
// collisions and many exactly equal distances, and the agent observations built on it match that scan.
import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { SimEnv } from '../../simulation/env.ts';
import { buildStaticGrid, gridBucket, type StaticGrid } from '../../simulation/map/staticGrid.ts';
import { GridWindow, NearestK, nearestInStaticGrid } from '../../simulation/nearestK.ts';
import { LANE_FEATURES, observationOffsets, Observer } from '../../simulation/observation.ts';
import { controlAllPresent } from '../../simulation/training/evaluate.ts';
import { generateTown } from '../../simulation/town/town.ts';

/** The plain search (the observation's definition): every window cell in scan order, a sorted k-list. */
function plainScan(
  g: StaticGrid,
  px: ArrayLike<number>,
  py: ArrayLike<number>,
  x: number,
  y: number,
  r: number,
  k: number,
) {
  const keys: number[] = [];
  const ids: number[] = [];
  const cx = Math.floor(x / g.cellM);
  const cy = Math.floor(y / g.cellM);
  const reach = Math.ceil(r / g.cellM);
  for (let ox = -reach; ox <= reach; ox++) {
    for (let oy = -reach; oy <= reach; oy++) {
      const b = gridBucket(g, cx + ox, cy + oy);
      for (let p = g.start[b]; p < g.start[b + 1]; p++) {
        const i = g.items[p];
        const d2 = (px[i] - x) ** 2 + (py[i] - y) ** 2;
        if (d2 > r * r || ids.includes(i)) continue;
        if (ids.length === k && d2 >= keys[k - 1]) continue;
        let at = ids.length;
        while (at > 0 && keys[at - 1] > d2) at--;
        keys.splice(at, 0, d2);
        ids.splice(at, 0, i);
        if (ids.length > k) {
          keys.pop();
          ids.pop();
        }
      }
    }
  }
  return ids;
}

/** Points on a 1 m lattice (many exactly equal distances) indexed by a grid with a tiny hash table. */
function latticeScene(rng: Rng, count: number, tableBits: number) {
  const px = new Float32Array(count);
  const py = new Float32Array(count);
  for (let i = 0; i < count; i++) {
    px[i] = rng.int(120) - 60;
    py[i] = rng.int(120) - 60;
  }
  const cellM = 10;
  const g = buildStaticGrid(cellM, count, (i, emit) =>
    emit(Math.floor(px[i] / cellM), Math.floor(py[i] / cellM)),
  );
  // Re-hash into 2^tableBits buckets so cells of one window share buckets.
  const size = 1 << tableBits;
  const small: StaticGrid = {
    cellM,
    mask: size - 1,
    start: new Int32Array(size + 1),
    items: new Int32Array(count),
  };
  const bucketOf = Int32Array.from({ length: count }, (_, i) =>
    gridBucket(small, Math.floor(px[i] / cellM), Math.floor(py[i] / cellM)),
  );
  for (const b of bucketOf) small.start[b + 1]++;
  for (let b = 0; b < size; b++) small.start[b + 1] += small.start[b];
  const cursor = small.start.slice(0, size);
  for (let i = 0; i < count; i++) small.items[cursor[bucketOf[i]]++] = i;
  return { px, py, grids: [g, small] };
}

describe('nearest-first k-nearest search', () => {
  it('keeps what the plain scan keeps, ties and hash collisions included', () => {
    const rng = new Rng(7);
    // A window that keeps few hashed windows: cache hits, misses and the drop when full all occur.
    const wins = [new GridWindow(), new GridWindow(3)];
    let ties = 0;
    for (const [count, bits] of [
      [3000, 4],
      [800, 6],
      [5000, 14],
    ]) {
      const { px, py, grids } = latticeScene(rng, count, bits);
      for (const g of grids) {
        for (let q = 0; q < 60; q++) {
          // Query points on the lattice too (equal distances everywhere) and between lattice points.
          const x = q % 2 ? rng.int(100) - 50 : (rng.uniform() - 0.5) * 100;
          const y = q % 2 ? rng.int(100) - 50 : (rng.uniform() - 0.5) * 100;
          for (const k of [1, 16, 32]) {
            const want = plainScan(g, px, py, x, y, 25, k);
            for (const win of wins) {
              const near = new NearestK(k);
              nearestInStaticGrid(win, near, g, px, py, x, y, 25);
              expect(Array.from(near.ids.subarray(0, near.count))).toEqual(want);
            }
            const near = new NearestK(k);
            nearestInStaticGrid(wins[0], near, g, px, py, x, y, 25);
            if (near.count === k && near.count > 1 && near.keys[k - 1] === near.keys[k - 2]) ties++;
          }
        }
      }
    }
    // The scenes must exercise equal distances at the cut, where the scan order decides.
    expect(ties).toBeGreaterThan(20);
  });

  it('gives the observations of the plain scan on a synthetic town', () => {
    const env = new SimEnv(controlAllPresent([generateTown({ seed: 3 }, 20).scenario]));
    const observer = new Observer();
    const cfg = observer.cfg;
    const off = observationOffsets(cfg);
    const { agents, obs } = observer.observe(env);
    expect(agents.length).toBeGreaterThan(10);
    const m = env.maps[0];
    for (let q = 0; q < agents.length; q++) {
      const g = agents[q];
      const ids = plainScan(
        m.lanePoints.grid,
        m.lanePoints.x,
        m.lanePoints.y,
        env.x[g],
        env.y[g],
        cfg.radiusM,
        cfg.lanePoints,
      );
      const c = Math.cos(env.yaw[g]);
      const s = Math.sin(env.yaw[g]);
      for (let k = 0; k < cfg.lanePoints; k++) {
        const at = q * observer.size + off.lanes + k * LANE_FEATURES;
        if (k >= ids.length) {
          expect(obs[at]).toBe(0);
          continue;
        }
        const dx = m.lanePoints.x[ids[k]] - env.x[g];
        const dy = m.lanePoints.y[ids[k]] - env.y[g];
        expect(obs[at]).toBe(1);
        expect(obs[at + 1]).toBe(Math.fround(dx * c + dy * s));
        expect(obs[at + 2]).toBe(Math.fround(-dx * s + dy * c));
      }
    }
  });
});
