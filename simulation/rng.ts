// The generator the synthetic town draws from now lives in core/rng.ts (new Rng(seed, 'mulberry32'));
// this re-export stays only until town/traffic.ts, being split up, imports it from there.
export type { Rng } from '../core/rng.ts';
