// The real-data tokenizer's training pieces: sub-voxel shift and beam dropout, the UnO free-space labels and
// loss, the warm start that splits z cells, and the perfect-grid depth floor against an analytic wall.
import { describe, expect, it } from 'vitest';
import { Graph } from '../../core/nn/graph.ts';
import { GraphSession } from '../../core/nn/graphSession.ts';
import { ParamStore } from '../../core/nn/params.ts';
import { Rng } from '../../core/rng.ts';
import { tokenizerConfig } from '../../worldmodel/config.ts';
import { binaryGrids, depthErrorFigures, renderSigned, strideRays } from '../../worldmodel/gridFloor.ts';
import { raysFromPoints, sampleRays } from '../../worldmodel/rays.ts';
import { freeSpaceLoss } from '../../worldmodel/render.ts';
import { dropBeams, randomAugment, sensorPoints } from '../../worldmodel/sweep.ts';
import { freeSpaceLabels } from '../../worldmodel/tokenizerFeeds.ts';
import { warmStartTokenizer } from '../../worldmodel/tokenizerInit.ts';
import { buildRenderer, readTokenizerSpec } from '../../worldmodel/tokenizerModel.ts';
import { createTokenizerNetwork } from '../../worldmodel/tokenizerNetwork.ts';

const cloud = (pts: number[][]) => ({
  x: Float32Array.from(pts, (p) => p[0]),
  y: Float32Array.from(pts, (p) => p[1]),
  z: Float32Array.from(pts, (p) => p[2]),
});

describe('augmentation', () => {
  it('shifts a sweep within the ranges and draws nothing extra when the ranges are 0', () => {
    const a = randomAugment(new Rng(3));
    expect(a.shiftM).toBeUndefined();
    const b = randomAugment(new Rng(3), { shiftXYM: 0.2, shiftZM: 0.1, beamDropout: 0 });
    expect(b.yawRad).toBe(a.yawRad); // the same heading: the shift is drawn after it
    const [dx, dy, dz] = b.shiftM!;
    expect(Math.abs(dx)).toBeLessThanOrEqual(0.2);
    expect(Math.abs(dy)).toBeLessThanOrEqual(0.2);
    expect(Math.abs(dz)).toBeLessThanOrEqual(0.1);
    const p = sensorPoints({ x: [0], y: [0], z: [0] } as never, [0, 0, 0], b);
    expect([p.x[0], p.y[0], p.z[0]]).toEqual([Math.fround(dx), Math.fround(dy), Math.fround(dz)]);
  });

  it('drops whole rings: points of one elevation go together, other rings stay', () => {
    // 40 rings 0.8° apart (two bins each way), 50 points around each.
    const pts: number[][] = [];
    for (let r = 0; r < 40; r++)
      for (let k = 0; k < 50; k++) {
        const el = ((-24 + r * 0.8 + 0.2) * Math.PI) / 180;
        const az = (k / 50) * 2 * Math.PI;
        pts.push([20 * Math.cos(el) * Math.cos(az), 20 * Math.cos(el) * Math.sin(az), 20 * Math.sin(el)]);
      }
    const out = dropBeams(cloud(pts), new Rng(5), 0.9);
    expect(out.x.length).toBeLessThan(pts.length);
    expect(out.x.length).toBeGreaterThan(0);
    expect(out.x.length % 50).toBe(0); // never a part of a ring
    expect(dropBeams(cloud(pts), new Rng(5), 0).x.length).toBe(pts.length);
  });
});

