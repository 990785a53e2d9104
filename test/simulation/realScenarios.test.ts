// Real scenario formats in and GPUDrive JSON out: the shared sample files read with the counts their
// README states; a synthetic town exported as GPUDrive JSON passes GPUDrive's loader schema; import →
// export → import keeps every trajectory and map feature; the step policy fits jittered logs.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { realData } from '../../core/paths.ts';
import { gpudriveLoaderProblems, parseGpudriveJson, readGpudriveJson } from '../../datasets/gpudriveJson.ts';
import { readPickleFile } from '../../datasets/pickle.ts';
import { scenarioToGpudrive } from '../../simulation/export/gpudriveExport.ts';
import { conformStep } from '../../simulation/import/conformStep.ts';
import { gpudriveToScenario } from '../../simulation/import/gpudriveScenario.ts';
import { scenarioNetToScenario } from '../../simulation/import/scenarionetScenario.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { loadScenarios, loadScenariosAsync } from '../../simulation/scenarioSources.ts';
import { generateTown } from '../../simulation/town/town.ts';
import { describeWithSharedData } from '../sharedData.ts';
import { straightRoadScenario } from './fixtures.ts';

const MOTION = realData('motion');

/** Largest gap between two scenarios' valid states (metres), and whether validity matches. */
function trajectoryGap(a: Scenario, b: Scenario): number {
  expect(b.numSteps).toBe(a.numSteps);
  expect(Array.from(b.agents.ids)).toEqual(Array.from(a.agents.ids));
  expect(Array.from(b.agents.valid)).toEqual(Array.from(a.agents.valid));
  let worst = 0;
  for (let k = 0; k < a.agents.valid.length; k++)
    if (a.agents.valid[k])
      worst = Math.max(
        worst,
        Math.hypot(a.agents.x[k] - b.agents.x[k], a.agents.y[k] - b.agents.y[k]),
        Math.abs(a.agents.z[k] - b.agents.z[k]),
      );
  return worst;
}

/** Every map feature of the kinds GPUDrive JSON carries, as (kind, type, points) for comparison. */
function features(s: Scenario): [string, string, number[]][] {
  const f = (kind: string, list: { xy: Float32Array; type?: string }[] | undefined) =>
    (list ?? []).map((x): [string, string, number[]] => [kind, x.type ?? '', Array.from(x.xy)]);
  return [
    ...s.map.lanes.map((l): [string, string, number[]] => ['lane', l.laneType ?? '', Array.from(l.xy)]),
    ...f('road_line', s.map.roadLines),
    ...f('road_edge', s.map.roadEdges),
    ...f('crosswalk', s.map.crosswalks),
    ...f('speed_bump', s.map.speedBumps),
    ...f('driveway', s.map.driveways),
    ...(s.map.stopSigns ?? []).map((g): [string, string, number[]] => ['stop_sign', '', [g.x, g.y]]),
  ];
}

describe('GPUDrive export', () => {
  it('writes a synthetic town that passes the GPUDrive loader schema, at its own length and 10 Hz', () => {
    const town = generateTown({ seed: 3 }, 91).scenario;
    const doc = scenarioToGpudrive(town);
    expect(gpudriveLoaderProblems(doc, 91)).toEqual([]);
    const objects = doc.objects as { position: unknown[]; valid: boolean[] }[];
    expect(objects.length).toBe(town.agents.ids.length);
    expect(objects.every((o) => o.position.length === 91)).toBe(true);
    // The checker is not a rubber stamp: it names what a loader would trip on.
    const broken = JSON.parse(JSON.stringify(doc)) as Record<string, unknown>;
    delete (broken.objects as Record<string, unknown>[])[0].height;
    (broken.roads as Record<string, unknown>[])[0].type = 'parking_lot';
    delete broken.scenario_id;
    expect(gpudriveLoaderProblems(broken, 91)).toEqual([
      'scenario_id: missing or not a string',
      'objects[0].height: not a number',
      "roads[0].type: 'parking_lot' is not a GPUDrive road type",
    ]);
    expect(gpudriveLoaderProblems(doc, 80)[0]).toMatch(/expected 80/);
  });

  it('round-trips a town: export → import keeps trajectories (≤ 1e-3 m) and map features', () => {
    const town = generateTown({ seed: 5 }, 40).scenario;
    const back = gpudriveToScenario(
      parseGpudriveJson(JSON.parse(JSON.stringify(scenarioToGpudrive(town))), 't'),
      't',
    );
    expect(trajectoryGap(town, back)).toBeLessThanOrEqual(1e-3);
    expect(back.map.lanes.map((l) => Array.from(l.xy))).toEqual(town.map.lanes.map((l) => Array.from(l.xy)));
    expect(back.map.roadEdges.length).toBe(town.map.roadEdges.length);
  });
});

