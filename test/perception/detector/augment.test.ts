// Augmentations: ray dropping removes whole beams and azimuth columns in the shares asked for (so a near
// object thins like a far one); the global flip/rotate/scale/translate keeps every point in its box.
import { describe, expect, it } from 'vitest';
import { countPointsInBox, type Box3 } from '../../../core/geometry/box.ts';
import { Rng } from '../../../core/rng.ts';
import {
  type AugPoints,
  applyGlobalTransform,
  augment,
  beamIds,
  clonePoints,
  DEFAULT_AUGMENT_CONFIG,
  dropRays,
} from '../../../perception/detector/augment.ts';

/** A ring-numbered cloud: `rings` beams × `columns` azimuths at ranges 5–45 m. */
function spinningCloud(rings: number, columns: number, withRings = true): AugPoints {
  const n = rings * columns;
  const p: AugPoints = {
    x: new Float32Array(n),
    y: new Float32Array(n),
    z: new Float32Array(n),
    intensity: new Float32Array(n),
    ring: new Uint16Array(n),
  };
  let i = 0;
  for (let r = 0; r < rings; r++) {
    const el = ((-20 + (20 * r) / rings) * Math.PI) / 180;
    for (let c = 0; c < columns; c++) {
      const az = (2 * Math.PI * (c + 0.5)) / columns - Math.PI;
      const range = 5 + ((r * 7 + c) % 40);
      p.x[i] = range * Math.cos(el) * Math.cos(az);
      p.y[i] = range * Math.cos(el) * Math.sin(az);
      p.z[i] = 1.8 + range * Math.sin(el);
      p.intensity[i] = r;
      p.ring[i] = withRings ? r + 1 : 0;
      i++;
    }
  }
  return p;
}

describe('ray dropping', () => {
  const cfg = DEFAULT_AUGMENT_CONFIG.rayDrop;

  it('keeps the asked share of beams, whole', () => {
    const src = spinningCloud(64, 1800);
    const kept = dropRays(clonePoints(src), 0.5, 1, new Rng(3), 0, cfg);
    const perRing = new Map<number, number>();
    for (let i = 0; i < kept.ring.length; i++)
      perRing.set(kept.ring[i], (perRing.get(kept.ring[i]) ?? 0) + 1);
    // A kept beam keeps all its points; about half the 64 beams survive (binomial sd 4).
    for (const n of perRing.values()) expect(n).toBe(1800);
    expect(perRing.size).toBeGreaterThan(32 - 14);
    expect(perRing.size).toBeLessThan(32 + 14);
    // Intensity travelled with its point (it encodes the ring here).
    for (let i = 0; i < kept.ring.length; i += 97) expect(kept.intensity[i]).toBe(kept.ring[i] - 1);
  });

  it('thins beams and columns together to about beamKeep · azimuthKeep of the points', () => {
    const src = spinningCloud(64, 1800);
    const n = src.x.length;
    for (const [b, a] of [
      [1 / 3, 1 / 3],
      [0.5, 0.8],
      [1, 0.25],
    ]) {
      const kept = dropRays(clonePoints(src), b, a, new Rng(11), 0, cfg).x.length;
      // Beams vary by binomial(64, b), columns barely (1800 of them): allow 4 beam standard deviations.
      const sd = Math.sqrt(64 * b * (1 - b)) / 64 + 0.02;
      expect(kept / n).toBeGreaterThan(b * a * (1 - (4 * sd) / Math.max(b, 1e-9)) - 0.02);
      expect(kept / n).toBeLessThan(b * a * (1 + (4 * sd) / Math.max(b, 1e-9)) + 0.02);
    }
    expect(dropRays(clonePoints(src), 1, 1, new Rng(1), 0, cfg).x.length).toBe(n);
    expect(dropRays(clonePoints(src), 0, 1, new Rng(1), 0, cfg).x.length).toBe(0);
  });

  it('takes beams from elevation bins when the cloud has no rings', () => {
    const src = spinningCloud(32, 720, false);
    // The sensor sits 1.8 m above ground level 0; each of the 32 elevations is one bin.
    const ids = beamIds(src, 0, { ...cfg, elevationBinDeg: 0.4 });
    const distinct = new Set(ids);
    expect(distinct.size).toBeGreaterThanOrEqual(32);
    expect(distinct.size).toBeLessThanOrEqual(40);
    const kept = dropRays(clonePoints(src), 0.5, 1, new Rng(5), 0, cfg);
    expect(kept.x.length).toBeLessThan(src.x.length * 0.85);
    expect(kept.x.length).toBeGreaterThan(src.x.length * 0.15);
  });
});

