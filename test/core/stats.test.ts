// The order statistics of core/stats.ts: each variant on odd, even and empty lists, so a caller's
// figures cannot shift when the shared code changes.
import { describe, expect, it } from 'vitest';
import {
  lowerQuantileOfSorted,
  median,
  medianOfSorted,
  nearestRankOfSorted,
  quantile,
  upperMedian,
  upperMedianOfSorted,
} from '../../core/stats.ts';

describe('order statistics', () => {
  it('median interpolates between the two middles, upperMedian takes the upper one', () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(medianOfSorted([1, 2, 3, 4])).toBe(2.5);
    expect(upperMedian([4, 1, 3, 2])).toBe(3);
    expect(upperMedian([5])).toBe(5);
    expect(upperMedianOfSorted([1, 2, 3, 4])).toBe(3);
    expect(median([])).toBeNaN();
    expect(upperMedian([])).toBeNaN();
  });

  it('quantile interpolates linearly and clamps q', () => {
    expect(quantile([0, 10], 0.25)).toBe(2.5);
    expect(quantile([5, 0, 10], 0.5)).toBe(5);
    expect(quantile([1, 2], -1)).toBe(1);
    expect(quantile([1, 2], 2)).toBe(2);
    expect(quantile([], 0.5)).toBeNaN();
  });

  it('sample quantiles of sorted lists: lower index and nearest rank', () => {
    const s = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10];
    expect(lowerQuantileOfSorted(s, 0.3)).toBe(3); // index ⌊0.3·9⌋ = 2
    expect(nearestRankOfSorted(s, 0.95)).toBe(10); // rank ⌈9.5⌉ = 10
    expect(nearestRankOfSorted(s, 0)).toBe(1);
  });
});
