// Every way a scenario reaches the simulator: drivekit scenario files (.json or Arrow directories),
// Waymo Open Motion TFRecords, GPUDrive/Nocturne JSON, ScenarioNet pickles, AV2 motion-forecasting
// scenarios and AV2 sensor logs, from a file or a directory of them, each validated (errors name the
// file); every scenario's step is brought to the batch's 10 Hz (within a tolerance, or resampled).
import fs from 'node:fs';
import path from 'node:path';
import { InputError } from '../core/errors.ts';
import { av2MotionFiles, readAv2Motion, type Av2MotionScenario } from '../datasets/av2Motion.ts';
import { readAv2Tracks } from '../datasets/av2Tracks.ts';
import { looksLikeGpudriveJson, readGpudriveJson } from '../datasets/gpudriveJson.ts';
import { readPickleFile } from '../datasets/pickle.ts';
import { readWomdFile } from '../datasets/womd.ts';
import { av2MotionToScenario } from './import/av2MotionScenario.ts';
import { av2ToScenario } from './import/av2Scenario.ts';
import { gpudriveToScenario } from './import/gpudriveScenario.ts';
import { scenarioNetToScenario } from './import/scenarionetScenario.ts';
import { womdToScenario } from './import/womdScenario.ts';
import { conformStep, DEFAULT_STEP_POLICY } from './import/conformStep.ts';
import type { Scenario } from './scenario.ts';
import { isScenarioDir, loadScenario, SCENARIO_JSON_PREFIX } from './scenarioIo.ts';
import { validateScenario } from './validateScenario.ts';

export interface LoadedScenario {
  scenario: Scenario;
  /** The file it came from (for error messages and reports). */
  file: string;
  /** What was done to fit the scenario to the batch's step (e.g. "dt 0.100244 s taken as 0.1 s"). */
  note?: string;
}

/** The formats recognised, for the one-line error on anything else. */
export const SCENARIO_FORMATS =
  'drivekit scenario (.json or Arrow directory), WOMD .tfrecord, GPUDrive/Nocturne .json, ScenarioNet .pkl or folder, AV2 motion-forecasting folder, AV2 sensor log';

// AV2 motion scenarios are Parquet, which is read asynchronously: prepareScenarioSources reads them
// ahead into this cache, keyed by absolute directory, so loadScenarios can stay synchronous.
const av2MotionCache = new Map<string, Av2MotionScenario>();

/** ScenarioNet bookkeeping pickles (not scenarios). */
const SCENARIONET_INDEX = new Set(['dataset_summary.pkl', 'dataset_mapping.pkl']);

const isPickle = (p: string) => p.endsWith('.pkl') || p.endsWith('.pickle');

/** A ScenarioNet database folder: it holds scenario pickles (and usually dataset_summary.pkl). */
function isScenarioNetDir(p: string): boolean {
  return fs.readdirSync(p).some((n) => isPickle(n) && !n.startsWith('.'));
}

/**
 * The scenario pickles of a ScenarioNet folder: those dataset_mapping.pkl maps to a folder (relative to this
 * one: a combined database points into its parts), then every other scenario pickle beside it.
 */
function scenarioNetFiles(dir: string): string[] {
  const out = new Set<string>();
  const mapping = path.join(dir, 'dataset_mapping.pkl');
  if (fs.existsSync(mapping)) {
    const m = readPickleFile(mapping);
    if (m instanceof Map)
      for (const [file, sub] of m)
        if (typeof file === 'string' && typeof sub === 'string') {
          const p = path.resolve(dir, sub, file);
          if (!fs.existsSync(p))
            throw new InputError(mapping, `lists ${file} in '${sub}', which does not exist`);
          out.add(p);
        }
  }
  for (const n of fs.readdirSync(dir).sort())
    if (isPickle(n) && !SCENARIONET_INDEX.has(n) && !n.startsWith('.')) out.add(path.resolve(dir, n));
  return [...out];
}

/** Paths (files or folders) under a spec that hold AV2 motion scenarios, found without reading them. */
function av2MotionDirs(input: string): string[] {
  if (!fs.existsSync(input) || !fs.statSync(input).isDirectory()) return [];
  if (av2MotionFiles(input)) return [input];
  return fs
    .readdirSync(input)
    .filter((n) => !n.startsWith('.'))
    .map((n) => path.join(input, n))
    .filter((p) => fs.statSync(p).isDirectory() && av2MotionFiles(p) !== null);
}

/**
 * Read ahead what loadScenarios cannot read synchronously (AV2 motion-forecasting Parquet) for every
 * path of a comma-separated spec (`town:` parts are skipped). Commands call it before loading.
 */
