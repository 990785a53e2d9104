// `drivekit sim/export --scenarios` on real formats: a hostile ScenarioNet pickle, a malformed GPUDrive
// JSON and a broken AV2 motion Parquet each fail with one line naming the file, exit 1 and write
// nothing; `export --format gpudrive` of a town scenario writes files that pass the loader schema.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../core/paths.ts';
import { gpudriveLoaderProblems } from '../../datasets/gpudriveJson.ts';
import { saveScenario } from '../../simulation/scenarioIo.ts';
import { generateTown } from '../../simulation/town/town.ts';
import { runExport } from '../../tools/commands/export.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'real-cli-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

function drivekit(...args: string[]) {
  return spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'drivekit.js'), ...args], {
    encoding: 'utf8',
  });
}

/** A protocol-4 pickle that calls os.system (what a malicious scenario file would do). */
function hostilePickle(): Uint8Array {
  const s = (t: string) => [0x8c, t.length, ...Buffer.from(t)];
  return Uint8Array.from([
    0x80,
    4,
    ...s('posix'),
    ...s('system'),
    0x93,
    ...s('touch pwned'),
    0x85,
    0x52,
    0x2e,
  ]);
}

describe('real scenario formats on the command line', () => {
  it('refuses a hostile pickle, a malformed GPUDrive JSON and a broken AV2 Parquet: one line, exit 1, nothing written', () => {
    const pkl = path.join(tmp, 'sn', 'sd_evil.pkl');
    fs.mkdirSync(path.dirname(pkl));
    fs.writeFileSync(pkl, hostilePickle());
    const json = path.join(tmp, 'bad.json');
    fs.writeFileSync(
      json,
      JSON.stringify({ name: 'x', objects: [{ position: [{ x: 1, y: 'two' }] }], roads: [] }),
    );
    const av2 = path.join(tmp, 'av2');
    fs.mkdirSync(av2);
    fs.writeFileSync(path.join(av2, 'scenario_x.parquet'), 'PAR1 not really');
    fs.writeFileSync(path.join(av2, 'log_map_archive_x.json'), '{"lane_segments": {}}');
    const cases: [string[], RegExp, string][] = [
      [
        ['sim', '--scenarios', path.dirname(pkl), '--agents', 'replay'],
        /sd_evil\.pkl: pickle: refused global 'posix\.system'/,
        'o1',
      ],
      [
        ['export', '--scenarios', json, '--format', 'gpudrive'],
        /bad\.json: objects\[0\]\.heading is missing or not a list$/,
        'o2',
      ],
      [
        ['sim', '--scenarios', av2, '--agents', 'replay'],
        /scenario_x\.parquet: not a readable Parquet file/,
        'o3',
      ],
    ];
    for (const [args, message, outName] of cases) {
      const out = path.join(tmp, outName);
      const p = drivekit(...args, '--out', out);
      expect(p.status).toBe(1);
      expect(p.stderr.trim().split('\n')).toHaveLength(1);
      expect(p.stderr.trim()).toMatch(message);
      expect(fs.existsSync(out)).toBe(false);
    }
    expect(fs.existsSync(path.join(REPO_ROOT, 'pwned'))).toBe(false);
  });

  it('exports a synthetic town scenario as GPUDrive JSON that passes the loader schema', async () => {
    const town = generateTown({ seed: 11 }, 91).scenario;
    const file = path.join(tmp, 'town.json');
    saveScenario(town, file);
    const out = path.join(tmp, 'gpudrive');
    const r = await runExport({ scenarios: file, format: 'gpudrive', out, json: true });
    expect(r.files).toHaveLength(1);
    const doc = JSON.parse(fs.readFileSync(r.files[0], 'utf8'));
    expect(gpudriveLoaderProblems(doc, 91)).toEqual([]);
    expect(doc.scenario_id).toBe(town.id);
  });
});
