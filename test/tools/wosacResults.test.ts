// The Sim Agents realism table on the real WOMD scenario (N = 8 seeded rollouts): drivekit sim writes the
// WOSAC meta-metric and components; replay scores below 1 and above every other agent, and the broken
// stand-still agent below IDM.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { realData } from '../../core/paths.ts';
import { WOSAC_COMPONENTS } from '../../simulation/metrics/wosac/config.ts';
import { loadScenarios } from '../../simulation/scenarioSources.ts';
import { runSim } from '../../tools/commands/sim.ts';
import { snakeCase } from '../../tools/cliOptions.ts';
import { RESULT_AGENTS } from '../../tools/report/wosacResults.ts';
import { wosacRow, wosacScores } from '../../tools/report/wosacTable.ts';
import { describeWithSharedData, itWithSharedData } from '../sharedData.ts';

const WOMD = realData('womd', 'motion_data_one_scenario.tfrecord');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'wosac-results-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describeWithSharedData('WOSAC results on the real WOMD scenario', () => {
  itWithSharedData(
    'drivekit sim writes the meta-metric and every component per scenario',
    async () => {
      const out = path.join(tmp, 'cv');
      const summary = await runSim({ scenarios: WOMD, agents: 'cv', out, rollouts: 4, seed: 1, json: true });
      const w = summary.wosac as { meta_metric: number; components: Record<string, number> };
      expect(w.meta_metric).toBeGreaterThan(0);
      expect(w.meta_metric).toBeLessThan(1);
      const file = JSON.parse(fs.readFileSync(path.join(out, 'metrics.json'), 'utf8'));
      expect(file.wosac.rows[0].scenario_id).toBe('637f20cafde22ff8');
      expect(file.wosac.rows[0].scored_agents).toBe(4); // the SDC + 3 tracks_to_predict
      // Component names in snake_case like every JSON key (and Waymo's own metric names).
      expect(Object.keys(file.wosac.rows[0].components).sort()).toEqual(
        WOSAC_COMPONENTS.map(snakeCase).sort(),
      );
    },
    60_000,
  );

  itWithSharedData(
    'replay is below 1 and above every other agent; standing still is below IDM',
    () => {
      const scenarios = loadScenarios(WOMD).map((l) => l.scenario);
      const meta = Object.fromEntries(
        RESULT_AGENTS.map((a) => [a, wosacRow(a, 8, wosacScores(scenarios, a, 8, 0)).metaMetric]),
      );
      expect(meta.replay).toBeLessThan(1);
      for (const a of ['cv', 'idm', 'still']) expect(meta.replay).toBeGreaterThan(meta[a]);
      expect(meta.still).toBeLessThan(meta.idm);
    },
    120_000,
  );
});
