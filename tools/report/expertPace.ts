// Whether the learned driver is slower than the expert it imitates, or the expert itself is slow: per moving
// vehicle (or cyclist) and step, in the states the driver reaches, its sampled acceleration against the label the
// log-conditioned expert (DAgger's and RTR's labeller) gives there, and its speed against the log's.
// Run: node --import tsx tools/report/expertPace.ts [--scenarios town:211-213|<path>,…] [--agent model.onnx] [--seed S]
//   [--catch-up S] [--leader-on-route] [--class moving|cyclists]
import { LearnedPolicy, learnedAgent, SHIPPED_AGENT_MODEL } from '../../simulation/agents/learned.ts';
import type { ControlScratch } from '../../simulation/agents/idmAgent.ts';
import { ACTION_STRIDE, SimEnv } from '../../simulation/env.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { LogExpert, withLogRoutes } from '../../simulation/training/logExpert.ts';
import { scenariosFromSpec } from '../../simulation/training/scenarioSpec.ts';
import { InputError } from '../../core/errors.ts';
import { agentClass } from './agentClassTable.ts';
import { checkReportFlags, flagValue, isMain, numberFlag } from './reportFlags.ts';

export interface PaceConfig {
  /** Speed ratios only where the log moves at least this fast, m/s. */
  minLogSpeedMps: number;
  /** "Behind the log": the logged position lies this far ahead along the heading, or more, m. */
  behindM: number;
  /** The expert and the driver disagree by at least this, m/s². */
  disagreeMps2: number;
  /** The expert's catch-up time (0: off; the shipped recipe's labeller uses 2 s). */
  catchUpS: number;
  /** The expert's leader must lie on its planned route too (LogExpertConfig.leaderOnRoute). */
  leaderOnRoute: boolean;
  /** Which agents are tallied: a class of the class table (AGENT_CLASSES; 0 moving vehicles, 3 cyclists). */
  agentClass: number;
}

export const DEFAULT_PACE: PaceConfig = {
  minLogSpeedMps: 1,
  behindM: 5,
  disagreeMps2: 1,
  catchUpS: 2,
  leaderOnRoute: false,
  agentClass: 0,
};

export interface PaceTally {
  /** Steps of the tallied class the driver drove (the log valid at that step). */
  steps: number;
  /** Mean accelerations there, m/s²: the driver's (sampled, as applied) and the expert's label. */
  driverAccelMps2: number;
  expertAccelMps2: number;
  /** Shares of steps where the expert asks for ≥ disagree more than the driver does, and the reverse. */
  expertFaster: number;
  driverFaster: number;
  /** Mean of the driver's speed over the log's at the same step (log ≥ minLogSpeedMps). */
  speedOverLog: number;
  /** Steps behind the log by ≥ behindM, and the two mean accelerations there. */
  behindSteps: number;
  behindDriverAccelMps2: number;
  behindExpertAccelMps2: number;
  /** What bound the expert's label, per step: its share and the two mean accelerations there. */
  bound: Record<PaceBound, { share: number; driverAccelMps2: number; expertAccelMps2: number }>;
}

/**
 * What bound the expert's label: nothing below its free-road law (or the log-tracking law above it), the
 * leader in its path, a red light's stop line, or the rest (yields to predicted conflicts, the walkers' rule).
 */
export type PaceBound = 'free road' | 'leader' | 'red light' | 'yield or other';
const BOUNDS: readonly PaceBound[] = ['free road', 'leader', 'red light', 'yield or other'];

/** Within this of a limit, the limit is taken to bind, m/s². */
const BOUND_TOL_MPS2 = 0.05;

function boundOf(label: number, st: Readonly<ControlScratch>): PaceBound {
  if (label >= st.free - BOUND_TOL_MPS2) return 'free road';
  if (st.accelLeader <= label + BOUND_TOL_MPS2) return 'leader';
  if (Number.isFinite(st.stopGap)) return 'red light';
  return 'yield or other';
}

