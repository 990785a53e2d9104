// The shipped agent's action parameterisation (models/agent.json), so tests that start from its weights
// build a network of the same shape whichever steering, acceleration and heads it was trained with.
import { SHIPPED_AGENT_MODEL } from '../../../simulation/agents/learned.ts';
import { readStudentSpec } from '../../../simulation/selfplay/student.ts';
import type { AgentModelConfig } from '../../../simulation/training/agentModel.ts';

export function shippedAgentConfig(): Pick<AgentModelConfig, 'observation' | 'bins'> & {
  net: { factorisedHeads: boolean };
} {
  const spec = readStudentSpec(SHIPPED_AGENT_MODEL);
  return {
    observation: spec.observation,
    bins: spec.bins,
    net: { factorisedHeads: spec.net.factorisedHeads === true },
  };
}
