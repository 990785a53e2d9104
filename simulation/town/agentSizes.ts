// Size distributions of the town's road users, per label class. Means and spreads follow the KITTI object
// labels (car 3.9×1.6×1.5 m, van 5.1×1.9×2.2, truck 10.1×2.6×3.3, cyclist 1.8×0.6×1.7, pedestrian 0.8×0.7×1.8).
import type { AgentType } from '../scenario.ts';
import type { Rng } from '../../core/rng.ts';

/** Label classes written to the log (ground truth for perception). */
export type AgentClass = 'car' | 'van' | 'truck' | 'cyclist' | 'pedestrian';

export const AGENT_CLASSES: readonly AgentClass[] = ['car', 'van', 'truck', 'cyclist', 'pedestrian'];

export interface AgentSize {
  length: number;
  width: number;
  height: number;
}

/** Scenario agent type of a label class. */
export function agentTypeOf(cls: AgentClass): AgentType {
  return cls === 'cyclist' ? 'cyclist' : cls === 'pedestrian' ? 'pedestrian' : 'vehicle';
}

export function sampleAgentSize(cls: AgentClass, rng: Rng): AgentSize {
  switch (cls) {
    case 'car':
      return {
        length: rng.normalClipped(4.1, 0.35, 3.4, 5.1),
        width: rng.normalClipped(1.72, 0.08, 1.55, 1.95),
        height: rng.normalClipped(1.5, 0.1, 1.35, 1.85),
      };
    case 'van':
      return {
        length: rng.normalClipped(5.2, 0.4, 4.5, 6.2),
        width: rng.normalClipped(1.95, 0.08, 1.8, 2.1),
        height: rng.normalClipped(2.2, 0.15, 1.9, 2.6),
      };
    case 'truck':
      return {
        length: rng.normalClipped(9.5, 1.2, 7, 12),
        width: rng.normalClipped(2.5, 0.05, 2.35, 2.55),
        height: rng.normalClipped(3.3, 0.25, 2.8, 3.8),
      };
    case 'cyclist':
      return {
        length: rng.normalClipped(1.76, 0.1, 1.55, 1.95),
        width: rng.normalClipped(0.6, 0.06, 0.5, 0.75),
        height: rng.normalClipped(1.74, 0.08, 1.55, 1.95),
      };
    case 'pedestrian': {
      // About one in ten is a child.
      const child = rng.chance(0.1);
      const height = child ? rng.uniform(1.05, 1.45) : rng.normalClipped(1.72, 0.09, 1.5, 1.98);
      return {
        length: rng.normalClipped(0.62, 0.08, 0.45, 0.85) * (child ? 0.8 : 1),
        width: rng.normalClipped(0.62, 0.06, 0.5, 0.78) * (child ? 0.8 : 1),
        height,
      };
    }
  }
}
