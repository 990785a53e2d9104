// Random beam dropping from 64 to 32 beams: every other laser of a sweep removed, so a model trained on
// HDL-64E-like sweeps also sees the vertical spacing of a 32-beam sensor such as the VLP-32C.
import type { Rng } from '../../core/rng.ts';

export interface BeamHalvingConfig {
  /** Chance that a sample loses every other beam (0: off). */
  probability: number;
  /** Keep one beam in this many (2: 64 → 32 beams). */
  keepOneIn: number;
}

export const DEFAULT_BEAM_HALVING_CONFIG: BeamHalvingConfig = { probability: 0, keepOneIn: 2 };

/**
 * Which points survive keeping one beam in `keepOneIn`: `beams` holds each point's beam id (its ring, or
 * its elevation bin when the cloud has no rings: augment.ts beamIds); the surviving phase is drawn from
 * `rng` so either half of the beams can remain. Returns a keep mask (1 = kept).
 */
export function beamHalvingMask(beams: Int32Array, keepOneIn: number, rng: Rng): Uint8Array {
  const n = Math.max(1, Math.round(keepOneIn));
  const phase = rng.int(n);
  const keep = new Uint8Array(beams.length);
  for (let i = 0; i < keep.length; i++) keep[i] = beams[i] % n === phase ? 1 : 0;
  return keep;
}
