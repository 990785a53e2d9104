// The forecast baselines on small constructed scenes with known answers: the ray-trace of past points against
// a plane (raw, clamped to the region, flat-ground fallback) and, on a random cloud, bit for bit against its
// first implementation; copy-last ray-cast, the aggregation of past sweeps through poses, and the
// outlier-robust Chamfer figures.
import { describe, expect, it } from 'vitest';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { Rng } from '../../core/rng.ts';
import { chamferStats } from '../../worldmodel/chamfer.ts';
import { DEFAULT_TOKENIZER_CONFIG as CFG, type TokenizerConfig } from '../../worldmodel/config.ts';
import { aggregateSweeps, pastFrames } from '../../worldmodel/baselines/pastSweeps.ts';
import { copyLastRaycast } from '../../worldmodel/baselines/copyLastRaycast.ts';
import {
  azimuthBin,
  azimuthBinExact,
  groundHeightM,
  hypot3,
  RAY_TRACE,
  rayTracePast,
  type RayTraceDepths,
} from '../../worldmodel/baselines/rayTracePast.ts';
import { voxelRayCast } from '../../worldmodel/baselines/voxelRayCast.ts';
import { raysAlong, regionExitM, type Rays } from '../../worldmodel/rays.ts';
import type { SensorPoints } from '../../worldmodel/voxelize.ts';

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

describe('ray-trace of past points', () => {
  const dirs = [
    [1, 0, 0],
    [1, 0.3, 0.1],
    [1, -0.45, -0.15],
  ];

  it('returns the depth of a plane along each ray it meets', () => {
    const rays = raysAlong(dirs);
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
    const rays = raysAlong([[1, 0.02, 0]]);
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
    const rays = raysAlong([[-1, 0, -0.1]]);
    const d = rayTracePast(CFG, road, rays);
    const exit = regionExitM(CFG, rays.dirX[0], rays.dirY[0], rays.dirZ[0]);
    expect(d.missShare).toBe(1);
    expect(d.raw[0]).toBeCloseTo(exit, 4);
    expect(d.clamped[0]).toBeCloseTo(exit, 4);
    expect(d.ground[0]).toBeCloseTo(1.7 / -rays.dirZ[0], 3);
    expect(d.ground[0]).toBeLessThan(exit);
  });
});

/**
 * The ray-trace as first written (bins searched ring by ring over a CSR of the cloud, Math.hypot/asin/atan2 per
 * point and ray): the reference the faster rayTracePast must match bit for bit.
 */
