// How often a learned driver stands while the expert it imitates would start: per driven vehicle (or
// cyclist) on a lane and step, standing (< 0.3 m/s) with IDM's acceleration in its observation ≥ 0.5 m/s² but its own < 0.3;
// with --ablate, what the model would do in those states with parts of the observation removed.
// Run: node --import tsx tools/report/startHesitation.ts [--scenarios town:211-213|<path>,…] [--agent model.onnx] [--seed S]
//   [--class vehicles|cyclists] [--ablate]
import { InputError } from '../../core/errors.ts';
import {
  LearnedPolicy,
  learnedAgent,
  readLearnedModel,
  SHIPPED_AGENT_MODEL,
  SyncInference,
} from '../../simulation/agents/learned.ts';
import { ACTION_STRIDE, SimEnv, TYPE_CODE } from '../../simulation/env.ts';
import { IDM_ACCEL_FEATURE } from '../../simulation/expertFeatures.ts';
import {
  AGENT_FEATURES,
  type ObservationConfig,
  observationOffsets,
  observationSize,
  observationVersion,
} from '../../simulation/observation.ts';
import { ActionBins } from '../../simulation/training/actionBins.ts';
import { actionBase } from '../../simulation/training/policyStep.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { scenariosFromSpec } from '../../simulation/training/scenarioSpec.ts';
import { checkReportFlags, flagValue, isMain, numberFlag } from './reportFlags.ts';

export interface HesitationConfig {
  /** Standing: slower than this, m/s. */
  standingMps: number;
  /** The expert would start: IDM's acceleration at least this, m/s². */
  expertGoMps2: number;
  /** The driver does not: its own acceleration below this, m/s². */
  driverGoMps2: number;
  /** Which driven agents are counted: their type code (TYPE_CODE.vehicle or TYPE_CODE.cyclist). */
  typeCode: number;
}

export const DEFAULT_HESITATION: HesitationConfig = {
  standingMps: 0.3,
  expertGoMps2: 0.5,
  driverGoMps2: 0.3,
  typeCode: TYPE_CODE.vehicle,
};

export interface Hesitation {
  /** Steps of the counted type on a lane, moving and standing. */
  moving: number;
  standing: number;
  /** Standing steps where IDM would start and the driver does not. */
  hesitating: number;
  /** Their observations, [hesitating, observation size]. */
  states: Float32Array;
}

/** Drive `scenarios` with the learned model in `onnx` (sampled, `seed`) and count the hesitations of cfg's type. */
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
  const out = { moving: 0, standing: 0, hesitating: 0 };
  const states: Float32Array[] = [];
  while (!env.done) {
    policy.act(env);
    const agents = policy.driven;
    const { obs } = policy.observer.observe(env, agents);
    for (let q = 0; q < agents.length; q++) {
      const g = agents[q];
      const o = q * size + expert;
      if (env.typeCode[g] !== cfg.typeCode || !obs[o]) continue; // on a lane only
      if (Math.hypot(env.vx[g], env.vy[g]) >= cfg.standingMps) {
        out.moving++;
        continue;
      }
      out.standing++;
      if (
        obs[o + IDM_ACCEL_FEATURE] >= cfg.expertGoMps2 &&
        env.actions[g * ACTION_STRIDE] < cfg.driverGoMps2
      ) {
        out.hesitating++;
        states.push(obs.slice(q * size, (q + 1) * size));
      }
    }
    env.step();
  }
  const flat = new Float32Array(states.length * size);
  states.forEach((r, i) => flat.set(r, i * size));
  return { ...out, states: flat };
}

/** A part of the observation removed (its agent slots dropped and the rest moved up, or features zeroed). */
interface Ablation {
  name: string;
  apply(row: Float32Array, obsCfg: ObservationConfig): void;
}

/** Drop the observed agents for which `drop(dx, dy, speed, vulnerable)` holds, keeping the rest in order. */
function dropAgents(
  name: string,
  drop: (dx: number, dy: number, speed: number, vulnerable: number) => boolean,
): Ablation {
  return {
    name,
    apply(row, obsCfg) {
      const { agents, lanes } = observationOffsets(obsCfg);
      const kept: Float32Array[] = [];
      for (let k = 0; k < obsCfg.agents; k++) {
        const a = agents + k * AGENT_FEATURES;
        if (!row[a]) continue;
        const slot = row.slice(a, a + AGENT_FEATURES);
        if (!drop(slot[1], slot[2], Math.hypot(slot[5], slot[6]), slot[9])) kept.push(slot);
      }
      row.fill(0, agents, lanes);
      kept.forEach((slot, k) => row.set(slot, agents + k * AGENT_FEATURES));
    },
  };
}

