// The one table layout of the scenario exports (Arrow, Parquet; JSON carries the same header): rollouts in a
// `rollout` column, agents and map once per scenario, units and scenario facts in the file metadata. docs/formats.md.
import {
  LIGHT_NAMES,
  NO_SIGNAL_STATE,
  SIGNAL_STATE_NAMES,
  type AgentTracks,
  type MapFeature,
  type Scenario,
} from '../scenario.ts';

/** A column's kind: category = a named value (Arrow dictionary, Parquet dictionary-encoded string). */
export type ColumnKind = 'int32' | 'float32' | 'bool' | 'category';

export interface ExportColumn {
  name: string;
  kind: ColumnKind;
  /** Nullable columns: NaN (float32) or null (category) is null. */
  nullable: boolean;
  /** Unit or meaning (file metadata `drivekit.units`). */
  unit: string;
  values: Int32Array | Float32Array | Uint8Array | (string | null)[];
}

export interface ExportTable {
  name: ExportTableName;
  columns: ExportColumn[];
  rows: number;
  /** File metadata (Arrow schema metadata / Parquet key-value metadata). */
  metadata: Record<string, string>;
}

export const EXPORT_TABLES = [
  'trajectories',
  'agents',
  'lanes',
  'lane_links',
  'lane_points',
  'map_points',
  'traffic_lights',
] as const;
export type ExportTableName = (typeof EXPORT_TABLES)[number];

/** The layout's version, in `drivekit.schema` as `sim_export_<table>/2` (/1: rollouts in `<id>.r<n>`, no units). */
export const EXPORT_VERSION = 2;

/** A scenario of an export: its input (map, agents, log tracks) and the tracks of each rollout. */
export interface ExportScenario {
  scenario: Scenario;
  rollouts: AgentTracks[];
}

/** The header of a scenario, the same in every table's metadata (`drivekit.scenarios`) and in the JSON export. */
export interface ExportScenarioHeader {
  scenario_id: string;
  source: string;
  dt_s: number;
  num_steps: number;
  current_step: number;
  num_rollouts: number;
  /** The self-driving car (the ego) by agent id; null when the scenario has none. */
  sdc_agent_id: number | null;
  /** WOMD's tracks to predict, by agent id (empty when the source names none). */
  tracks_to_predict: number[];
  /** WOMD's objects of interest (agent ids), where the source has them. */
  objects_of_interest?: number[];
}

export function exportHeader(e: ExportScenario): ExportScenarioHeader {
  const s = e.scenario;
  const ids = s.agents.ids;
  return {
    scenario_id: s.id,
    source: s.source,
    dt_s: s.dtS,
    num_steps: s.numSteps,
    current_step: s.currentStep,
    num_rollouts: e.rollouts.length,
    sdc_agent_id: s.egoIndex >= 0 ? ids[s.egoIndex] : null,
    tracks_to_predict: Array.from(s.tracksToPredict ?? [], (row) => ids[row]),
    ...(s.objectsOfInterest ? { objects_of_interest: Array.from(s.objectsOfInterest) } : {}),
  };
}

const M = 'm, world frame';
/** Units of every column name (one meaning per name across the tables). */
export const EXPORT_UNITS: Record<string, string> = {
  scenario_id: 'scenario (drivekit.scenarios)',
  rollout: 'rollout index (0-based); every rollout shares the log history before current_step',
  step: 'time step (0-based); time = step × dt_s (drivekit.scenarios)',
  agent_id: 'agent',
  type: 'agents: vehicle, pedestrian, cyclist, other; map_points: the road-line or road-edge type',
  x: M,
  y: M,
  z: `${M}; map: null where the source has no height`,
  yaw: 'rad, counter-clockwise about +z from +x',
  vx: 'm/s',
  vy: 'm/s',
  length: 'm, along the heading',
  width: 'm, across the heading',
  height: 'm',
  valid: 'the agent exists at this step',
  is_ego: 'the self-driving car (SDC)',
  controlled: 'driven by the simulated policy (else replayed from the log)',
  track_to_predict: "in WOMD's tracks_to_predict",
  goal_x: `${M}; null: no goal`,
  goal_y: `${M}; null: no goal`,
  lane_id: 'lane (map_points: the lane a stop line controls, −1 for other kinds)',
  lane_type: 'undefined, freeway, surface_street, bike_lane; null: unknown',
  width_m: 'm',
  speed_limit_mps: 'm/s',
  in_intersection: 'the lane lies in an intersection',
  interpolating: "WOMD's interpolating flag (false where the source has none)",
  relation: 'successor, predecessor, left, right',
  other_lane_id: 'the related lane',
  point_index: 'index of the point along its polyline or polygon',
  kind: 'road_edge, road_line, crosswalk, stop_line, drivable_area, sidewalk, speed_bump, driveway, stop_sign',
  feature_id: 'map feature',
  state: 'unknown, red, yellow, green',
  source_state: "the source's signal state (e.g. arrow_stop); null: none",
  stop_x: M,
  stop_y: M,
  stop_z: `${M}; null: unknown`,
};