function rayTracePastReference(cfg: TokenizerConfig, cloud: SensorPoints, rays: Rays): RayTraceDepths {
  const rt = RAY_TRACE;
  const A = Math.round(360 / rt.azimuthDeg);
  const E = Math.round((rt.maxElevationDeg - rt.minElevationDeg) / rt.elevationDeg);
  const deg = 180 / Math.PI;
  const n = cloud.x.length;
  const binOf = new Int32Array(n).fill(-1);
  const ux = new Float32Array(n);
  const uy = new Float32Array(n);
  const uz = new Float32Array(n);
  const range = new Float32Array(n);
  const start = new Int32Array(A * E + 1);
  for (let i = 0; i < n; i++) {
    const r = Math.hypot(cloud.x[i], cloud.y[i], cloud.z[i]);
    if (r < 1e-3) continue;
    const dz = cloud.z[i] / r;
    const e = Math.floor((Math.asin(dz) * deg - rt.minElevationDeg) / rt.elevationDeg);
    if (e < 0 || e >= E) continue;
    const a = Math.floor((Math.atan2(cloud.y[i], cloud.x[i]) * deg + 180) / rt.azimuthDeg) % A;
    const b = e * A + a;
    binOf[i] = b;
    ux[i] = cloud.x[i] / r;
    uy[i] = cloud.y[i] / r;
    uz[i] = dz;
    range[i] = r;
    start[b + 1]++;
  }
  for (let b = 0; b < A * E; b++) start[b + 1] += start[b];
  const fill = start.slice(0, A * E);
  const items = new Int32Array(start[A * E]);
  for (let i = 0; i < n; i++) if (binOf[i] >= 0) items[fill[binOf[i]]++] = i;
  const ground = groundHeightReference(cloud);
  const out: RayTraceDepths = {
    raw: new Float32Array(rays.count),
    clamped: new Float32Array(rays.count),
    ground: new Float32Array(rays.count),
    missShare: 0,
    miss: new Uint8Array(rays.count),
    groundM: ground,
  };
  let misses = 0;
  for (let k = 0; k < rays.count; k++) {
    const dx = rays.dirX[k];
    const dy = rays.dirY[k];
    const dz = rays.dirZ[k];
    const exit = regionExitM(cfg, dx, dy, dz);
    const e0 = Math.floor(
      (Math.asin(Math.max(-1, Math.min(1, dz))) * deg - rt.minElevationDeg) / rt.elevationDeg,
    );
    const a0 = Math.floor((Math.atan2(dy, dx) * deg + 180) / rt.azimuthDeg) % A;
    let bestDot = -2;
    let bestRange = NaN;
    let stopAt = rt.maxRing;
    for (let ring = 0; ring <= stopAt; ring++) {
      for (let de = -ring; de <= ring; de++) {
        const e = e0 + de;
        if (e < 0 || e >= E) continue;
        const edge = Math.abs(de) === ring;
        for (let da = -ring; da <= ring; da += edge || ring === 0 ? 1 : 2 * ring) {
          const b = e * A + ((a0 + da + A) % A);
          for (let q = start[b]; q < start[b + 1]; q++) {
            const i = items[q];
            const dot = ux[i] * dx + uy[i] * dy + uz[i] * dz;
            if (dot > bestDot) {
              bestDot = dot;
              bestRange = range[i];
            }
          }
          if (ring === 0) break;
        }
      }
      if (bestDot > -2 && stopAt > ring + 1) stopAt = ring + 1;
    }
    if (bestDot > -2) {
      out.raw[k] = bestRange;
      out.clamped[k] = Math.min(bestRange, exit);
      out.ground[k] = out.clamped[k];
    } else {
      misses++;
      out.miss[k] = 1;
      out.raw[k] = exit;
      out.clamped[k] = exit;
      out.ground[k] = dz < 0 && Number.isFinite(ground) ? Math.min(exit, ground / dz) : exit;
    }
  }
  out.missShare = rays.count ? misses / rays.count : 0;
  return out;
}

/** groundHeightM as first written (Math.hypot for every point below the sensor). */
function groundHeightReference(cloud: SensorPoints): number {
  const [lo, hi] = RAY_TRACE.groundBandM;
  const bins = new Int32Array(60);
  const sums = new Float64Array(60);
  let any = false;
  for (let i = 0; i < cloud.x.length; i++) {
    const z = cloud.z[i];
    if (z >= 0 || z < -6) continue;
    const r = Math.hypot(cloud.x[i], cloud.y[i]);
    if (r < lo || r > hi) continue;
    const b = Math.min(59, Math.floor((z + 6) / 0.1));
    bins[b]++;
    sums[b] += z;
    any = true;
  }
  if (!any) return NaN;
  let best = 0;
  for (let b = 1; b < bins.length; b++) if (bins[b] > bins[best]) best = b;
  return sums[best] / bins[best];
}

/** Entries that differ (Object.is: NaN equals NaN, 0 and −0 differ). */
function mismatches(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let n = 0;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) n++;
  return n;
}

/**
 * A cloud dense in direction like an aggregated driving sweep (elevation −35° to 20°, so bins hold several
 * points and rays search one or two rings), with points outside the elevation bins and at the sensor, exact
 * collinear copies (a tie within a bin, either one first in cloud order) and mirror pairs across the azimuth
 * and elevation bin edges that axis rays lie on (a tie between bins, decided by the search order).
 */
