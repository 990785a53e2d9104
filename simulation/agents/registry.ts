// The built-in traffic agents by name, as the CLI and benchmarks select them.
import { ConstantVelocityPolicy } from './constantVelocity.ts';
import { IdmPolicy } from './idmAgent.ts';
import type { Policy } from './policy.ts';
import { LogReplayPolicy } from './replay.ts';

export const AGENTS: Record<string, () => Policy> = {
  replay: () => new LogReplayPolicy(),
  cv: () => new ConstantVelocityPolicy(),
  idm: () => new IdmPolicy(),
};
