// Scenario files: the fixture scenario round-trips through JSON and Arrow unchanged; bad files, scenarios
// without valid agents, non-finite states and dangling lane references fail naming the file and the problem.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../core/errors.ts';
import { loadScenario, saveScenario } from '../../simulation/scenarioIo.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { straightRoadScenario } from './fixtures.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'scenario-io-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function expectSameScenario(a: Scenario, b: Scenario): void {
  expect(b.id).toBe(a.id);
  expect(b.source).toBe(a.source);
  expect(b.numSteps).toBe(a.numSteps);
  expect(b.currentStep).toBe(a.currentStep);
  expect(b.dtS).toBeCloseTo(a.dtS, 12);
  expect(b.egoIndex).toBe(a.egoIndex);
  expect(Array.from(b.agents.ids)).toEqual(Array.from(a.agents.ids));
  expect(b.agents.types).toEqual(a.agents.types);
  for (const k of ['x', 'y', 'z', 'yaw', 'vx', 'vy', 'valid', 'length', 'width', 'height'] as const)
    expect(Array.from(b.agents[k])).toEqual(Array.from(a.agents[k]));
  expect(Array.from(b.controlled)).toEqual(Array.from(a.controlled));
  expect(Array.from(b.goalX)).toEqual(Array.from(a.goalX));
  expect(b.routes).toEqual(a.routes);
  expect(b.map.lanes.map((l) => ({ ...l, xy: Array.from(l.xy) }))).toEqual(
    a.map.lanes.map((l) => ({ ...l, xy: Array.from(l.xy) })),
  );
  for (const k of ['roadEdges', 'drivableAreas', 'crosswalks', 'sidewalks', 'stopLines'] as const)
    expect(b.map[k].map((f) => ({ ...f, xy: Array.from(f.xy) }))).toEqual(
      a.map[k].map((f) => ({ ...f, xy: Array.from(f.xy) })),
    );
  expect(b.map.trafficLights.map((l) => ({ ...l, states: Array.from(l.states) }))).toEqual(
    a.map.trafficLights.map((l) => ({ ...l, states: Array.from(l.states) })),
  );
}

describe('scenario I/O', () => {
  const s = straightRoadScenario();
  s.agents.valid[5] = 0; // a gap in a track
  s.agents.x[5] = NaN; // invalid states may hold anything

  it('round-trips through JSON', () => {
    const file = path.join(tmp, 'road.json');
    saveScenario(s, file);
    expectSameScenario(s, loadScenario(file));
  });

  it('round-trips through Arrow tables', () => {
    const dir = path.join(tmp, 'road.scenario');
    saveScenario(s, dir);
    expect(fs.readdirSync(dir).sort()).toEqual([
      'agent_info.arrow',
      'agents.arrow',
      'lane_links.arrow',
      'lanes.arrow',
      'map_features.arrow',
      'traffic_lights.arrow',
    ]);
    expectSameScenario(s, loadScenario(dir));
    saveScenario(s, dir); // overwriting an existing scenario directory works
    expectSameScenario(s, loadScenario(dir));
  });

  it('reads drivekit.scenario/1 documents (id, ego_index, agent rows, 0/1 validity, light codes, camelCase spans)', () => {
    const s = straightRoadScenario({ numAgents: 3, numSteps: 5 });
    s.tracksToPredict = Int32Array.of(2);
    s.map.lanes[0].leftBoundaries = [
      { laneStartIndex: 0, laneEndIndex: 2, featureId: 11, type: 'solid_single_white' },
    ];
    s.map.lanes[0].rightBoundaries = [];
    const file = path.join(tmp, 'v1.json');
    saveScenario(s, file);
    // Rewrite the /2 document as /1 wrote it.
    const d = JSON.parse(fs.readFileSync(file, 'utf8'));
    const v1 = {
      ...d,
      format: 'drivekit.scenario/1',
      id: d.scenario_id,
      ego_index: 0,
      tracks_to_predict: [2],
      agents: d.agents.map((a: Record<string, unknown>) => ({
        ...a,
        id: a.agent_id,
        valid: (a.valid as boolean[]).map((v) => (v ? 1 : 0)),
      })),
      map: {
        ...d.map,
        lanes: d.map.lanes.map((l: Record<string, unknown>, i: number) =>
          i === 0 ? { ...l, left_boundaries: s.map.lanes[0].leftBoundaries, right_boundaries: [] } : l,
        ),
        traffic_lights: d.map.traffic_lights.map((l: { states: string[] }) => ({
          ...l,
          states: l.states.map((n) => ['unknown', 'red', 'yellow', 'green'].indexOf(n)),
        })),
      },
    };
    for (const k of ['scenario_id', 'sdc_agent_id']) delete v1[k];
    v1.agents.forEach((a: Record<string, unknown>) => delete a.agent_id);
    fs.writeFileSync(file, JSON.stringify(v1));
    const back = loadScenario(file);
    expectSameScenario(s, back);
    expect(Array.from(back.tracksToPredict!)).toEqual([2]);
    expect(back.map.lanes[0].leftBoundaries).toEqual(s.map.lanes[0].leftBoundaries);
    expect(Array.from(back.map.trafficLights[0].states)).toEqual(Array.from(s.map.trafficLights[0].states));
  });

  it('names the file and the problem on bad input', () => {
    const bad = path.join(tmp, 'bad.json');
    fs.writeFileSync(bad, '{"format":"drivekit.scenario/1","num_steps":3,"agents":[{"id":1}]}');
    expect(() => loadScenario(bad)).toThrow(InputError);
    expect(() => loadScenario(bad)).toThrow(`${bad}: agents[0].length is not a number`);
    fs.writeFileSync(bad, '{not json');
    expect(() => loadScenario(bad)).toThrow(/bad\.json: not valid JSON/);
    const dir = path.join(tmp, 'broken.scenario');
    saveScenario(s, dir);
    fs.writeFileSync(path.join(dir, 'lanes.arrow'), 'garbage');
    expect(() => loadScenario(dir)).toThrow(/lanes\.arrow: not an Arrow IPC file/);
  });

  it('refuses a scenario with no valid agent and counts non-finite valid states', () => {
    const empty = straightRoadScenario();
    empty.agents.valid.fill(0);
    const file = path.join(tmp, 'empty.json');
    saveScenario(empty, file); // saving is allowed (a map-only scenario), simulating it is not
    expect(() => loadScenario(file)).toThrow(/no agent is valid at any step/);
    const nan = straightRoadScenario();
    nan.agents.x[3] = NaN;
    const f2 = path.join(tmp, 'nan.json');
    saveScenario(nan, f2);
    const report = { invalidatedStates: 0 };
    const back = loadScenario(f2, report);
    expect(report.invalidatedStates).toBe(1);
    expect(back.agents.valid[3]).toBe(0);
  });

  it('refuses dangling lane references', () => {
    const s2 = straightRoadScenario();
    s2.map.lanes[0].successors.push(99);
    expect(() => saveScenario(s2, path.join(tmp, 'dangling.json'))).toThrow(
      /lane 1 successor refers to missing lane 99/,
    );
  });
});
