// How often the observation's IDM probe describes a lane other than the one the agent drives in: moving
// vehicles driven by lane-keeping IDM, observed by the default probe and by one that holds the lane.
// Run: node --import tsx tools/report/probeLaneOffsets.ts [--scenarios town:211-213] [--leader-on-route]
import { IdmPolicy } from '../../simulation/agents/idmAgent.ts';
import { SimEnv } from '../../simulation/env.ts';
import {
  DEFAULT_OBSERVATION,
  type ObservationConfig,
  observationOffsets,
  Observer,
} from '../../simulation/observation.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { scenariosFromSpec } from '../../simulation/training/scenarioSpec.ts';
import { checkReportFlags, flagValue, isMain } from './reportFlags.ts';

/** Expert-block features read here (simulation/expertFeatures.ts). */
const ON_LANE = 0;
const LATERAL = 1;
const HAS_LEADER = 8;
const PARKED = 14;

export interface ProbeLaneTally {
  /** Rows of moving (≥ 0.5 m/s), unparked vehicles on a lane. */
  movingRows: number;
  /** Of them, rows the default probe puts more than half a lane width (`farM`) off its lane. */
  defaultFar: number;
  /** The same for the probe that holds the lane. */
  holdingFar: number;
  /** Rows where the default probe is far off and sees no leader while the holding one sees one. */
  leaderLost: number;
}

/** Tally over the scenarios, every agent driven by IDM without lane changes (as the logs' traffic drives). */
export function probeLaneOffsets(
  scenarios: Scenario[],
  farM = 2.5,
  obs: ObservationConfig = DEFAULT_OBSERVATION,
): ProbeLaneTally {
  const tally: ProbeLaneTally = { movingRows: 0, defaultFar: 0, holdingFar: 0, leaderLost: 0 };
  const { expert, size } = observationOffsets(obs);
  for (const s of scenarios) {
    const env = new SimEnv([{ ...s, controlled: new Uint8Array(s.agents.ids.length).fill(1) }]);
    env.reset();
    const drivers = new IdmPolicy({ laneChangeGainMps2: Infinity });
    drivers.reset(env);
    const agents = Int32Array.from({ length: env.n }, (_, g) => g);
    const plain = new Observer({ ...obs, probeHoldsLane: false });
    const holding = new Observer({ ...obs, probeHoldsLane: true });
    while (!env.done) {
      const a = plain.observe(env, agents).obs;
      const b = holding.observe(env, agents).obs;
      for (let q = 0; q < env.n; q++) {
        const o = q * size + expert;
        if (b[o + PARKED] !== 0 || b[o + ON_LANE] !== 1 || Math.hypot(env.vx[q], env.vy[q]) < 0.5) continue;
        tally.movingRows++;
        if (Math.abs(b[o + LATERAL]) > farM) tally.holdingFar++;
        if (Math.abs(a[o + LATERAL]) <= farM) continue;
        tally.defaultFar++;
        if (a[o + HAS_LEADER] === 0 && b[o + HAS_LEADER] === 1) tally.leaderLost++;
      }
      drivers.act(env);
      env.step();
    }
  }
  return tally;
}

if (isMain(import.meta.url)) {
  checkReportFlags(
    process.argv,
    'usage: node --import tsx tools/report/probeLaneOffsets.ts [--scenarios town:211-213|<path>,…] [--leader-on-route]',
    ['--scenarios'],
    ['--leader-on-route'],
  );
  const spec = flagValue('--scenarios') ?? 'town:211-213';
  // Both probes with leaders on the route too (ObservationConfig.leaderOnRoute), as the route students observe.
  const leaderOnRoute = process.argv.includes('--leader-on-route');
  const t = probeLaneOffsets(scenariosFromSpec(spec, '--scenarios'), 2.5, {
    ...DEFAULT_OBSERVATION,
    leaderOnRoute,
  });
  console.log(
    JSON.stringify({
      scenarios: spec,
      leaderOnRoute,
      ...t,
      defaultFarShare: +(t.defaultFar / Math.max(1, t.movingRows)).toFixed(4),
    }),
  );
  process.exit(0);
}
