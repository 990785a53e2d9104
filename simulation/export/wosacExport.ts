// The Waymo Open Sim Agents Challenge submission: a sim output's rollouts as a SimAgentsChallengeSubmission
// protobuf (public sim_agents_submission.proto, proto2 field numbers): per scenario N JointScenes of 80 steps.
import protobuf from 'protobufjs';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import { InputError } from '../../core/errors.ts';
import { WOMD_OBJECT_TYPE } from '../../datasets/womd.ts';
import {
  type ScenarioRollouts,
  simulatedAgentRows,
  validateScenarioRollouts,
} from '../metrics/wosac/rollouts.ts';
import type { AgentType, Scenario } from '../scenario.ts';
import type { RolloutGroup } from './rolloutSet.ts';

/** What the challenge requires of a submission (submission_specs.py, the Sim Agents config). */
export const WOSAC_SUBMISSION = { currentStep: 10, futureSteps: 80, rollouts: 32, dtS: 0.1 } as const;

/** The submission's own fields (who submits what); the evaluator refuses a file without them. */
export interface WosacSubmissionInfo {
  accountName?: string;
  uniqueMethodName?: string;
  authors?: string[];
  affiliation?: string;
  description?: string;
  methodLink?: string;
  /** E.g. "0" for a rule-based agent, "200K" for a learned one. */
  numModelParameters?: string;
}

const packed = (type: string, id: number) => ({ type, id, rule: 'repeated', options: { packed: true } });
const opt = (type: string, id: number) => ({ type, id });
const rep = (type: string, id: number) => ({ type, id, rule: 'repeated' });

const DESCRIPTOR = {
  nested: {
    waymo: {
      nested: {
        open_dataset: {
          nested: {
            TrackObjectType: {
              values: { TYPE_UNSET: 0, TYPE_VEHICLE: 1, TYPE_PEDESTRIAN: 2, TYPE_CYCLIST: 3, TYPE_OTHER: 4 },
            },
            SimulatedTrajectory: {
              fields: {
                center_x: packed('float', 2),
                center_y: packed('float', 3),
                center_z: packed('float', 4),
                heading: packed('float', 5),
                object_id: opt('int32', 6),
                object_type: opt('TrackObjectType', 10),
              },
            },
            JointScene: { fields: { simulated_trajectories: rep('SimulatedTrajectory', 1) } },
            ScenarioRollouts: {
              fields: { scenario_id: opt('string', 1), joint_scenes: rep('JointScene', 2) },
            },
            SimAgentsChallengeSubmission: {
              fields: {
                scenario_rollouts: rep('ScenarioRollouts', 1),
                submission_type: opt('SubmissionType', 2),
                account_name: opt('string', 3),
                unique_method_name: opt('string', 4),
                authors: rep('string', 5),
                affiliation: opt('string', 6),
                description: opt('string', 7),
                method_link: opt('string', 8),
                uses_lidar_data: opt('bool', 9),
                uses_camera_data: opt('bool', 10),
                uses_public_model_pretraining: opt('bool', 11),
                num_model_parameters: opt('string', 12),
                acknowledge_complies_with_closed_loop_requirement: opt('bool', 14),
              },
              nested: { SubmissionType: { values: { UNKNOWN: 0, SIM_AGENTS_SUBMISSION: 1 } } },
            },
          },
        },
      },
    },
  },
};

let root: protobuf.Root | null = null;

/** The SimAgentsChallengeSubmission message type. */
export function submissionType(): protobuf.Type {
  root ??= protobuf.Root.fromJSON(DESCRIPTOR as protobuf.INamespace);
  return root.lookupType('waymo.open_dataset.SimAgentsChallengeSubmission');
}

/**
 * The rollouts of one scenario of a sim output in the Sim Agents layout: every agent valid at the
 * current step, each future step as the file holds it (an agent the policy let go invalid — log
 * replay — keeps the log's values, as the official logged oracle). A simulated agent or step missing
 * from the file is an InputError naming `file`.
 */
