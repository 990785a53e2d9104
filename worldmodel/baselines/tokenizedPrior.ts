// The multi-sweep prior: the last few observed sweeps aggregated in a future frame, encoded by the tokenizer
// there and decoded — the ray-trace baseline's information in token space (one sweep: copy-last through the
// tokenizer, what an untrained residual forecaster outputs).
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
