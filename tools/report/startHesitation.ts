// How often a learned driver stands while the expert it imitates would start: per driven vehicle on a lane
// and step, standing (< 0.3 m/s) with IDM's acceleration in its observation ≥ 0.5 m/s² but its own < 0.3.
// Run: node --import tsx tools/report/startHesitation.ts [--scenarios town:211-213|<path>,…] [--agent model.onnx] [--seed S]
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '../../core/errors.ts';
import { LearnedPolicy, learnedAgent, SHIPPED_AGENT_MODEL } from '../../simulation/agents/learned.ts';
import { ACTION_STRIDE, SimEnv, TYPE_CODE } from '../../simulation/env.ts';
import { IDM_ACCEL_FEATURE } from '../../simulation/expertFeatures.ts';
import { observationOffsets, observationVersion } from '../../simulation/observation.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { scenariosFromSpec } from '../../simulation/training/scenarioSpec.ts';

export interface HesitationConfig {
  /** Standing: slower than this, m/s. */
  standingMps: number;
  /** The expert would start: IDM's acceleration at least this, m/s². */
  expertGoMps2: number;
  /** The driver does not: its own acceleration below this, m/s². */
  driverGoMps2: number;
}

export const DEFAULT_HESITATION: HesitationConfig = {
  standingMps: 0.3,
  expertGoMps2: 0.5,
  driverGoMps2: 0.3,
};

export interface Hesitation {
  /** Vehicle-steps on a lane, moving and standing. */
  moving: number;
  standing: number;
  /** Standing steps where IDM would start and the driver does not. */
  hesitating: number;
}

/** Drive `scenarios` with the learned model in `onnx` (sampled, `seed`) and count the vehicles' hesitations. */
export function startHesitation(
  scenarios: Scenario[],
  onnx: string,
  seed = 1,
  cfg: HesitationConfig = DEFAULT_HESITATION,
): Hesitation {
  const policy = learnedAgent(onnx)({ seed }) as LearnedPolicy;
  const obsCfg = policy.observer.cfg;
  if (observationVersion(obsCfg) !== 2)
    throw new InputError(onnx, 'needs observation version 2 (its expert block carries IDM’s acceleration)');
  const { expert, size } = observationOffsets(obsCfg);
  const env = new SimEnv(scenarios);
  env.reset();
  policy.reset(env);
  const out: Hesitation = { moving: 0, standing: 0, hesitating: 0 };
  while (!env.done) {
    policy.act(env);
    const agents = policy.driven;
    const { obs } = policy.observer.observe(env, agents);
    for (let q = 0; q < agents.length; q++) {
      const g = agents[q];
      const o = q * size + expert;
      if (env.typeCode[g] !== TYPE_CODE.vehicle || !obs[o]) continue; // vehicles on a lane only
      if (Math.hypot(env.vx[g], env.vy[g]) >= cfg.standingMps) {
        out.moving++;
        continue;
      }
      out.standing++;
      if (obs[o + IDM_ACCEL_FEATURE] >= cfg.expertGoMps2 && env.actions[g * ACTION_STRIDE] < cfg.driverGoMps2)
        out.hesitating++;
    }
    env.step();
  }
  return out;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  if (process.argv.includes('--help')) {
    console.log(
      'usage: node --import tsx tools/report/startHesitation.ts [--scenarios town:211-213|<path>,…] [--agent model.onnx] [--seed S]',
    );
    process.exit(0);
  }
  const spec = arg('--scenarios') ?? 'town:211-213';
  const onnx = arg('--agent') ?? SHIPPED_AGENT_MODEL;
  const h = startHesitation(scenariosFromSpec(spec, '--scenarios'), onnx, Number(arg('--seed') ?? 1));
  const share = h.standing ? h.hesitating / h.standing : NaN;
  console.log(
    JSON.stringify({ scenarios: spec, agent: onnx, ...h, hesitating_share_of_standing: +share.toFixed(3) }),
  );
}
