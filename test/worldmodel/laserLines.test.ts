// Rays re-aimed from each return's laser: the return is where it was, the ray starts at its block's height, the
// block is chosen by the elevation it is seen at; the sample table starts a raised ray at its height.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOKENIZER_CONFIG } from '../../worldmodel/config.ts';
import { LASER_BLOCKS, laserBlocksOf, raysFromLasers } from '../../worldmodel/laserLines.ts';
import { type Rays, raysFromPoints, regionExitM, sampleRays } from '../../worldmodel/rays.ts';
import { freeSpaceLabels } from '../../worldmodel/tokenizerFeeds.ts';

/** Rays to the given returns (all inside the tokenizer's region), from the origin. */
function raysTo(points: [number, number, number][]): Rays {
  const rays = raysFromPoints(DEFAULT_TOKENIZER_CONFIG, {
    x: Float32Array.from(points, (p) => p[0]),
    y: Float32Array.from(points, (p) => p[1]),
    z: Float32Array.from(points, (p) => p[2]),
  });
  expect(rays.count).toBe(points.length);
  return rays;
}

describe('raysFromLasers', () => {
  const kitti = LASER_BLOCKS['hdl64-kitti'];
  it("starts each ray at its block's laser and still ends at the return", () => {
    // A wall 20 m ahead at sensor height (upper block), the ground 8 m ahead (−13.5° from the upper laser:
    // lower block), a roof 30 m to the side seen level (upper).
    const pts: [number, number, number][] = [
      [20, 0, -0.5],
      [8, 0, -1.73],
      [0, 30, 1.2],
    ];
    const out = raysFromLasers(raysTo(pts), kitti);
    expect(Array.from(out.originZM!)).toEqual(
      [kitti[0].heightM, kitti[1].heightM, kitti[0].heightM].map(Math.fround),
    );
    pts.forEach(([x, y, z], k) => {
      const h = out.originZM![k];
      expect(Math.hypot(out.dirX[k], out.dirY[k], out.dirZ[k])).toBeCloseTo(1, 6);
      expect(out.depthM[k]).toBeCloseTo(Math.hypot(x, y, z - h), 4);
      expect(out.dirX[k] * out.depthM[k]).toBeCloseTo(x, 4);
      expect(out.dirY[k] * out.depthM[k]).toBeCloseTo(y, 4);
      expect(h + out.dirZ[k] * out.depthM[k]).toBeCloseTo(z, 4);
    });
    // One block at height 0 gives the rays back.
    const same = raysFromLasers(raysTo(pts), [{ heightM: 0, lowestElevationDeg: -90 }]);
    for (let k = 0; k < pts.length; k++) expect(same.depthM[k]).toBeCloseTo(Math.hypot(...pts[k]), 4);
  });

  it('reads the blocks the log states, else those of its source, and refuses a malformed list', () => {
    const stated = [{ heightM: 0.3, lowestElevationDeg: -90 }];
    expect(laserBlocksOf({ source: 'pcd', extra: { laserBlocks: stated } })).toEqual(stated);
    expect(laserBlocksOf({ source: 'kitti' })).toBe(kitti);
    expect(laserBlocksOf({ source: 'synthetic' })).toBeNull();
    expect(() =>
      laserBlocksOf({ source: 'pcd', extra: { laserBlocks: [{ heightM: 1 }] } }, 'runs/x'),
    ).toThrow(/runs\/x: meta\.json extra\.laserBlocks/);
    expect(() => laserBlocksOf({ source: 'pcd', extra: { laserBlocks: [] } })).toThrow(/non-empty/);
  });
});

describe('sampleRays from a raised origin', () => {
  it('samples a level ray at its height and ends an upward one where the raised ray leaves the region', () => {
    const cfg = DEFAULT_TOKENIZER_CONFIG;
    const g = cfg.grid;
    const cellZ = (g.zMaxM - g.zMinM) / g.cellsZ;
    const level = raysTo([[10, 0, 0]]);
    const low = sampleRays(cfg, level);
    // Raised by exactly one z cell: every sample's corners move up one z layer (same weights).
    const raised = sampleRays(cfg, { ...level, originZM: Float32Array.of(cellZ) });
    const layer = g.cellsXY * g.cellsXY;
    for (let s = 0; s < 20; s++) {
      for (let c = 0; c < 8; c++) {
        const i = s * 8 + c;
        expect(raised.corner[i]).toBe(low.corner[i] + layer);
        expect(raised.cornerWeight[i]).toBeCloseTo(low.cornerWeight[i], 5);
      }
    }
    const up = raysTo([[1.5, 0, 2]]);
    const h = 0.4;
    expect(sampleRays(cfg, { ...up, originZM: Float32Array.of(h) }).exitM[0]).toBeCloseTo(
      Math.min((g.zMaxM - h) / 0.8, g.rangeM / 0.6),
      4,
    );
    expect(regionExitM(cfg, 0.6, 0, 0.8, h)).toBeCloseTo(Math.min((g.zMaxM - h) / 0.8, g.rangeM / 0.6), 6);
  });
});

describe('freeSpaceLabels on a ray from a laser', () => {
  it('tells a ground return by its height, not by how far its laser sits above it', () => {
    const cfg = DEFAULT_TOKENIZER_CONFIG;
    // A return 0.9 m below the origin (above the −1 m ground line) seen from a laser 0.2 m up: 1.1 m below it.
    const rays = raysFromLasers(raysTo([[10, 0, -0.9]]), [{ heightM: 0.2, lowestElevationDeg: -90 }]);
    const samples = sampleRays(cfg, rays);
    const cellZ = 0.5;
    const l = freeSpaceLabels(samples, rays, 0.3, cfg.render.stepM, cellZ, -1);
    // Not ground: every sample inside the region more than 0.3 m before the return is free.
    let expected = 0;
    let free = 0;
    for (let k = 0; k < samples.samples; k++) {
      if (samples.inside[k] && samples.sampleDepthM[k] < rays.depthM[0] - 0.3) expected++;
      free += l.free[k];
    }
    expect(expected).toBeGreaterThan(10);
    expect(free).toBe(expected);
  });
});
