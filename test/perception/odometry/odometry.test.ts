// LiDAR odometry on known truth: SE(3) exp/log, ICP recovering a known rigid transform of an analytic street,
// a whole trajectory tracked with small drift, the adaptive threshold, and the map's shape fits.
import { describe, expect, it } from 'vitest';
import {
  composePoses,
  identityPose,
  invertPose,
  poseFromTranslationYaw,
} from '../../../core/geometry/pose.ts';
import { AdaptiveThreshold } from '../../../perception/odometry/adaptiveThreshold.ts';
import { deskewPoints } from '../../../perception/odometry/deskew.ts';
import { kittiDrift } from '../../../perception/odometry/drift.ts';
import { registerToMap } from '../../../perception/odometry/icp.ts';
import { DEFAULT_ODOMETRY_CONFIG, LidarOdometry } from '../../../perception/odometry/odometry.ts';
import { expSE3, logSE3, rotationAngle, translationNorm } from '../../../perception/odometry/se3.ts';
import { voxelDownsample } from '../../../perception/odometry/voxelDownsample.ts';
import { SHAPE_LINE, SHAPE_PLANE, VoxelHashMap } from '../../../perception/odometry/voxelHashMap.ts';
import { sampleStreet } from './surfaceScene.ts';

const packed = (p: { x: Float32Array; y: Float32Array; z: Float32Array }) => {
  const out = new Float32Array(3 * p.x.length);
  for (let i = 0; i < p.x.length; i++) out.set([p.x[i], p.y[i], p.z[i]], 3 * i);
  return out;
};

const mapOf = (pts: Float32Array) => {
  const m = new VoxelHashMap({ voxelM: 1, maxPointsPerVoxel: 20, planarity: 0.02, minPlanePoints: 6 });
  m.addPoints(voxelDownsample(pts, pts.length / 3, 0.5));
  return m;
};

describe('SE(3) maps', () => {
  it('exp and log are inverse, at small and large angles', () => {
    for (const xi of [
      [1e-7, -2e-7, 3e-7, 0.5, -0.2, 0.1],
      [0.1, -0.3, 0.2, 2, 1, -0.5],
      [0, 0, 2.5, 10, 0, 0],
    ]) {
      const back = logSE3(expSE3(xi));
      xi.forEach((v, i) => expect(back[i]).toBeCloseTo(v, 9));
    }
    const T = expSE3([0, 0, Math.PI / 2, 0, 0, 0]);
    expect(T[1]).toBeCloseTo(-1, 12); // rotation about +z by 90°
    expect(rotationAngle(T)).toBeCloseTo(Math.PI / 2, 12);
  });
});

describe('scan-to-map ICP', () => {
  const truth = composePoses(
    poseFromTranslationYaw(0.6, -0.25, 0.05, (4 * Math.PI) / 180),
    expSE3([0.01, -0.008, 0, 0, 0, 0]),
  );
  // The map reaches farther than the sweep (as an accumulated map does), so no source point falls off its edge.
  const map = mapOf(packed(sampleStreet(identityPose(), 60000, 1, 30)));
  const source = voxelDownsample(packed(sampleStreet(truth, 30000, 2, 25)), 30000, 1.5);
  for (const pointToPlane of [true, false]) {
    it(`recovers a known rigid transform (${pointToPlane ? 'point-to-plane' : 'point-to-point'})`, () => {
      const r = registerToMap(source, map, identityPose(), 2, 2 / 3, {
        maxIterations: 100,
        convergence: 1e-6,
        pointToPlane,
        motionPriorWeight: 0,
      });
      const err = composePoses(invertPose(truth), r.pose);
      expect(translationNorm(err)).toBeLessThan(pointToPlane ? 0.02 : 0.1);
      // Point-to-point matches independently sampled surfaces, which biases it by the sampling: over five
      // samplings of this street its rotation error ranged 0.02–0.12°. Its bound checks that it converged
      // in the right basin from a 4° start; accuracy is point-to-plane's bound.
      expect((rotationAngle(err) * 180) / Math.PI).toBeLessThan(pointToPlane ? 0.05 : 0.25);
      // Starting from the identity it had to move: 0.65 m and 4°.
      expect(translationNorm(r.pose)).toBeGreaterThan(0.6);
      expect(r.inliers).toBeGreaterThan(0.8 * (source.length / 3));
    });
  }
});

