// core/rng.ts: both algorithms pinned to draws of the generators they replaced (so synthetic towns and
// resumed training keep their bits), state round trips, and named forks that do not disturb each other.
import { describe, expect, it } from 'vitest';
import { lcg32, Rng } from '../../core/rng.ts';

describe('Rng', () => {
  it('xoshiro128** draws what the learning engine drew for the same seed', () => {
    const r = new Rng(7);
    expect([r.uniform(), r.int(100), r.normal()]).toEqual([0.2338277214186818, 44, -1.0637932992656989]);
  });

  it('mulberry32 draws what the synthetic town drew for the same seed, forks included', () => {
    const r = new Rng(3, 'mulberry32');
    expect([r.next(), r.int(0, 7), r.normal(1, 2)]).toEqual([0.35033765714615583, 2, -0.7215735013755071]);
    expect(new Rng(3, 'mulberry32').fork('spawn').next()).toBe(0.8166882388759404);
  });

  it('restores from its state mid-stream, the cached normal included', () => {
    for (const algorithm of ['xoshiro128**', 'mulberry32'] as const) {
      const a = new Rng(11, algorithm);
      a.normal();
      const b = Rng.fromState(JSON.parse(JSON.stringify(a.getState())));
      expect([b.normal(), b.next(), b.int(0, 9)]).toEqual([a.normal(), a.next(), a.int(0, 9)]);
    }
    expect(() => new Rng(1).setState(new Rng(1, 'mulberry32').getState())).toThrow(/mulberry32/);
  });

  it('named forks are reproducible, distinct, and leave the parent stream alone', () => {
    for (const algorithm of ['xoshiro128**', 'mulberry32'] as const) {
      const a = new Rng(5, algorithm);
      const b = new Rng(5, algorithm);
      const fa = a.fork('x');
      expect(fa.next()).toBe(b.fork('x').next());
      expect(a.fork('y').next()).not.toBe(a.fork('x').next());
      expect(a.next()).toBe(b.next());
    }
  });

  it('lcg32 is the Numerical Recipes LCG', () => {
    const next = lcg32(0);
    expect([next(), next()]).toEqual([1013904223, (1013904223 * 1664525 + 1013904223) % 2 ** 32]);
  });
});
