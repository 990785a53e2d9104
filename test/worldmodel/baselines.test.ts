// The forecast baselines on small constructed scenes with known answers: the ray-trace of past points against
// a plane (raw, clamped to the region, flat-ground fallback), copy-last ray-cast, the aggregation of past
// sweeps through poses, and the outlier-robust Chamfer figures.
import { describe, expect, it } from 'vitest';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { chamferStats } from '../../worldmodel/chamfer.ts';
import { DEFAULT_TOKENIZER_CONFIG as CFG } from '../../worldmodel/config.ts';
import { aggregateSweeps, pastFrames } from '../../worldmodel/baselines/pastSweeps.ts';
import { copyLastRaycast } from '../../worldmodel/baselines/copyLastRaycast.ts';
import { groundHeightM, rayTracePast } from '../../worldmodel/baselines/rayTracePast.ts';
import { voxelRayCast } from '../../worldmodel/baselines/voxelRayCast.ts';
import { regionExitM, type Rays } from '../../worldmodel/rays.ts';

/** A dense wall x = `xM`, |y| ≤ 6, −2 ≤ z ≤ 2, points every 5 cm. */
function wall(xM: number) {
  const xs: number[] = [];
  const ys: number[] = [];
  const zs: number[] = [];
  for (let y = -6; y <= 6; y += 0.05)
    for (let z = -2; z <= 2; z += 0.05) {
      xs.push(xM);
      ys.push(y);
      zs.push(z);
    }
  return { x: Float32Array.from(xs), y: Float32Array.from(ys), z: Float32Array.from(zs) };
}

function raysOf(dirs: number[][]): Rays {
  const n = dirs.length;
  const r: Rays = {
    count: n,
    dirX: new Float32Array(n),
    dirY: new Float32Array(n),
    dirZ: new Float32Array(n),
    depthM: new Float32Array(n).fill(1),
    pointIndex: Int32Array.from({ length: n }, (_, i) => i),
  };
  dirs.forEach(([x, y, z], i) => {
    const l = Math.hypot(x, y, z);
    r.dirX[i] = x / l;
    r.dirY[i] = y / l;
    r.dirZ[i] = z / l;
  });
  return r;
}

describe('ray-trace of past points', () => {
  const dirs = [
    [1, 0, 0],
    [1, 0.3, 0.1],
    [1, -0.45, -0.15],
  ];

  it('returns the depth of a plane along each ray it meets', () => {
    const rays = raysOf(dirs);
    const d = rayTracePast(CFG, wall(10), rays);
    for (let k = 0; k < rays.count; k++) {
      const exact = 10 / rays.dirX[k];
      // The nearest point in direction is within 5 cm of the ray's hit on the plane.
      expect(Math.abs(d.raw[k] - exact)).toBeLessThan(0.05);
      expect(d.clamped[k]).toBe(d.raw[k]);
      expect(d.ground[k]).toBe(d.raw[k]);
    }
    expect(d.missShare).toBe(0);
  });

  it('clamps a plane beyond the region to the region exit', () => {
    const rays = raysOf([[1, 0.02, 0]]);
    const d = rayTracePast(CFG, wall(60), rays);
    expect(d.raw[0]).toBeCloseTo(60 / rays.dirX[0], 1);
    expect(d.clamped[0]).toBeCloseTo(regionExitM(CFG, rays.dirX[0], rays.dirY[0], rays.dirZ[0]), 4);
    expect(d.clamped[0]).toBeLessThan(41);
  });

  it('falls back to the flat ground where no past point lies near a downward ray', () => {
    // Road ahead only, 1.7 m below the sensor; a ray backwards and down meets nothing that was seen.
    const xs: number[] = [];
    const ys: number[] = [];
    for (let x = 5; x <= 24; x += 0.5)
      for (let y = -4; y <= 4; y += 0.5) {
        xs.push(x);
        ys.push(y);
      }
    const road = {
      x: Float32Array.from(xs),
      y: Float32Array.from(ys),
      z: new Float32Array(xs.length).fill(-1.7),
    };
    expect(groundHeightM(road)).toBeCloseTo(-1.7, 4);
    const rays = raysOf([[-1, 0, -0.1]]);
    const d = rayTracePast(CFG, road, rays);
    const exit = regionExitM(CFG, rays.dirX[0], rays.dirY[0], rays.dirZ[0]);
    expect(d.missShare).toBe(1);
    expect(d.raw[0]).toBeCloseTo(exit, 4);
    expect(d.clamped[0]).toBeCloseTo(exit, 4);
    expect(d.ground[0]).toBeCloseTo(1.7 / -rays.dirZ[0], 3);
    expect(d.ground[0]).toBeLessThan(exit);
  });
});

