// Joining the Float64Array parts of a result gathered piece by piece (per log, per frame) into one array.

/** The parts one after another in a new array. */
export function concatFloat64(parts: readonly Float64Array[]): Float64Array {
  const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}
