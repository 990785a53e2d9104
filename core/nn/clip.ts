// Global-norm gradient clipping (Pascanu et al. 2013): scale all gradients together so their joint
// L2 norm is at most maxNorm.

/** Clip in place; returns the norm before clipping. */
export function clipGradNorm(grads: readonly (Float32Array | Float64Array)[], maxNorm: number): number {
  const norm = globalNorm(grads);
  if (norm > maxNorm && norm > 0) {
    const s = maxNorm / (norm + 1e-6);
    for (const g of grads) for (let i = 0; i < g.length; i++) g[i] *= s;
  }
  return norm;
}

/** Joint L2 norm of several arrays (accumulated in double). */
export function globalNorm(grads: readonly (Float32Array | Float64Array)[]): number {
  let s = 0;
  for (const g of grads) for (let i = 0; i < g.length; i++) s += g[i] * g[i];
  return Math.sqrt(s);
}
