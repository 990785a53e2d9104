// One closed-loop iteration of PPO or RTR (Zhang et al., CoRL 2023): roll the policy out on logged and
// long-tail scenarios, update on IL + λ·RL (PPO: RL only), then move λ by dual ascent on the infractions.
import type { Rng } from '../../core/rng.ts';
import type { Scenario } from '../scenario.ts';
import type { AgentModel } from './agentModel.ts';
import { type ClosedLoopConfig, collectExperience } from './closedLoop.ts';
import type { AggregateSet } from './dagger.ts';
import type { DemoSet } from './demoData.ts';
import { DEFAULT_DUAL_ASCENT, type DualAscentConfig, dualAscent } from './dualAscent.ts';
import type { EmaAnchor } from './emaAnchor.ts';
import { DEFAULT_PPO, type PpoConfig, ppoUpdate } from './ppo.ts';

export interface IterationResult {
  meanEpisodeReturn: number;
  collisionRate: number;
  offroadRate: number;
  redLightRate: number;
  infractionRate: number;
  /** λ used in this update and λ after the dual step (PPO: 1, unchanged). */
  lambda: number;
  nextLambda: number;
  /** The infraction rate dual ascent stepped on (smoothed over iterations when rateSmoothing > 0). */
  smoothedRate: number;
  samples: number;
  terms: Record<string, number>;
}

export interface RlIterationOptions {
  mode: 'ppo' | 'rtr';
  lambda: number;
  ppo?: PpoConfig;
  dual?: DualAscentConfig;
  /** Demonstrations of the logged scenarios (RTR's imitation term). */
  demos?: DemoSet;
  /** EMA-PG: the moving-average anchor of the KL term (plain PPO without it). */
  anchor?: EmaAnchor;
  /** How experience is collected (rule agents, expert labels, bootstrap, return scaling). */
  closedLoop?: Partial<ClosedLoopConfig>;
  /**
   * RTR's imitation rows: this iteration's expert-labelled rows join this aggregated set (seeded with the
   * log demonstrations) and the imitation rows are drawn from it instead of from `demos`.
   */
  ilSet?: AggregateSet;
  /** Dual ascent steps on r̄ ← s·r̄ + (1 − s)·rate (0: the iteration's own rate), with r̄ `smoothedRate`. */
  rateSmoothing?: number;
  smoothedRate?: number;
}

/**
 * One iteration on `scenarios` (logged and long-tail mixed: the long-tail ones have no demonstrations, so
 * only the RL term sees them, while the imitation rows always come from the logged demonstrations).
 */
export async function rlIteration(
  model: AgentModel,
  scenarios: readonly Scenario[],
  rng: Rng,
  o: RlIterationOptions,
): Promise<IterationResult> {
  const exp = await collectExperience(model, scenarios, rng, o.closedLoop);
  if (o.ilSet && exp.labelled.count > 0)
    o.ilSet.add(exp.labelled.obs, exp.labelled.action, exp.labelled.count, rng);
  const coef: [number, number] = o.mode === 'ppo' ? [0, 1] : [1, o.lambda];
  const a = o.anchor;
  const anchor = a
    ? { topK: await a.topK(exp.obs, exp.count), klCoef: a.cfg.klCoef, afterStep: () => a.update() }
    : undefined;
  const terms = await ppoUpdate(
    model,
    exp,
    rng,
    coef,
    o.ppo ?? DEFAULT_PPO,
    o.mode === 'rtr' ? (o.ilSet ?? o.demos) : undefined,
    anchor,
  );
  const s = o.rateSmoothing ?? 0;
  const smoothedRate =
    s > 0 && o.smoothedRate !== undefined
      ? s * o.smoothedRate + (1 - s) * exp.infractionRate
      : exp.infractionRate;
  const nextLambda =
    o.mode === 'rtr' ? dualAscent(o.lambda, smoothedRate, o.dual ?? DEFAULT_DUAL_ASCENT) : o.lambda;
  return {
    meanEpisodeReturn: exp.meanEpisodeReturn,
    collisionRate: exp.collisionRate,
    offroadRate: exp.offroadRate,
    redLightRate: exp.redLightRate,
    infractionRate: exp.infractionRate,
    lambda: o.lambda,
    nextLambda,
    smoothedRate,
    samples: exp.count,
    terms,
  };
}
