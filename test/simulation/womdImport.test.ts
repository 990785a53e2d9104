// WOMD → Scenario on the real one-scenario file: every track and 91 steps, moving logged vehicles on the
// road (the road-edge sign convention), and an export to TFRecord that re-imports to the same scenario.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { realData } from '../../core/paths.ts';
import { describeWithSharedData } from '../sharedData.ts';
import { readWomdFile, writeWomdFile } from '../../datasets/womd.ts';
import { scenarioToWomd, womdToScenario } from '../../simulation/import/womdScenario.ts';
import { boxRoadDistance } from '../../simulation/map/drivableField.ts';
import { mapIndex } from '../../simulation/map/mapIndex.ts';
import { LIGHT } from '../../simulation/scenario.ts';
import { validateScenario } from '../../simulation/validateScenario.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'womd-import-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

// Read inside the suite, so that without the sample data nothing is read at all.
describeWithSharedData('WOMD → Scenario', () => {
  const s = womdToScenario(readWomdFile(realData('womd', 'motion_data_one_scenario.tfrecord'))[0]);

  it('imports the real scenario with every track and 91 steps', () => {
    validateScenario(s, 'womd');
    expect(s.numSteps).toBe(91);
    expect(s.dtS).toBeCloseTo(0.1, 6);
    expect(s.currentStep).toBe(10);
    expect(s.agents.ids.length).toBe(83);
    expect(s.agents.types.filter((t) => t === 'vehicle').length).toBe(70);
    expect(s.agents.types.filter((t) => t === 'pedestrian').length).toBe(10);
    expect(s.agents.types.filter((t) => t === 'cyclist').length).toBe(3);
    expect(s.egoIndex).toBe(82);
    // Controlled = valid at the current step (the Sim Agents convention).
    const T = s.numSteps;
    for (let a = 0; a < 83; a++) expect(s.controlled[a]).toBe(s.agents.valid[a * T + 10]);
    expect(s.map.lanes.length).toBe(199);
    expect(s.map.trafficLights.length).toBeGreaterThan(0);
    expect(s.map.trafficLights.some((l) => l.states.includes(LIGHT.red))).toBe(true);
  });

  it('puts moving logged vehicles on the road (road-edge sign convention)', () => {
    const m = mapIndex(s.map);
    const T = s.numSteps;
    let moving = 0;
    let off = 0;
    for (let a = 0; a < s.agents.ids.length; a++) {
      const k = a * T + s.currentStep;
      if (s.agents.types[a] !== 'vehicle' || !s.agents.valid[k]) continue;
      if (Math.hypot(s.agents.vx[k], s.agents.vy[k]) < 3) continue;
      moving++;
      if (
        boxRoadDistance(
          m.field,
          s.agents.x[k],
          s.agents.y[k],
          s.agents.yaw[k],
          s.agents.length[a],
          s.agents.width[a],
        ) > 0.3
      )
        off++;
    }
    expect(moving).toBeGreaterThan(5);
    expect(off).toBe(0);
  });

  it('exports to a WOMD TFRecord that re-imports to the same scenario', () => {
    const file = path.join(tmp, 'out.tfrecord');
    writeWomdFile(file, [scenarioToWomd(s)]);
    const back = womdToScenario(readWomdFile(file)[0]);
    expect(back.id).toBe(s.id);
    expect(back.numSteps).toBe(s.numSteps);
    expect(back.egoIndex).toBe(s.egoIndex);
    for (const k of ['ids', 'x', 'y', 'z', 'yaw', 'vx', 'vy', 'valid', 'length', 'width', 'height'] as const)
      expect(Array.from(back.agents[k])).toEqual(Array.from(s.agents[k]));
    expect(back.agents.types).toEqual(s.agents.types);
    expect(Array.from(back.controlled)).toEqual(Array.from(s.controlled));
    expect(
      back.map.lanes.map((l) => [
        l.id,
        l.successors,
        l.predecessors,
        l.leftNeighbors,
        l.rightNeighbors,
        l.widthM,
        l.inIntersection,
      ]),
    ).toEqual(
      s.map.lanes.map((l) => [
        l.id,
        l.successors,
        l.predecessors,
        l.leftNeighbors,
        l.rightNeighbors,
        l.widthM,
        l.inIntersection,
      ]),
    );
    back.map.lanes.forEach((l, i) => {
      expect(Array.from(l.xy)).toEqual(Array.from(s.map.lanes[i].xy));
      expect(l.speedLimitMps).toBeCloseTo(s.map.lanes[i].speedLimitMps, 9);
    });
    expect(back.map.roadEdges.map((e) => Array.from(e.xy))).toEqual(
      s.map.roadEdges.map((e) => Array.from(e.xy)),
    );
    expect(back.map.crosswalks.map((e) => Array.from(e.xy))).toEqual(
      s.map.crosswalks.map((e) => Array.from(e.xy)),
    );
    expect(back.map.trafficLights.map((l) => [l.laneId, Array.from(l.states)])).toEqual(
      s.map.trafficLights.map((l) => [l.laneId, Array.from(l.states)]),
    );
    expect(back.map.stopLines.map((l) => [l.id, l.laneId])).toEqual(
      s.map.stopLines.map((l) => [l.id, l.laneId]),
    );
    back.map.stopLines.forEach((l, i) =>
      l.xy.forEach((v, k) => expect(v).toBeCloseTo(s.map.stopLines[i].xy[k], 3)),
    );
  });
});