const FRAME =
  'world frame: right-handed, metres, z up; yaw counter-clockwise about +z from +x (drivekit core/geometry)';

/** Columns built row by row (plain arrays), frozen into typed arrays once. */
class TableBuilder {
  private readonly cols: { name: string; kind: ColumnKind; nullable: boolean; data: unknown[] }[] = [];
  constructor(spec: [string, ColumnKind, boolean?][]) {
    for (const [name, kind, nullable] of spec) this.cols.push({ name, kind, nullable: !!nullable, data: [] });
  }
  push(...values: unknown[]): void {
    for (let i = 0; i < this.cols.length; i++) this.cols[i].data.push(values[i]);
  }
  build(name: ExportTableName, headers: ExportScenarioHeader[]): ExportTable {
    const columns = this.cols.map((c): ExportColumn => ({
      name: c.name,
      kind: c.kind,
      nullable: c.nullable,
      unit: EXPORT_UNITS[c.name] ?? '',
      values:
        c.kind === 'int32'
          ? Int32Array.from(c.data as number[])
          : c.kind === 'float32'
            ? Float32Array.from(c.data as number[])
            : c.kind === 'bool'
              ? Uint8Array.from(c.data as boolean[], (b) => (b ? 1 : 0))
              : (c.data as (string | null)[]),
    }));
    return {
      name,
      columns,
      rows: this.cols[0].data.length,
      metadata: {
        'drivekit.schema': `sim_export_${name}/${EXPORT_VERSION}`,
        'drivekit.units': JSON.stringify(Object.fromEntries(columns.map((c) => [c.name, c.unit]))),
        'drivekit.frame': FRAME,
        'drivekit.scenarios': JSON.stringify(headers),
      },
    };
  }
}

/** Per-step size of agent i at flat index j (WOMD's per-step sizes where kept). */
const sizeAt = (a: AgentTracks, i: number, j: number) => [
  a.stepLength?.[j] ?? a.length[i],
  a.stepWidth?.[j] ?? a.width[i],
  a.stepHeight?.[j] ?? a.height[i],
];