describe('LidarOdometry', () => {
  it('tracks a curving drive through the street with small drift', () => {
    // 8 m/s forward, yaw rate 3°/s, 20 sweeps of 25k random points each within 40 m.
    const step = poseFromTranslationYaw(0.8, 0, 0, (0.3 * Math.PI) / 180);
    const gt = [identityPose()];
    for (let f = 1; f < 20; f++) gt.push(composePoses(gt[f - 1], step));
    const odo = new LidarOdometry({ maxRangeM: 40 });
    const est = gt.map((p, f) => odo.register(sampleStreet(p, 25000, 100 + f, 40)).pose);
    const d = kittiDrift(gt, est);
    expect(d.mode).toBe('whole-log');
    expect(d.pathLengthM).toBeCloseTo(15.2, 1);
    expect(d.translationPct).toBeLessThan(1);
    expect(d.rotationDegPer100m).toBeLessThan(1);
    expect(odo.trajectory).toHaveLength(20);
  });

  it('keeps poses rigid over a long drive (the prediction once amplified rounding off SO(3))', () => {
    // 70 sweeps with a small, changing yaw rate: before the poses were re-orthonormalised, the constant-
    // velocity prediction T₁·T₂⁻¹·T₁ grew rounding error ~×2.5 per frame and the track broke near frame 35.
    const gt = [identityPose()];
    for (let f = 1; f < 70; f++)
      gt.push(
        composePoses(gt[f - 1], poseFromTranslationYaw(0.3, 0, 0, (0.05 * Math.sin(f / 7) * Math.PI) / 180)),
      );
    const odo = new LidarOdometry({ maxRangeM: 30 });
    const est = gt.map((p, f) => odo.register(sampleStreet(p, 6000, 500 + f, 30)).pose);
    for (const p of est) {
      const det =
        p[0] * (p[5] * p[10] - p[6] * p[9]) -
        p[1] * (p[4] * p[10] - p[6] * p[8]) +
        p[2] * (p[4] * p[9] - p[5] * p[8]);
      expect(Math.abs(det - 1)).toBeLessThan(1e-12);
    }
    const d = kittiDrift(gt, est);
    expect(d.pathLengthM).toBeCloseTo(20.7, 1);
    expect(d.translationPct).toBeLessThan(2);
    expect(odo.rejected).toBe(0);
  });

  it('rejects an impossible config', () => {
    expect(() => new LidarOdometry({ voxelM: 0 })).toThrow(/voxelM/);
    expect(DEFAULT_ODOMETRY_CONFIG.voxelM).toBeGreaterThan(0);
  });
});

describe('adaptive threshold and de-skew', () => {
  it('σ is the RMS of the counted prediction errors, standing still ignored', () => {
    const t = new AdaptiveThreshold({ initialThresholdM: 2, minMotionM: 0.1, maxRangeM: 100 });
    expect(t.sigma()).toBe(2);
    t.update(poseFromTranslationYaw(0.05, 0, 0, 0)); // below minMotionM
    expect(t.sigma()).toBe(2);
    t.update(poseFromTranslationYaw(0.3, 0, 0, 0));
    t.update(poseFromTranslationYaw(0, 0.4, 0, 0));
    expect(t.sigma()).toBeCloseTo(Math.sqrt((0.09 + 0.16) / 2), 12);
    // A rotation counts as the displacement of a point at max range: 2·100·sin(θ/2).
    const r = new AdaptiveThreshold({ initialThresholdM: 2, minMotionM: 0.1, maxRangeM: 100 });
    r.update(poseFromTranslationYaw(0, 0, 0, 0.01));
    expect(r.sigma()).toBeCloseTo(200 * Math.sin(0.005), 9);
  });

  it('moves each point to the frame pose by its firing time', () => {
    // The vehicle drives +1 m per 0.1 s frame; a point fired 0.05 s after the timestamp was seen from 0.5 m
    // further on, so in the frame pose it lies 0.5 m further ahead.
    const xyz = Float32Array.of(10, 0, 0, 10, 0, 0);
    deskewPoints(xyz, Float32Array.of(0, 0.05), 2, poseFromTranslationYaw(1, 0, 0, 0), 0.1);
    expect(xyz[0]).toBeCloseTo(10, 6);
    expect(xyz[3]).toBeCloseTo(10.5, 6);
  });
});

