// Every way a scenario reaches the simulator: drivekit scenario files (.json or Arrow directories),
// Waymo Open Motion TFRecords and Argoverse 2 logs (annotation tracks, no map), from a file or a
// directory of them, each validated (errors name the file).
import fs from 'node:fs';
import path from 'node:path';
import { InputError } from '../core/errors.ts';
import { readAv2Tracks } from '../datasets/av2Tracks.ts';
import { readWomdFile } from '../datasets/womd.ts';
import { av2ToScenario } from './import/av2Scenario.ts';
import { womdToScenario } from './import/womdScenario.ts';
import type { Scenario } from './scenario.ts';
import { isScenarioDir, loadScenario, SCENARIO_JSON_PREFIX } from './scenarioIo.ts';
import { validateScenario } from './validateScenario.ts';

export interface LoadedScenario {
  scenario: Scenario;
  /** The file it came from (for error messages and reports). */
  file: string;
}

function isTfRecord(p: string): boolean {
  return /\.tfrecord(-\d+-of-\d+)?$/.test(p) || p.endsWith('.tfrecords');
}

function isAv2Log(p: string): boolean {
  return (
    fs.existsSync(path.join(p, 'annotations.feather')) &&
    fs.existsSync(path.join(p, 'city_SE3_egovehicle.feather'))
  );
}

function loadOne(p: string): LoadedScenario[] {
  if (isTfRecord(p)) {
    return readWomdFile(p).map((w, i) => {
      const s = womdToScenario(w);
      validateScenario(s, `${p} (record ${i})`);
      return { scenario: s, file: p };
    });
  }
  if (fs.statSync(p).isDirectory() && isAv2Log(p)) {
    const s = av2ToScenario(readAv2Tracks(p));
    validateScenario(s, p);
    return [{ scenario: s, file: p }];
  }
  return [{ scenario: loadScenario(p), file: p }];
}

/** True when a .json file is a drivekit scenario (other JSON files in a folder, e.g. meta.json, are not). */
function isScenarioJson(p: string): boolean {
  const fd = fs.openSync(p, 'r');
  try {
    const head = Buffer.alloc(256);
    const n = fs.readSync(fd, head, 0, 256, 0);
    return head.subarray(0, n).toString('utf8').includes(SCENARIO_JSON_PREFIX);
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Scenarios from a path: a scenario file/directory, a WOMD TFRecord, an AV2 log, or a directory whose
 * entries are any of these (sorted by name; other files are ignored, and a scenario id met twice — a
 * synthetic log holds its scenario as both scenario.json and scenario/ — is kept once). Throws
 * InputError when there is none.
 */
export function loadScenarios(input: string): LoadedScenario[] {
  if (!fs.existsSync(input)) throw new InputError(input, 'no such file or directory');
  const stat = fs.statSync(input);
  if (!stat.isDirectory() || isScenarioDir(input) || isAv2Log(input)) return loadOne(input);
  const out: LoadedScenario[] = [];
  for (const name of fs.readdirSync(input).sort()) {
    if (name.startsWith('.')) continue;
    const p = path.join(input, name);
    const dir = fs.statSync(p).isDirectory();
    const json = !dir && name.endsWith('.json') && isScenarioJson(p);
    if (json || isTfRecord(name) || (dir && (isScenarioDir(p) || isAv2Log(p)))) out.push(...loadOne(p));
  }
  if (out.length === 0)
    throw new InputError(
      input,
      'no scenarios here (.json, scenario directories, .tfrecord files or AV2 logs)',
    );
  const seen = new Set<string>();
  return out.filter((l) => !seen.has(l.scenario.id) && seen.add(l.scenario.id));
}
