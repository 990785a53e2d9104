// A `drivekit sim` output directory read back as simulated scenarios: each input scenario (map,
// sizes, flags) with its agent tracks replaced by the rollout recorded in rollouts.arrow.
import fs from 'node:fs';
import path from 'node:path';
import { batchToAgentStates } from '../../core/arrow/codec.ts';
import { readArrowFile } from '../../core/arrow/ipc.ts';
import { InputError } from '../../core/errors.ts';
import type { Scenario } from '../scenario.ts';
import { loadScenario } from '../scenarioIo.ts';

export function readRolloutSet(dir: string): Scenario[] {
  const rolloutsFile = path.join(dir, 'rollouts.arrow');
  const scenariosDir = path.join(dir, 'scenarios');
  if (!fs.existsSync(rolloutsFile))
    throw new InputError(dir, 'not a sim output directory (no rollouts.arrow)');
  if (!fs.existsSync(scenariosDir)) throw new InputError(dir, 'not a sim output directory (no scenarios/)');
  const names = fs
    .readdirSync(scenariosDir)
    .filter((n) => !n.startsWith('.'))
    .sort();
  const scenarios = names.map((n) => loadScenario(path.join(scenariosDir, n)));
  const byId = new Map(scenarios.map((s) => [s.id, s]));
  const { batches } = readArrowFile(rolloutsFile);
  const out: Scenario[] = [];
  for (const b of batches) {
    const st = batchToAgentStates(b, rolloutsFile);
    if (st.step.length === 0) continue;
    const s = byId.get(st.scenarioId[0]);
    if (!s)
      throw new InputError(rolloutsFile, `rollout of scenario '${st.scenarioId[0]}' has no scenarios/ entry`);
    const T = s.numSteps;
    const row = new Map<number, number>();
    s.agents.ids.forEach((id, i) => row.set(id, i));
    const a = {
      ...s.agents,
      x: s.agents.x.slice(),
      y: s.agents.y.slice(),
      z: s.agents.z.slice(),
      yaw: s.agents.yaw.slice(),
      vx: s.agents.vx.slice(),
      vy: s.agents.vy.slice(),
      valid: new Uint8Array(s.agents.valid.length),
    };
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
    }
    out.push({ ...s, agents: a, source: `${s.source}+sim` });
  }
  if (out.length === 0) throw new InputError(rolloutsFile, 'holds no rollout');
  return out;
}
