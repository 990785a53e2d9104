// The imitation data set: observations of logged agents at their logged states, each labelled with the
// action bin recovered by inverse dynamics; infeasible expert steps are left out (RTR's IL term).
import { RuleAgents } from '../agents/ruleAgents.ts';
import { SimEnv } from '../env.ts';
import { IDM_ACCEL_FEATURE, PARKED_FEATURE } from '../expertFeatures.ts';
import {
  crossingSlots,
  type ObservationConfig,
  observationOffsets,
  observationVersion,
  Observer,
} from '../observation.ts';
import type { Scenario } from '../scenario.ts';
import { ActionBins } from './actionBins.ts';
import { type Demonstrations, inverseDemonstrations } from './demonstrations.ts';
import { actionBase } from './policyStep.ts';

export interface DemoSet {
  obs: Float32Array;
  action: Int32Array;
  count: number;
  obsSize: number;
  /** Expert steps with both ends valid, and those dropped as infeasible. */
  expertSteps: number;
  infeasibleSteps: number;
  /** Samples left out as unexplained waits (DemoOptions.dropUnexplainedWaits; absent: none). */
  droppedWaits?: number;
}

export interface DemoOptions {
  /** Keep every stride-th step (neighbouring steps are nearly the same sample). */
  stepStride: number;
  /** Scenarios per environment batch while collecting. */
  batchScenarios: number;
  /** Leave out the agents that rules drive beside the network (parked vehicles, pedestrians). */
  skipRuleAgents: boolean;
  /**
   * Leave out the waits the observation cannot explain (version 2): a vehicle or cyclist standing on its lane that
   * the log keeps standing (< 0.3 m/s²) while IDM's acceleration in its expert block says go (≥ 0.5 m/s²)
   * and no crossing conflict is observed. The towns' traffic waits there for junction reservations no
   * observation carries; imitated, such waits become hesitation at every standstill.
   */
  dropUnexplainedWaits: boolean;
}

export const DEFAULT_DEMO: DemoOptions = {
  stepStride: 3,
  batchScenarios: 8,
  skipRuleAgents: false,
  dropUnexplainedWaits: false,
};

/** Below this speed an agent stands (m/s); IDM says go from this acceleration (m/s²); the log stays below the next. */
const WAIT_SPEED_MPS = 0.3;
const GO_ACCEL_MPS2 = 0.5;
const STAY_ACCEL_MPS2 = 0.3;

/**
 * Observations and expert actions of every agent with a feasible expert action, at every stride-th
 * step of each scenario from step 0 (the environment follows the log).
 */
