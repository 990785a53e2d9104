// The long-tail generator: sample a kind's parameters until the scenario is hard (driving on at
// constant speed collides) yet solvable (the full-knowledge oracle finds a braking plan, which becomes
// the ego's log), and repeat for `count` scenarios from one seed.
import type { Scenario } from '../scenario.ts';
import type { LongtailKind } from './kind.ts';
import { cutIn } from './kinds/cutIn.ts';
import { hardBrake } from './kinds/hardBrake.ts';
import { jaywalker } from './kinds/jaywalker.ts';
import { merge } from './kinds/merge.ts';
import { occludedPedestrian } from './kinds/occludedPedestrian.ts';
import { redLightRunner } from './kinds/redLightRunner.ts';
import { unprotectedLeft } from './kinds/unprotectedLeft.ts';
import { applyPlan, DEFAULT_ORACLE, type OracleConfig, solve, tryPlan } from './oracle.ts';
import { Rng } from '../../core/rng.ts';

export const LONGTAIL_KINDS: Record<string, LongtailKind> = Object.fromEntries(
  [cutIn, hardBrake, jaywalker, redLightRunner, merge, unprotectedLeft, occludedPedestrian].map((k) => [
    k.name,
    k,
  ]),
);

export interface LongtailScenario {
  scenario: Scenario;
  params: Record<string, number>;
  /** The oracle's plan: constant braking (m/s²), resumed after this many seconds (Infinity: never). */
  oracleBrakeMps2: number;
  oracleResumeS: number;
  /** Draws rejected before this one (too easy or unsolvable). */
  rejected: number;
}

export interface LongtailOptions {
  oracle?: OracleConfig;
  /** Give up after this many rejected draws for one scenario. */
  maxAttempts?: number;
}

export function generateLongtail(
  kind: string,
  count: number,
  seed: number,
  opts: LongtailOptions = {},
): LongtailScenario[] {
  const k = LONGTAIL_KINDS[kind];
  if (!k)
    throw new Error(`unknown long-tail kind '${kind}' (known: ${Object.keys(LONGTAIL_KINDS).join(', ')})`);
  const oracle = opts.oracle ?? DEFAULT_ORACLE;
  const rng = new Rng(seed, 'mulberry32');
  const out: LongtailScenario[] = [];
  for (let i = 0; i < count; i++) {
    let rejected = 0;
    for (;;) {
      const d = k.build(rng, `longtail-${kind}-${seed}-${i}`);
      const hard = tryPlan(d.scenario, d.route, d.s0, d.v0, 0, Infinity, oracle) === null;
      const plan = hard ? solve(d.scenario, d.route, d.s0, d.v0, oracle) : null;
      if (plan) {
        applyPlan(d.scenario, plan);
        out.push({
          scenario: d.scenario,
          params: d.params,
          oracleBrakeMps2: plan.brakeMps2,
          oracleResumeS: plan.resumeAfterS,
          rejected,
        });
        break;
      }
      if (++rejected >= (opts.maxAttempts ?? 200))
        throw new Error(`long-tail '${kind}': no hard and solvable draw in ${rejected} attempts`);
    }
  }
  return out;
}
