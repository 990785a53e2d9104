// The learned-agents evaluation table on fixture roads: replay reproduces the log (ADE 0, progress 1, no
// infractions) and out-scores a broken stand-still agent on the WOSAC meta-metric; the long-tail set is
// built from the held-out seed and its markdown leaves ADE/FDE out.
import { describe, expect, it } from 'vitest';
import { controlAllPresent } from '../../../simulation/training/evaluate.ts';
import { agentRow, longtailSet, markdownAgentsTable } from '../../../tools/report/agentsTable.ts';
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
});
