// The scenario exports share one table layout (`drivekit export --rollouts … --format parquet|arrow|json`):
// read back with DuckDB (Parquet) and apache-arrow (Arrow), checking column types, the rollout column, agents
// and map once per scenario, map heights and types, and the units and scenario facts in the file metadata.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { DataType, tableFromIPC } from 'apache-arrow';
import { afterAll, describe, expect, it } from 'vitest';
import { readRolloutGroups } from '../../simulation/export/rolloutSet.ts';
import { loadScenario, saveScenario } from '../../simulation/scenarioIo.ts';
import { runExport } from '../../tools/commands/export.ts';
import { runSim } from '../../tools/commands/sim.ts';
import { straightRoadScenario } from './fixtures.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'export-layout-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

const T = 21;
const ROLLOUTS = 2;
const TABLES = [
  'trajectories',
  'agents',
  'lanes',
  'lane_links',
  'lane_points',
  'map_points',
  'traffic_lights',
];

/** A straight road with WOMD-like facts: lane heights and types, typed road lines and edges, tracks to predict. */
function scenario() {
  const s = straightRoadScenario({ numAgents: 3, numSteps: T });
  s.id = 'road';
  s.map.lanes[0].z = Float32Array.of(1, 1.5, 2);
  s.map.lanes[0].laneType = 'surface_street';
  s.map.lanes[0].interpolating = false;
  s.map.roadEdges[0].type = 'road_edge_boundary';
  s.map.roadEdges[0].z = Float32Array.of(0.5, 0.7);
  s.map.roadLines = [{ id: 40, xy: Float32Array.of(0, 1.75, 200, 1.75), type: 'broken_single_white' }];
  s.tracksToPredict = Int32Array.of(1, 2);
  return s;
}

async function simAndExport() {
  const file = path.join(tmp, 'road.json');
  saveScenario(scenario(), file);
  const sim = path.join(tmp, 'sim');
  await runSim({ scenarios: file, agents: 'cv', out: sim, rollouts: ROLLOUTS, seed: 1, json: true });
  const out = (f: string) => path.join(tmp, `export-${f}`);
  for (const format of ['parquet', 'arrow', 'json'])
    await runExport({ rollouts: sim, format, out: out(format) });
  return { sim, out };
}

const ready = simAndExport();

