// Scenario sources: a log folder holding its scenario as both JSON and Arrow yields it once (other JSON
// ignored), and a folder without one fails naming the folder.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { saveScenario } from '../../simulation/scenarioIo.ts';
import { loadScenarios } from '../../simulation/scenarioSources.ts';
import { straightRoadScenario } from './fixtures.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sources-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('scenario sources', () => {
  it('reads a log folder holding its scenario as JSON and Arrow once, ignoring other JSON', () => {
    const dir = path.join(tmp, 'log');
    const s = straightRoadScenario();
    saveScenario(s, path.join(dir, 'scenario.json'));
    saveScenario(s, path.join(dir, 'scenario'));
    fs.writeFileSync(path.join(dir, 'meta.json'), '{"format":"drivekit-log/1"}');
    const loaded = loadScenarios(dir);
    expect(loaded.map((l) => l.scenario.id)).toEqual(['straight-road']);
  });

  it('names the folder when it holds no scenario', () => {
    const empty = path.join(tmp, 'empty');
    fs.mkdirSync(empty);
    fs.writeFileSync(path.join(empty, 'notes.txt'), 'x');
    expect(() => loadScenarios(empty)).toThrow(`${empty}: no scenarios here`);
  });
});
