// The learned-agents evaluation table on fixture roads: replay reproduces the log (ADE 0, progress 1, no
// infractions) and out-scores a broken stand-still agent on the WOSAC meta-metric; the long-tail set is
// built from the held-out seed and its markdown leaves ADE/FDE out.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SHIPPED_AGENT_MODEL } from '../../../simulation/agents/learned.ts';
import { controlAllPresent } from '../../../simulation/training/evaluate.ts';
import {
  agentRow,
  FOLDS_AGENT_PREFIX,
  longtailSet,
  markdownAgentsTable,
  realSourceSets,
} from '../../../tools/report/agentsTable.ts';
import { prepareRealMotion, readRealFolds } from '../../../tools/report/realFolds.ts';
import { realData } from '../../../core/paths.ts';
import { straightRoadScenario } from '../../simulation/fixtures.ts';

describe('agents table', () => {
  const set = {
    name: 'road',
    scenarios: controlAllPresent([straightRoadScenario({ numAgents: 4, numSteps: 31, spacingM: 25 })]),
  };

  it('replay reproduces the log and scores above standing still', () => {
    const replay = agentRow('replay', 'replay', set, 2, 0);
    const still = agentRow('still', 'still', set, 2, 0);
    expect(replay.ade_m).toBe(0);
    expect(replay.progress).toBeCloseTo(1, 6);
    expect(replay.collision_rate).toBe(0);
    expect(still.ade_m).toBeGreaterThan(1);
    expect(replay.wosac_meta_metric).toBeGreaterThan(still.wosac_meta_metric);
  }, 60_000);

  it('long-tail rows have no ADE column values', () => {
    const lt = longtailSet(1);
    expect(lt.scenarios.length).toBeGreaterThan(3);
    const row = agentRow('replay', 'replay', { ...lt, scenarios: lt.scenarios.slice(0, 1) }, 1, 0);
    const md = markdownAgentsTable({ name: lt.name, scenarios: 1, nominal: false, rows: [row] });
    expect(md.split('\n')[2]).toMatch(/\| – \| – \|/);
  }, 60_000);

  it('a fold row scores each scenario with a model that did not train on it and leaves out the rest', () => {
    const inA = readRealFolds().folds.A[0].id;
    const two = { name: 'two', scenarios: [set.scenarios[0], { ...set.scenarios[0], id: inA }] };
    const meta = path.join(os.tmpdir(), `fold-model-${process.pid}.json`);
    const shippedMeta = JSON.parse(fs.readFileSync(SHIPPED_AGENT_MODEL.replace(/\.onnx$/, '.json'), 'utf8'));
    fs.writeFileSync(
      meta,
      JSON.stringify({
        settings: shippedMeta.settings,
        realFolds: { models: [{ onnx: SHIPPED_AGENT_MODEL, trainedOn: 'A' }] },
      }),
    );
    const row = agentRow('held out', `${FOLDS_AGENT_PREFIX}${meta}`, two, 1, 0);
    expect(row.scenarios).toBe(1);
    expect(row.agent).toBe('held out (1 of 2)');
    expect(row.per_scenario.map((p) => p.id)).toEqual([set.scenarios[0].id]);
    // The same model as a plain row scores both.
    expect(agentRow('all', SHIPPED_AGENT_MODEL, two, 1, 0).scenarios).toBe(2);
  }, 60_000);

  it.skipIf(!fs.existsSync(realData('motion')))(
    'restricts the per-source real sets to one fold, and refuses a fold that does not exist',
    async () => {
      await prepareRealMotion();
      const folds = readRealFolds();
      for (const fold of ['A', 'B']) {
        const ids = realSourceSets(fold).flatMap((set) => set.scenarios.map((s) => s.id));
        expect(ids.sort()).toEqual(folds.folds[fold].map((e) => e.id).sort());
      }
      expect(() => realSourceSets('C')).toThrow(/no fold 'C'/);
    },
    60_000,
  );
});