export function buildDemoSet(
  scenarios: readonly Scenario[],
  bins: ActionBins,
  obsCfg: ObservationConfig,
  opts: Partial<DemoOptions> = {},
  onScenario?: () => void,
): DemoSet {
  const o = { ...DEFAULT_DEMO, ...opts };
  const observer = new Observer(obsCfg);
  const size = observer.size;
  const chunks: { obs: Float32Array; action: Int32Array }[] = [];
  let expertSteps = 0;
  let infeasibleSteps = 0;
  let droppedWaits = 0;
  for (let b = 0; b < scenarios.length; b += o.batchScenarios) {
    // From step 0, so every logged step is a sample; agents absent at step 0 join the env only if valid there.
    const batch = scenarios.slice(b, b + o.batchScenarios).map((s) => ({ ...s, currentStep: 0 }));
    const demos: Demonstrations[] = batch.map((s) =>
      inverseDemonstrations(s.agents, s.numSteps, s.dtS, bins),
    );
    for (const d of demos) {
      for (let j = 0; j < d.action.length; j++) {
        if (d.infeasible[j]) infeasibleSteps++;
        if (d.infeasible[j] || d.action[j] >= 0) expertSteps++;
      }
    }
    const env = new SimEnv(batch, { collisions: false, offroad: false });
    const rules = new RuleAgents();
    if (o.skipRuleAgents) rules.classify(env);
    const list: number[] = [];
    const labels: number[] = [];
    for (;;) {
      if (env.stepCount % o.stepStride === 0) {
        list.length = 0;
        labels.length = 0;
        for (let g = 0; g < env.n; g++) {
          if (!env.live[g] || (o.skipRuleAgents && rules.ruled[g])) continue;
          const si = env.scenarioOf[g];
          const s = batch[si];
          const t = env.currentStepOf(si);
          if (t >= s.numSteps - 1) continue;
          const a = demos[si].action[env.rowOf[g] * (s.numSteps - 1) + t];
          if (a < 0) continue;
          list.push(g);
          labels.push(a);
        }
        if (list.length) {
          let { obs } = observer.observe(env, Int32Array.from(list));
          let action = Int32Array.from(labels);
          if (o.dropUnexplainedWaits && observationVersion(obsCfg) === 2) {
            const keep = explainedRows(obs, action, bins, obsCfg);
            droppedWaits += action.length - keep.length;
            obs = gatherRows(obs, keep, size);
            action = Int32Array.from(keep, (q) => action[q]);
          }
          if (bins.residual) relabelResidual(action, bins, actionBase(obs, action.length, obsCfg));
          if (action.length) chunks.push({ obs, action });
        }
      }
      if (env.done) break;
      env.step();
    }
    for (let i = 0; i < batch.length; i++) onScenario?.();
  }
  const count = chunks.reduce((s, c) => s + c.action.length, 0);
  const obs = new Float32Array(count * size);
  const action = new Int32Array(count);
  let k = 0;
  for (const c of chunks) {
    obs.set(c.obs, k * size);
    action.set(c.action, k);
    k += c.action.length;
  }
  return { obs, action, count, obsSize: size, expertSteps, infeasibleSteps, droppedWaits };
}

/** Rows (of absolute-bin labels) that are not an unexplained wait (DemoOptions.dropUnexplainedWaits). */
function explainedRows(
  obs: Float32Array,
  action: Int32Array,
  bins: ActionBins,
  obsCfg: ObservationConfig,
): number[] {
  const { expert, crossings, size } = observationOffsets(obsCfg);
  const hasCrossings = crossingSlots(obsCfg) > 0;
  const nk = bins.curvature.length;
  const keep: number[] = [];
  for (let q = 0; q < action.length; q++) {
    const o = q * size;
    const wait =
      obs[o] < WAIT_SPEED_MPS &&
      obs[o + expert] === 1 &&
      obs[o + expert + PARKED_FEATURE] === 0 &&
      obs[o + expert + IDM_ACCEL_FEATURE] >= GO_ACCEL_MPS2 &&
      (!hasCrossings || obs[o + crossings] === 0) &&
      bins.accel[Math.floor(action[q] / nk)] < STAY_ACCEL_MPS2;
    if (!wait) keep.push(q);
  }
  return keep;
}

function gatherRows(obs: Float32Array, rows: readonly number[], size: number): Float32Array {
  const out = new Float32Array(rows.length * size);
  rows.forEach((q, k) => out.set(obs.subarray(q * size, (q + 1) * size), k * size));
  return out;
}

/**
 * Residual bins: inverse dynamics recovers the absolute bins that track the log; the label is the
 * correction bin nearest that value minus the base (pure pursuit, IDM's acceleration) in the logged
 * state. `bins` read as absolute here (their values, not added to anything), then relabelled.
 */
function relabelResidual(action: Int32Array, bins: ActionBins, base: Float32Array): void {
  const nk = bins.curvature.length;
  for (let q = 0; q < action.length; q++) {
    const a = action[q];
    const accel = bins.accel[Math.floor(a / nk)];
    action[q] = bins.label(accel, bins.curvature[a % nk], base[2 * q], base[2 * q + 1]);
  }
}
