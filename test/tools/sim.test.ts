// `drivekit sim` and `drivekit export` on fixture scenarios: rollouts and metrics for each, Parquet, WOMD
// that re-imports to the same rollouts, Arrow and JSON that re-import to the input scenarios, LiDAR logs, and
// one-line errors on bad input.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { realData, REPO_ROOT } from '../../core/paths.ts';
import { itWithSharedData } from '../sharedData.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { readRolloutGroups, readRolloutSet } from '../../simulation/export/rolloutSet.ts';
import { loadScenarios } from '../../simulation/scenarioSources.ts';
import { saveScenario } from '../../simulation/scenarioIo.ts';
import { runExport } from '../../tools/commands/export.ts';
import { runSim } from '../../tools/commands/sim.ts';
import { generateTown } from '../../simulation/town/town.ts';
import { straightRoadScenario } from '../simulation/fixtures.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'sim-cli-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('drivekit sim / export', () => {
  const scenarios = path.join(tmp, 'scenarios');
  const a = straightRoadScenario({ numAgents: 3, numSteps: 31 });
  a.controlled.fill(1);
  const b = straightRoadScenario({ numAgents: 2, numSteps: 31, speedMps: 6 });
  b.id = 'second';
  saveScenario(a, path.join(scenarios, 'a.json'));
  saveScenario(b, path.join(scenarios, 'b'));
  const out = path.join(tmp, 'run');

  it('writes rollouts and a metrics table for every scenario of a directory', async () => {
    const summary = await runSim({ scenarios, agents: 'idm', out, rollouts: 1, json: true });
    expect(summary.scenarios).toBe(2);
    expect(summary.agents).toBe('idm');
    const mean = summary.mean as Record<string, number>;
    for (const k of ['collision_rate', 'offroad_rate', 'ade_m', 'fde_m', 'progress'])
      expect(mean[k]).toEqual(expect.any(Number));
    // One realism number, the Sim Agents meta-metric with its components; no pooled score beside it.
    const wosac = summary.wosac as { meta_metric: number; components: Record<string, number> };
    expect(wosac.meta_metric).toEqual(expect.any(Number));
    expect(Object.keys(wosac.components)).toContain('collision_indication');
    expect(Object.keys(mean).filter((k) => /realism/.test(k))).toEqual([]);
    const metrics = JSON.parse(fs.readFileSync(path.join(out, 'metrics.json'), 'utf8'));
    expect(JSON.stringify(metrics)).not.toMatch(/realism/);
    const header = fs.readFileSync(path.join(out, 'metrics.csv'), 'utf8').split('\n')[0].split(',');
    expect(header.filter((k) => /realism|meta/.test(k))).toEqual(['wosac_meta_metric']);
    expect(metrics.rows.map((r: { scenario: string }) => r.scenario)).toEqual(['straight-road', 'second']);
    // One row per scenario; the mean in its own file.
    const csv = fs.readFileSync(path.join(out, 'metrics.csv'), 'utf8').trim().split('\n');
    expect(csv.map((l) => l.split(',')[0])).toEqual(['scenario', 'straight-road', 'second']);
    const summaryCsv = fs.readFileSync(path.join(out, 'metrics_summary.csv'), 'utf8').trim().split('\n');
    expect(summaryCsv.map((l) => l.split(',')[0])).toEqual(['scenario', 'mean']);
    const back = readRolloutSet(out);
    expect(back.map((s) => s.id)).toEqual(['straight-road', 'second']);
  });

  it('writes N seeded rollouts with a rollout column; the same seed writes the same rollouts', async () => {
    const run = async (dir: string, seed: number) => {
      await runSim({ scenarios, agents: 'cv', out: dir, rollouts: 4, seed, json: true });
      return readRolloutGroups(dir);
    };
    const xs = (g: ReturnType<typeof readRolloutGroups>) =>
      g.flatMap((s) => s.rollouts.map((r) => Array.from(r.x)));
    const g1 = await run(path.join(tmp, 'r1'), 3);
    const g2 = await run(path.join(tmp, 'r2'), 3);
    const g3 = await run(path.join(tmp, 'r3'), 4);
    // One scenario at a time (chunks of at most 5 agents × rollouts): the same file contents.
    await runSim({
      scenarios,
      agents: 'cv',
      out: path.join(tmp, 'r4'),
      rollouts: 4,
      seed: 3,
      json: true,
      chunkAgents: 5,
    });
    expect(xs(readRolloutGroups(path.join(tmp, 'r4')))).toEqual(xs(g1));
    expect(g1.map((g) => [g.scenario.id, g.rollouts.length])).toEqual([
      ['straight-road', 4],
      ['second', 4],
    ]);
    expect(xs(g2)).toEqual(xs(g1));
    expect(xs(g3)).not.toEqual(xs(g1));
    expect(xs(g1)[0]).not.toEqual(xs(g1)[1]); // rollouts of a scenario differ
    const metrics = JSON.parse(fs.readFileSync(path.join(tmp, 'r1', 'metrics.json'), 'utf8'));
    expect([metrics.rollouts, metrics.seed]).toEqual([4, 3]);
    // The flat reader still works: each rollout is its own simulated scenario.
    expect(readRolloutSet(path.join(tmp, 'r1')).map((s) => s.id)).toEqual([
      ...[0, 1, 2, 3].map((n) => `straight-road.r${n}`),
      ...[0, 1, 2, 3].map((n) => `second.r${n}`),
    ]);
  });

  it('--intentions head: deterministic IDM turns differently per rollout on a town; straightest does not', async () => {
    const town = path.join(tmp, 'town');
    saveScenario(generateTown({ seed: 2 }, 41).scenario, path.join(town, 'town.json'));
    const run = async (intentions: string) => {
      const dir = path.join(tmp, `int-${intentions}`);
      const summary = await runSim({
        scenarios: town,
        agents: 'idm',
        out: dir,
        rollouts: 3,
        deterministic: true,
        control: 'all',
        intentions,
        json: true,
      });
      expect(summary.intentions).toBe(intentions);
      return readRolloutGroups(dir)[0].rollouts.map((r) => Array.from(r.x));
    };
    const straight = await run('straightest');
    expect(straight[1]).toEqual(straight[0]);
    const head = await run('head');
    expect(head[1]).not.toEqual(head[0]);
    await expect(run('sideways')).rejects.toThrow(/--intentions/);
  });

  it("--temperature sets the learned agents' sampling: near 0 every rollout is the argmax one; refused for IDM", async () => {
    const run = async (name: string, opts: { temperature?: number; deterministic?: boolean }) => {
      const dir = path.join(tmp, `temp-${name}`);
      await runSim({ scenarios, agents: 'learned', out: dir, rollouts: 3, seed: 5, json: true, ...opts });
      return readRolloutGroups(dir).flatMap((g) => g.rollouts.map((r) => Array.from(r.x)));
    };
    const argmax = await run('argmax', { deterministic: true });
    const frozen = await run('frozen', { temperature: 1e-4 });
    expect(frozen).toEqual(argmax);
    const meta = JSON.parse(fs.readFileSync(path.join(tmp, 'temp-frozen', 'metrics.json'), 'utf8'));
    expect(meta.rollouts).toBe(3);
    await expect(
      runSim({ scenarios, agents: 'idm', out: path.join(tmp, 'temp-idm'), temperature: 0.5, json: true }),
    ).rejects.toThrow(/--temperature/);
  });

  it('exports Parquet that a Parquet reader opens with the documented columns', async () => {
    const r = await runExport({ rollouts: out, format: 'parquet' });
    const traj = r.files.find((f) => f.endsWith('trajectories.parquet'))!;
    const buf = fs.readFileSync(traj);
    const ab = buf.buffer.slice(buf.byteOffset, buf.byteOffset + buf.byteLength);
    expect(Number(parquetMetadata(ab).num_rows)).toBe(3 * 31 + 2 * 31);
    const rows = await parquetReadObjects({ file: ab, rowEnd: 1 });
    expect(Object.keys(rows[0])).toEqual([
      'scenario_id',
      'rollout',
      'step',
      'agent_id',
      'type',
      'x',
      'y',
      'z',
      'yaw',
      'vx',
      'vy',
      'length',
      'width',
      'height',
      'valid',
    ]);
    expect(r.files.map((f) => path.basename(f)).sort()).toEqual(
      ['agents', 'lane_links', 'lane_points', 'lanes', 'map_points', 'traffic_lights', 'trajectories']
        .map((n) => `${n}.parquet`)
        .sort(),
    );
    // Agent 0 of the first scenario has a goal; the others have none: null, not NaN (issue 19).
    const ag = fs.readFileSync(r.files.find((f) => f.endsWith('agents.parquet'))!);
    const agents = await parquetReadObjects({
      file: ag.buffer.slice(ag.byteOffset, ag.byteOffset + ag.byteLength),
      rowEnd: 3,
    });
    expect(agents.map((x) => x.goal_x)).toEqual([190, null, null]);
  });

  it('exports WOMD TFRecords that re-import to the same rollouts; Arrow and JSON scenarios to the inputs', async () => {
    const rolled = readRolloutSet(out);
    const groups = readRolloutGroups(out);
    for (const format of ['womd', 'arrow', 'json']) {
      const r = await runExport({ rollouts: out, format });
      const src =
        format === 'womd'
          ? r.files[0]
          : format === 'arrow'
            ? path.join(path.dirname(r.files[0]), 'scenarios')
            : path.dirname(r.files[0]);
      const back = loadScenarios(src).map((l) => l.scenario);
      // WOMD holds one timeline a scenario (the rollout); Arrow and JSON hold each input scenario once, its
      // rollouts beside it (trajectories table / `rollouts` key: test/simulation/exportLayout.test.ts).
      const want = format === 'womd' ? rolled : groups.map((g) => g.scenario);
      expect(back.map((s) => s.id)).toEqual(want.map((s) => s.id));
      back.forEach((s, i) => {
        for (const k of ['x', 'y', 'yaw', 'valid'] as const)
          expect(Array.from(s.agents[k])).toEqual(Array.from(want[i].agents[k]));
        expect(s.map.lanes.map((l) => l.id)).toEqual(want[i].map.lanes.map((l) => l.id));
      });
    }
  });

  it('renders LiDAR logs of the rollouts with box labels', async () => {
    const r = await runExport({
      rollouts: out,
      format: 'json',
      lidar: true,
      lidarModel: 'vlp32',
      lidarFrames: 2,
    });
    const dir = r.files.find((f) => f.includes(`${path.sep}lidar${path.sep}`))!;
    const log = await LogReader.open(dir);
    try {
      expect(log.meta.frameCount).toBe(2);
      const frame = await log.readFrame(0);
      expect(frame.points.x.length).toBeGreaterThan(1000);
      const labels = await log.readBoxes('labels');
      expect(labels!.frameIndex.length).toBeGreaterThan(0);
      // The car 20 m ahead of the ego is hit by the sensor.
      expect(Math.max(...labels!.numPoints)).toBeGreaterThan(10);
    } finally {
      await log.close();
    }
  });

  it('--lidar follows --format parquet: Parquet tables of the rendered log, no Arrow log', async () => {
    const r = await runExport({
      rollouts: out,
      format: 'parquet',
      out: path.join(tmp, 'pq-lidar'),
      lidar: true,
      lidarModel: 'vlp32',
      lidarFrames: 1,
    });
    const dir = r.files.find((f) => f.includes(`${path.sep}lidar${path.sep}`))!;
    expect(fs.readdirSync(dir).sort()).toEqual(['labels.parquet', 'points.parquet', 'poses.parquet']);
    expect(fs.readdirSync(path.dirname(dir)).filter((n) => n.startsWith('.'))).toEqual([]);
    const read = (name: string) => {
      const b = fs.readFileSync(path.join(dir, name));
      return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
    };
    expect(Number(parquetMetadata(read('points.parquet')).num_rows)).toBeGreaterThan(1000);
    const labels = await parquetReadObjects({ file: read('labels.parquet') });
    expect(labels.every((l) => l.frame_index === 0)).toBe(true);
  });

  itWithSharedData('fails with one line naming the file on a truncated TFRecord', () => {
    const bad = path.join(tmp, 'cut.tfrecord');
    fs.writeFileSync(
      bad,
      fs.readFileSync(realData('womd', 'motion_data_one_scenario.tfrecord')).subarray(0, 4000),
    );
    const p = spawnSync(
      process.execPath,
      [
        path.join(REPO_ROOT, 'bin', 'drivekit.js'),
        'sim',
        '--scenarios',
        bad,
        '--agents',
        'idm',
        '--out',
        path.join(tmp, 'x'),
      ],
      { encoding: 'utf8' },
    );
    expect(p.status).toBe(1);
    expect(p.stderr.trim()).toMatch(
      /^drivekit sim: .*cut\.tfrecord: truncated TFRecord: record 0 at byte 0 declares 952947 data bytes but only 3984 remain$/,
    );
    expect(fs.existsSync(path.join(tmp, 'x'))).toBe(false);
  });

  it('refuses a scenario without valid agents', async () => {
    const empty = straightRoadScenario();
    empty.agents.valid.fill(0);
    const f = path.join(tmp, 'empty.json');
    saveScenario(empty, f);
    await expect(runSim({ scenarios: f, agents: 'cv', out: path.join(tmp, 'y') })).rejects.toThrow(
      /empty\.json: scenario 'straight-road': no agent is valid at any step/,
    );
  });
});
