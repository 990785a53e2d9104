// The hybrid renderer (the ray-trace of past points where the forecaster keeps the prior, the decoder where it
// changed a column) and the choice of its threshold by depth error, on constructed rays with known answers.
import { describe, expect, it } from 'vitest';
import { DEFAULT_TOKENIZER_CONFIG, gridGeometry } from '../../worldmodel/config.ts';
import { rayTracePast } from '../../worldmodel/baselines/rayTracePast.ts';
import { changedColumns, hybridDepth } from '../../worldmodel/hybridRender.ts';
import { chooseHybridRule, type ResidualSample } from '../../worldmodel/residual.ts';
import type { Rays } from '../../worldmodel/rays.ts';

const cfg = DEFAULT_TOKENIZER_CONFIG;
const geo = gridGeometry(cfg);
const T = geo.tokensXY;

/** Horizontal rays along +x, +y, −x, −y (sensor at the origin) with the given true depths. */
function fourRays(depth: number[]): Rays {
  return {
    count: 4,
    dirX: Float32Array.of(1, 0, -1, 0),
    dirY: Float32Array.of(0, 1, 0, -1),
    dirZ: new Float32Array(4),
    depthM: Float32Array.from(depth),
    pointIndex: Int32Array.of(0, 1, 2, 3),
  };
}

/** The token column holding the point (x, y). */
const col = (x: number, y: number) =>
  Math.floor((y + cfg.grid.rangeM) / geo.tokenM) * T + Math.floor((x + cfg.grid.rangeM) / geo.tokenM);

// Past points: walls 10 m along +x, +y and −x; nothing along −y (a ray-trace miss).
const past = { x: Float32Array.of(10, 0, -10), y: Float32Array.of(0, 10, 0), z: new Float32Array(3) };

describe('hybrid renderer', () => {
  it('is the ground-fallback ray-trace exactly when the forecaster changes nothing', () => {
    const rays = fourRays([10, 10, 10, 10]);
    const rt = rayTracePast(cfg, past, rays);
    expect(Array.from(rt.miss)).toEqual([0, 0, 0, 1]);
    const prior = new Int32Array(T * T).fill(3);
    const d = hybridDepth(cfg, rays, rt, null, changedColumns(prior, prior), 'ground');
    expect(Array.from(d)).toEqual(Array.from(rt.ground));
  });

  it('takes the decoded depth on rays that meet a changed column, and on misses when told', () => {
    const rays = fourRays([6, 10, 10, 10]);
    const rt = rayTracePast(cfg, past, rays);
    const prior = new Int32Array(T * T).fill(3);
    const grid = prior.slice();
    grid[col(6, 0)] = 7; // a mover came between along +x: the decoded surface at 6 m is in a changed column
    grid[col(0, 10)] = 7; // the wall along +y was changed: its ray-trace point is in a changed column
    const decoded = Float32Array.of(6, 4, 9, 12);
    const changed = changedColumns(grid, prior);
    const d = hybridDepth(cfg, rays, rt, decoded, changed, 'ground');
    expect(d[0]).toBeCloseTo(6); // decoded endpoint in a changed column
    expect(d[1]).toBeCloseTo(4); // ray-trace endpoint in a changed column
    expect(d[2]).toBeCloseTo(rt.ground[2]); // nothing changed along −x: the ray-trace
    expect(d[3]).toBeCloseTo(rt.ground[3]); // the miss keeps the region exit
    expect(hybridDepth(cfg, rays, rt, decoded, changed, 'decoder')[3]).toBeCloseTo(12);
    expect(() => hybridDepth(cfg, rays, rt, null, changed, 'ground')).toThrow(/decoded depth/);
  });

  it('chooses the threshold whose changes lower the depth error, and the ray-trace alone when none do', async () => {
    // Truth: something at 6 m along +x where the past saw a wall at 10 m. The model changes that column with
    // probability 0.8 (right) and the −x column with probability 0.3 (wrong: its decoder says 2 m there).
    const rays = fourRays([6, 10, 10, 10]);
    const rt = rayTracePast(cfg, past, rays);
    const prior = new Int32Array(T * T).fill(3);
    const pred = prior.slice();
    const prob = new Float32Array(T * T).fill(0.99);
    pred[col(6, 0)] = 7;
    prob[col(6, 0)] = 0.8;
    pred[col(-10, 0)] = 8;
    prob[col(-10, 0)] = 0.3;
    const sample: ResidualSample = {
      pred,
      prob,
      prior,
      truth: prior,
      occupied: new Uint8Array(T * T),
      rays,
      rt,
    };
    // The decoder of a grid: 6 m along +x where column (6, 0) holds 7, 2 m along −x where (−10, 0) holds 8,
    // else the wall at 10 m; 10 m along −y.
    const render = async (g: Int32Array) =>
      Float32Array.of(g[col(6, 0)] === 7 ? 6 : 10, 10, g[col(-10, 0)] === 8 ? 2 : 10, 10);
    const fit = await chooseHybridRule(cfg, [sample], render, [0, 0.5, 1.01], ['ground', 'decoder']);
    expect(fit.threshold).toBe(0.5);
    // The −y miss: the region exit (40 m) on the ground rule, 10 m from the decoder.
    expect(fit.misses).toBe('decoder');
    expect(fit.l1).toBeCloseTo(0);
    const row = (th: number, m: string) => fit.table.find((r) => r.threshold === th && r.misses === m)!;
    expect(row(1.01, 'ground').l1).toBeCloseTo((4 + 30) / 4);
    expect(row(0, 'decoder').l1).toBeCloseTo(8 / 4);
    // A model whose every change is wrong: the ray-trace alone (the highest threshold).
    const wrong = async () => Float32Array.of(20, 20, 20, 20);
    const none = await chooseHybridRule(cfg, [sample], wrong, [0, 0.5, 1.01], ['ground']);
    expect(none.threshold).toBe(1.01);
  });
});
