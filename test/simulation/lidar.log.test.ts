// The synthetic log end to end: byte-identical per seed for any worker count, num_points = points in the box,
// every mesh return inside its box, stable track ids, every agent in range labelled, the scenario beside it.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boxAt, rowsByFrame } from '../../core/arrow/records.ts';
import { pointInBox, transformBox } from '../../core/geometry/box.ts';
import { REPO_ROOT } from '../../core/paths.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { loadScenario } from '../../simulation/scenarioIo.ts';
import { type SynthOptions, type SynthResult, writeSyntheticLog } from '../../simulation/town/synthLog.ts';
import { tinyTownConfig } from '../../simulation/town/townConfig.ts';

const FRAMES = 4;
let tmp: string;
let first: SynthResult;

const options = (dir: string, over: Partial<SynthOptions> = {}): SynthOptions => ({
  out: path.join(tmp, dir, 'log'),
  frames: FRAMES,
  seed: 11,
  lidar: 'hdl64',
  town: tinyTownConfig(),
  sensor: { azimuthSteps: 512 },
  ...over,
});

const bytes = (dir: string, file: string) => fs.readFileSync(path.join(tmp, dir, 'log', file));

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'drivekit-synth-'));
  first = await writeSyntheticLog(options('a'));
}, 120_000);

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('synthetic log', () => {
  it('is byte-identical for the same seed, also when the sweeps run on two worker threads', async () => {
    await writeSyntheticLog(options('b', { workers: 2 }));
    for (const f of ['frames.arrow', 'poses.arrow', 'labels.arrow', 'scenario.json']) {
      expect(bytes('b', f).equals(bytes('a', f))).toBe(true);
    }
    await writeSyntheticLog(options('c', { seed: 12, frames: 1, writeScenario: false }));
    expect(bytes('c', 'frames.arrow').equals(bytes('a', 'frames.arrow'))).toBe(false);
  }, 120_000);

  it("labels each box with the number of the frame's points inside it", async () => {
    const log = await LogReader.open(path.join(tmp, 'a', 'log'));
    try {
      const labels = log.readBoxes('labels')!;
      const byFrame = rowsByFrame(labels);
      expect(byFrame.size).toBe(FRAMES);
      let withPoints = 0;
      for (const [f, rows] of byFrame) {
        const p = (await log.readFrame(f)).points;
        for (const r of rows) {
          const b = boxAt(labels, r);
          let inside = 0;
          for (let i = 0; i < p.x.length; i++) if (pointInBox(b, p.x[i], p.y[i], p.z[i])) inside++;
          expect(labels.numPoints[r]).toBe(inside);
          if (inside > 0) withPoints++;
        }
      }
      expect(withPoints).toBeGreaterThan(10);
    } finally {
      await log.close();
    }
  });

  it('keeps track ids, classes and sizes stable, and labels every agent within range in every frame', async () => {
    const { labels, town } = first;
    const log = await LogReader.open(path.join(tmp, 'a', 'log'));
    const tr = town.scenario.agents;
    try {
      const seen = new Map<number, { label: string; l: number; w: number; h: number; world: number[][] }>();
      for (let i = 0; i < labels.cx.length; i++) {
        const id = labels.trackId[i];
        const world = transformBox(log.pose(labels.frameIndex[i]), boxAt(labels, i));
        const entry = seen.get(id) ?? {
          label: labels.label[i],
          l: labels.length[i],
          w: labels.width[i],
          h: labels.height[i],
          world: [],
        };
        expect(labels.label[i]).toBe(entry.label);
        expect(labels.length[i]).toBe(entry.l);
        expect(labels.width[i]).toBe(entry.w);
        expect(labels.height[i]).toBe(entry.h);
        entry.world[labels.frameIndex[i]] = [world.cx, world.cy];
        seen.set(id, entry);
        // The id is the scenario's agent, and the label box is where the scenario puts it.
        const k = id * town.scenario.numSteps + labels.frameIndex[i];
        expect(world.cx).toBeCloseTo(tr.x[k], 2);
        expect(world.cy).toBeCloseTo(tr.y[k], 2);
      }
      // Between consecutive frames a track moves at most what a car can do in 0.1 s.
      for (const { world } of seen.values()) {
        for (let f = 1; f < FRAMES; f++) {
          if (world[f] && world[f - 1])
            expect(Math.hypot(world[f][0] - world[f - 1][0], world[f][1] - world[f - 1][1])).toBeLessThan(2);
        }
      }
      // Every agent but the ego within the label range has a box in every frame; classes are the town's.
      const range = first.meta.extra.labelRangeM as number;
      for (let f = 0; f < FRAMES; f++) {
        const pose = log.pose(f);
        const expected = new Set<number>();
        for (let a = 0; a < tr.ids.length; a++) {
          if (a === town.scenario.egoIndex) continue;
          const k = a * town.scenario.numSteps + f;
          if (Math.hypot(tr.x[k] - pose[3], tr.y[k] - pose[7]) <= range) expected.add(tr.ids[a]);
        }
        const got = new Set(
          rowsByFrame(labels)
            .get(f)!
            .map((r) => labels.trackId[r]),
        );
        expect(got).toEqual(expected);
      }
      expect(new Set(labels.label)).toEqual(new Set(['car', 'van', 'truck', 'cyclist', 'pedestrian']));
    } finally {
      await log.close();
    }
  });

  it('fits boxes to the meshes: with a frozen, noiseless sensor every return from an agent lies in its box', async () => {
    const exact = await writeSyntheticLog(
      options('d', {
        frames: 2,
        sensor: { azimuthSteps: 1024, motion: false, rangeNoiseM: 0 },
        writeScenario: false,
      }),
    );
    let checked = 0;
    for (let i = 0; i < exact.labels.cx.length; i++) {
      if (exact.meshHitsPerLabel[i] < 0) continue; // parked cars are part of the static mesh
      checked += exact.meshHitsPerLabel[i];
      expect(exact.meshHitsPerLabel[i]).toBeLessThanOrEqual(exact.labels.numPoints[i]);
    }
    expect(checked).toBeGreaterThan(100);
  }, 120_000);

  it('writes the scenario (JSON and Arrow) that loads back with the same agents and map', () => {
    for (const name of ['scenario.json', 'scenario']) {
      const s = loadScenario(path.join(tmp, 'a', 'log', name));
      expect(s.numSteps).toBe(FRAMES);
      expect(s.agents.ids.length).toBe(first.town.scenario.agents.ids.length);
      expect(s.map.lanes.length).toBe(first.town.lanes.length);
      expect(s.map.crosswalks.length).toBe(first.town.map.crosswalks.length);
      expect(Array.from(s.agents.x)).toEqual(Array.from(first.town.scenario.agents.x));
    }
    expect(first.meta.source).toBe('synthetic');
    expect(first.meta.sensor).toContain('HDL-64E');
    expect(first.meta.rateHz).toBe(10);
  });

  it('refuses bad CLI input with one line and a non-zero exit', () => {
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [path.join(REPO_ROOT, 'bin', 'drivekit.js'), 'synth', ...args], {
        encoding: 'utf8',
      });
    const bad = run('--out', path.join(tmp, 'x'), '--frames', '3', '--lidar', 'hdl65');
    expect(bad.status).toBe(2); // a usage error (docs/cli.md)
    expect(bad.stderr.trim().split('\n')).toHaveLength(1);
    expect(bad.stderr).toContain('--lidar');
    expect(fs.existsSync(path.join(tmp, 'x', 'meta.json'))).toBe(false);
  });
});