export const HESITATION_ABLATIONS: Ablation[] = [
  { name: 'as observed', apply: () => {} },
  dropAgents('no agents', () => true),
  dropAgents('no agents ahead (dx ≥ 0)', (dx) => dx >= 0),
  dropAgents('no agents behind', (dx) => dx < 0),
  dropAgents('no agents in other lanes (|dy| ≥ 2.5 m)', (_dx, dy) => Math.abs(dy) >= 2.5),
  dropAgents('no agents in its lane (|dy| < 2.5 m)', (_dx, dy) => Math.abs(dy) < 2.5),
  dropAgents('no moving agents (≥ 0.3 m/s)', (_dx, _dy, v) => v >= 0.3),
  dropAgents('no standing agents', (_dx, _dy, v) => v < 0.3),
  dropAgents('no walkers or cyclists', (_dx, _dy, _v, vulnerable) => vulnerable > 0),
  {
    name: 'own history as moving (speeds 2 m/s, no last acceleration)',
    apply(row, obsCfg) {
      const e = observationOffsets(obsCfg).expert;
      row[e + 15] = 0;
      row[e + 16] = 0;
      row[e + 17] = 2;
      row[e + 18] = 2;
    },
  },
];

/** Mean expected acceleration (m/s², over the softmax, residual base added) and share ≥ driverGo per ablation. */
export function ablateHesitation(
  onnx: string,
  states: Float32Array,
  cfg: HesitationConfig = DEFAULT_HESITATION,
): { name: string; meanAccelMps2: number; goingShare: number }[] {
  const { bytes, spec } = readLearnedModel(onnx);
  const bins = new ActionBins(spec.bins);
  const size = observationSize(spec.observation);
  const n = states.length / size;
  const inf = new SyncInference(bytes, size, bins.count, 1);
  const base = new Float32Array(2 * n);
  try {
    return HESITATION_ABLATIONS.map((ab) => {
      const x = states.slice();
      for (let i = 0; i < n; i++) ab.apply(x.subarray(i * size, (i + 1) * size), spec.observation);
      const logits = inf.run(x, n);
      actionBase(x, n, spec.observation, base);
      let sum = 0;
      let going = 0;
      for (let i = 0; i < n; i++) {
        const o = i * bins.count;
        let max = -Infinity;
        for (let k = 0; k < bins.count; k++) max = Math.max(max, logits[o + k]);
        let z = 0;
        let ea = 0;
        for (let k = 0; k < bins.count; k++) {
          const p = Math.exp(logits[o + k] - max);
          z += p;
          ea += p * bins.accelOf(k, base[2 * i + 1]);
        }
        sum += ea / z;
        if (ea / z >= cfg.driverGoMps2) going++;
      }
      return { name: ab.name, meanAccelMps2: +(sum / n).toFixed(3), goingShare: +(going / n).toFixed(3) };
    });
  } finally {
    inf.close();
  }
}

if (isMain(import.meta.url)) {
  checkReportFlags(
    process.argv,
    'usage: node --import tsx tools/report/startHesitation.ts [--scenarios town:211-213|<path>,…] [--agent model.onnx] [--seed S] [--class vehicles|cyclists] [--ablate]',
    ['--scenarios', '--agent', '--seed', '--class'],
    ['--ablate'],
  );
  const spec = flagValue('--scenarios') ?? 'town:211-213';
  const onnx = flagValue('--agent') ?? SHIPPED_AGENT_MODEL;
  const className = flagValue('--class') ?? 'vehicles';
  const typeCode = ({ vehicles: TYPE_CODE.vehicle, cyclists: TYPE_CODE.cyclist } as Record<string, number>)[
    className
  ];
  if (typeCode === undefined) throw new InputError('--class', `'${className}' is not vehicles or cyclists`);
  const { states, ...h } = startHesitation(
    scenariosFromSpec(spec, '--scenarios'),
    onnx,
    numberFlag('--seed', 1),
    {
      ...DEFAULT_HESITATION,
      typeCode,
    },
  );
  const share = h.standing ? h.hesitating / h.standing : NaN;
  console.log(
    JSON.stringify({
      scenarios: spec,
      agent: onnx,
      class: className,
      ...h,
      hesitating_share_of_standing: +share.toFixed(3),
    }),
  );
  if (process.argv.includes('--ablate') && h.hesitating > 0) {
    for (const r of ablateHesitation(onnx, states)) console.log(JSON.stringify(r));
  }
  process.exit(0);
}
