// The fixed folds of the real scenarios (models/real-folds.json) and the per-source real sets of the agents
// table: every scenario of ../shared/data/real/motion grouped by where it was recorded (WOMD, nuScenes, AV2).
import fs from 'node:fs';
import path from 'node:path';
import { InputError } from '../../core/errors.ts';
import { realData, REPO_ROOT } from '../../core/paths.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { loadScenarios, prepareScenarioSources } from '../../simulation/scenarioSources.ts';

/** The folds file (paths inside it are relative to ../shared/data/real/motion). */
export const REAL_FOLDS_FILE = path.join(REPO_ROOT, 'models', 'real-folds.json');

/** Folders of ../shared/data/real/motion holding real scenarios. */
export const REAL_MOTION_DIRS = ['womd-json', 'scenarionet', 'av2-motion'];

/** The recording each scenario source comes from (ScenarioNet's overpass scenario is WOMD). */
export function realSourceOf(source: string): 'WOMD' | 'nuScenes' | 'AV2' | undefined {
  if (source.startsWith('womd') || source === 'scenarionet:waymo') return 'WOMD';
  if (source === 'scenarionet:nuscenes') return 'nuScenes';
  if (source.startsWith('av2')) return 'AV2';
  return undefined;
}

export const REAL_SOURCES = ['WOMD', 'nuScenes', 'AV2'] as const;

export interface RealFoldEntry {
  source: string;
  id: string;
  path: string;
}

export interface RealFolds {
  folds: Record<string, RealFoldEntry[]>;
}

/** Read and check the folds file: every entry names a source, an id and a path; no id in two folds. */
export function readRealFolds(file = REAL_FOLDS_FILE): RealFolds {
  let doc: RealFolds;
  try {
    doc = JSON.parse(fs.readFileSync(file, 'utf8')) as RealFolds;
  } catch (e) {
    throw new InputError(file, `not a readable folds file (${(e as Error).message})`);
  }
  if (!doc || typeof doc.folds !== 'object') throw new InputError(file, 'no "folds" object');
  const seen = new Map<string, string>();
  for (const [fold, list] of Object.entries(doc.folds)) {
    if (!Array.isArray(list)) throw new InputError(file, `fold ${fold} is not a list`);
    for (const e of list) {
      if (typeof e?.id !== 'string' || typeof e.path !== 'string' || typeof e.source !== 'string')
        throw new InputError(file, `fold ${fold}: an entry lacks source, id or path`);
      if (seen.has(e.id)) throw new InputError(file, `${e.id} is in folds ${seen.get(e.id)} and ${fold}`);
      seen.set(e.id, fold);
    }
  }
  return doc;
}

/** The scenario paths of one fold (absolute), comma-joined as train-agents --scenarios takes them. */
export function foldSpec(folds: RealFolds, fold: string): string {
  const list = folds.folds[fold];
  if (!list) throw new InputError(fold, `no such fold (known: ${Object.keys(folds.folds).join(', ')})`);
  return list.map((e) => realData('motion', e.path)).join(',');
}

/** Read ahead what the real motion folders need (AV2 Parquet is read asynchronously). */
export async function prepareRealMotion(): Promise<void> {
  for (const d of REAL_MOTION_DIRS)
    if (fs.existsSync(realData('motion', d))) await prepareScenarioSources(realData('motion', d));
}

/** Every real scenario present, grouped by source, in file order. */
export function realScenariosBySource(): { source: string; scenarios: Scenario[] }[] {
  const by = new Map<string, Scenario[]>(REAL_SOURCES.map((s) => [s, []]));
  for (const d of REAL_MOTION_DIRS) {
    const dir = realData('motion', d);
    if (!fs.existsSync(dir)) continue;
    for (const l of loadScenarios(dir)) {
      const src = realSourceOf(l.scenario.source);
      if (src) by.get(src)!.push(l.scenario);
    }
  }
  return [...by].filter(([, s]) => s.length).map(([source, scenarios]) => ({ source, scenarios }));
}