export async function prepareScenarioSources(spec: string): Promise<void> {
  for (const part of spec.split(',').map((p) => p.trim())) {
    if (!part || part.startsWith('town:')) continue;
    for (const dir of av2MotionDirs(part)) {
      const key = path.resolve(dir);
      if (!av2MotionCache.has(key)) av2MotionCache.set(key, await readAv2Motion(dir));
    }
  }
}

/**
 * True when `p` is a scenario source in a format other than drivekit's own (WOMD TFRecord, GPUDrive /
 * Nocturne JSON, ScenarioNet pickle or folder, AV2 motion-forecasting folder, AV2 log).
 */
export function isForeignScenarioSource(p: string): boolean {
  if (!fs.existsSync(p)) return false;
  if (fs.statSync(p).isDirectory())
    return !isScenarioDir(p) && (isAv2Log(p) || av2MotionFiles(p) !== null || isScenarioNetDir(p));
  return isTfRecord(p) || isPickle(p) || (p.endsWith('.json') && looksLikeGpudriveJson(headOf(p)));
}

/** loadScenarios after prepareScenarioSources: every source, AV2 motion folders included. */
export async function loadScenariosAsync(input: string): Promise<LoadedScenario[]> {
  await prepareScenarioSources(input);
  return loadScenarios(input);
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
  const dir = fs.statSync(p).isDirectory();
  if (dir && av2MotionFiles(p)) {
    const m = av2MotionCache.get(path.resolve(p));
    if (!m)
      throw new InputError(p, 'AV2 motion-forecasting scenario not read ahead (prepareScenarioSources)');
    const s = av2MotionToScenario(m);
    validateScenario(s, p);
    return [{ scenario: s, file: p }];
  }
  if (!dir && isPickle(p)) {
    if (SCENARIONET_INDEX.has(path.basename(p)))
      throw new InputError(p, 'a ScenarioNet index, not a scenario: give its folder or a scenario pickle');
    const s = scenarioNetToScenario(readPickleFile(p), p);
    validateScenario(s, p);
    return [{ scenario: s, file: p }];
  }
  if (dir && !isScenarioDir(p) && !isAv2Log(p) && isScenarioNetDir(p))
    return scenarioNetFiles(p).flatMap(loadOne);
  if (!dir && p.endsWith('.json') && looksLikeGpudriveJson(headOf(p))) {
    const s = gpudriveToScenario(readGpudriveJson(p), path.basename(p));
    validateScenario(s, p);
    return [{ scenario: s, file: p }];
  }
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
  if (!dir && !p.endsWith('.json'))
    throw new InputError(p, `unknown scenario format (known: ${SCENARIO_FORMATS})`);
  if (!dir && !headOf(p).includes(SCENARIO_JSON_PREFIX))
    throw new InputError(
      p,
      `unknown scenario format: JSON that is neither a drivekit nor a GPUDrive/Nocturne scenario`,
    );
  return [{ scenario: loadScenario(p), file: p }];
}

/** The first KiB of a file, as text. */
function headOf(p: string): string {
  const fd = fs.openSync(p, 'r');
  try {
    const head = Buffer.alloc(1024);
    const n = fs.readSync(fd, head, 0, 1024, 0);
    return head.subarray(0, n).toString('utf8');
  } finally {
    fs.closeSync(fd);
  }
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
  const indexed =
    stat.isDirectory() && [...SCENARIONET_INDEX].some((n) => fs.existsSync(path.join(input, n)));
  if (!stat.isDirectory() || isScenarioDir(input) || isAv2Log(input) || av2MotionFiles(input) || indexed)
    return loadOne(input).map((l) => {
      const r = conformStep(l.scenario, DEFAULT_STEP_POLICY);
      return r.note ? { ...l, scenario: r.scenario, note: r.note } : l;
    });
  const out: LoadedScenario[] = [];
  for (const name of fs.readdirSync(input).sort()) {
    if (name.startsWith('.')) continue;
    const p = path.join(input, name);
    const dir = fs.statSync(p).isDirectory();
    const json = !dir && name.endsWith('.json') && (isScenarioJson(p) || looksLikeGpudriveJson(headOf(p)));
    const pickle = !dir && isPickle(name) && !SCENARIONET_INDEX.has(name);
    const folder =
      dir && (isScenarioDir(p) || isAv2Log(p) || av2MotionFiles(p) !== null || isScenarioNetDir(p));
    if (json || pickle || isTfRecord(name) || folder) out.push(...loadOne(p));
  }
  if (out.length === 0) throw new InputError(input, `no scenarios here (known: ${SCENARIO_FORMATS})`);
  const seen = new Set<string>();
  return out
    .filter((l) => !seen.has(l.scenario.id) && seen.add(l.scenario.id))
    .map((l) => {
      // Real logs' steps jitter around 10 Hz: fitted to the batch's step, and said so.
      const r = conformStep(l.scenario, DEFAULT_STEP_POLICY);
      return r.note ? { ...l, scenario: r.scenario, note: r.note } : l;
    });
}