export function groupToScenarioRollouts(g: RolloutGroup, file: string): ScenarioRollouts {
  const s = g.scenario;
  const T = s.numSteps - s.currentStep - 1;
  const N = g.rollouts.length;
  // The agents the rollouts carry at the current step; validation names any that are missing or extra.
  const rows = Array.from(simulatedAgentRows(s)).filter((row) =>
    g.rollouts.every((r, n) => (g.present?.[n] ?? r.valid)[row * s.numSteps + s.currentStep]),
  );
  const A = rows.length;
  const out: ScenarioRollouts = {
    scenarioId: s.id,
    numRollouts: N,
    agentRows: Int32Array.from(rows),
    numFutureSteps: T,
    x: new Float32Array(N * A * T),
    y: new Float32Array(N * A * T),
    z: new Float32Array(N * A * T),
    yaw: new Float32Array(N * A * T),
  };
  g.rollouts.forEach((tr, n) => {
    const present = g.present?.[n];
    rows.forEach((row, a) => {
      const base = row * s.numSteps + s.currentStep;
      for (let t = 0; t < T; t++) {
        const k = base + 1 + t;
        if (present && !present[k])
          throw new InputError(
            file,
            `scenario '${s.id}' rollout ${n}: agent id ${s.agents.ids[row]} has no state at step ${s.currentStep + 1 + t}`,
          );
        const o = (n * A + a) * T + t;
        out.x[o] = tr.x[k];
        out.y[o] = tr.y[k];
        out.z[o] = tr.z[k];
        out.yaw[o] = tr.yaw[k];
      }
    });
  });
  validateScenarioRollouts(s, out, file);
  return out;
}

const TYPE_CODE: Record<AgentType, number> = {
  vehicle: WOMD_OBJECT_TYPE.vehicle,
  pedestrian: WOMD_OBJECT_TYPE.pedestrian,
  cyclist: WOMD_OBJECT_TYPE.cyclist,
  other: WOMD_OBJECT_TYPE.other,
};

/** Refuse rollouts the challenge would refuse: 80 future steps at 10 Hz from step 10. */
export function checkWosacShape(s: Scenario, r: ScenarioRollouts, file: string): void {
  const w = WOSAC_SUBMISSION;
  if (r.numFutureSteps !== w.futureSteps || s.currentStep !== w.currentStep)
    throw new InputError(
      file,
      `scenario '${s.id}' has ${r.numFutureSteps} future steps after step ${s.currentStep}; a Sim Agents submission needs ${w.futureSteps} after step ${w.currentStep} (a WOMD scenario)`,
    );
  if (Math.abs(s.dtS - w.dtS) > 1e-6)
    throw new InputError(
      file,
      `scenario '${s.id}' runs at ${s.dtS} s per step; the challenge is at ${w.dtS} s`,
    );
}

/** The submission message of scored rollouts (scenario order kept). */
export function encodeWosacSubmission(
  items: readonly { scenario: Scenario; rollouts: ScenarioRollouts }[],
  info: WosacSubmissionInfo = {},
): Uint8Array {
  const type = submissionType();
  const doc = {
    scenario_rollouts: items.map(({ scenario: s, rollouts: r }) => {
      const A = r.agentRows.length;
      const T = r.numFutureSteps;
      return {
        scenario_id: r.scenarioId,
        joint_scenes: Array.from({ length: r.numRollouts }, (_, n) => ({
          simulated_trajectories: Array.from(r.agentRows, (row, a) => {
            const o = (n * A + a) * T;
            const span = (arr: Float32Array) => Array.from(arr.subarray(o, o + T));
            return {
              center_x: span(r.x),
              center_y: span(r.y),
              center_z: span(r.z),
              heading: span(r.yaw),
              object_id: s.agents.ids[row],
              object_type: TYPE_CODE[s.agents.types[row]] ?? WOMD_OBJECT_TYPE.other,
            };
          }),
        })),
      };
    }),
    submission_type: 1,
    account_name: info.accountName ?? '',
    unique_method_name: info.uniqueMethodName ?? '',
    authors: info.authors ?? [],
    affiliation: info.affiliation ?? '',
    description: info.description ?? '',
    method_link: info.methodLink ?? '',
    uses_lidar_data: false,
    uses_camera_data: false,
    uses_public_model_pretraining: false,
    num_model_parameters: info.numModelParameters ?? '0',
    acknowledge_complies_with_closed_loop_requirement: true,
  };
  const err = type.verify(doc);
  if (err) throw new Error(`encodeWosacSubmission: ${err}`);
  return type.encode(type.fromObject(doc)).finish();
}

/**
 * Write the groups of a sim output as one submission file (atomic): each checked (every sim agent,
 * 80 future steps at 10 Hz). Returns the rollouts written; `file` names the source in errors.
 */
export function writeWosacSubmission(
  groups: readonly RolloutGroup[],
  target: string,
  source: string,
  info: WosacSubmissionInfo = {},
): ScenarioRollouts[] {
  const items = groups.map((g) => {
    const rollouts = groupToScenarioRollouts(g, source);
    checkWosacShape(g.scenario, rollouts, source);
    return { scenario: g.scenario, rollouts };
  });
  writeFileAtomicSync(target, encodeWosacSubmission(items, info));
  return items.map((i) => i.rollouts);
}
