// Counter-based random numbers for stochastic agents: every draw is a hash of (seed, scenario id,
// rollout, agent row, step, channel), so a rollout is the same however the scenarios are batched.
import { fmix32, hashString, mix32 } from '../../core/rng.ts';

/** The key of one agent in one rollout: every draw of that agent derives from it. */
export function agentKey(seed: number, scenarioId: string, rollout: number, row: number): number {
  return mix32(hashString(scenarioId) ^ mix32((seed >>> 0) ^ mix32(rollout * 0x10001 + row)));
}

/** A uniform draw in (0, 1) for (key, step, channel). */
export function uniformAt(key: number, step: number, channel: number): number {
  const h = fmix32(mix32(key ^ mix32(step * 0x9e37 + channel)) + channel);
  return (h + 0.5) / 4294967296;
}

/** A standard normal draw for (key, step, channel) (Box–Muller over two uniforms). */
export function normalAt(key: number, step: number, channel: number): number {
  const u = uniformAt(key, step, 2 * channel);
  const v = uniformAt(key, step, 2 * channel + 1);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
