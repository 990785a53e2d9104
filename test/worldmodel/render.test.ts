// The differentiable ray renderer against an analytic scene (a wall at a known distance, open sky) and its
// gradient against central finite differences of the same graph.
import { describe, expect, it } from 'vitest';
import { gradCheck } from '../../core/nn/gradcheck.ts';
import { Graph } from '../../core/nn/graph.ts';
import { GraphSession } from '../../core/nn/graphSession.ts';
import { tokenizerConfig } from '../../worldmodel/config.ts';
import { raysFromPoints, regionExitM, sampleRays } from '../../worldmodel/rays.ts';
import { rayInputs, renderDepth, type RayInputs } from '../../worldmodel/render.ts';
import { voxelCentre } from '../../worldmodel/voxelize.ts';

const cfg = tokenizerConfig({
  grid: { rangeM: 16, zMinM: -2, zMaxM: 2, cellsXY: 32, cellsZ: 8 },
  render: { stepM: 0.1, minRangeM: 0.5, skipOccupancyBelow: 0 },
});
const cells = 8 * 32 * 32;

function rays(dirs: number[][]) {
  const pts = {
    x: Float32Array.from(dirs, (d) => d[0]),
    y: Float32Array.from(dirs, (d) => d[1]),
    z: Float32Array.from(dirs, (d) => d[2]),
  };
  return raysFromPoints(cfg, pts);
}

async function render(density: Float32Array, dirs: number[][]): Promise<Float32Array> {
  const r = sampleRays(cfg, rays(dirs));
  const g = new Graph();
  const S = r.samples;
  const inp = rayInputs(g, S);
  const grid = g.input('density', [cells]);
  const out = renderDepth(grid, inp);
  const s = await GraphSession.create(g, { depth: out.depth }, { threads: 1 });
  const R = r.rays;
  const res = await s.run({
    density,
    corner: { data: r.corner, dims: [R, S, 8] },
    corner_weight: { data: r.cornerWeight, dims: [R, S, 8] },
    sample_depth: { data: r.sampleDepthM, dims: [R, S] },
    inside: { data: r.inside, dims: [R, S] },
    exit: { data: r.exitM, dims: [R] },
  });
  await s.dispose();
  return res.depth.data as Float32Array;
}

describe('renderDepth', () => {
  it('puts an opaque wall where the interpolated density crosses zero, and open sky at the region edge', async () => {
    // Voxels whose centre has x ≥ 6 are solid (logit +30), the rest empty (−30); the trilinear
    // field crosses 0 half-way between the centres 5.5 and 6.5, i.e. at x = 6.
    const density = new Float32Array(cells);
    for (let v = 0; v < cells; v++) density[v] = voxelCentre(cfg, v)[0] >= 6 ? 30 : -30;
    const [ahead, oblique, behind] = await render(density, [
      [1, 0, 0],
      [1, 0.5, 0.2],
      [-1, 0, 0],
    ]);
    expect(ahead).toBeCloseTo(6, 1);
    const d = Math.hypot(1, 0.5, 0.2);
    expect(oblique).toBeCloseTo((6 * d) / 1, 0); // x = 6 reached at depth 6·|d|/d_x
    expect(Math.abs(oblique - 6 * d)).toBeLessThan(0.15);
    // Nothing behind the sensor: the light escapes and the depth is where the ray leaves the region.
    expect(behind).toBeCloseTo(regionExitM(cfg, -1, 0, 0), 3);
  });

  it('has gradients that match finite differences', async () => {
    const small = tokenizerConfig({
      grid: { rangeM: 2, zMinM: -1, zMaxM: 1, cellsXY: 4, cellsZ: 2 },
      render: { stepM: 0.25, minRangeM: 0.1, skipOccupancyBelow: 0 },
    });
    const pts = {
      x: Float32Array.of(1, 0.3, -1.2),
      y: Float32Array.of(0.2, 1.1, -0.4),
      z: Float32Array.of(-0.3, 0.2, 0.1),
    };
    const r = sampleRays(small, raysFromPoints(small, pts));
    const S = r.samples;
    const res = await gradCheck({ density: { shape: [2 * 4 * 4], low: -2, high: 2 } }, (g, x) => {
      const inp: RayInputs = {
        corner: g.constant(r.corner, [r.rays, S, 8], 'int32'),
        cornerWeight: g.constant(Float64Array.from(r.cornerWeight), [r.rays, S, 8]),
        sampleDepth: g.constant(Float64Array.from(r.sampleDepthM), [r.rays, S]),
        inside: g.constant(Float64Array.from(r.inside), [r.rays, S]),
        exit: g.constant(Float64Array.from(r.exitM), [r.rays]),
      };
      return renderDepth(x.density, inp).depth;
    });
    expect(res.checked).toBe(32);
    expect(res.ok, JSON.stringify(res.worst)).toBe(true);
  });
});