describe('voxel hash map', () => {
  it('keeps at most N points per voxel, finds the nearest, and tells planes from lines', () => {
    const m = new VoxelHashMap({ voxelM: 1, maxPointsPerVoxel: 5, planarity: 0.02, minPlanePoints: 4 });
    const plane: number[] = [];
    for (let i = 0; i < 10; i++) for (let j = 0; j < 10; j++) plane.push(10 + i * 0.1, j * 0.1, 0.5);
    m.addPoints(Float32Array.from(plane));
    expect(m.voxelCount).toBe(1);
    expect(m.pointCount).toBe(5);
    const line: number[] = [];
    for (let i = 0; i < 50; i++) line.push(18 + i * 0.1, 0.5, 0.5);
    m.addPoints(Float32Array.from(line));
    const nb = { x: 0, y: 0, z: 0, voxel: -1, dist2: 0 };
    expect(m.nearest(10.05, 0.02, 0.6, 0.5, nb)).toBe(true);
    expect(m.nearest(50, 50, 50, 0.5, nb)).toBe(false);
    const nrm = new Float64Array(3);
    // Fill the plane voxel's neighbours so a plane fit has enough points.
    const more: number[] = [];
    for (let i = -10; i < 20; i++) for (let j = -10; j < 20; j++) more.push(10 + i * 0.1, j * 0.1, 0.5);
    m.addPoints(Float32Array.from(more));
    m.nearest(10.5, 0.5, 0.5, 0.5, nb);
    expect(m.shape(nb.voxel, nrm)).toBe(SHAPE_PLANE);
    expect(Math.abs(nrm[2])).toBeCloseTo(1, 6);
    m.nearest(21, 0.5, 0.5, 0.5, nb);
    expect(m.shape(nb.voxel, nrm)).toBe(SHAPE_LINE);
    m.removeFar(10, 0, 0, 5);
    expect(m.nearest(21, 0.5, 0.5, 0.5, nb)).toBe(false);
    expect(m.nearest(10.5, 0.5, 0.5, 0.5, nb)).toBe(true);
  });
});

describe('voxel hash map nearest search', () => {
  it('finds what a brute-force search over the voxels it may reach finds (pruned voxels cannot win)', () => {
    let seed = 12345;
    const rnd = () => (seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0) / 4294967296;
    const m = new VoxelHashMap({ voxelM: 1, maxPointsPerVoxel: 20, planarity: 0.02, minPlanePoints: 6 });
    const world = new Float32Array(3 * 4000);
    for (let i = 0; i < world.length; i++) world[i] = (rnd() * 2 - 1) * 6;
    m.addPoints(world);
    // The points the map kept: every point of the input that a zero-radius query finds again.
    const kept: number[] = [];
    const nb = { x: 0, y: 0, z: 0, voxel: -1, dist2: 0 };
    for (let i = 0; i < world.length; i += 3)
      if (m.nearest(world[i], world[i + 1], world[i + 2], 1e-6, nb))
        kept.push(world[i], world[i + 1], world[i + 2]);
    expect(kept.length / 3).toBeGreaterThan(500);
    let found = 0;
    for (let q = 0; q < 2000; q++) {
      const x = (rnd() * 2 - 1) * 6;
      const y = (rnd() * 2 - 1) * 6;
      const z = (rnd() * 2 - 1) * 6;
      const maxD = 0.1 + rnd() * 0.9; // within one voxel edge: the search covers every voxel the ball reaches
      let best = maxD * maxD;
      let bi = -1;
      for (let k = 0; k < kept.length; k += 3) {
        const d2 = (kept[k] - x) ** 2 + (kept[k + 1] - y) ** 2 + (kept[k + 2] - z) ** 2;
        if (d2 < best) {
          best = d2;
          bi = k;
        }
      }
      const hit = m.nearest(x, y, z, maxD, nb);
      expect(hit).toBe(bi >= 0);
      if (hit) {
        found++;
        expect(nb.dist2).toBe(best);
        expect([nb.x, nb.y, nb.z]).toEqual([kept[bi], kept[bi + 1], kept[bi + 2]]);
      }
    }
    expect(found).toBeGreaterThan(200);
  });
});