describe('free-space loss', () => {
  const cfg = tokenizerConfig({
    grid: { rangeM: 8, zMinM: -1, zMaxM: 1, cellsXY: 16, cellsZ: 4 },
    render: { stepM: 0.2, minRangeM: 0.5, skipOccupancyBelow: 0 },
  });
  it('labels samples before the return free and those at it occupied', () => {
    const rays = raysFromPoints(cfg, cloud([[5, 0, 0]]));
    const s = sampleRays(cfg, rays);
    const l = freeSpaceLabels(s, rays, 0.4, 0.2);
    for (let k = 0; k < s.samples; k++) {
      const h = s.sampleDepthM[k];
      expect(l.free[k]).toBe(h < 4.6 ? 1 : 0);
      expect(l.hit[k]).toBe(h >= 4.9 && h <= 5.3 ? 1 : 0);
    }
    expect(l.hit.reduce((a, b) => a + b, 0)).toBe(2);
  });

  it('keeps a ground-grazing ray from labelling the ground free until it is a z cell above it', () => {
    // A return on the ground 7 m ahead, 0.9 m below the sensor: the ray drops 0.128 m per metre.
    const rays = raysFromPoints(cfg, cloud([[7, 0, -0.9]]));
    const s = sampleRays(cfg, rays);
    const d = rays.depthM[0];
    const l = freeSpaceLabels(s, rays, 0.4, 0.2, 0.5, -0.5);
    for (let k = 0; k < s.samples; k++) {
      const h = s.sampleDepthM[k];
      if (!s.inside[k]) continue;
      expect(l.free[k]).toBe(((d - h) * 0.9) / d >= 0.5 ? 1 : 0);
    }
    expect(l.free.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
  });

  it('is low when the logits agree with the labels and high when they do not', async () => {
    const g = new Graph();
    const f = g.input('f', [1, 4]);
    const loss = freeSpaceLoss(f, g.input('free', [1, 4]), g.input('hit', [1, 4]));
    const s = await GraphSession.create(g, { loss }, { threads: 1 });
    const run = async (logits: number[]) =>
      (
        await s.run({
          f: { data: Float32Array.from(logits), dims: [1, 4] },
          free: { data: Float32Array.from([1, 1, 0, 0]), dims: [1, 4] },
          hit: { data: Float32Array.from([0, 0, 1, 0]), dims: [1, 4] },
        })
      ).loss.data[0] as number;
    const good = await run([-8, -8, 8, 0]);
    const escaping = await run([-8, -8, -8, 0]); // the ray passes through its own return
    await s.dispose();
    expect(good).toBeLessThan(0.01);
    expect(escaping).toBeGreaterThan(2);
  });
});

describe('warm start', () => {
  it('copies the shipped tokenizer and splits each z level into two', () => {
    const old = readTokenizerSpec('models/tokenizer/encoder.onnx').config;
    const cfg = tokenizerConfig({ grid: { cellsZ: 2 * old.grid.cellsZ } }, old);
    const ps = new ParamStore({ seed: 1 });
    createTokenizerNetwork(ps, cfg);
    const r = warmStartTokenizer(ps, cfg, 'models/tokenizer');
    expect(r.fresh).toEqual([]);
    expect(r.repeatedZ.sort()).toEqual(['dec.head.bias', 'dec.head.weight', 'pillar.height.weight']);
    const Z = cfg.grid.cellsZ;
    const bias = ps.get('dec.head.bias').data;
    // Occupancy levels 2k and 2k+1 share old level k; so do density levels Z + 2k and Z + 2k + 1.
    expect(bias[0]).toBe(bias[1]);
    expect(bias[Z + 4]).toBe(bias[Z + 5]);
    const h = ps.get('pillar.height.weight');
    const C = h.shape[1];
    expect(Array.from(h.data.subarray(2 * C, 3 * C))).toEqual(Array.from(h.data.subarray(3 * C, 4 * C)));
  });
});

describe('perfect-grid floor', () => {
  it('renders a wall of points at the face of its voxels, and finer cells render it closer', async () => {
    // Points on the plane x = 6.3 in a grid of 1 m cells: the binary grid's surface is the voxel face x = 6.
    const pts: number[][] = [];
    for (let y = -2; y <= 2; y += 0.25) for (let z = -0.9; z <= 0.9; z += 0.3) pts.push([6.3, y, z]);
    const errs: number[] = [];
    for (const cellsXY of [16, 64]) {
      const cfg = tokenizerConfig({
        grid: { rangeM: 8, zMinM: -1, zMaxM: 1, cellsXY, cellsZ: 8 },
        render: { stepM: 0.05, minRangeM: 0.5 },
      });
      const renderer = await buildRenderer(cfg, { threads: 1 });
      const signed = await renderSigned(
        cfg,
        renderer,
        binaryGrids(cfg, cloud(pts), 'wall'),
        strideRays(cfg, cloud(pts), 1),
      );
      await renderer.dispose();
      const f = depthErrorFigures(signed);
      expect(f.tooFar5m).toBe(0);
      errs.push(f.medianM);
    }
    expect(errs[0]).toBeGreaterThan(0.2); // 0.3 m before the face along x, more along oblique rays
    expect(errs[1]).toBeLessThan(errs[0] / 2);
  });
});
