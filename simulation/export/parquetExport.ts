// Simulated scenarios as flat Parquet tables (hyparquet-writer) that pandas, polars and DuckDB read:
// polylines in long form (one row per point), every table keyed by scenario_id. Schema: docs/simulation.md.
import path from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import {
  LIGHT_NAMES,
  type MapFeature,
  NO_SIGNAL_STATE,
  type Scenario,
  SIGNAL_STATE_NAMES,
  type StopLine,
} from '../scenario.ts';

type Column = {
  name: string;
  data: ArrayLike<unknown>;
  type: 'STRING' | 'INT32' | 'FLOAT' | 'DOUBLE' | 'BOOLEAN';
};

const NULLABLE = new Set(['goal_x', 'goal_y', 'source_state']);

function writeTable(file: string, columns: Column[]): void {
  const buf = parquetWriteBuffer({
    columnData: columns.map((c) => ({
      name: c.name,
      data: Array.from(c.data) as never,
      type: c.type,
      // A missing goal is null (issue 19), not NaN: readers see "no goal", not a coordinate.
      nullable: NULLABLE.has(c.name),
    })),
    kvMetadata: [{ key: 'drivekit.schema', value: `sim_export_${path.basename(file, '.parquet')}/1` }],
  });
  writeFileAtomicSync(file, new Uint8Array(buf));
}

/** The Parquet tables written, by file name. */
export const PARQUET_TABLES = [
  'trajectories',
  'agents',
  'lanes',
  'lane_links',
  'lane_points',
  'map_points',
  'traffic_lights',
] as const;