/** The seven tables of a set of scenarios with their rollouts. */
export function buildExportTables(set: readonly ExportScenario[]): ExportTable[] {
  const headers = set.map(exportHeader);
  const tr = new TableBuilder([
    ['scenario_id', 'category'],
    ['rollout', 'int32'],
    ['step', 'int32'],
    ['agent_id', 'int32'],
    ['type', 'category'],
    ['x', 'float32'],
    ['y', 'float32'],
    ['z', 'float32'],
    ['yaw', 'float32'],
    ['vx', 'float32'],
    ['vy', 'float32'],
    ['length', 'float32'],
    ['width', 'float32'],
    ['height', 'float32'],
    ['valid', 'bool'],
  ]);
  const ag = new TableBuilder([
    ['scenario_id', 'category'],
    ['agent_id', 'int32'],
    ['type', 'category'],
    ['length', 'float32'],
    ['width', 'float32'],
    ['height', 'float32'],
    ['is_ego', 'bool'],
    ['controlled', 'bool'],
    ['track_to_predict', 'bool'],
    ['goal_x', 'float32', true],
    ['goal_y', 'float32', true],
  ]);
  const ln = new TableBuilder([
    ['scenario_id', 'category'],
    ['lane_id', 'int32'],
    ['lane_type', 'category', true],
    ['width_m', 'float32'],
    ['speed_limit_mps', 'float32'],
    ['in_intersection', 'bool'],
    ['interpolating', 'bool'],
  ]);
  const lk = new TableBuilder([
    ['scenario_id', 'category'],
    ['lane_id', 'int32'],
    ['relation', 'category'],
    ['other_lane_id', 'int32'],
  ]);
  const lp = new TableBuilder([
    ['scenario_id', 'category'],
    ['lane_id', 'int32'],
    ['point_index', 'int32'],
    ['x', 'float32'],
    ['y', 'float32'],
    ['z', 'float32', true],
  ]);
  const mp = new TableBuilder([
    ['scenario_id', 'category'],
    ['kind', 'category'],
    ['type', 'category', true],
    ['feature_id', 'int32'],
    ['lane_id', 'int32'],
    ['point_index', 'int32'],
    ['x', 'float32'],
    ['y', 'float32'],
    ['z', 'float32', true],
  ]);
  const tl = new TableBuilder([
    ['scenario_id', 'category'],
    ['lane_id', 'int32'],
    ['step', 'int32'],
    ['state', 'category'],
    ['source_state', 'category', true],
    ['stop_x', 'float32'],
    ['stop_y', 'float32'],
    ['stop_z', 'float32', true],
  ]);
  for (const { scenario: s, rollouts } of set) {
    const a = s.agents;
    const T = s.numSteps;
    const id = s.id;
    rollouts.forEach((r, n) => {
      for (let i = 0; i < a.ids.length; i++)
        for (let t = 0; t < T; t++) {
          const j = i * T + t;
          const [l, w, h] = sizeAt(r, i, j);
          tr.push(
            id,
            n,
            t,
            a.ids[i],
            a.types[i],
            r.x[j],
            r.y[j],
            r.z[j],
            r.yaw[j],
            r.vx[j],
            r.vy[j],
            l,
            w,
            h,
            r.valid[j] === 1,
          );
        }
    });
    const toPredict = new Set(s.tracksToPredict ?? []);
    for (let i = 0; i < a.ids.length; i++) {
      const goal = Number.isFinite(s.goalX[i]) && Number.isFinite(s.goalY[i]);
      ag.push(
        id,
        a.ids[i],
        a.types[i],
        a.length[i],
        a.width[i],
        a.height[i],
        i === s.egoIndex,
        s.controlled[i] === 1,
        toPredict.has(i),
        goal ? s.goalX[i] : NaN,
        goal ? s.goalY[i] : NaN,
      );
    }
    for (const l of s.map.lanes) {
      ln.push(id, l.id, l.laneType ?? null, l.widthM, l.speedLimitMps, l.inIntersection, !!l.interpolating);
      for (const [rel, others] of [
        ['successor', l.successors],
        ['predecessor', l.predecessors],
        ['left', l.leftNeighbors],
        ['right', l.rightNeighbors],
      ] as const)
        for (const o of others) lk.push(id, l.id, rel, o);
      for (let p = 0; p < l.xy.length / 2; p++)
        lp.push(id, l.id, p, l.xy[2 * p], l.xy[2 * p + 1], l.z?.[p] ?? NaN);
    }
    const m = s.map;
    const kinds: [string, readonly MapFeature[], (f: MapFeature) => number][] = [
      ['road_edge', m.roadEdges, () => -1],
      ['road_line', m.roadLines ?? [], () => -1],
      ['crosswalk', m.crosswalks, () => -1],
      ['stop_line', m.stopLines, (f) => (f as MapFeature & { laneId: number }).laneId],
      ['drivable_area', m.drivableAreas, () => -1],
      ['sidewalk', m.sidewalks, () => -1],
      ['speed_bump', m.speedBumps ?? [], () => -1],
      ['driveway', m.driveways ?? [], () => -1],
      [
        'stop_sign',
        (m.stopSigns ?? []).map((g) => ({
          id: g.id,
          xy: Float32Array.of(g.x, g.y),
          z: Float32Array.of(g.z),
        })),
        () => -1,
      ],
    ];
    for (const [kind, features, laneOf] of kinds)
      for (const f of features)
        for (let p = 0; p < f.xy.length / 2; p++)
          mp.push(
            id,
            kind,
            f.type ?? null,
            f.id,
            laneOf(f),
            p,
            f.xy[2 * p],
            f.xy[2 * p + 1],
            f.z?.[p] ?? NaN,
          );
    for (const l of m.trafficLights)
      for (let t = 0; t < T; t++) {
        const src = l.signalStates?.[t];
        tl.push(
          id,
          l.laneId,
          t,
          LIGHT_NAMES[l.states[t]] ?? 'unknown',
          src === undefined || src === NO_SIGNAL_STATE ? null : (SIGNAL_STATE_NAMES[src] ?? null),
          l.stopX,
          l.stopY,
          l.stopZ ?? NaN,
        );
      }
  }
  const tables = {
    trajectories: tr,
    agents: ag,
    lanes: ln,
    lane_links: lk,
    lane_points: lp,
    map_points: mp,
    traffic_lights: tl,
  };
  return EXPORT_TABLES.map((name) => tables[name].build(name, headers));
}