describe('copy-last ray-cast', () => {
  it('reads the nearest return of the placed sweep along each ray', () => {
    const rays = raysOf([[1, 0.1, 0]]);
    // Two walls in the same direction: the nearer one occludes the other.
    const w1 = wall(12);
    const w2 = wall(20);
    const both = {
      x: Float32Array.from([...w1.x, ...w2.x]),
      y: Float32Array.from([...w1.y, ...w2.y]),
      z: Float32Array.from([...w1.z, ...w2.z]),
    };
    const d = copyLastRaycast(CFG, both, rays);
    expect(Math.abs(d[0] - 12 / rays.dirX[0])).toBeLessThan(0.1);
  });
});

describe('past sweeps aggregated through the poses', () => {
  it('places the same world point of two sweeps at the same spot of the target frame', () => {
    // The car moved 2 m forward between the two sweeps (the point at x = 12 then is at x = 10 now) and moves
    // 1 m more to the target frame.
    const earlier = { x: Float32Array.of(12), y: Float32Array.of(1), z: Float32Array.of(0) };
    const now = { x: Float32Array.of(10), y: Float32Array.of(1), z: Float32Array.of(0) };
    const agg = aggregateSweeps(
      [
        { points: now, targetFromSource: poseFromTranslationYaw(-1, 0, 0, 0) },
        { points: earlier, targetFromSource: poseFromTranslationYaw(-3, 0, 0, 0) },
      ],
      [0, 0, 0.5],
    );
    expect(Array.from(agg.x)).toEqual([9, 9]);
    expect(Array.from(agg.z)).toEqual([-0.5, -0.5]);
    expect(pastFrames(4, 2, 3)).toEqual([4, 2, 0]);
    expect(pastFrames(3, 2, 3)).toEqual([3, 1]);
  });
});

describe('outlier-robust Chamfer', () => {
  it('the 99 %-trimmed and median Chamfer ignore an outlier the mean does not', () => {
    const n = 200;
    const a = {
      x: Float32Array.from({ length: n }, (_, i) => i * 0.1),
      y: new Float32Array(n),
      z: new Float32Array(n),
    };
    const b = { x: Float32Array.of(...a.x, 100), y: new Float32Array(n + 1), z: new Float32Array(n + 1) };
    b.y[n] = 100;
    const s = chamferStats(a, b);
    expect(s.trimmed).toBe(0);
    expect(s.median).toBe(0);
    expect(s.mean).toBeGreaterThan(10);
  });
});

describe('voxel ray-cast of past points', () => {
  it('stops at the first occupied voxel: the near wall of two, at its depth', () => {
    const rays = raysOf([
      [1, 0.1, 0],
      [1, -0.2, 0.05],
    ]);
    const w1 = wall(12);
    const w2 = wall(20);
    const both = {
      x: Float32Array.from([...w2.x, ...w1.x]),
      y: Float32Array.from([...w2.y, ...w1.y]),
      z: Float32Array.from([...w2.z, ...w1.z]),
    };
    const d = voxelRayCast(CFG, both, rays);
    // The hit voxel's mean point lies on the wall within a voxel (0.2 m) of the ray's own hit.
    for (let k = 0; k < 2; k++) expect(Math.abs(d[k] - 12 / rays.dirX[k])).toBeLessThan(0.2);
  });

  it('reads a shallow ray on flat ground without the voxel-entry bias, and falls back to the ground', () => {
    const xs: number[] = [];
    const ys: number[] = [];
    for (let x = 5; x <= 30; x += 0.1)
      for (let y = -3; y <= 3; y += 0.1) {
        xs.push(x);
        ys.push(y);
      }
    const road = {
      x: Float32Array.from(xs),
      y: Float32Array.from(ys),
      z: new Float32Array(xs.length).fill(-1.7),
    };
    const rays = raysOf([
      [1, 0, -0.1],
      [-1, 0, -0.1],
    ]);
    const d = voxelRayCast(CFG, road, rays);
    const exact = 1.7 / -rays.dirZ[0];
    // 17.1 m along a ray 5.7° below the horizon: entering the 0.2 m ground voxel would be ~1 m short.
    expect(Math.abs(d[0] - exact)).toBeLessThan(0.25);
    // Nothing behind the car: the flat ground at the estimated height.
    expect(d[1]).toBeCloseTo(exact, 3);
  });
});
