// The viewer's source for a log directory: sweeps read one at a time through the log store's random access
// (never the whole log), every Boxes file of the log, the scenario beside a synthetic log, and a forecast.
import fs from 'node:fs';
import path from 'node:path';
import { pointCloudToBatch, sensorFrameMetadata } from '../../core/arrow/codec.ts';
import { intensityScale } from '../../core/arrow/conventions.ts';
import type { Boxes } from '../../core/arrow/records.ts';
import { InputError } from '../../core/errors.ts';
import { encodeBatchBytes } from '../../core/stream/message.ts';
import { LogReader } from '../../datasets/logstore.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { isScenarioDir, loadScenario } from '../../simulation/scenarioIo.ts';
import { type ForecastRecord, readForecastFile } from '../../worldmodel/forecastFile.ts';
import { encodeWireFrame } from './frameWire.ts';
import { agentRows, mapJson } from './scenarioView.ts';
import {
  BOX_STRIDE,
  type FrameScene,
  rowsByFrame,
  type ViewerInfo,
  type ViewerSource,
} from './viewerSource.ts';

/** Arrow files of a log that are not Boxes. */
const NOT_BOXES = new Set(['frames', 'poses', 'tokens']);

/** The forecast file a log may hold beside its frames (otherwise `--forecast <file>`). */
export const LOG_FORECAST_FILE = 'forecast.arrow';

export interface LogSourceOptions {
  /** A `drivekit forecast --out` file for this log (default: <log>/forecast.arrow when present). */
  forecast?: string;
}

interface BoxSet {
  boxes: Boxes;
  byFrame: Map<number, number[]>;
}

/** Every Boxes file of the log (a file that is not Boxes is skipped, not an error: logs hold other outputs). */
function readBoxSets(log: LogReader): Map<string, BoxSet> {
  const sets = new Map<string, BoxSet>();
  const names = fs
    .readdirSync(log.dir)
    .filter((f) => f.endsWith('.arrow') && !f.startsWith('.'))
    .map((f) => f.slice(0, -'.arrow'.length))
    .filter((n) => !NOT_BOXES.has(n) && n !== LOG_FORECAST_FILE.replace('.arrow', ''))
    .sort((a, b) => (a === 'labels' ? -1 : b === 'labels' ? 1 : a.localeCompare(b)));
  for (const name of names) {
    let boxes: Boxes | null;
    try {
      boxes = log.readBoxes(name);
    } catch (e) {
      // A damaged labels/detections file is the user's to know about; another kind of Arrow file is not.
      if (e instanceof InputError && /schema/i.test(e.problem)) continue;
      throw e;
    }
    if (boxes) sets.set(name, { boxes, byFrame: rowsByFrame(boxes.frameIndex) });
  }
  return sets;
}

function boxRows(set: BoxSet, frame: number): number[] {
  const rows = set.byFrame.get(frame) ?? [];
  const b = set.boxes;
  const out = new Array<number>(rows.length * BOX_STRIDE);
  rows.forEach((r, k) => {
    const o = k * BOX_STRIDE;
    out[o] = b.cx[r];
    out[o + 1] = b.cy[r];
    out[o + 2] = b.cz[r];
    out[o + 3] = b.length[r];
    out[o + 4] = b.width[r];
    out[o + 5] = b.height[r];
    out[o + 6] = b.yaw[r];
    out[o + 7] = b.trackId[r];
  });
  return out;
}

/** The forecast shown at each target frame: the one started last before it (the freshest prediction). */
function forecastsByTarget(file: string): Map<number, ForecastRecord> {
  const m = new Map<number, ForecastRecord>();
  for (const r of readForecastFile(file).records) {
    const prev = m.get(r.targetFrame);
    if (!prev || r.startFrame > prev.startFrame) m.set(r.targetFrame, r);
  }
  return m;
}

function scenarioBeside(dir: string): Scenario | null {
  const arrowDir = path.join(dir, 'scenario');
  if (isScenarioDir(arrowDir)) return loadScenario(arrowDir);
  const json = path.join(dir, 'scenario.json');
  return fs.existsSync(json) ? loadScenario(json) : null;
}

export async function openLogSource(dir: string, o: LogSourceOptions = {}): Promise<ViewerSource> {
  const log = await LogReader.open(dir);
  try {
    const sets = readBoxSets(log);
    const scenario = scenarioBeside(dir);
    const forecastFile = o.forecast ?? path.join(dir, LOG_FORECAST_FILE);
    if (o.forecast && !fs.existsSync(o.forecast)) throw new InputError(o.forecast, 'no such forecast file');
    const forecasts = fs.existsSync(forecastFile) ? forecastsByTarget(forecastFile) : new Map();
    const n = log.frameCount;
    const info: ViewerInfo = {
      kind: 'log',
      name: log.meta.logId,
      frame_count: n,
      first_frame: 0,
      rate_hz: log.meta.rateHz,
      has_points: true,
      box_sets: [...sets.keys()],
      agent_sets: scenario ? ['scenario'] : [],
      has_map: scenario !== null,
      has_forecast: forecasts.size > 0,
      live: false,
      intensity_scale: intensityScale(log.meta.source),
    };
    const inRange = (i: number) => Number.isInteger(i) && i >= 0 && i < n;
    return {
      info: () => info,
      async framePoints(i) {
        if (!inRange(i)) return null;
        const f = await log.readFrame(i);
        return encodeWireFrame({ frameIndex: i, pose: f.pose, points: f.points });
      },
      async frameArrow(i) {
        if (!inRange(i)) return null;
        const f = await log.readFrame(i);
        return encodeBatchBytes(pointCloudToBatch(f.points, sensorFrameMetadata(f), i));
      },
      async scene(i): Promise<FrameScene | null> {
        if (!inRange(i)) return null;
        const boxes: Record<string, number[]> = {};
        for (const [name, set] of sets) boxes[name] = boxRows(set, i);
        const fc = forecasts.get(i);
        return {
          frame_index: i,
          pose: Array.from(log.pose(i)),
          boxes,
          // The synthetic log's frame i is the scenario's step i (simulation/town/synthLog.ts).
          agents: scenario ? { scenario: agentRows(scenario.agents, scenario.numSteps, i) } : {},
          ego_agent_id: scenario && scenario.egoIndex >= 0 ? scenario.agents.ids[scenario.egoIndex] : null,
          forecast: fc
            ? { start_frame: fc.startFrame, horizon_s: fc.horizonS, points: fc.points.x.length }
            : null,
        };
      },
      async forecastPoints(i) {
        const fc = forecasts.get(i);
        if (!fc || !inRange(fc.startFrame)) return null;
        // Forecast points are in the start frame's vehicle frame (the 4D-Occ reference frame).
        return encodeWireFrame({ frameIndex: i, pose: log.pose(fc.startFrame), points: fc.points });
      },
      map: () => (scenario ? mapJson(scenario) : null),
      close: () => log.close(),
    };
  } catch (e) {
    await log.close();
    throw e;
  }
}
