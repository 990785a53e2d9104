// A small seeded pseudo-random generator (mulberry32 state, splitmix32 seeding) so the synthetic town
// and the long-tail sets are identical for a seed on every machine; independent named streams keep one
// part's draws from shifting another's.

/** Mix a 32-bit integer (the splitmix32 / murmur3 finaliser). */
export function mix32(x: number): number {
  x = (x + 0x9e3779b9) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

/** Hash of a string to 32 bits (FNV-1a then mixed), for naming streams. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return mix32(h);
}

export interface Rng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Uniform in [lo, hi). */
  uniform(lo: number, hi: number): number;
  /** Integer in [lo, hi] inclusive. */
  int(lo: number, hi: number): number;
  /** Standard normal scaled: N(mean, sd²). */
  normal(mean?: number, sd?: number): number;
  /** Normal clipped to [lo, hi] (resampled a few times, then clamped). */
  normalClipped(mean: number, sd: number, lo: number, hi: number): number;
  /** True with probability p. */
  chance(p: number): boolean;
  pick<T>(items: readonly T[]): T;
  /** An independent stream derived from this one's seed and a name. */
  fork(name: string): Rng;
}

export function createRng(seed: number): Rng {
  const base = mix32(seed >>> 0);
  let state = base;
  let spareNormal: number | null = null;
  const next = (): number => {
    state = (state + 0x6d2b79f5) | 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = (mean = 0, sd = 1): number => {
    if (spareNormal !== null) {
      const z = spareNormal;
      spareNormal = null;
      return mean + sd * z;
    }
    let u = next();
    while (u <= 1e-12) u = next();
    const v = next();
    const r = Math.sqrt(-2 * Math.log(u));
    spareNormal = r * Math.sin(2 * Math.PI * v);
    return mean + sd * r * Math.cos(2 * Math.PI * v);
  };
  const rng: Rng = {
    next,
    uniform: (lo, hi) => lo + (hi - lo) * next(),
    int: (lo, hi) => lo + Math.floor(next() * (hi - lo + 1)),
    normal,
    normalClipped(mean, sd, lo, hi) {
      for (let k = 0; k < 8; k++) {
        const x = normal(mean, sd);
        if (x >= lo && x <= hi) return x;
      }
      return Math.min(hi, Math.max(lo, mean));
    },
    chance: (p) => next() < p,
    pick: (items) => items[Math.floor(next() * items.length)],
    fork: (name) => createRng(mix32(base ^ hashString(name))),
  };
  return rng;
}
