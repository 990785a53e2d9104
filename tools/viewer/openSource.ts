// Which source `drivekit view <target>` opens: a stream endpoint (live), a sim output directory, a scenario
// file or directory, or a log — decided by what the target is, with one error naming it when it is none.
import fs from 'node:fs';
import path from 'node:path';
import { InputError } from '../../core/errors.ts';
import { openLiveSource, isEndpointSpec } from './liveSource.ts';
import { openLogSource } from './logSource.ts';
import { isForeignScenarioSource, loadScenariosAsync } from '../../simulation/scenarioSources.ts';
import {
  isRolloutDir,
  isScenarioPath,
  openLoadedScenarioSource,
  openRolloutSource,
  openScenarioSource,
} from './scenarioView.ts';
import type { ViewerSource } from './viewerSource.ts';

export interface OpenOptions {
  /** A forecast file for a log (`drivekit forecast --out`). */
  forecast?: string;
  /** Rollout directory: the scenario id and rollout index shown. */
  scenario?: string;
  rollout?: number;
  /** Live mode: frames kept for scrubbing back. */
  keepFrames?: number;
}

export async function openViewerSource(target: string, o: OpenOptions = {}): Promise<ViewerSource> {
  if (isEndpointSpec(target)) return openLiveSource(target, o.keepFrames ? { keepFrames: o.keepFrames } : {});
  if (!fs.existsSync(target))
    throw new InputError(target, 'no such log, rollout directory, scenario or endpoint');
  if (o.forecast !== undefined && !fs.existsSync(path.join(target, 'meta.json')))
    throw new InputError(target, '--forecast needs a log (a directory with meta.json)');
  if (isRolloutDir(target)) return openRolloutSource(target, o);
  if (isForeignScenarioSource(target)) {
    // Real scenarios in their own formats: the one named by --scenario, else the first.
    const loaded = await loadScenariosAsync(target);
    const hit = o.scenario === undefined ? loaded[0] : loaded.find((l) => l.scenario.id === o.scenario);
    if (!hit) throw new InputError('--scenario', `no scenario '${o.scenario}' in ${target}`);
    return openLoadedScenarioSource(hit.scenario);
  }
  if (isScenarioPath(target)) return openScenarioSource(target);
  if (fs.statSync(target).isDirectory() && fs.existsSync(path.join(target, 'meta.json')))
    return openLogSource(target, { forecast: o.forecast });
  throw new InputError(
    target,
    'not a log (meta.json), a sim output directory (rollouts.arrow), a scenario (.json or agents.arrow) or an endpoint (tcp://…)',
  );
}
