// Voxelisation of the tokenizer's input against hand-placed points: voxel indices, centre offsets,
// occupancy, the inverse (occupied centres), and what happens to points outside the region or NaN.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../core/errors.ts';
import { tokenizerConfig } from '../../worldmodel/config.ts';
import { occupiedCentres, voxelCentre, voxelize, voxelOf } from '../../worldmodel/voxelize.ts';

// ±4 m, 8 × 8 × 4 voxels: 1 m cells in xy, 0.5 m in z from −1 m.
const cfg = tokenizerConfig({
  grid: { rangeM: 4, zMinM: -1, zMaxM: 1, cellsXY: 8, cellsZ: 4 },
  maxPointsPerVoxel: 2,
});
const cloud = (pts: number[][]) => ({
  x: Float32Array.from(pts, (p) => p[0]),
  y: Float32Array.from(pts, (p) => p[1]),
  z: Float32Array.from(pts, (p) => p[2]),
});

describe('voxelize', () => {
  it('puts each point in its voxel with its offset from the centre in cell units', () => {
    // (0.25, −3.5, 0.1): col 4, row 0, level 2 → centre (0.5, −3.5, 0.25).
    const v = voxelize(cfg, cloud([[0.25, -3.5, 0.1]]));
    expect(v.count).toBe(1);
    expect(v.voxel[0]).toBe((2 * 8 + 0) * 8 + 4);
    expect(voxelCentre(cfg, v.voxel[0])).toEqual([0.5, -3.5, 0.25]);
    expect(Array.from(v.offsets.subarray(0, 3))).toEqual([
      expect.closeTo(-0.25, 6),
      expect.closeTo(0, 6),
      expect.closeTo(-0.3, 6),
    ]);
    expect(v.slotPenalty[0]).toBe(0);
    expect(v.slotPenalty[1]).toBeLessThan(-1000); // the voxel's second slot is empty
  });

  it('keeps at most maxPointsPerVoxel points of a voxel but counts it occupied once', () => {
    const v = voxelize(
      cfg,
      cloud([
        [0.1, 0.1, 0.1],
        [0.2, 0.2, 0.2],
        [0.3, 0.3, 0.3],
        [-2.5, 1.5, -0.9],
      ]),
    );
    expect(v.count).toBe(2);
    expect(v.pointsInRegion).toBe(4);
    expect(Array.from(v.slotPenalty.subarray(0, 2))).toEqual([0, 0]);
    expect(v.occupancy.reduce((a, b) => a + b, 0)).toBe(2);
  });

  it('inverts to the centres of the occupied voxels', () => {
    const pts = [
      [0.5, 0.5, 0.25],
      [-3.5, 3.5, -0.75],
      [2.5, -1.5, 0.75],
    ];
    const back = occupiedCentres(cfg, voxelize(cfg, cloud(pts)).occupancy);
    const got = Array.from(back.x, (x, i) => [x, back.y[i], back.z[i]]).sort((a, b) => a[0] - b[0]);
    expect(got).toEqual([...pts].sort((a, b) => a[0] - b[0]));
    for (const p of pts) expect(voxelOf(cfg, p[0], p[1], p[2])).toBeGreaterThanOrEqual(0);
  });

  it('drops points outside the region; a sweep with none inside gives zero voxels, not NaN', () => {
    const v = voxelize(
      cfg,
      cloud([
        [10, 0, 0],
        [0, 0, 5],
        [0, -4.01, 0],
      ]),
    );
    expect(v.count).toBe(0);
    expect(v.occupancy.every((o) => o === 0)).toBe(true);
    expect(voxelize(cfg, cloud([])).count).toBe(0);
  });

  it('refuses NaN coordinates, naming the source', () => {
    expect(() => voxelize(cfg, cloud([[0, Number.NaN, 0]]), 'log/x frame 3')).toThrow(InputError);
    expect(() => voxelize(cfg, cloud([[0, Number.NaN, 0]]), 'log/x frame 3')).toThrow(/log\/x frame 3.*NaN/);
  });
});