function testCloud(rng: Rng): SensorPoints {
  const xs: number[] = [];
  const ys: number[] = [];
  const zs: number[] = [];
  const add = (x: number, y: number, z: number) => {
    xs.push(Math.fround(x));
    ys.push(Math.fround(y));
    zs.push(Math.fround(z));
  };
  const deg = Math.PI / 180;
  for (let i = 0; i < 30000; i++) {
    const el = rng.uniform(-35, 20) * deg;
    const az = rng.uniform(-180, 180) * deg;
    const r = rng.uniform(1, 80);
    add(r * Math.cos(el) * Math.cos(az), r * Math.cos(el) * Math.sin(az), r * Math.sin(el));
  }
  for (let i = 0; i < 500; i++) add(rng.uniform(-1, 1), rng.uniform(-1, 1), -rng.uniform(3, 10)); // below −60°
  for (let i = 0; i < 50; i++) add(rng.uniform(-1e-4, 1e-4), rng.uniform(-1e-4, 1e-4), 0); // at the sensor
  for (let i = 0; i < 1000; i++) {
    const j = rng.int(30000);
    const f = i % 2 ? 2 : 0.5; // a copy twice as far or half as far, after the original
    add(xs[j] * f, ys[j] * f, zs[j] * f);
  }
  for (const [ax, ay] of [
    [1, 0],
    [0, 1],
    [-1, 0],
    [0, -1],
    [Math.SQRT1_2, Math.SQRT1_2],
  ])
    for (const a of [0.03, 0.1, 0.25, 0.5]) {
      // Mirrored across the ray's azimuth, (c, ±s) in the ray's frame, and across the horizon (±z), the second
      // twice as far: float32 values scale by 2 exactly, so the unit directions mirror exactly (a true tie).
      const c = Math.cos(a * deg);
      const s = Math.sin(a * deg);
      const r = rng.uniform(5, 30);
      const m = [Math.fround(r * (c * ax + s * ay)), Math.fround(r * (c * ay - s * ax))];
      const w = [Math.fround(r * (c * ax - s * ay)), Math.fround(r * (c * ay + s * ax))];
      add(m[0], m[1], 0);
      add(2 * w[0], 2 * w[1], 0);
      const [ce, se] = [Math.cos((a + 0.007) * deg), Math.sin((a + 0.007) * deg)]; // not tied with the above
      const h = [Math.fround(r * ce * ax), Math.fround(r * ce * ay), Math.fround(r * se)];
      add(2 * h[0], 2 * h[1], -2 * h[2]);
      add(h[0], h[1], h[2]);
    }
  return { x: Float32Array.from(xs), y: Float32Array.from(ys), z: Float32Array.from(zs) };
}

/** Random rays from the same directions, rays along some of the points, along the axes, and straight up or down. */
function testRays(rng: Rng, cloud: SensorPoints): Rays {
  const dirs: number[][] = [];
  const deg = Math.PI / 180;
  for (let i = 0; i < 6000; i++) {
    const el = rng.uniform(-40, 25) * deg;
    const az = rng.uniform(-180, 180) * deg;
    dirs.push([Math.cos(el) * Math.cos(az), Math.cos(el) * Math.sin(az), Math.sin(el)]);
  }
  for (let i = 0; i < 1000; i++) {
    const j = rng.int(cloud.x.length);
    dirs.push([cloud.x[j], cloud.y[j], cloud.z[j]]);
  }
  dirs.push([1, 0, 0], [0, 1, 0], [-1, 0, 0], [0, -1, 0], [1, 1, 0], [0, 0, 1], [0, 0, -1], [-1, -1e-9, 0]);
  return raysAlong(dirs.filter(([x, y, z]) => Math.hypot(x, y, z) > 0));
}

