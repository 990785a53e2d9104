// The agents the Sim Agents challenge scores on the real WOMD scenario: tracks_to_predict and the SDC
// as the file names them, kept through scenario save/load (JSON and Arrow) and the WOMD export.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, expect } from 'vitest';
import { realData } from '../../core/paths.ts';
import { decodeWomdScenario, encodeWomdScenario, readWomdFile } from '../../datasets/womd.ts';
import { scenarioToWomd, womdToScenario } from '../../simulation/import/womdScenario.ts';
import { loadScenario, saveScenario } from '../../simulation/scenarioIo.ts';
import { describeWithSharedData, itWithSharedData } from '../sharedData.ts';

const WOMD = realData('womd', 'motion_data_one_scenario.tfrecord');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'womd-scored-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describeWithSharedData('WOMD scored agents', () => {
  const [w] = readWomdFile(WOMD);
  const s = womdToScenario(w);
  const validNow = (sc: typeof s) =>
    Array.from(sc.agents.ids).filter((_, a) => sc.agents.valid[a * sc.numSteps + sc.currentStep]).length;

  itWithSharedData('imports tracks_to_predict and the SDC as the file names them', () => {
    expect(s.agents.ids.length).toBe(w.tracks.length);
    expect(validNow(s)).toBe(50);
    expect(Array.from(s.tracksToPredict ?? [])).toEqual(w.tracksToPredict.map((r) => r.trackIndex));
    expect(s.tracksToPredict?.length).toBe(3);
    expect(s.egoIndex).toBe(w.sdcTrackIndex);
    // Every scored agent is simulated: valid at the current step.
    for (const r of [s.egoIndex, ...(s.tracksToPredict ?? [])])
      expect(s.agents.valid[r * s.numSteps + s.currentStep]).toBe(1);
  });

  itWithSharedData('keeps them through save/load (JSON and Arrow) and the WOMD export', () => {
    const rows = Array.from(s.tracksToPredict ?? []);
    for (const target of [path.join(tmp, 's.json'), path.join(tmp, 'dir')]) {
      saveScenario(s, target);
      const back = loadScenario(target);
      expect(Array.from(back.tracksToPredict ?? [])).toEqual(rows);
      expect(back.egoIndex).toBe(s.egoIndex);
    }
    const again = womdToScenario(decodeWomdScenario(encodeWomdScenario(scenarioToWomd(s)), 'export'));
    expect(Array.from(again.tracksToPredict ?? [])).toEqual(rows);
    expect(again.egoIndex).toBe(s.egoIndex);
    expect(validNow(again)).toBe(50);
  });

  itWithSharedData('a row outside the agents is refused, naming the file', () => {
    const bad = { ...s, tracksToPredict: Int32Array.of(0, 999) };
    const file = path.join(tmp, 'bad.json');
    expect(() => saveScenario(bad, file)).toThrow(/bad\.json.*tracks_to_predict row 999 is outside/);
  });
});
