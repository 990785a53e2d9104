// The odometry metrics on hand-made trajectories whose drift is known by construction: a scale error gives
// its percentage, a yaw bias per metre its °/100 m, a short log is scored whole, and the RPE of a lateral slip.
import { describe, expect, it } from 'vitest';
import {
  composePoses,
  identityPose,
  poseFromTranslationYaw,
  type Pose,
} from '../../../core/geometry/pose.ts';
import { kittiDrift, pathDistances, relativePoseError } from '../../../perception/odometry/drift.ts';

/** Poses chained from one repeated step. */
const chain = (n: number, step: Pose): Pose[] => {
  const out = [identityPose()];
  for (let i = 1; i < n; i++) out.push(composePoses(out[i - 1], step));
  return out;
};

describe('kittiDrift', () => {
  // 1,001 poses 1 m apart on a straight line: segments of 100–800 m.
  const gt = chain(1001, poseFromTranslationYaw(1, 0, 0, 0));

  it('a 1 % scale error is 1 % translational drift and no rotation', () => {
    const d = kittiDrift(gt, chain(1001, poseFromTranslationYaw(1.01, 0, 0, 0)));
    expect(d.mode).toBe('segments');
    expect(d.pathLengthM).toBeCloseTo(1000, 9);
    // A segment of nominal length L ends at the first pose beyond L, L + 1 m away here: error (L+1)/L %.
    expect(d.translationPct).toBeGreaterThan(1);
    expect(d.translationPct).toBeLessThan(1.011);
    expect(d.rotationDegPer100m).toBeCloseTo(0, 9);
    expect(kittiDrift(gt, gt).translationPct).toBeCloseTo(0, 9);
  });

  it('a yaw bias of 1 mrad per metre is 5.73 °/100 m', () => {
    const d = kittiDrift(gt, chain(1001, poseFromTranslationYaw(1, 0, 0, 0.001)));
    const want = (100 * 0.001 * 180) / Math.PI;
    expect(d.rotationDegPer100m).toBeGreaterThan(want);
    expect(d.rotationDegPer100m).toBeLessThan(want * 1.011);
    // Turning away from the line also costs translation, more on longer segments.
    expect(d.translationPct).toBeGreaterThan(1);
  });

  it('a log shorter than 100 m is one whole-log segment', () => {
    const short = chain(51, poseFromTranslationYaw(1, 0, 0, 0));
    const d = kittiDrift(short, chain(51, poseFromTranslationYaw(0.98, 0, 0, 0)));
    expect(d.mode).toBe('whole-log');
    expect(d.segments).toBe(1);
    expect(d.pathLengthM).toBeCloseTo(50, 9);
    expect(d.translationPct).toBeCloseTo(2, 9);
    expect(pathDistances(short)[50]).toBeCloseTo(50, 9);
  });

  it('refuses trajectories of different lengths', () => {
    expect(() => kittiDrift(gt, gt.slice(1))).toThrow(/1001 ground-truth poses but 1000/);
  });
});

describe('relativePoseError', () => {
  it('is the per-step slip, in metres and degrees', () => {
    const gt = chain(11, poseFromTranslationYaw(1, 0, 0, 0));
    const r = relativePoseError(gt, chain(11, poseFromTranslationYaw(1, 0.1, 0, (0.5 * Math.PI) / 180)));
    expect(r.pairs).toBe(10);
    expect(r.translationMeanM).toBeCloseTo(0.1, 3);
    expect(r.rotationMeanDeg).toBeCloseTo(0.5, 9);
    expect(r.motionMeanM).toBeCloseTo(1, 9);
  });
});
