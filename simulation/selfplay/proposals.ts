// One round of the teacher's game (Zhang et al., ECCV 2024): the teacher proposes scenarios (a kind and its
// parameters, i.e. where its agents spawn, how fast and when they move); its privileged solution drives the
// student's agent (the asymmetry); the student drives it too; the reward is the student's failure where solvable.
import type { Rng } from '../../core/rng.ts';
import type { Policy } from '../agents/policy.ts';
import { LONGTAIL_KINDS } from '../longtail/generate.ts';
import { applyPlan, DEFAULT_ORACLE, type OracleConfig, solve } from '../longtail/oracle.ts';
import { rolloutScenarios } from '../rollout.ts';
import type { Scenario } from '../scenario.ts';
import { ChosenDraws, slotsUsed, TEACHER_KINDS } from './chosenDraws.ts';
import { DEFAULT_REALISM, type RealismBounds, teacherRealism } from './realism.ts';
import type { TeacherModel } from './teacherModel.ts';

export interface Proposal {
  kind: string;
  scenario: Scenario;
  /** The kind's parameters as drawn (teacher-chosen values). */
  params: Record<string, number>;
  ctx: Float32Array;
  bins: Int32Array;
  mask: Float32Array;
  logp: number;
  value: number;
  /** The teacher's solution: its braking plan for the student's agent (null: none found). */
  solution: { brakeMps2: number; resumeAfterS: number } | null;
}

export interface Judged extends Proposal {
  /** The teacher's solution drives the student's agent without collision, off-road or red light. */
  solvable: boolean;
  /** The student (its policy on the student's agent) collided, left the road or ran a red light. */
  studentFailed: boolean;
  studentCollided: boolean;
  studentOffroad: boolean;
  studentRedLight: boolean;
  realism: number;
  plausible: boolean;
  reward: number;
}

export interface GameConfig {
  /**
   * 'selfplay': reward = failure only where solvable (the asymmetric game); 'adversarial': failure alone
   * (the baseline without the solvability check).
   */
  mode: 'selfplay' | 'adversarial';
  /** Reward subtracted when a teacher agent leaves the realism bounds. */
  realismWeight: number;
  /** Reward of an unsolvable proposal in self-play mode (a small push away from them). */
  unsolvablePenalty: number;
  realism: RealismBounds;
  oracle: OracleConfig;
}

export const DEFAULT_GAME: GameConfig = {
  mode: 'selfplay',
  realismWeight: 1,
  unsolvablePenalty: 0.2,
  realism: DEFAULT_REALISM,
  oracle: DEFAULT_ORACLE,
};

/** Sample `count` proposals from the teacher (kinds drawn uniformly; bins sampled from its heads). */
export async function propose(
  teacher: TeacherModel,
  count: number,
  rng: Rng,
  idPrefix: string,
  kinds: readonly string[] = TEACHER_KINDS,
  oracle: OracleConfig = DEFAULT_ORACLE,
): Promise<Proposal[]> {
  const C = teacher.ctxSize;
  const { slots: S, bins: K } = teacher.cfg.space;
  const picked = Array.from({ length: count }, () => kinds[rng.int(kinds.length)]);
  const ctx = new Float32Array(count * C);
  picked.forEach((k, i) => teacher.context(k, rng, ctx.subarray(i * C, (i + 1) * C)));
  const { logits, value } = await teacher.evaluate(ctx, count);
  const out: Proposal[] = [];
  for (let i = 0; i < count; i++) {
    const kind = picked[i];
    const used = slotsUsed(kind, teacher.cfg.space);
    const bins = new Int32Array(S);
    const mask = new Float32Array(S);
    let logp = 0;
    for (let s = 0; s < S; s++) {
      const row = logits.subarray((i * S + s) * K, (i * S + s + 1) * K);
      let max = -Infinity;
      for (const v of row) max = Math.max(max, v);
      let z = 0;
      for (const v of row) z += Math.exp(v - max);
      let u = rng.uniform() * z;
      let b = K - 1;
      for (let j = 0; j < K; j++) {
        u -= Math.exp(row[j] - max);
        if (u <= 0) {
          b = j;
          break;
        }
      }
      bins[s] = b;
      if (s < used) {
        mask[s] = 1;
        logp += row[b] - max - Math.log(z);
      }
    }
    const draws = new ChosenDraws(bins, teacher.cfg.space);
    const d = LONGTAIL_KINDS[kind].build(draws, `${idPrefix}-${kind}-${i}`);
    d.scenario.source = `selfplay:${kind}`;
    const plan = solve(d.scenario, d.route, d.s0, d.v0, oracle);
    if (plan) applyPlan(d.scenario, plan);
    out.push({
      kind,
      scenario: d.scenario,
      params: d.params,
      ctx: ctx.slice(i * C, (i + 1) * C),
      bins,
      mask,
      logp,
      value: value[i],
      solution: plan ? { brakeMps2: plan.brakeMps2, resumeAfterS: plan.resumeAfterS } : null,
    });
  }
  return out;
}

const hit = (x: number) => Number.isFinite(x) && x > 0;

/**
 * Judge proposals: one rollout of the student on each (its agent only; the teacher's agents follow their
 * plans), the log rates of the teacher's solution (the ego's log after applyPlan), realism, and the reward.
 */
export function judge(
  proposals: readonly Proposal[],
  student: () => Policy,
  game: GameConfig = DEFAULT_GAME,
): Judged[] {
  if (!proposals.length) return [];
  const res = rolloutScenarios(
    proposals.map((p) => p.scenario),
    student,
  );
  return proposals.map((p, i) => {
    const m = res[i].metrics;
    const solvable =
      p.solution !== null &&
      !hit(m.log_collision_rate) &&
      !hit(m.log_offroad_rate) &&
      !hit(m.log_red_light_rate);
    const studentCollided = hit(m.collision_rate);
    const studentOffroad = hit(m.offroad_rate);
    const studentRedLight = hit(m.red_light_rate);
    const studentFailed = studentCollided || studentOffroad || studentRedLight;
    const r = teacherRealism(p.scenario, game.realism);
    const fail = studentFailed ? 1 : 0;
    let reward = game.mode === 'adversarial' ? fail : solvable ? fail : -game.unsolvablePenalty;
    if (!r.plausible) reward -= game.realismWeight;
    return {
      ...p,
      solvable,
      studentFailed,
      studentCollided,
      studentOffroad,
      studentRedLight,
      realism: r.withinBounds,
      plausible: r.plausible,
      reward,
    };
  });
}
