// What a long-tail scenario kind provides: a parameterised builder whose ego drives its route at a
// constant speed in the log (the "do nothing" plan the oracle then replaces) among scripted agents.
import type { Scenario } from '../scenario.ts';
import { type AgentSpec, type Path, pathPose, speedProfile } from './scenarioBuilder.ts';

export interface LongtailDraft {
  scenario: Scenario;
  /** The ego's route and where on it the ego is at the current step, with its speed. */
  route: Path;
  s0: number;
  v0: number;
  /** The sampled parameters (speeds, gaps, timings), for the report. */
  params: Record<string, number>;
}

/**
 * Where a kind's parameters come from: a seeded Rng (the procedural generator) or a policy choosing each
 * draw (the self-play teacher, simulation/selfplay/chosenDraws.ts). Kinds only ever draw uniforms.
 */
export interface UniformSource {
  uniform(lo: number, hi: number): number;
}

export interface LongtailKind {
  name: string;
  /** One line on what happens. */
  summary: string;
  build(rng: UniformSource, id: string): LongtailDraft;
}

export const FRAME = { numSteps: 91, currentStep: 10, dtS: 0.1 } as const;

export const CAR = { length: 4.6, width: 1.9, height: 1.5 } as const;
export const VAN = { length: 5.6, width: 2.1, height: 2.4 } as const;
export const PERSON = { length: 0.6, width: 0.6, height: 1.75 } as const;

/** Smoothstep 0 → 1 over [t0, t0 + d] and its time derivative. */
export function smoothstep(t: number, t0: number, d: number): [number, number] {
  const u = Math.min(1, Math.max(0, (t - t0) / d));
  return [u * u * (3 - 2 * u), u > 0 && u < 1 ? (6 * u * (1 - u)) / d : 0];
}

/** The ego: a car driving its route (lane ids and path) from arc length s0 at a constant speed, controlled. */
export function egoCar(route: Path, lanes: number[], s0: number, speedMps: number): AgentSpec {
  const profile = speedProfile(speedMps, []);
  return {
    id: 0,
    type: 'vehicle',
    ...CAR,
    controlled: true,
    ego: true,
    route: lanes,
    pose: (t) => pathPose(route, s0 + profile(t).s),
  };
}
