// A scenario with its rollouts as one JSON document: the scenario (drivekit.scenario/2, snake_case, so
// `drivekit sim` and the viewer load it) plus the export header, the column units and every rollout's tracks.
import path from 'node:path';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import { scenarioToJson } from '../scenarioIo.ts';
import { EXPORT_UNITS, type ExportScenario, exportHeader } from './exportTables.ts';

const TRACK_KEYS = ['x', 'y', 'z', 'yaw', 'vx', 'vy'] as const;

/** The document: scenario keys, `num_rollouts`, `units`, `rollouts: [{rollout, agents: [{agent_id, x…, valid}]}]`. */
export function scenarioExportJson(e: ExportScenario): Record<string, unknown> {
  const s = e.scenario;
  const T = s.numSteps;
  const h = exportHeader(e);
  const units = Object.fromEntries(
    [
      'step',
      'agent_id',
      ...TRACK_KEYS,
      'length',
      'width',
      'height',
      'valid',
      'width_m',
      'speed_limit_mps',
    ].map((k) => [k, EXPORT_UNITS[k]]),
  );
  return {
    ...scenarioToJson(s),
    num_rollouts: h.num_rollouts,
    units,
    rollouts: e.rollouts.map((r, n) => ({
      rollout: n,
      agents: Array.from(s.agents.ids, (id, i) => ({
        agent_id: id,
        ...Object.fromEntries(TRACK_KEYS.map((k) => [k, Array.from(r[k].subarray(i * T, (i + 1) * T))])),
        valid: Array.from(r.valid.subarray(i * T, (i + 1) * T), (v) => v === 1),
      })),
    })),
  };
}

/** Write `<dir>/<stem>.json` for each scenario (atomically); returns the files. */
export function writeJsonScenarios(
  set: readonly ExportScenario[],
  dir: string,
  stem: (i: number) => string,
): string[] {
  return set.map((e, i) => {
    const file = path.join(dir, `${stem(i)}.json`);
    writeFileAtomicSync(file, JSON.stringify(scenarioExportJson(e)));
    return file;
  });
}
