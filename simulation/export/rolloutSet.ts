// A `drivekit sim` output directory: rollouts.arrow (AgentStates rows plus a `rollout` column, one
// batch per scenario and rollout) and scenarios/ (each input scenario), written and read back.
import fs from 'node:fs';
import path from 'node:path';
import { Field, Int32, RecordBatch, Schema, Struct, makeData } from 'apache-arrow';
import { agentStatesToBatch, batchToAgentStates } from '../../core/arrow/codec.ts';
import { numericData, readNumeric } from '../../core/arrow/columns.ts';
import { readArrowFile } from '../../core/arrow/ipc.ts';
import { InputError } from '../../core/errors.ts';
import type { AgentTracks, Scenario } from '../scenario.ts';
import { loadScenario } from '../scenarioIo.ts';
import { scenarioToAgentStates } from '../scenarioTables.ts';

/** The files of a sim output directory. */
export const SIM_FILES = {
  rollouts: 'rollouts.arrow',
  scenarios: 'scenarios',
  metrics: 'metrics.json',
} as const;

/** The column that tells the rollouts of a scenario apart (absent in files written before it: rollout 0). */
export const ROLLOUT_COLUMN = 'rollout';

/** One rollout of a scenario as an AgentStates batch with the rollout index as an extra int32 column. */
export function rolloutBatch(
  s: Scenario,
  tracks: AgentTracks,
  rollout: number,
  metadata: Record<string, string> = {},
): RecordBatch {
  const b = agentStatesToBatch(scenarioToAgentStates({ ...s, agents: tracks }), metadata);
  const field = new Field(ROLLOUT_COLUMN, new Int32(), false);
  const schema = new Schema([...b.schema.fields, field], b.schema.metadata);
  const col = numericData(new Int32Array(b.numRows).fill(rollout));
  const data = makeData({
    type: new Struct(schema.fields),
    length: b.numRows,
    nullCount: 0,
    children: [...b.data.children, col],
  });
  return new RecordBatch(schema, data);
}

/** A scenario of a sim output with every rollout's tracks (history from the log, future simulated). */
export interface RolloutGroup {
  /** The input scenario (its log tracks). */
  scenario: Scenario;
  /** Tracks of rollout n at index n. */
  rollouts: AgentTracks[];
  /** Per rollout, 1 where the file holds a row for (agent, step) (valid or not), agent-major. */
  present?: Uint8Array[];
}

/** Read a sim output directory back: each scenario with its rollouts, in the order sim wrote them. */
export function readRolloutGroups(dir: string): RolloutGroup[] {
  const rolloutsFile = path.join(dir, SIM_FILES.rollouts);
  const scenariosDir = path.join(dir, SIM_FILES.scenarios);
  if (!fs.existsSync(rolloutsFile))
    throw new InputError(dir, `not a sim output directory (no ${SIM_FILES.rollouts})`);
  if (!fs.existsSync(scenariosDir)) throw new InputError(dir, 'not a sim output directory (no scenarios/)');
  const names = fs
    .readdirSync(scenariosDir)
    .filter((n) => !n.startsWith('.'))
    .sort();
  const scenarios = names.map((n) => loadScenario(path.join(scenariosDir, n)));
  const byId = new Map(scenarios.map((s) => [s.id, s]));
  const groups = new Map<
    string,
    { scenario: Scenario; rollouts: Map<number, AgentTracks>; present: Map<number, Uint8Array> }
  >();
  const { batches } = readArrowFile(rolloutsFile);
  for (const b of batches) {
    const st = batchToAgentStates(b, rolloutsFile);
    if (st.step.length === 0) continue;
    const s = byId.get(st.scenarioId[0]);
    if (!s)
      throw new InputError(rolloutsFile, `rollout of scenario '${st.scenarioId[0]}' has no scenarios/ entry`);
    const rollout = b.getChild(ROLLOUT_COLUMN) ? readNumeric<Int32Array>(b, ROLLOUT_COLUMN)[0] : 0;
    let g = groups.get(s.id);
    if (!g) groups.set(s.id, (g = { scenario: s, rollouts: new Map(), present: new Map() }));
    if (g.rollouts.has(rollout))
      throw new InputError(rolloutsFile, `scenario '${s.id}' has rollout ${rollout} twice`);
    const T = s.numSteps;
    const row = new Map<number, number>();
    s.agents.ids.forEach((id, i) => row.set(id, i));
    const a: AgentTracks = {
      ...s.agents,
      x: s.agents.x.slice(),
      y: s.agents.y.slice(),
      z: s.agents.z.slice(),
      yaw: s.agents.yaw.slice(),
      vx: s.agents.vx.slice(),
      vy: s.agents.vy.slice(),
      valid: new Uint8Array(s.agents.valid.length),
    };
    const present = new Uint8Array(s.agents.valid.length);
    for (let k = 0; k < st.step.length; k++) {
      const i = row.get(st.agentId[k]);
      const t = st.step[k];
      if (i === undefined || t < 0 || t >= T)
        throw new InputError(
          rolloutsFile,
          `row ${k}: agent ${st.agentId[k]} step ${t} is not in scenario '${s.id}'`,
        );
      const j = i * T + t;
      a.x[j] = st.x[k];
      a.y[j] = st.y[k];
      a.z[j] = st.z[k];
      a.yaw[j] = st.yaw[k];
      a.vx[j] = st.vx[k];
      a.vy[j] = st.vy[k];
      a.valid[j] = st.valid[k];
      present[j] = 1;
    }
    g.rollouts.set(rollout, a);
    g.present.set(rollout, present);
  }
  if (groups.size === 0) throw new InputError(rolloutsFile, 'holds no rollout');
  return [...groups.values()].map(({ scenario, rollouts, present }) => {
    const n = rollouts.size;
    for (let i = 0; i < n; i++)
      if (!rollouts.has(i))
        throw new InputError(rolloutsFile, `scenario '${scenario.id}' lacks rollout ${i} (of ${n})`);
    const order = Array.from({ length: n }, (_, i) => i);
    return {
      scenario,
      rollouts: order.map((i) => rollouts.get(i)!),
      present: order.map((i) => present.get(i)!),
    };
  });
}

/**
 * A sim output directory as simulated scenarios: each input scenario (map, sizes, flags) with its
 * agent tracks replaced by a rollout; with several rollouts each is its own scenario `<id>.r<n>`.
 */
export function readRolloutSet(dir: string): Scenario[] {
  return rolloutScenarios(readRolloutGroups(dir));
}

/** Rollout groups as one simulated scenario per rollout (`<id>.r<n>` when a scenario has several). */
export function rolloutScenarios(groups: readonly RolloutGroup[]): Scenario[] {
  return groups.flatMap(({ scenario: s, rollouts }) =>
    rollouts.map((agents, n) => ({
      ...s,
      id: rollouts.length > 1 ? `${s.id}.r${n}` : s.id,
      agents,
      source: `${s.source}+sim`,
    })),
  );
}