describe('global augmentation', () => {
  it('moves points, boxes, ground level and ego together', () => {
    const box: Box3 = { cx: 12, cy: -4, cz: 0.9, length: 4.5, width: 1.9, height: 1.6, yaw: 0.7 };
    const src = spinningCloud(16, 360);
    // Put a block of points inside the box.
    const inside = countPointsInBox(box, src.x, src.y, src.z);
    const extra = 200;
    const p: AugPoints = {
      x: new Float32Array(src.x.length + extra),
      y: new Float32Array(src.x.length + extra),
      z: new Float32Array(src.x.length + extra),
      intensity: new Float32Array(src.x.length + extra),
      ring: new Uint16Array(src.x.length + extra),
    };
    p.x.set(src.x);
    p.y.set(src.y);
    p.z.set(src.z);
    const rng = new Rng(9);
    for (let k = 0; k < extra; k++) {
      const u = (rng.uniform() - 0.5) * 4;
      const v = (rng.uniform() - 0.5) * 1.7;
      const i = src.x.length + k;
      p.x[i] = box.cx + Math.cos(box.yaw) * u - Math.sin(box.yaw) * v;
      p.y[i] = box.cy + Math.sin(box.yaw) * u + Math.cos(box.yaw) * v;
      p.z[i] = box.cz + (rng.uniform() - 0.5) * 1.4;
    }
    const before = countPointsInBox(box, p.x, p.y, p.z);
    expect(before).toBe(inside + extra);
    for (const flip of [false, true]) {
      const sample = {
        points: clonePoints(p),
        boxes: [box],
        groundZ: -0.1,
        ego: { x: 0, y: 0, rangeScale: 1 },
      };
      applyGlobalTransform(sample, { flip, rotationRad: 0.6, scale: 1.04, translation: [0.3, -0.2, 0.1] });
      const b = sample.boxes[0];
      expect(countPointsInBox(b, sample.points.x, sample.points.y, sample.points.z)).toBe(before);
      expect(b.length).toBeCloseTo(4.5 * 1.04, 5);
      expect(sample.groundZ).toBeCloseTo(-0.1 * 1.04 + 0.1, 6);
      expect(sample.ego).toEqual({ x: 0.3, y: -0.2, rangeScale: 1.04 });
      // The box stays at the same (scaled) distance from the ego.
      expect(Math.hypot(b.cx - 0.3, b.cy + 0.2)).toBeCloseTo(Math.hypot(12, 4) * 1.04, 4);
    }
  });

  it('draws within the configured limits and is reproducible from the seed', () => {
    const p = spinningCloud(16, 360);
    const run = (seed: number) => {
      const s = { points: clonePoints(p), boxes: [], groundZ: 0, ego: { x: 0, y: 0, rangeScale: 1 } };
      const d = augment(s, new Rng(seed));
      return { d, n: s.points.x.length, x0: s.points.x[0] };
    };
    const a = run(4);
    expect(run(4)).toEqual(a);
    const cfg = DEFAULT_AUGMENT_CONFIG;
    for (let seed = 1; seed < 40; seed++) {
      const { d, n } = run(seed);
      expect(Math.abs(d.rotationRad)).toBeLessThanOrEqual(cfg.maxRotationRad);
      expect(d.scale).toBeGreaterThanOrEqual(cfg.scaleMin);
      expect(d.scale).toBeLessThanOrEqual(cfg.scaleMax);
      expect(d.rangeFactor).toBeGreaterThanOrEqual(1);
      expect(d.rangeFactor).toBeLessThanOrEqual(cfg.rayDrop.maxRangeFactor);
      if (d.rangeFactor === 1) expect(n).toBe(p.x.length);
    }
  });
});
