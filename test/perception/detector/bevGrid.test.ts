// BEV features: each channel of a cell from the points in it (occupancy, max/mean height above ground,
// log density, mean intensity), points outside the grid or height band or with NaN coordinates ignored.
import { describe, expect, it } from 'vitest';
import {
  BEV_CHANNEL_COUNT,
  bevFeatures,
  centredGrid,
  DEFAULT_BEV_FEATURE_CONFIG,
  estimateGroundZ,
  gridAround,
} from '../../../perception/detector/bevGrid.ts';

const pts = (rows: number[][]) => ({
  x: Float32Array.from(rows, (r) => r[0]),
  y: Float32Array.from(rows, (r) => r[1]),
  z: Float32Array.from(rows, (r) => r[2]),
  intensity: Float32Array.from(rows, (r) => r[3] ?? 0),
});

describe('bevFeatures', () => {
  const grid = gridAround(0, 0, 10, 20, 0.5); // x ∈ [−5, 5), y ∈ [−2.5, 2.5)
  const plane = 200;
  const at = (f: Float32Array, ch: number, x: number, y: number) =>
    f[ch * plane + Math.floor((y + 2.5) / 0.5) * 20 + Math.floor((x + 5) / 0.5)];

  it('computes every channel of a cell', () => {
    const groundZ = -1.5;
    const f = bevFeatures(
      pts([
        [1.1, 0.2, -1.5 + 0.4, 0.2],
        [1.2, 0.3, -1.5 + 1.2, 0.6],
        [1.4, 0.1, -1.5 + 0.8, 0.4],
        [-3.9, -2.4, -1.5 + 3.0, 1.0],
      ]),
      grid,
      groundZ,
    );
    expect(f.length).toBe(BEV_CHANNEL_COUNT * plane);
    const h = DEFAULT_BEV_FEATURE_CONFIG.maxHeightM;
    expect(at(f, 0, 1.2, 0.2)).toBe(1);
    expect(at(f, 1, 1.2, 0.2)).toBeCloseTo(1.2 / h, 6);
    expect(at(f, 2, 1.2, 0.2)).toBeCloseTo(0.8 / h, 6);
    expect(at(f, 3, 1.2, 0.2)).toBeCloseTo(Math.log1p(3) / Math.log1p(32), 6);
    expect(at(f, 4, 1.2, 0.2)).toBeCloseTo(0.4, 6);
    expect(at(f, 1, -3.9, -2.4)).toBeCloseTo(3 / h, 6);
    // Everything else is empty.
    let occupied = 0;
    for (let k = 0; k < plane; k++) occupied += f[k];
    expect(occupied).toBe(2);
  });

  it('ignores points outside the grid, outside the height band and NaN points', () => {
    const f = bevFeatures(
      pts([
        [5.0, 0, 0.5],
        [-5.01, 0, 0.5],
        [0, 2.5, 0.5],
        [0, 0, 4.5],
        [0, 0, -0.6],
        [NaN, 0, 0.5],
        [0, NaN, 0.5],
        [0, 0, NaN],
      ]),
      grid,
      0,
    );
    expect(f.every((v) => v === 0)).toBe(true);
  });

  it('scales 8-bit intensities and writes into a batch slot', () => {
    const out = new Float32Array(3 * BEV_CHANNEL_COUNT * plane).fill(7);
    bevFeatures(
      pts([[0.1, 0.1, 0.5, 204]]),
      grid,
      0,
      DEFAULT_BEV_FEATURE_CONFIG,
      out,
      BEV_CHANNEL_COUNT * plane,
    );
    const slot = out.subarray(BEV_CHANNEL_COUNT * plane, 2 * BEV_CHANNEL_COUNT * plane);
    expect(at(slot, 4, 0.1, 0.1)).toBeCloseTo(0.8, 6);
    expect(out[0]).toBe(7);
    expect(out[2 * BEV_CHANNEL_COUNT * plane]).toBe(7);
  });

  it('the default grid is 512 × 512 cells of 0.2 m', () => {
    expect(centredGrid(51.2, 0.2)).toEqual({ xMinM: -51.2, yMinM: -51.2, cellM: 0.2, rows: 512, cols: 512 });
    expect(() => centredGrid(51.25, 0.2)).toThrow(/whole number/);
  });
});

describe('estimateGroundZ', () => {
  it('finds the ground level of a flat plane under objects', () => {
    const rows: number[][] = [];
    for (let x = -30; x <= 30; x += 0.5) for (let y = -30; y <= 30; y += 0.5) rows.push([x, y, -1.73]);
    // Cars and walls above the ground do not move it.
    for (let x = 5; x < 25; x += 0.2) for (let z = 0; z < 1.5; z += 0.1) rows.push([x, 4, -1.73 + z]);
    expect(estimateGroundZ(pts(rows))).toBeCloseTo(-1.73, 5);
    expect(estimateGroundZ(pts([]))).toBe(0);
  });
});
