// Beam apex fits: returns of lasers with known apex heights on sloped ground give those heights back, and a sensor
// whose beams share the origin gives 0.
import { describe, expect, it } from 'vitest';
import { beamApexFits } from '../../../tools/models/beamApex.ts';

/** Ground returns (z = −1.73 + slope·x) of lasers at elevations `elevDeg` with apexes `apexM` above the origin. */
function sweep(elevDeg: number[], apexM: number[], slope: number) {
  const x: number[] = [];
  const y: number[] = [];
  const z: number[] = [];
  elevDeg.forEach((e, b) => {
    const t = Math.tan((e * Math.PI) / 180);
    for (let k = 0; k < 2000; k++) {
      const az = (2 * Math.PI * k) / 2000;
      const c = Math.cos(az);
      const s = Math.sin(az);
      // Along the ray from (0, 0, apex): z = apex + r·t meets the ground z = −1.73 + slope·r·c.
      const r = (-1.73 - apexM[b]) / (t - slope * c);
      x.push(r * c);
      y.push(r * s);
      z.push(apexM[b] + r * t);
    }
  });
  return { x: Float32Array.from(x), y: Float32Array.from(y), z: Float32Array.from(z) };
}

describe('beamApexFits', () => {
  const elev = [-12, -14, -16, -18, -20];
  it('recovers each laser’s apex height from returns on sloped ground', () => {
    const apex = [0.1, 0.15, 0.2, 0.12, 0.08];
    const fits = beamApexFits([sweep(elev, apex, 0.05)]);
    expect(fits.length).toBe(elev.length);
    const byElev = [...fits].sort((a, b) => b.elevationFitDeg - a.elevationFitDeg);
    byElev.forEach((f, b) => {
      expect(f.apexM).toBeCloseTo(apex[b], 2);
      expect(f.elevationFitDeg).toBeCloseTo(elev[b], 1);
    });
  });

  it('gives 0 for beams that share the origin, and no fit on flat ground (no range spread)', () => {
    const shared = beamApexFits([sweep(elev, [0, 0, 0, 0, 0], 0.05)]);
    expect(shared.length).toBe(elev.length);
    for (const f of shared) expect(Math.abs(f.apexM)).toBeLessThan(1e-3);
    expect(beamApexFits([sweep(elev, [0.1, 0.1, 0.1, 0.1, 0.1], 0)])).toHaveLength(0);
  });
});
