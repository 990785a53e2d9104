// The built-in traffic agents by name, as the CLI and benchmarks select them: each in its deterministic
// form, or its stochastic one (sampled parameters, action noise) when given a seed.
import { ConstantVelocityPolicy } from './constantVelocity.ts';
import { IdmPolicy } from './idmAgent.ts';
import { learnedAgent, SHIPPED_AGENT_MODEL } from './learned.ts';
import type { Policy } from './policy.ts';
import { LogReplayPolicy } from './replay.ts';
import { StandStillPolicy } from './standStill.ts';
import { NoisyPolicy, stochasticIdm } from './stochastic.ts';

export interface AgentOptions {
  /** Seed of the stochastic form; absent: the deterministic form. Replay is the log either way. */
  seed?: number;
  /** Learned agents only: softmax temperature of the sampled actions (default: the model's own). */
  temperature?: number;
}

export type AgentFactory = (opts?: AgentOptions) => Policy;

export const AGENTS: Record<string, AgentFactory> = {
  replay: () => new LogReplayPolicy(),
  cv: (o = {}) =>
    o.seed === undefined
      ? new ConstantVelocityPolicy()
      : new NoisyPolicy(new ConstantVelocityPolicy(), o.seed),
  idm: (o = {}) => (o.seed === undefined ? new IdmPolicy() : stochasticIdm(o.seed)),
};

/** The agents whose seeded form differs from the deterministic one (replay is the log either way). */
export const STOCHASTIC_AGENTS: ReadonlySet<string> = new Set(['cv', 'idm', 'learned']);

/** The shipped learned policy (models/agent.onnx, trained by drivekit train-agents); loaded on first use. */
export const LEARNED_AGENTS: Record<string, AgentFactory> = {
  learned: (o = {}) => learnedAgent(SHIPPED_AGENT_MODEL)(o),
};

/** Deliberately broken agents: sanity rows of the metric tables, never in the loops over AGENTS. */
export const SANITY_AGENTS: Record<string, AgentFactory> = {
  still: () => new StandStillPolicy(),
};

/** An agent of either table by name, or undefined. */
export function agentByName(name: string): AgentFactory | undefined {
  if (Object.hasOwn(AGENTS, name)) return AGENTS[name];
  if (Object.hasOwn(LEARNED_AGENTS, name)) return LEARNED_AGENTS[name];
  if (Object.hasOwn(SANITY_AGENTS, name)) return SANITY_AGENTS[name];
  // A learned model by path (drivekit train-agents writes agent.onnx and its agent.json).
  // The model is read and its graph checked now, before a command writes anything.
  if (name.endsWith('.onnx')) {
    const make = learnedAgent(name);
    return (o = {}) => make(o);
  }
  return undefined;
}
