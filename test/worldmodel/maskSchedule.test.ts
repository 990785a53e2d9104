import { describe, expect, it } from 'vitest';
import { Rng } from '../../core/rng.ts';
import { corruptFrame, drawObjective, maskCount, maskSchedule } from '../../worldmodel/maskSchedule.ts';

describe('mask schedule', () => {
  it('is cos(uπ/2): everything masked at u = 0, nothing at u = 1, decreasing between', () => {
    expect(maskSchedule(0)).toBe(1);
    expect(maskSchedule(1)).toBeCloseTo(0, 12);
    expect(maskSchedule(0.5)).toBeCloseTo(Math.SQRT1_2, 12);
    for (let u = 0; u < 1; u += 0.1) expect(maskSchedule(u + 0.1)).toBeLessThan(maskSchedule(u));
    expect(maskCount(0, 4096)).toBe(4096);
    expect(maskCount(1, 4096)).toBe(0);
    expect(maskCount(0.5, 100)).toBe(Math.ceil(100 * Math.SQRT1_2));
  });

  it('draws the 50 / 40 / 10 objective mix on a fixed seed', () => {
    const rng = new Rng(7);
    const n = 20000;
    const counts = { future: 0, joint: 0, frame: 0 };
    for (let i = 0; i < n; i++) counts[drawObjective(rng, [0.5, 0.4, 0.1])]++;
    expect(counts.future / n).toBeCloseTo(0.5, 1);
    expect(counts.joint / n).toBeCloseTo(0.4, 1);
    expect(counts.frame / n).toBeCloseTo(0.1, 1);
    expect(Math.abs(counts.frame / n - 0.1)).toBeLessThan(0.01);
  });

  it('masks ⌈γ(u)·n⌉ tokens and replaces at most 20 % of the rest by random codes', () => {
    const rng = new Rng(3);
    const tokens = Int32Array.from({ length: 4096 }, (_, i) => i % 512);
    let noisedSeen = 0;
    for (let trial = 0; trial < 50; trial++) {
      const c = corruptFrame(tokens, 512, 0.2, rng);
      let masked = 0;
      let changed = 0;
      for (let i = 0; i < tokens.length; i++) {
        if (c.tokens[i] === 512) masked++;
        else if (c.tokens[i] !== tokens[i]) changed++;
      }
      expect(Math.max(...c.tokens)).toBeLessThanOrEqual(512);
      expect(masked).toBe(c.masked);
      expect(c.maskRatio).toBeCloseTo(masked / 4096, 12);
      expect(changed).toBeLessThanOrEqual(c.noised);
      expect(c.noised).toBeLessThanOrEqual(Math.floor(0.2 * (4096 - masked)));
      noisedSeen += c.noised;
    }
    expect(noisedSeen).toBeGreaterThan(0);
  });
});
