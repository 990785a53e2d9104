// Displacement to the log (ADE/FDE, as in motion forecasting and Waymax's log divergence): mean and
// final Euclidean distance between simulated and logged centres over the simulated steps.
import type { Trajectories } from './trajectoryFeatures.ts';

export interface Displacement {
  /** Per agent: mean distance over steps where both are valid (NaN when none). */
  ade: Float64Array;
  /** Per agent: distance at the last step where both are valid (NaN when none). */
  fde: Float64Array;
}

export function displacement(
  log: Trajectories,
  sim: Trajectories,
  numAgents: number,
  numSteps: number,
  evaluated: Uint8Array,
  from: number,
  to: number,
): Displacement {
  const ade = new Float64Array(numAgents).fill(NaN);
  const fde = new Float64Array(numAgents).fill(NaN);
  for (let a = 0; a < numAgents; a++) {
    if (!evaluated[a]) continue;
    let sum = 0;
    let count = 0;
    let last = NaN;
    for (let t = from; t < to; t++) {
      const k = a * numSteps + t;
      if (!log.valid[k] || !sim.valid[k]) continue;
      last = Math.hypot(sim.x[k] - log.x[k], sim.y[k] - log.y[k]);
      sum += last;
      count++;
    }
    if (count > 0) {
      ade[a] = sum / count;
      fde[a] = last;
    }
  }
  return { ade, fde };
}
