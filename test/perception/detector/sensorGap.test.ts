// The sensor-gap augmentations and features of issue 18.5: beam halving keeps every other beam whole,
// range dropout thins far points and spares near ones, the ground jitter stays within its clip, the
// per-source intensity scale maps sweeps of different units alike; all are off by default.
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import {
  type AugPoints,
  type AugSample,
  DEFAULT_AUGMENT_CONFIG,
  sensorAugment,
} from '../../../perception/detector/augment.ts';
import { beamHalvingMask } from '../../../perception/detector/beamHalving.ts';
import {
  bevFeatures,
  centredGrid,
  DEFAULT_BEV_FEATURE_CONFIG,
} from '../../../perception/detector/bevGrid.ts';
import { jitterGroundZ } from '../../../perception/detector/heightJitter.ts';
import { intensityDivisor, positiveQuantile } from '../../../perception/detector/intensityNorm.ts';
import { rangeDropoutMask } from '../../../perception/detector/rangeDropout.ts';

/** `rings` beams × `columns` azimuths, ring numbers 1…rings, ranges 2–80 m. */
function cloud(rings: number, columns: number): AugPoints {
  const n = rings * columns;
  const p: AugPoints = {
    x: new Float32Array(n),
    y: new Float32Array(n),
    z: new Float32Array(n),
    intensity: new Float32Array(n),
    ring: new Uint16Array(n),
  };
  for (let r = 0, i = 0; r < rings; r++)
    for (let c = 0; c < columns; c++, i++) {
      const az = (2 * Math.PI * c) / columns;
      const range = 2 + ((c * 13 + r * 7) % 79);
      p.x[i] = range * Math.cos(az);
      p.y[i] = range * Math.sin(az);
      p.z[i] = -1.7 + 0.02 * r;
      p.intensity[i] = r;
      p.ring[i] = r + 1;
    }
  return p;
}

describe('beam halving', () => {
  it('keeps exactly one beam in two, each whole, either half', () => {
    const beams = Int32Array.from({ length: 64 * 100 }, (_, i) => Math.floor(i / 100));
    const phases = new Set<number>();
    for (let seed = 1; seed <= 8; seed++) {
      const keep = beamHalvingMask(beams, 2, new Rng(seed));
      const kept = new Set<number>();
      for (let i = 0; i < keep.length; i++) if (keep[i]) kept.add(beams[i]);
      expect(kept.size).toBe(32);
      // Whole beams: a kept beam keeps all 100 of its points.
      expect(keep.reduce((s, k) => s + k, 0)).toBe(3200);
      phases.add([...kept][0] % 2);
    }
    expect(phases).toEqual(new Set([0, 1]));
  });
});

describe('range dropout', () => {
  it('drops far points at about the asked rate and leaves near ones', () => {
    const p = cloud(16, 2000);
    const keep = rangeDropoutMask(p.x, p.y, 0.6, 60, new Rng(2));
    let near = 0;
    let nearKept = 0;
    let far = 0;
    let farKept = 0;
    for (let i = 0; i < keep.length; i++) {
      const r = Math.hypot(p.x[i], p.y[i]);
      if (r < 6) {
        near++;
        nearKept += keep[i];
      } else if (r >= 60) {
        far++;
        farKept += keep[i];
      }
    }
    // At r < 6 m the drop chance is below 0.6·0.01; beyond 60 m it is 0.6.
    expect(nearKept / near).toBeGreaterThan(0.98);
    expect(farKept / far).toBeGreaterThan(0.35);
    expect(farKept / far).toBeLessThan(0.45);
  });
});

describe('height jitter', () => {
  it('offsets the ground level within ±maxM with the asked spread, and is off at std 0', () => {
    const rng = new Rng(5);
    expect(jitterGroundZ(-1.7, rng, { stdM: 0, maxM: 0.3 })).toBe(-1.7);
    const d = Array.from({ length: 4000 }, () => jitterGroundZ(-1.7, rng, { stdM: 0.1, maxM: 0.3 }) + 1.7);
    expect(Math.max(...d.map(Math.abs))).toBeLessThanOrEqual(0.3 + 1e-9);
    const sd = Math.sqrt(d.reduce((s, v) => s + v * v, 0) / d.length);
    expect(sd).toBeGreaterThan(0.09);
    expect(sd).toBeLessThan(0.11);
  });
});

describe('sensorAugment', () => {
  const sample = (): AugSample => ({
    points: cloud(64, 200),
    boxes: [],
    groundZ: -1.7,
    ego: { x: 0, y: 0, rangeScale: 1 },
  });

  it('changes nothing with the defaults (all off) and draws no random numbers', () => {
    const s = sample();
    const rng = new Rng(9);
    sensorAugment(s, rng, DEFAULT_AUGMENT_CONFIG);
    expect(s.points.x.length).toBe(64 * 200);
    expect(s.groundZ).toBe(-1.7);
    expect(rng.uniform()).toBe(new Rng(9).uniform());
  });

  it('halves a 64-ring sweep to 32 rings when switched on', () => {
    const s = sample();
    sensorAugment(s, new Rng(3), {
      ...DEFAULT_AUGMENT_CONFIG,
      beamHalving: { probability: 1, keepOneIn: 2 },
    });
    expect(new Set(s.points.ring).size).toBe(32);
    expect(s.points.x.length).toBe(32 * 200);
  });
});

describe('intensity normalised per source', () => {
  it('estimates a quantile of the positive values', () => {
    const v = Float32Array.from({ length: 10001 }, (_, i) => i / 10000);
    expect(positiveQuantile(v, 0.9)).toBeCloseTo(0.9, 2);
    expect(positiveQuantile(new Float32Array(5), 0.9)).toBe(0);
  });

  it('gives a 0–1 and a 0–255 sweep of the same shape the same intensity channel', () => {
    const p = cloud(8, 500);
    const unit = Float32Array.from(p.intensity, (v) => (v + 1) / 8);
    const byte = Float32Array.from(unit, (v) => v * 255);
    expect(intensityDivisor(byte, 'quantile', 0.9) / intensityDivisor(unit, 'quantile', 0.9)).toBeCloseTo(
      255,
      0,
    );
    const cfg = { ...DEFAULT_BEV_FEATURE_CONFIG, intensityScale: 'quantile' as const };
    const grid = centredGrid(12.8, 0.2);
    const a = bevFeatures({ ...p, intensity: unit }, grid, -1.7, cfg);
    const b = bevFeatures({ ...p, intensity: byte }, grid, -1.7, cfg);
    let maxDiff = 0;
    for (let i = 0; i < a.length; i++) maxDiff = Math.max(maxDiff, Math.abs(a[i] - b[i]));
    expect(maxDiff).toBeLessThan(1e-3);
    // Unlike a fixed divisor, which leaves the 8-bit sweep 255 times brighter (clipped at 1).
    const fixed = { ...DEFAULT_BEV_FEATURE_CONFIG, intensityScale: 1 };
    const c = bevFeatures({ ...p, intensity: unit }, grid, -1.7, fixed);
    const d = bevFeatures({ ...p, intensity: byte }, grid, -1.7, fixed);
    let diff = 0;
    for (let i = 0; i < c.length; i++) diff = Math.max(diff, Math.abs(c[i] - d[i]));
    expect(diff).toBeGreaterThan(0.5);
  });
});