/** Roll `scenarios` (with their logged routes, as training does) out with the model and tally the pace. */
export function expertPace(
  scenarios: Scenario[],
  onnx: string,
  seed = 1,
  cfg: PaceConfig = DEFAULT_PACE,
): PaceTally {
  const logged = scenarios.map((s) => withLogRoutes(s));
  const policy = learnedAgent(onnx)({ seed }) as LearnedPolicy;
  const env = new SimEnv(logged);
  env.reset();
  policy.reset(env);
  const expert = new LogExpert({ catchUpS: cfg.catchUpS, leaderOnRoute: cfg.leaderOnRoute });
  expert.reset(env);
  // The class as the class table counts it (moving vehicles: a logged speed above PARKED_SPEED_MPS somewhere).
  const tallied = Uint8Array.from({ length: env.n }, (_, g) =>
    agentClass(env.scenarios[env.scenarioOf[g]], env.rowOf[g]) === cfg.agentClass ? 1 : 0,
  );
  let steps = 0;
  let sumDriver = 0;
  let sumExpert = 0;
  let expertFaster = 0;
  let driverFaster = 0;
  let ratioSum = 0;
  let ratioN = 0;
  let behind = 0;
  let behindDriver = 0;
  let behindExpert = 0;
  const byBound = new Map(BOUNDS.map((b) => [b, { n: 0, driver: 0, expert: 0 }]));
  while (!env.done) {
    policy.act(env);
    expert.prepare(env);
    for (const g of policy.driven) {
      if (!tallied[g]) continue;
      const si = env.scenarioOf[g];
      const s = env.scenarios[si];
      const k = env.rowOf[g] * s.numSteps + env.currentStepOf(si);
      if (!s.agents.valid[k]) continue;
      const label = expert.decide(env, g).accel;
      const driver = env.actions[g * ACTION_STRIDE];
      const tally = byBound.get(boundOf(label, expert.lastControl!))!;
      tally.n++;
      tally.driver += driver;
      tally.expert += label;
      steps++;
      sumDriver += driver;
      sumExpert += label;
      if (label >= driver + cfg.disagreeMps2) expertFaster++;
      if (driver >= label + cfg.disagreeMps2) driverFaster++;
      const logSpeed = Math.hypot(s.agents.vx[k], s.agents.vy[k]);
      if (logSpeed >= cfg.minLogSpeedMps) {
        ratioSum += Math.hypot(env.vx[g], env.vy[g]) / logSpeed;
        ratioN++;
      }
      const ahead =
        (s.agents.x[k] - env.x[g]) * Math.cos(env.yaw[g]) + (s.agents.y[k] - env.y[g]) * Math.sin(env.yaw[g]);
      if (ahead >= cfg.behindM) {
        behind++;
        behindDriver += driver;
        behindExpert += label;
      }
    }
    env.step();
  }
  const r3 = (v: number) => +v.toFixed(3);
  return {
    steps,
    driverAccelMps2: r3(sumDriver / steps),
    expertAccelMps2: r3(sumExpert / steps),
    expertFaster: r3(expertFaster / steps),
    driverFaster: r3(driverFaster / steps),
    speedOverLog: r3(ratioSum / ratioN),
    behindSteps: behind,
    behindDriverAccelMps2: r3(behindDriver / Math.max(1, behind)),
    behindExpertAccelMps2: r3(behindExpert / Math.max(1, behind)),
    bound: Object.fromEntries(
      [...byBound].map(([b, t]) => [
        b,
        {
          share: r3(t.n / steps),
          driverAccelMps2: r3(t.driver / Math.max(1, t.n)),
          expertAccelMps2: r3(t.expert / Math.max(1, t.n)),
        },
      ]),
    ) as PaceTally['bound'],
  };
}

if (isMain(import.meta.url)) {
  checkReportFlags(
    process.argv,
    'usage: node --import tsx tools/report/expertPace.ts [--scenarios town:211-213|<path>,…] [--agent model.onnx] [--seed S] [--catch-up S] [--leader-on-route] [--class moving|cyclists]',
    ['--scenarios', '--agent', '--seed', '--catch-up', '--class'],
    ['--leader-on-route'],
  );
  const spec = flagValue('--scenarios') ?? 'town:211-213';
  const onnx = flagValue('--agent') ?? SHIPPED_AGENT_MODEL;
  const catchUpS = numberFlag('--catch-up', DEFAULT_PACE.catchUpS);
  const className = flagValue('--class') ?? 'moving';
  const cls = ({ moving: 0, cyclists: 3 } as Record<string, number>)[className];
  if (cls === undefined) throw new InputError('--class', `'${className}' is not moving or cyclists`);
  const tally = expertPace(scenariosFromSpec(spec, '--scenarios'), onnx, numberFlag('--seed', 1), {
    ...DEFAULT_PACE,
    catchUpS,
    leaderOnRoute: process.argv.includes('--leader-on-route'),
    agentClass: cls,
  });
  console.log(JSON.stringify({ scenarios: spec, agent: onnx, class: className, catchUpS, ...tally }));
  process.exit(0);
}
