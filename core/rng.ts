// Seeded random numbers for the whole toolkit: one generator API (uniform, integer, normal, pick, shuffle,
// named forks, serialisable state) over two bit generators, plus the hash finalisers that seed them.

/** The murmur3 32-bit finaliser: a bijective mix of a 32-bit integer. */
export function fmix32(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

/** One splitmix32 step: mix a 32-bit integer (golden-ratio increment, then the murmur3 finaliser). */
export function mix32(x: number): number {
  return fmix32((x + 0x9e3779b9) | 0);
}

/** Hash of a string to 32 bits (FNV-1a then mixed), for naming streams. */
export function hashString(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193);
  return mix32(h);
}

/**
 * The bit generator behind an Rng. Both stay because seeded outputs depend on them: the learning engine's
 * checkpoints hold xoshiro128** state (53-bit uniforms, Blackman & Vigna 2018), and the synthetic town and
 * long-tail scenarios were generated with mulberry32 (32-bit uniforms) - switching either would change
 * every resumed run or every synthetic log for the same seed.
 */
export type RngAlgorithm = 'xoshiro128**' | 'mulberry32';

/** An Rng's full state, plain JSON (checkpoints store it). */
export interface RngState {
  /** Absent for xoshiro128**: checkpoints written before the field existed hold that generator. */
  algorithm?: 'mulberry32';
  /** xoshiro128**: its four 32-bit words; mulberry32: [counter, fork base]. */
  s: number[];
  /** A cached second normal deviate from Box–Muller, or null. */
  spare: number | null;
}

/** A seeded generator. The same seed and algorithm give the same draws on every machine. */
export class Rng {
  readonly algorithm: RngAlgorithm;
  // xoshiro128**: the four state words; mulberry32: s0 is the counter, s1 the fork base (mixed seed).
  private s0 = 0;
  private s1 = 0;
  private s2 = 0;
  private s3 = 0;
  private spare: number | null = null;

  constructor(seed = 1, algorithm: RngAlgorithm = 'xoshiro128**') {
    this.algorithm = algorithm;
    if (algorithm === 'mulberry32') {
      this.s1 = mix32(seed >>> 0);
      this.s0 = this.s1;
      return;
    }
    // splitmix32 expands the seed into a non-zero state.
    let x = seed >>> 0;
    const words = [0, 0, 0, 0];
    for (let k = 0; k < 4; k++) {
      words[k] = mix32(x);
      x = (x + 0x9e3779b9) >>> 0;
    }
    [this.s0, this.s1, this.s2, this.s3] = words;
    if ((this.s0 | this.s1 | this.s2 | this.s3) === 0) this.s0 = 1;
  }

  /** A generator restored from getState(). */
  static fromState(st: RngState): Rng {
    const r = new Rng(1, st.algorithm ?? 'xoshiro128**');
    r.setState(st);
    return r;
  }

  /** A uniform 32-bit unsigned integer (xoshiro128** only: mulberry32 draws are used as floats). */
  nextUint32(): number {
    if (this.algorithm !== 'xoshiro128**') throw new Error('nextUint32 needs the xoshiro128** generator');
    const result = Math.imul(rotl(Math.imul(this.s1, 5) >>> 0, 7), 9) >>> 0;
    const t = (this.s1 << 9) >>> 0;
    this.s2 ^= this.s0;
    this.s3 ^= this.s1;
    this.s1 ^= this.s2;
    this.s0 ^= this.s3;
    this.s2 ^= t;
    this.s3 = rotl(this.s3 >>> 0, 11);
    this.s0 >>>= 0;
    this.s1 >>>= 0;
    this.s2 >>>= 0;
    return result;
  }

  /** Uniform in [0, 1): 53 random bits (xoshiro128**) or 32 (mulberry32). */
  next(): number {
    if (this.algorithm === 'xoshiro128**') {
      const hi = this.nextUint32() >>> 5;
      const lo = this.nextUint32() >>> 6;
      return (hi * 67108864 + lo) / 9007199254740992;
    }
    this.s0 = (this.s0 + 0x6d2b79f5) | 0;
    let t = this.s0;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }

  /** Uniform in [0, 1), or in [lo, hi) when both are given. */
  uniform(lo?: number, hi?: number): number {
    if (lo === undefined || hi === undefined) return this.next();
    return lo + (hi - lo) * this.next();
  }

  /** Integer in [0, n) - or, with two arguments, in [lo, hi] inclusive. */
  int(n: number): number;
  int(lo: number, hi: number): number;
  int(a: number, b?: number): number {
    if (b === undefined) return Math.floor(this.next() * a);
    return a + Math.floor(this.next() * (b - a + 1));
  }

  /** Normal N(mean, sd²) by Box–Muller, the second deviate cached. */
  normal(mean = 0, sd = 1): number {
    if (this.spare !== null) {
      const z = this.spare;
      this.spare = null;
      return mean + sd * z;
    }
    // u = 0 is the only draw log() cannot take; mulberry32 draws are multiples of 2⁻³², so this is the
    // same test as the `u <= 1e-12` it was written with.
    let u = this.next();
    while (u === 0) u = this.next();
    const v = this.next();
    const r = Math.sqrt(-2 * Math.log(u));
    this.spare = r * Math.sin(2 * Math.PI * v);
    // Written as `mean + sd * r * cos` (not `mean + sd * (r * cos)`) so the town's draws keep their bits.
    return mean + sd * r * Math.cos(2 * Math.PI * v);
  }

  /** Normal clipped to [lo, hi]: resampled up to eight times, then the mean clamped to the range. */
  normalClipped(mean: number, sd: number, lo: number, hi: number): number {
    for (let k = 0; k < 8; k++) {
      const x = this.normal(mean, sd);
      if (x >= lo && x <= hi) return x;
    }
    return Math.min(hi, Math.max(lo, mean));
  }

  /** True with probability p. */
  chance(p: number): boolean {
    return this.next() < p;
  }

  /** A uniformly chosen item. */
  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  /** In-place Fisher–Yates shuffle. */
  shuffle<T>(a: T[] | Int32Array | Uint32Array): void {
    for (let i = a.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = a[i];
      a[i] = a[j];
      a[j] = t;
    }
  }

  /**
   * An independent stream named `name`, same algorithm; drawing from one never shifts another. A
   * mulberry32 fork depends only on the seed and the name (the town's parts draw in any order); a
   * xoshiro128** fork on the current state and the name (its checkpointed state holds no seed).
   */
  fork(name: string): Rng {
    if (this.algorithm === 'mulberry32') return new Rng(mix32(this.s1 ^ hashString(name)), 'mulberry32');
    const h = fmix32(this.s0 ^ fmix32(this.s1 ^ fmix32(this.s2 ^ fmix32(this.s3))));
    return new Rng(mix32(h ^ hashString(name)), 'xoshiro128**');
  }

  getState(): RngState {
    if (this.algorithm === 'mulberry32')
      return { algorithm: 'mulberry32', s: [this.s0, this.s1], spare: this.spare };
    return { s: [this.s0, this.s1, this.s2, this.s3], spare: this.spare };
  }

  setState(st: RngState): void {
    const algorithm = st.algorithm ?? 'xoshiro128**';
    const words = algorithm === 'mulberry32' ? 2 : 4;
    if (algorithm !== this.algorithm || st.s.length !== words)
      throw new Error(`rng state of ${algorithm} (${st.s.length} words) does not fit a ${this.algorithm}`);
    if (algorithm === 'mulberry32') {
      this.s0 = st.s[0] | 0;
      this.s1 = st.s[1] >>> 0;
    } else {
      [this.s0, this.s1, this.s2, this.s3] = st.s.map((v) => v >>> 0);
    }
    this.spare = st.spare;
  }
}

/**
 * A raw 32-bit LCG (Numerical Recipes constants): the ground-plane RANSAC's sampler. It stays its own
 * generator because the fitted plane - and so every discovered box - depends on its exact draws.
 */
export function lcg32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state;
  };
}

function rotl(x: number, k: number): number {
  return ((x << k) | (x >>> (32 - k))) >>> 0;
}