describe('scenario exports: one layout', () => {
  it('Parquet: DuckDB sees the column types, a rollout column, agents and map once, metadata with units and facts', async () => {
    const { sim, out } = await ready;
    const dir = out('parquet');
    expect(fs.readdirSync(dir).sort()).toEqual(TABLES.map((t) => `${t}.parquet`).sort());
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    const q = async (sql: string) => (await db.runAndReadAll(sql)).getRowObjects();
    const t = (name: string) => `'${path.join(dir, `${name}.parquet`)}'`;
    try {
      const types = Object.fromEntries(
        (await q(`describe select * from ${t('trajectories')}`)).map((r) => [r.column_name, r.column_type]),
      );
      expect(types).toEqual({
        scenario_id: 'VARCHAR',
        rollout: 'INTEGER',
        step: 'INTEGER',
        agent_id: 'INTEGER',
        type: 'VARCHAR',
        x: 'FLOAT',
        y: 'FLOAT',
        z: 'FLOAT',
        yaw: 'FLOAT',
        vx: 'FLOAT',
        vy: 'FLOAT',
        length: 'FLOAT',
        width: 'FLOAT',
        height: 'FLOAT',
        valid: 'BOOLEAN',
      });
      // The scenario id is the scenario's; rollouts are told apart by their column.
      const byRollout = await q(
        `select scenario_id, rollout, count(*) as n from ${t('trajectories')} group by all order by rollout`,
      );
      expect(byRollout.map((r) => [r.scenario_id, r.rollout, Number(r.n)])).toEqual([
        ['road', 0, 3 * T],
        ['road', 1, 3 * T],
      ]);
      // Rollout 1's simulated positions, row for row.
      const g = readRolloutGroups(sim)[0];
      const xs = await q(`select x from ${t('trajectories')} where rollout = 1 order by agent_id, step`);
      expect(Float32Array.from(xs.map((r) => r.x as number))).toEqual(g.rollouts[1].x);
      expect(g.rollouts[1].x).not.toEqual(g.rollouts[0].x);

      // Agents and map once per scenario, whatever the number of rollouts.
      const count = async (name: string) => Number((await q(`select count(*) as n from ${t(name)}`))[0].n);
      expect(await count('agents')).toBe(3);
      expect(await count('lanes')).toBe(2);
      expect(await count('traffic_lights')).toBe(T);
      const agents = await q(
        `select agent_id, type, is_ego, track_to_predict, goal_x from ${t('agents')} order by agent_id`,
      );
      expect(agents.map((a) => [a.agent_id, a.type, a.is_ego, a.track_to_predict, a.goal_x])).toEqual([
        [100, 'vehicle', true, false, 190],
        [101, 'vehicle', false, true, null],
        [102, 'cyclist', false, true, null],
      ]);

      // Map heights, lane types, road-line and road-edge types.
      const lanes = await q(`select lane_id, lane_type from ${t('lanes')} order by lane_id`);
      expect(lanes.map((l) => [l.lane_id, l.lane_type])).toEqual([
        [1, 'surface_street'],
        [2, null],
      ]);
      const lz = await q(`select z from ${t('lane_points')} where lane_id = 1 order by point_index`);
      expect(lz.map((r) => r.z)).toEqual([1, 1.5, 2]);
      const feats = await q(
        `select kind, type, first(z order by point_index) as z0 from ${t('map_points')}
         where kind in ('road_edge', 'road_line') group by all order by kind, type`,
      );
      expect(feats.map((f) => [f.kind, f.type, f.z0])).toEqual([
        ['road_edge', 'road_edge_boundary', 0.5],
        ['road_edge', null, null],
        ['road_line', 'broken_single_white', null],
      ]);

      // Named values dictionary-encoded; the same metadata in every file.
      const enc = await q(
        `select path_in_schema as c, encodings as e from parquet_metadata(${t('trajectories')})
         where path_in_schema in ('scenario_id', 'type')`,
      );
      for (const e of enc) expect(String(e.e)).toMatch(/RLE_DICTIONARY/);
      const kv = async (name: string) =>
        Object.fromEntries(
          (await q(`select decode(key) as k, decode(value) as v from parquet_kv_metadata(${t(name)})`)).map(
            (m) => [m.k, m.v as string],
          ),
        );
      const meta = await kv('trajectories');
      expect(meta['drivekit.schema']).toBe('sim_export_trajectories/2');
      expect(JSON.parse(meta['drivekit.scenarios'])).toEqual([
        {
          scenario_id: 'road',
          source: 'test',
          dt_s: expect.closeTo(0.1, 9),
          num_steps: T,
          current_step: 10,
          num_rollouts: ROLLOUTS,
          sdc_agent_id: 100,
          tracks_to_predict: [101, 102],
        },
      ]);
      const units = JSON.parse(meta['drivekit.units']);
      expect(Object.keys(units)).toEqual(Object.keys(types));
      expect(units.x).toMatch(/^m\b/);
      expect(units.vx).toBe('m/s');
      expect(units.yaw).toMatch(/^rad\b/);
      expect((await kv('map_points'))['drivekit.scenarios']).toBe(meta['drivekit.scenarios']);
    } finally {
      db.closeSync();
    }
  });

  it('Arrow: the same tables, columns and metadata as the Parquet files; the scenario once as a directory', async () => {
    const { out } = await ready;
    const dir = out('arrow');
    expect(fs.readdirSync(dir).sort()).toEqual([...TABLES.map((t) => `${t}.arrow`), 'scenarios'].sort());
    const db = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      for (const name of TABLES) {
        const arrow = tableFromIPC(fs.readFileSync(path.join(dir, `${name}.arrow`)));
        const pq = path.join(out('parquet'), `${name}.parquet`);
        const rows = (await db.runAndReadAll(`select * from '${pq}'`)).getRowObjects();
        expect(
          arrow.schema.fields.map((f) => f.name),
          name,
        ).toEqual(Object.keys(rows[0]));
        expect(arrow.numRows, name).toBe(rows.length);
        const kv = (
          await db.runAndReadAll(
            `select decode(key) as k, decode(value) as v from parquet_kv_metadata('${pq}')`,
          )
        )
          .getRowObjects()
          .map((m) => [m.k, m.v]);
        expect([...arrow.schema.metadata.entries()].sort(), name).toEqual(kv.sort());
        // Same values, nulls included (floats compared as float32).
        for (const f of arrow.schema.fields) {
          const col = arrow.getChild(f.name)!.toArray() as ArrayLike<unknown>;
          const want = rows.map((r) => r[f.name]);
          const got = Array.from({ length: arrow.numRows }, (_, i) => arrow.getChild(f.name)!.get(i));
          expect(
            got.map((v) => (typeof v === 'number' ? Math.fround(v) : v)),
            `${name}.${f.name}`,
          ).toEqual(want.map((v) => (typeof v === 'number' ? Math.fround(v) : v)));
          expect(col.length).toBe(arrow.numRows);
          if (['scenario_id', 'type', 'kind', 'relation', 'state', 'lane_type'].includes(f.name))
            expect(DataType.isDictionary(f.type), `${name}.${f.name}`).toBe(true);
        }
      }
    } finally {
      db.closeSync();
    }
    const traj = tableFromIPC(fs.readFileSync(path.join(dir, 'trajectories.arrow')));
    expect(String(traj.schema.fields.find((f) => f.name === 'rollout')!.type)).toBe('Int32');
    expect(String(traj.schema.fields.find((f) => f.name === 'valid')!.type)).toBe('Bool');
    // The input scenario once (not once per rollout), loadable by `drivekit sim` and the viewer.
    const scen = fs.readdirSync(path.join(dir, 'scenarios'));
    expect(scen).toEqual(['0000-road']);
    const back = loadScenario(path.join(dir, 'scenarios', scen[0]));
    expect(back.map.lanes[0].laneType).toBe('surface_street');
    expect(Array.from(back.map.lanes[0].z!)).toEqual([1, 1.5, 2]);
  });

  it('JSON: one document per scenario, snake_case throughout, validity as booleans, every rollout inside', async () => {
    const { sim, out } = await ready;
    const dir = out('json');
    expect(fs.readdirSync(dir)).toEqual(['0000-road.json']);
    const file = path.join(dir, '0000-road.json');
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    const keys = new Set<string>();
    const walk = (v: unknown): void => {
      if (Array.isArray(v)) v.forEach(walk);
      else if (v && typeof v === 'object')
        for (const [k, x] of Object.entries(v)) {
          keys.add(k);
          walk(x);
        }
    };
    walk(doc);
    expect([...keys].filter((k) => !/^[a-z][a-z0-9_]*$/.test(k))).toEqual([]);
    // The export header, as in the Parquet and Arrow metadata.
    expect(doc).toMatchObject({
      format: 'drivekit.scenario/2',
      scenario_id: 'road',
      current_step: 10,
      num_steps: T,
      num_rollouts: ROLLOUTS,
      sdc_agent_id: 100,
      tracks_to_predict: [101, 102],
    });
    expect(doc.units.x).toMatch(/^m\b/);
    expect(doc.agents[0].valid.every((v: unknown) => v === true)).toBe(true);
    expect(doc.map.traffic_lights[0].states[0]).toBe('green');
    const g = readRolloutGroups(sim)[0];
    expect(doc.rollouts.map((r: { rollout: number }) => r.rollout)).toEqual([0, 1]);
    const r1 = doc.rollouts[1].agents[2];
    expect(r1.agent_id).toBe(102);
    expect(Float32Array.from(r1.x)).toEqual(g.rollouts[1].x.subarray(2 * T, 3 * T));
    expect(typeof r1.valid[0]).toBe('boolean');
    // The document is a scenario file: `drivekit sim` and the viewer load it, facts kept.
    const back = loadScenario(file);
    expect(back.id).toBe('road');
    expect(back.egoIndex).toBe(0);
    expect(Array.from(back.tracksToPredict!)).toEqual([1, 2]);
    expect(back.map.roadLines![0].type).toBe('broken_single_white');
  });
});