describe('ray-trace of past points, fast path', () => {
  it('gives the depths of the first implementation bit for bit', () => {
    const rng = new Rng(7);
    const cloud = testCloud(rng);
    const rays = testRays(rng, cloud);
    const d = rayTracePast(CFG, cloud, rays);
    const ref = rayTracePastReference(CFG, cloud, rays);
    expect(mismatches(d.raw, ref.raw)).toBe(0);
    expect(mismatches(d.clamped, ref.clamped)).toBe(0);
    expect(mismatches(d.ground, ref.ground)).toBe(0);
    expect(mismatches(d.miss, ref.miss)).toBe(0);
    expect(d.missShare).toBe(ref.missShare);
    // The scene exercises what it is meant to: hits, misses and the ground fallback.
    expect(ref.missShare).toBeGreaterThan(0.001);
    expect(ref.missShare).toBeLessThan(0.5);
    // A second cloud of another size through the same scratch buffers.
    const small = { x: cloud.x.slice(0, 5000), y: cloud.y.slice(0, 5000), z: cloud.z.slice(0, 5000) };
    expect(mismatches(rayTracePast(CFG, small, rays).raw, rayTracePastReference(CFG, small, rays).raw)).toBe(
      0,
    );
  });

  it('breaks a tie between bins as the ring-by-ring search did: the ray’s own bin first', () => {
    // Two points mirrored across a ray along +x (on an azimuth bin edge): equal dot products, different ranges.
    const c = Math.cos(0.05 * (Math.PI / 180));
    const s = Math.sin(0.05 * (Math.PI / 180));
    const cloud = {
      x: Float32Array.of(20 * c, 10 * c),
      y: Float32Array.of(-20 * s, 10 * s),
      z: new Float32Array(2),
    };
    const rays = raysAlong([[1, 0, 0]]);
    expect(cloud.x[0] / Math.hypot(cloud.x[0], cloud.y[0])).toBe(
      cloud.x[1] / Math.hypot(cloud.x[1], cloud.y[1]),
    );
    const d = rayTracePast(CFG, cloud, rays);
    expect(d.raw[0]).toBe(rayTracePastReference(CFG, cloud, rays).raw[0]);
    expect(d.raw[0]).toBeCloseTo(10, 4);
  });

  it('hypot3 is Math.hypot to the bit', () => {
    const rng = new Rng(3);
    const v = () => Math.fround((rng.chance(0.5) ? -1 : 1) * 10 ** rng.uniform(-6, 4));
    const cases: number[][] = [
      [0, 0, 0],
      [-0, 0, -0],
      [3, 4, 12],
      [1e-30, 0, 0],
      [0, 5, 0],
    ];
    for (let i = 0; i < 200000; i++) cases.push([v(), v(), rng.chance(0.1) ? 0 : v()]);
    let bad = 0;
    for (const [x, y, z] of cases) if (!Object.is(hypot3(x, y, z), Math.hypot(x, y, z))) bad++;
    expect(bad).toBe(0);
  });

  it('azimuthBin is the atan2 bin to the bit, at and near the bin edges too', () => {
    const rng = new Rng(5);
    const A = Math.round(360 / RAY_TRACE.azimuthDeg);
    const cases: number[][] = [
      [0, 0],
      [-0, 0],
      [0, -0],
      [-0, -0],
      [-1, 0],
      [-1, -0],
      [1, 0],
      [0, 1],
      [0, -1],
      [-1, 1e-300],
    ];
    for (let i = 0; i < 100000; i++) {
      const th = rng.uniform(-Math.PI, Math.PI);
      const r = 10 ** rng.uniform(-3, 3);
      cases.push([Math.fround(r * Math.cos(th)), Math.fround(r * Math.sin(th))]);
    }
    for (let i = 0; i < 20000; i++) {
      // On a bin edge, or just off it (down to well inside the 1e-9 rad margin), in float32 and float64.
      const k = rng.int(A + 1);
      const off = [0, 1e-16, 1e-13, 1e-10, 1e-9, 3e-9, 1e-7][rng.int(7)] * (rng.chance(0.5) ? -1 : 1);
      const th = ((k * RAY_TRACE.azimuthDeg - 180) * Math.PI) / 180 + off;
      const r = 10 ** rng.uniform(-2, 2);
      const x = r * Math.cos(th);
      const y = r * Math.sin(th);
      cases.push([x, y], [Math.fround(x), Math.fround(y)]);
    }
    let bad = 0;
    for (const [x, y] of cases) if (!Object.is(azimuthBin(x, y), azimuthBinExact(x, y, A))) bad++;
    expect(bad).toBe(0);
  });

  it('groundHeightM is the Math.hypot band test’s, with points on and near the band edges', () => {
    const rng = new Rng(11);
    const cloud = testCloud(rng);
    const xs = Array.from(cloud.x);
    const ys = Array.from(cloud.y);
    const zs = Array.from(cloud.z);
    for (const r of [4, 25])
      for (const f of [1, 1 - 1e-7, 1 + 1e-7, 1 - 1e-12, 1 + 1e-12])
        for (let i = 0; i < 50; i++) {
          const th = rng.uniform(-Math.PI, Math.PI);
          xs.push(r * f * Math.cos(th));
          ys.push(r * f * Math.sin(th));
          zs.push(-1.75 - 0.01 * (i % 3));
        }
    const c = { x: Float32Array.from(xs), y: Float32Array.from(ys), z: Float32Array.from(zs) };
    expect(Object.is(groundHeightM(c), groundHeightReference(c))).toBe(true);
    expect(Number.isFinite(groundHeightM(c))).toBe(true);
  });
});

describe('copy-last ray-cast', () => {
  it('reads the nearest return of the placed sweep along each ray', () => {
    const rays = raysAlong([[1, 0.1, 0]]);
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
    const rays = raysAlong([
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
    const rays = raysAlong([
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