describe('step policy', () => {
  it('takes a jittered 10 Hz step as 0.1 s and resamples a 2 Hz one, saying so', () => {
    const s = straightRoadScenario();
    const jitter = conformStep({ ...s, id: 'ee519cf571686d19', dtS: 0.100244 });
    expect(jitter.scenario.dtS).toBe(0.1);
    expect(jitter.note).toBe('scenario ee519cf571686d19: dt 0.100244 s taken as 0.1 s (within 1 %)');
    const slow = conformStep({ ...s, dtS: 0.5 });
    expect(slow.scenario.dtS).toBe(0.1);
    expect(slow.scenario.numSteps).toBe((s.numSteps - 1) * 5 + 1);
    expect(slow.note).toMatch(/resampled to 0.1 s/);
    // Positions between logged steps lie on the line between them.
    const a = s.agents;
    const r = slow.scenario.agents;
    const U = slow.scenario.numSteps;
    if (a.valid[0] && a.valid[1]) expect(r.x[2]).toBeCloseTo(a.x[0] + 0.4 * (a.x[1] - a.x[0]), 4);
    expect(r.valid.length).toBe(a.ids.length * U);
  });
});

describeWithSharedData('real scenario formats', () => {
  it('reads the GPUDrive and Nocturne JSON files with the README figures', () => {
    const g = readGpudriveJson(path.join(MOTION, 'womd-json', 'gpudrive_tfrecord-00000-of-01000_4.json'));
    expect(g.scenarioId).toBe('db4edc9bd0c9d18c');
    expect([g.objects.length, g.roads.length, g.numSteps]).toEqual([81, 102, 91]);
    const s = gpudriveToScenario(g, 'x');
    expect(s.egoIndex).toBe(80);
    expect(s.tracksToPredict?.length).toBe(7);
    const n = readGpudriveJson(path.join(MOTION, 'womd-json', 'nocturne_example_scenario.json'));
    expect([n.objects.length, n.roads.length, n.headingsInDegrees]).toEqual([45, 134, true]);
    const ns = gpudriveToScenario(n, 'x');
    for (let k = 0; k < ns.agents.yaw.length; k++)
      expect(Math.abs(ns.agents.yaw[k])).toBeLessThanOrEqual(Math.PI + 1e-6);
  });

  it('round-trips a real GPUDrive file: import → export → import keeps trajectories and features', () => {
    const file = path.join(MOTION, 'womd-json', 'gpudrive_tfrecord-00002-of-01000_407.json');
    const a = gpudriveToScenario(readGpudriveJson(file), 'a');
    const doc = scenarioToGpudrive(a);
    expect(gpudriveLoaderProblems(doc, 91)).toEqual([]);
    const b = gpudriveToScenario(parseGpudriveJson(JSON.parse(JSON.stringify(doc)), 'b'), 'b');
    expect(trajectoryGap(a, b)).toBeLessThanOrEqual(1e-3);
    expect(features(b)).toEqual(features(a));
    expect(Array.from(b.agents.markAsExpert!)).toEqual(Array.from(a.agents.markAsExpert!));
  });

  it('reads a ScenarioNet nuScenes pickle: lanes, road lines, lane polygons as the drivable area, no road edges', () => {
    const s = scenarioNetToScenario(
      readPickleFile(path.join(MOTION, 'scenarionet', 'nuscenes_2', '0.pkl')),
      '0.pkl',
    );
    expect(s.source).toBe('scenarionet:nuscenes');
    expect(s.numSteps).toBe(201);
    expect(s.map.lanes.length).toBeGreaterThan(0);
    expect(s.map.roadEdges.length).toBe(0);
    expect(s.map.drivableAreas.length).toBe(s.map.lanes.length);
    expect(s.egoIndex).toBeGreaterThanOrEqual(0);
  });

  it('reads the ScenarioNet WOMD scenario with road edges and 14 traffic-light series', () => {
    const s = scenarioNetToScenario(
      readPickleFile(path.join(MOTION, 'scenarionet', 'overpass', 'sd_waymo_v1.2_eb4b91b10ca94ff2.pkl')),
      'o',
    );
    expect([s.id, s.agents.ids.length, s.map.trafficLights.length]).toEqual(['eb4b91b10ca94ff2', 45, 14]);
    expect(s.map.roadEdges.length).toBeGreaterThan(0);
  });

  it('reads the AV2 motion scenario: 110 steps at 0.1 s, the AV as ego, lanes with links, crossings', async () => {
    const [l] = await loadScenariosAsync(path.join(MOTION, 'av2-motion'));
    const s = l.scenario;
    expect([s.numSteps, s.dtS, s.currentStep]).toEqual([110, 0.1, 49]);
    expect(s.map.lanes.length).toBe(71);
    expect(s.map.crosswalks.length).toBe(6);
    expect(s.map.drivableAreas.length).toBe(2);
    expect(s.map.lanes.some((ln) => ln.successors.length > 0)).toBe(true);
    expect(s.tracksToPredict!.length).toBeGreaterThan(0);
  });

  it('follows a ScenarioNet dataset_mapping.pkl into the folders it names, and names it when one is missing', () => {
    const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'sn-'));
    try {
      fs.mkdirSync(path.join(dir, 'combined'));
      fs.mkdirSync(path.join(dir, 'part'));
      fs.copyFileSync(
        path.join(MOTION, 'scenarionet', 'nuscenes_2', '0.pkl'),
        path.join(dir, 'part', '0.pkl'),
      );
      // {'0.pkl': '../part'} as pickle protocol 4.
      const s = (t: string) => [0x8c, t.length, ...Buffer.from(t)];
      const mapping = (file: string) =>
        Uint8Array.from([0x80, 4, 0x7d, ...s(file), ...s('../part'), 0x73, 0x2e]);
      fs.writeFileSync(path.join(dir, 'combined', 'dataset_mapping.pkl'), mapping('0.pkl'));
      expect(loadScenarios(path.join(dir, 'combined')).map((l) => l.scenario.id)).toEqual(['scene-0757']);
      fs.writeFileSync(path.join(dir, 'combined', 'dataset_mapping.pkl'), mapping('9.pkl'));
      expect(() => loadScenarios(path.join(dir, 'combined'))).toThrow(
        `${path.join(dir, 'combined', 'dataset_mapping.pkl')}: lists 9.pkl in '../part', which does not exist`,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('names the file and refuses anything else on --scenarios', async () => {
    const dir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'real-'));
    try {
      const bad = path.join(dir, 'scene.parquet');
      fs.writeFileSync(bad, 'PAR1');
      await expect(loadScenariosAsync(bad)).rejects.toThrow(`${bad}: unknown scenario format`);
      // A pickle that is valid but no scenario description, and an AV2 folder whose map is cut short.
      const notScene = path.join(dir, 'list.pkl');
      fs.writeFileSync(notScene, Uint8Array.from([0x80, 4, 0x5d, 0x2e]));
      await expect(loadScenariosAsync(notScene)).rejects.toThrow(
        `${notScene}: ScenarioNet: the scenario is not a dict`,
      );
      const av2 = path.join(dir, 'av2');
      fs.mkdirSync(av2);
      const src = path.join(MOTION, 'av2-motion', '0a1e6f0a-1817-4a98-b02e-db8c9327d151');
      fs.copyFileSync(
        path.join(src, 'scenario_0a1e6f0a-1817-4a98-b02e-db8c9327d151.parquet'),
        path.join(av2, 'scenario_x.parquet'),
      );
      const map = path.join(av2, 'log_map_archive_x.json');
      fs.writeFileSync(map, '{"lane_segments": {"1": {"id": 1, "centerline": [{"x": 1}]');
      await expect(loadScenariosAsync(av2)).rejects.toThrow(`${map}: invalid JSON`);
      fs.writeFileSync(map, '{"lane_segments": {"1": {"id": 1, "centerline": [{"x": 1}]}}}');
      await expect(loadScenariosAsync(av2)).rejects.toThrow(
        `${map}: AV2 map: lane_segments['1'].centerline[0] is not an {x, y, z} point`,
      );
      const js = path.join(dir, 'broken.json');
      fs.writeFileSync(js, '{"objects": [{"position": [');
      await expect(loadScenariosAsync(js)).rejects.toThrow(`${js}: invalid JSON`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
