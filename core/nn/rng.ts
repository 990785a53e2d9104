// The learning engine's generator now lives in core/rng.ts (xoshiro128**, the default algorithm); this
// re-export stays only until worldmodel/, being written, imports it from there.
export { Rng, type RngState } from '../rng.ts';
