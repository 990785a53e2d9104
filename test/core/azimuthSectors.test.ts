// The azimuth sector table against Math.atan2: every sector count, random and boundary directions,
// the axes and the origin.
import { describe, expect, it } from 'vitest';
import { azimuthSector, azimuthSectorNear, azimuthSectorTable } from '../../core/geometry/azimuthSectors.ts';
import { lcg32 } from '../../core/rng.ts';

function sectorByAtan2(x: number, y: number, sectors: number): number {
  const s = Math.floor(((Math.atan2(y, x) + Math.PI) / (2 * Math.PI)) * sectors);
  return s >= sectors ? sectors - 1 : s;
}

describe('azimuthSector', () => {
  for (const sectors of [1, 2, 7, 150, 360, 1000]) {
    it(`matches atan2 for ${sectors} sectors`, () => {
      const t = azimuthSectorTable(sectors);
      const rand = lcg32(sectors);
      let mismatches = 0;
      const check = (x: number, y: number) => {
        const r = Math.sqrt(x * x + y * y);
        const got = azimuthSector(t, x, y, r);
        const want = sectorByAtan2(x, y, sectors);
        // A direction exactly on a boundary (the axes, for sector counts divisible by 4) may round to
        // either side: atan2 and the table's cosine round differently there.
        const f = ((Math.atan2(y, x) + Math.PI) / (2 * Math.PI)) * sectors;
        const onBoundary = Math.abs(f - Math.round(f)) < 1e-9;
        if (got !== want && !(onBoundary && Math.abs(got - want) === 1)) mismatches++;
      };
      for (let i = 0; i < 20000; i++) {
        // float32 coordinates, as in a sweep, at ranges from centimetres to 200 m
        const a = (rand() / 2 ** 32) * 2 * Math.PI - Math.PI;
        const r = 0.01 + (rand() / 2 ** 32) * 200;
        check(Math.fround(r * Math.cos(a)), Math.fround(r * Math.sin(a)));
      }
      // Points a hair either side of every sector boundary.
      for (let s = 0; s <= sectors; s++) {
        const a = (s / sectors) * 2 * Math.PI - Math.PI;
        for (const eps of [-1e-6, 1e-6]) check(10 * Math.cos(a + eps), 10 * Math.sin(a + eps));
      }
      for (const [x, y] of [
        [1, 0],
        [-1, 0],
        [0, 1],
        [0, -1],
        [3, 3],
        [-3, -3],
      ])
        check(x, y);
      expect(mismatches).toBe(0);
    });
  }

  for (const sectors of [3, 7, 150, 1000]) {
    it(`with a hint, gives the lookup's sector for every hint (${sectors} sectors)`, () => {
      const t = azimuthSectorTable(sectors);
      const rand = lcg32(sectors + 1);
      const points: [number, number][] = [
        [0, 0],
        [-1, 0],
        [-1, -0],
        [1, 0],
        [0, 1],
        [0, -1],
      ];
      for (let i = 0; i < 300; i++) {
        const a = (rand() / 2 ** 32) * 2 * Math.PI - Math.PI;
        const r = 0.01 + (rand() / 2 ** 32) * 200;
        points.push([Math.fround(r * Math.cos(a)), Math.fround(r * Math.sin(a))]);
      }
      // A hair either side of every boundary, and exactly on it as float32 rounds it.
      for (let s = 0; s <= sectors; s++) {
        const a = (s / sectors) * 2 * Math.PI - Math.PI;
        for (const eps of [-1e-12, -1e-9, 0, 1e-9, 1e-12])
          points.push([Math.fround(20 * Math.cos(a + eps)), Math.fround(20 * Math.sin(a + eps))]);
      }
      let mismatches = 0;
      const hints =
        sectors <= 7 ? [...Array(sectors).keys()] : [0, 1, sectors >> 1, sectors - 2, sectors - 1];
      for (const [x, y] of points) {
        const r = Math.sqrt(x * x + y * y);
        const want = azimuthSector(t, x, y, r);
        // The point's own sector and its neighbours as hints (the hint is used when right), then others.
        for (const h of [-1, want, want - 1, want + 1, ...hints]) {
          if (h >= sectors) continue;
          if (azimuthSectorNear(t, x, y, r, h) !== want) mismatches++;
        }
      }
      expect(mismatches).toBe(0);
    });
  }

  it('takes y = −0 as +0: the negative x axis is the last sector, as the positive side', () => {
    const t = azimuthSectorTable(150);
    expect(azimuthSector(t, -1, -0, 1)).toBe(149);
    expect(azimuthSector(t, -1, 0, 1)).toBe(149);
  });

  it('puts the origin in the sector of angle 0, as atan2(0, 0) = 0', () => {
    const t = azimuthSectorTable(150);
    expect(azimuthSector(t, 0, 0, 0)).toBe(sectorByAtan2(0, 0, 150));
  });

  it('rejects a sector count that is not a positive integer', () => {
    expect(() => azimuthSectorTable(0)).toThrow(/positive integer/);
    expect(() => azimuthSectorTable(2.5)).toThrow(/positive integer/);
  });
});
