// Scale-out's pooled sim table carries the one realism number, the Sim Agents meta-metric, pooled over
// every scenario of every job, and no other realism score.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { saveScenario } from '../../../simulation/scenarioIo.ts';
import { runSim } from '../../../tools/commands/sim.ts';
import { metricsTable } from '../../../tools/scaleout/aggregate.ts';
import { straightRoadScenario } from '../../simulation/fixtures.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-metrics-table-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('scale-out metrics table', () => {
  it('pools wosac.meta_metric over the jobs as the mean over scenarios', async () => {
    const a = straightRoadScenario({ numAgents: 3, numSteps: 21 });
    a.controlled.fill(1);
    const b = straightRoadScenario({ numAgents: 2, numSteps: 21, speedMps: 6 });
    b.id = 'second';
    const children = [];
    const metas: number[] = [];
    for (const [name, s] of [
      ['a', a],
      ['b', b],
    ] as const) {
      saveScenario(s, path.join(tmp, `${name}.json`));
      const out = path.join(tmp, `run-${name}`);
      const r = await runSim({
        scenarios: path.join(tmp, `${name}.json`),
        agents: 'cv',
        out,
        rollouts: 2,
        json: true,
      });
      metas.push((r.wosac as { meta_metric: number }).meta_metric);
      children.push({ input: `${name}.json`, outDir: out, skipped: false, result: r });
    }
    const { pooled } = metricsTable(children, path.join(tmp, 'pooled'));
    const p = pooled as { wosac: { meta_metric: number; components: Record<string, number> } };
    expect(p.wosac.meta_metric).toBeCloseTo((metas[0] + metas[1]) / 2, 12);
    expect(Object.keys(p.wosac.components)).toContain('collision_indication');
    expect(fs.readFileSync(path.join(tmp, 'pooled', 'metrics.json'), 'utf8')).not.toMatch(/realism/);
  });
});
