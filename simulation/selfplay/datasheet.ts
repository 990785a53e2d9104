// The datasheet of an exported scenario set (after Gebru et al., "Datasheets for Datasets"): what made it
// (commands, models), what is in it (counts by kind), how hard (student failure), solvable and realistic.
import type { LabelledScenario, ScenarioGenerator, ScenarioSetResult } from './scenarioSet.ts';

export interface DatasheetInput {
  generator: ScenarioGenerator;
  seed: number;
  set: ScenarioSetResult;
  command: string;
  models: Record<string, { path: string; sha256: string; trainedBy?: string; settingsBy?: string }>;
  files: Record<string, string>;
}

const rate = (xs: readonly LabelledScenario[], f: (x: LabelledScenario) => boolean) =>
  xs.length ? xs.filter(f).length / xs.length : NaN;

export function buildDatasheet(d: DatasheetInput): Record<string, unknown> {
  const xs = d.set.scenarios;
  const kinds = [...new Set(xs.map((x) => x.kind))].sort();
  const byKind = Object.fromEntries(
    kinds.map((k) => {
      const ys = xs.filter((x) => x.kind === k);
      return [
        k,
        {
          count: ys.length,
          student_failure_rate: rate(ys, (x) => x.studentFailed),
          solvable_rate: rate(ys, (x) => x.solvable),
        },
      ];
    }),
  );
  return {
    format: 'drivekit-selfplay-datasheet/1',
    generator: d.generator,
    seed: d.seed,
    count: xs.length,
    commands: { export: d.command },
    models: d.models,
    counts_by_kind: Object.fromEntries(kinds.map((k) => [k, byKind[k].count])),
    by_kind: byKind,
    difficulty: {
      student_failure_rate: rate(xs, (x) => x.studentFailed),
      student_collision_rate: rate(xs, (x) => x.studentCollided),
      student_offroad_rate: rate(xs, (x) => x.studentOffroad),
      student_red_light_rate: rate(xs, (x) => x.studentRedLight),
    },
    solvability: {
      exported_solvable_rate: rate(xs, (x) => x.solvable),
      proposed: d.set.proposed,
      proposed_solvable_rate: d.set.proposedSolvable,
      check:
        "the teacher's privileged solution (a braking plan knowing its own agents' futures) drives the student's agent with no collision, off-road or red light",
    },
    realism: {
      mean_within_bounds: xs.length ? xs.reduce((a, x) => a + x.realism, 0) / xs.length : NaN,
      plausible_rate: rate(xs, (x) => x.plausible),
      bounds:
        '|accel| ≤ 10.4 m/s², curvature ≤ 0.3 1/m (Waymax/WOSAC kinematic infeasibility), pedestrians ≤ 3.5 m/s',
    },
    files: d.files,
    scenarios: xs.map((x) => ({
      scenario_id: x.scenario.id,
      kind: x.kind,
      params: x.params,
      teacher_solution: x.solution,
      solvable: x.solvable,
      student_failed: x.studentFailed,
      student_collided: x.studentCollided,
      student_offroad: x.studentOffroad,
      student_red_light: x.studentRedLight,
      realism: x.realism,
      plausible: x.plausible,
    })),
  };
}

const pct = (x: unknown) =>
  typeof x === 'number' && Number.isFinite(x) ? `${(100 * x).toFixed(1)} %` : 'n/a';

/** The datasheet as Markdown (the JSON holds the same figures and the per-scenario labels). */
export function datasheetMarkdown(sheet: Record<string, unknown>): string {
  const s = sheet as {
    generator: string;
    seed: number;
    count: number;
    commands: { export: string };
    models: Record<string, { path: string; sha256: string; trainedBy?: string; settingsBy?: string }>;
    by_kind: Record<string, { count: number; student_failure_rate: number; solvable_rate: number }>;
    difficulty: Record<string, number>;
    solvability: {
      exported_solvable_rate: number;
      proposed: number;
      proposed_solvable_rate: number;
      check: string;
    };
    realism: { mean_within_bounds: number; plausible_rate: number; bounds: string };
    files: Record<string, string>;
  };
  const rows = Object.entries(s.by_kind).map(
    ([k, v]) => `| ${k} | ${v.count} | ${pct(v.student_failure_rate)} | ${pct(v.solvable_rate)} |`,
  );
  return [
    `# Datasheet: ${s.generator} scenarios (${s.count}, seed ${s.seed})`,
    '',
    `Made by \`${s.commands.export}\`.`,
    '',
    '## Models',
    '',
    ...Object.entries(s.models).map(
      ([k, m]) =>
        `- ${k}: ${m.path} (sha256 ${m.sha256.slice(0, 12)}…)${m.trainedBy ? `, trained by \`${m.trainedBy}\`` : ''}` +
        (m.settingsBy ? `, settings by \`${m.settingsBy}\`` : ''),
    ),
    '',
    '## Composition and difficulty',
    '',
    '| kind | scenarios | student failure | solvable |',
    '|---|---:|---:|---:|',
    ...rows,
    `| all | ${s.count} | ${pct(s.difficulty.student_failure_rate)} | ${pct(s.solvability.exported_solvable_rate)} |`,
    '',
    `Student failure = the student (argmax policy) on its agent collided (${pct(s.difficulty.student_collision_rate)}), left the road (${pct(s.difficulty.student_offroad_rate)}) or ran a red light (${pct(s.difficulty.student_red_light_rate)}).`,
    '',
    '## Solvability',
    '',
    `${pct(s.solvability.exported_solvable_rate)} of the exported scenarios are solvable; ${pct(s.solvability.proposed_solvable_rate)} of the ${s.solvability.proposed} drawn were (self-play exports only solvable ones; the adversarial baseline exports every draw). Check: ${s.solvability.check}.`,
    '',
    '## Realism',
    '',
    `${pct(s.realism.mean_within_bounds)} of the teacher agents' steps within bounds on average; ${pct(s.realism.plausible_rate)} of the scenarios entirely within them. Bounds: ${s.realism.bounds}.`,
    '',
    '## Files',
    '',
    ...Object.entries(s.files).map(([k, v]) => `- ${k}: ${v}`),
    '',
    "Per-scenario labels (kind, parameters, the teacher's solution, solvable, student failure, realism) are in datasheet.json.",
    '',
  ].join('\n');
}
