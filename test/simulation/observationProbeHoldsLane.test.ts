// The observation's IDM probe that keeps the agent's lane (ObservationConfig.probeHoldsLane): agents that
// never change lanes are described in their own lane, where the default probe moves to the next lane behind
// a slow leader and then reports a lane width of lateral offset.
import { describe, expect, it } from 'vitest';
import { IdmPolicy } from '../../simulation/agents/idmAgent.ts';
import { SimEnv } from '../../simulation/env.ts';
import { DEFAULT_OBSERVATION, observationOffsets, Observer } from '../../simulation/observation.ts';
import { generateTown } from '../../simulation/town/town.ts';

describe('observation whose probe holds the lane', () => {
  it('never reports an agent that keeps its lane a lane width off it; the default probe does', () => {
    const town = generateTown({ seed: 3 }, 120);
    const env = new SimEnv([
      { ...town.scenario, controlled: new Uint8Array(town.scenario.agents.ids.length).fill(1) },
    ]);
    env.reset();
    // The drivers keep their lanes: lane changes need an infinite gain.
    const drivers = new IdmPolicy({ laneChangeGainMps2: Infinity });
    drivers.reset(env);
    const agents = Int32Array.from({ length: env.n }, (_, g) => g);
    const plain = new Observer({ ...DEFAULT_OBSERVATION });
    const holding = new Observer({ ...DEFAULT_OBSERVATION, probeHoldsLane: true });
    const { expert, size } = observationOffsets(DEFAULT_OBSERVATION);
    // Rows of agents that are not parked (feature 14: parked cars stand at the kerb, off the lane centre),
    // on a lane (feature 0), with a lateral offset (feature 1) beyond half a lane.
    const farOff = (obs: Float32Array) => {
      let k = 0;
      for (let q = 0; q < agents.length; q++) {
        const o = q * size + expert;
        if (obs[o + 14] === 0 && obs[o] === 1 && Math.abs(obs[o + 1]) > 2.5) k++;
      }
      return k;
    };
    let plainFar = 0;
    let holdingFar = 0;
    let onLane = 0;
    for (let t = 0; t < 100 && !env.done; t++) {
      const a = plain.observe(env, agents).obs;
      plainFar += farOff(a);
      const b = holding.observe(env, agents).obs;
      holdingFar += farOff(b);
      for (let q = 0; q < agents.length; q++)
        if (b[q * size + expert] === 1 && b[q * size + expert + 14] === 0) onLane++;
      drivers.act(env);
      env.step();
    }
    expect(onLane).toBeGreaterThan(1000);
    expect(plainFar).toBeGreaterThan(0);
    expect(holdingFar).toBe(0);
  });
});