export function exportParquet(scenarios: readonly Scenario[], dir: string): string[] {
  const tr = {
    scenario_id: [] as string[],
    step: [] as number[],
    agent_id: [] as number[],
    type: [] as string[],
    x: [] as number[],
    y: [] as number[],
    z: [] as number[],
    yaw: [] as number[],
    vx: [] as number[],
    vy: [] as number[],
    valid: [] as boolean[],
  };
  const ag = {
    scenario_id: [] as string[],
    agent_id: [] as number[],
    type: [] as string[],
    length: [] as number[],
    width: [] as number[],
    height: [] as number[],
    is_ego: [] as boolean[],
    controlled: [] as boolean[],
    goal_x: [] as (number | null)[],
    goal_y: [] as (number | null)[],
  };
  const ln = {
    scenario_id: [] as string[],
    lane_id: [] as number[],
    width_m: [] as number[],
    speed_limit_mps: [] as number[],
    in_intersection: [] as boolean[],
  };
  const lk = {
    scenario_id: [] as string[],
    lane_id: [] as number[],
    relation: [] as string[],
    other_lane_id: [] as number[],
  };
  const lp = {
    scenario_id: [] as string[],
    lane_id: [] as number[],
    point_index: [] as number[],
    x: [] as number[],
    y: [] as number[],
  };
  const mp = {
    scenario_id: [] as string[],
    kind: [] as string[],
    feature_id: [] as number[],
    lane_id: [] as number[],
    point_index: [] as number[],
    x: [] as number[],
    y: [] as number[],
  };
  const tl = {
    scenario_id: [] as string[],
    lane_id: [] as number[],
    step: [] as number[],
    // Named states: the simulator's (red, yellow, green, unknown) and the source's where kept (arrow_stop, …).
    state: [] as string[],
    source_state: [] as (string | null)[],
    stop_x: [] as number[],
    stop_y: [] as number[],
  };
  for (const s of scenarios) {
    const a = s.agents;
    const T = s.numSteps;
    for (let i = 0; i < a.ids.length; i++) {
      ag.scenario_id.push(s.id);
      ag.agent_id.push(a.ids[i]);
      ag.type.push(a.types[i]);
      ag.length.push(a.length[i]);
      ag.width.push(a.width[i]);
      ag.height.push(a.height[i]);
      ag.is_ego.push(i === s.egoIndex);
      ag.controlled.push(s.controlled[i] === 1);
      const noGoal = !Number.isFinite(s.goalX[i]) || !Number.isFinite(s.goalY[i]);
      ag.goal_x.push(noGoal ? null : s.goalX[i]);
      ag.goal_y.push(noGoal ? null : s.goalY[i]);
      for (let t = 0; t < T; t++) {
        const k = i * T + t;
        tr.scenario_id.push(s.id);
        tr.step.push(t);
        tr.agent_id.push(a.ids[i]);
        tr.type.push(a.types[i]);
        tr.x.push(a.x[k]);
        tr.y.push(a.y[k]);
        tr.z.push(a.z[k]);
        tr.yaw.push(a.yaw[k]);
        tr.vx.push(a.vx[k]);
        tr.vy.push(a.vy[k]);
        tr.valid.push(a.valid[k] === 1);
      }
    }
    for (const l of s.map.lanes) {
      ln.scenario_id.push(s.id);
      ln.lane_id.push(l.id);
      ln.width_m.push(l.widthM);
      ln.speed_limit_mps.push(l.speedLimitMps);
      ln.in_intersection.push(l.inIntersection);
      for (const [rel, ids] of [
        ['successor', l.successors],
        ['predecessor', l.predecessors],
        ['left', l.leftNeighbors],
        ['right', l.rightNeighbors],
      ] as const) {
        for (const o of ids) {
          lk.scenario_id.push(s.id);
          lk.lane_id.push(l.id);
          lk.relation.push(rel);
          lk.other_lane_id.push(o);
        }
      }
      for (let p = 0; p < l.xy.length / 2; p++) {
        lp.scenario_id.push(s.id);
        lp.lane_id.push(l.id);
        lp.point_index.push(p);
        lp.x.push(l.xy[2 * p]);
        lp.y.push(l.xy[2 * p + 1]);
      }
    }
    const feats: [string, MapFeature[], (f: MapFeature) => number][] = [
      ['road_edge', s.map.roadEdges, () => -1],
      ['drivable_area', s.map.drivableAreas, () => -1],
      ['crosswalk', s.map.crosswalks, () => -1],
      ['sidewalk', s.map.sidewalks, () => -1],
      ['stop_line', s.map.stopLines, (f) => ('laneId' in f ? (f as StopLine).laneId : -1)],
    ];
    for (const [kind, list, laneOf] of feats) {
      for (const f of list) {
        for (let p = 0; p < f.xy.length / 2; p++) {
          mp.scenario_id.push(s.id);
          mp.kind.push(kind);
          mp.feature_id.push(f.id);
          mp.lane_id.push(laneOf(f));
          mp.point_index.push(p);
          mp.x.push(f.xy[2 * p]);
          mp.y.push(f.xy[2 * p + 1]);
        }
      }
    }
    for (const l of s.map.trafficLights) {
      for (let t = 0; t < T; t++) {
        tl.scenario_id.push(s.id);
        tl.lane_id.push(l.laneId);
        tl.step.push(t);
        tl.state.push(LIGHT_NAMES[l.states[t]] ?? 'unknown');
        const src = l.signalStates?.[t];
        tl.source_state.push(
          src === undefined || src === NO_SIGNAL_STATE ? null : (SIGNAL_STATE_NAMES[src] ?? null),
        );
        tl.stop_x.push(l.stopX);
        tl.stop_y.push(l.stopY);
      }
    }
  }
  const typeOf = (name: string, v: unknown): Column['type'] =>
    typeof v === 'string' || name === 'state' || name === 'source_state'
      ? 'STRING'
      : typeof v === 'boolean'
        ? 'BOOLEAN'
        : ['step', 'agent_id', 'lane_id', 'other_lane_id', 'feature_id', 'point_index', 'state'].includes(
              name,
            )
          ? 'INT32'
          : 'FLOAT';
  const cols = (t: Record<string, unknown[]>): Column[] =>
    Object.entries(t).map(([name, data]) => ({
      name,
      data,
      type: data.length
        ? typeOf(name, data[0])
        : name === 'scenario_id' || name === 'type' || name === 'kind' || name === 'relation'
          ? 'STRING'
          : typeOf(name, 0),
    }));
  const tables: Record<(typeof PARQUET_TABLES)[number], Record<string, unknown[]>> = {
    trajectories: tr,
    agents: ag,
    lanes: ln,
    lane_links: lk,
    lane_points: lp,
    map_points: mp,
    traffic_lights: tl,
  };
  const files: string[] = [];
  for (const name of PARQUET_TABLES) {
    const file = path.join(dir, `${name}.parquet`);
    writeTable(file, cols(tables[name]));
    files.push(file);
  }
  return files;
}
