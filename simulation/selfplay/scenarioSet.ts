// Scenario sets for export from three generators — the self-play teacher (solvable scenarios only, each with
// its solution as the ego's log), the same teacher without the solvability check (adversarial), and the
// procedural long-tail generator — each scenario labelled with solvability, the student's failure and realism.
import fs from 'node:fs';
import { InputError } from '../../core/errors.ts';
import { Rng } from '../../core/rng.ts';
import type { Policy } from '../agents/policy.ts';
import { generateLongtail } from '../longtail/generate.ts';
import type { Scenario } from '../scenario.ts';
import { TEACHER_KINDS } from './chosenDraws.ts';
import { DEFAULT_GAME, judge, type Judged, propose } from './proposals.ts';
import { DEFAULT_TEACHER_MODEL, TeacherModel, type TeacherModelConfig } from './teacherModel.ts';
import { loadOnnxParams } from './onnxWeights.ts';

export const SCENARIO_GENERATORS = ['selfplay', 'adversarial', 'longtail'] as const;
export type ScenarioGenerator = (typeof SCENARIO_GENERATORS)[number];

export interface LabelledScenario {
  kind: string;
  scenario: Scenario;
  params: Record<string, number>;
  /** The teacher's (or oracle's) plan for the student's agent, written as its log; null: none found. */
  solution: { brakeMps2: number; resumeAfterS: number } | null;
  solvable: boolean;
  studentFailed: boolean;
  studentCollided: boolean;
  studentOffroad: boolean;
  studentRedLight: boolean;
  realism: number;
  plausible: boolean;
}

export interface ScenarioSetResult {
  scenarios: LabelledScenario[];
  /** Scenarios drawn to fill the set (self-play keeps only solvable ones). */
  proposed: number;
  /** Share of the drawn scenarios that were solvable (before any filter). */
  proposedSolvable: number;
}

/** A shipped teacher: its settings from the metadata JSON beside the ONNX file, its weights from the ONNX. */
export async function loadTeacher(onnx: string): Promise<TeacherModel> {
  const metaFile = onnx.replace(/\.onnx$/, '') + '.json';
  if (!fs.existsSync(onnx))
    throw new InputError(onnx, 'no such teacher model (train one with drivekit train-selfplay)');
  if (!fs.existsSync(metaFile))
    throw new InputError(metaFile, 'missing: the teacher needs its metadata JSON');
  let settings: Partial<TeacherModelConfig>;
  try {
    settings = (JSON.parse(fs.readFileSync(metaFile, 'utf8')) as { settings: Partial<TeacherModelConfig> })
      .settings;
  } catch (e) {
    throw new InputError(metaFile, `not valid JSON (${(e as Error).message})`);
  }
  const t = await TeacherModel.create({
    space: settings.space ?? DEFAULT_TEACHER_MODEL.space,
    noise: settings.noise ?? DEFAULT_TEACHER_MODEL.noise,
    hidden: settings.hidden ?? DEFAULT_TEACHER_MODEL.hidden,
  });
  loadOnnxParams(onnx, t.params);
  return t;
}

const label = (j: Judged): LabelledScenario => ({
  kind: j.kind,
  scenario: j.scenario,
  params: j.params,
  solution: j.solution,
  solvable: j.solvable,
  studentFailed: j.studentFailed,
  studentCollided: j.studentCollided,
  studentOffroad: j.studentOffroad,
  studentRedLight: j.studentRedLight,
  realism: j.realism,
  plausible: j.plausible,
});

export interface ScenarioSetOptions {
  generator: ScenarioGenerator;
  count: number;
  seed: number;
  /** The student that is judged (argmax policy of the learned agent). */
  student: () => Policy;
  /** The teacher (selfplay, adversarial). */
  teacher?: TeacherModel;
  /** Self-play gives up after count × this many proposals. */
  maxProposalsPerScenario?: number;
  onScenario?: (done: number) => void;
}

export async function generateScenarioSet(o: ScenarioSetOptions): Promise<ScenarioSetResult> {
  const rng = new Rng(o.seed);
  const out: LabelledScenario[] = [];
  let proposed = 0;
  let solvable = 0;
  if (o.generator === 'longtail') {
    // Round-robin over the kinds, each from its own seed stream.
    const perKind = Math.ceil(o.count / TEACHER_KINDS.length);
    const drafts = TEACHER_KINDS.map((k) => generateLongtail(k, perKind, o.seed));
    for (let i = 0; out.length < o.count; i++) {
      const k = i % TEACHER_KINDS.length;
      const d = drafts[k][Math.floor(i / TEACHER_KINDS.length)];
      const j = judge(
        [
          {
            kind: TEACHER_KINDS[k],
            scenario: d.scenario,
            params: d.params,
            ctx: new Float32Array(0),
            bins: new Int32Array(0),
            mask: new Float32Array(0),
            logp: 0,
            value: 0,
            solution: { brakeMps2: d.oracleBrakeMps2, resumeAfterS: d.oracleResumeS },
          },
        ],
        o.student,
        DEFAULT_GAME,
      )[0];
      proposed += 1 + d.rejected;
      solvable += j.solvable ? 1 : 0;
      out.push(label(j));
      o.onScenario?.(out.length);
    }
    return { scenarios: out, proposed, proposedSolvable: solvable / Math.max(out.length, 1) };
  }
  if (!o.teacher) throw new Error(`generator ${o.generator} needs a teacher`);
  const limit = o.count * (o.maxProposalsPerScenario ?? 20);
  const game = {
    ...DEFAULT_GAME,
    mode: o.generator === 'adversarial' ? ('adversarial' as const) : ('selfplay' as const),
  };
  while (out.length < o.count) {
    if (proposed >= limit)
      throw new Error(
        `selfplay: only ${out.length} of ${o.count} scenarios were solvable in ${proposed} proposals`,
      );
    const batch = Math.min(16, Math.max(1, o.count - out.length));
    const judged = judge(
      await propose(o.teacher, batch, rng, `${o.generator}-${o.seed}-${proposed}`),
      o.student,
      game,
    );
    proposed += judged.length;
    for (const j of judged) {
      solvable += j.solvable ? 1 : 0;
      if ((o.generator === 'adversarial' || j.solvable) && out.length < o.count) {
        out.push(label(j));
        o.onScenario?.(out.length);
      }
    }
  }
  return { scenarios: out, proposed, proposedSolvable: solvable / Math.max(proposed, 1) };
}
