// The multi-sweep prior: past sweeps aggregated in a future frame, encoded and decoded by the tokenizer — the
// ray-trace's information in token space (Copilot4D's tokenizer; one sweep: copy-last through the tokenizer).
import type { Rays } from '../rays.ts';
import type { Tokenizer } from '../tokenizerModel.ts';
import type { SensorPoints } from '../voxelize.ts';

/** The token grid of the aggregated sweeps (sensor-relative in the future frame). */
export async function priorTokens(
  tok: Tokenizer,
  aggregated: SensorPoints,
  what: string,
): Promise<Int32Array> {
  return tok.encode(aggregated, what);
}

/** The prior decoded and rendered along the true rays: its depth per ray. */
export async function priorDepth(
  tok: Tokenizer,
  aggregated: SensorPoints,
  rays: Rays,
  what: string,
): Promise<Float32Array> {
  return tok.render(await tok.decode(await priorTokens(tok, aggregated, what)), rays);
}
