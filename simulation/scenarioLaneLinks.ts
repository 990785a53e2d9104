// The `lane_links` table of a scenario directory (scenario_lane_links/1): a lane's neighbours with the
// stretches they run beside it and its road-line boundaries, one row per link (WOMD map.proto lanes).
import { Field, Int32, makeData, type RecordBatch, Schema, Utf8 } from 'apache-arrow';
import { batchFromColumns, int32DataWithNulls, readUtf8, utf8Data } from '../core/arrow/columns.ts';
import { SCHEMA_KEY } from '../core/arrow/schemas.ts';
import { SchemaError } from '../core/arrow/validate.ts';
import { readNumbers } from './scenarioColumns.ts';
import type { Lane, LaneBoundary, LaneNeighborSpan } from './scenario.ts';

export const LANE_LINKS_SCHEMA = 'scenario_lane_links/1';

/**
 * Columns: lane_id; relation (`left_neighbor`, `right_neighbor`, `left_boundary`, `right_boundary`,
 * `left_neighbor_boundary`, `right_neighbor_boundary`: a line between the lane and a neighbour);
 * other_id (the neighbour lane, or the road line / edge); self_start_index, self_end_index (point
 * indices of this lane); neighbor_start_index, neighbor_end_index (of the neighbour; null for
 * boundaries); boundary_type (road-line type name; null for neighbours); neighbor_id (the neighbour a
 * `*_neighbor_boundary` row belongs to, else null).
 */
const FIELDS = [
  new Field('lane_id', new Int32(), false),
  new Field('relation', new Utf8(), false),
  new Field('other_id', new Int32(), false),
  new Field('self_start_index', new Int32(), false),
  new Field('self_end_index', new Int32(), false),
  new Field('neighbor_start_index', new Int32(), true),
  new Field('neighbor_end_index', new Int32(), true),
  new Field('boundary_type', new Utf8(), true),
  new Field('neighbor_id', new Int32(), true),
];

type Side = 'left' | 'right';

/** The lane links of a map as one record batch (no rows when no lane has any). */
export function laneLinksBatch(lanes: readonly Lane[]): RecordBatch {
  const cols = {
    lane: [] as number[],
    rel: [] as string[],
    other: [] as number[],
    s0: [] as number[],
    s1: [] as number[],
    n0: [] as number[],
    n1: [] as number[],
    type: [] as string[],
    via: [] as number[],
  };
  const push = (lane: number, rel: string, other: number, s: number[], type: string, via: number) => {
    cols.lane.push(lane);
    cols.rel.push(rel);
    cols.other.push(other);
    cols.s0.push(s[0]);
    cols.s1.push(s[1]);
    cols.n0.push(s[2]);
    cols.n1.push(s[3]);
    cols.type.push(type);
    cols.via.push(via);
  };
  const boundary = (lane: number, rel: string, b: LaneBoundary, via: number) =>
    push(lane, rel, b.featureId, [b.laneStartIndex, b.laneEndIndex, -1, -1], b.type, via);
  for (const l of lanes) {
    for (const side of ['left', 'right'] as Side[]) {
      for (const sp of (side === 'left' ? l.leftNeighborSpans : l.rightNeighborSpans) ?? []) {
        const idx = [sp.selfStartIndex, sp.selfEndIndex, sp.neighborStartIndex, sp.neighborEndIndex];
        push(l.id, `${side}_neighbor`, sp.laneId, idx, '', -1);
        for (const b of sp.boundaries) boundary(l.id, `${side}_neighbor_boundary`, b, sp.laneId);
      }
      for (const b of (side === 'left' ? l.leftBoundaries : l.rightBoundaries) ?? [])
        boundary(l.id, `${side}_boundary`, b, -1);
    }
  }
  const i32 = (v: number[]) => int32DataWithNulls(Int32Array.from(v), -1);
  const nullable = (v: string[]) => {
    const d = utf8Data(v);
    // Empty strings are missing values (neighbour rows have no boundary type).
    const bits = new Uint8Array((v.length + 7) >> 3);
    let nulls = 0;
    v.forEach((x, i) => (x === '' ? nulls++ : (bits[i >> 3] |= 1 << (i & 7))));
    if (nulls === 0) return d;
    return makeData({
      type: new Utf8(),
      length: v.length,
      nullCount: nulls,
      nullBitmap: bits,
      valueOffsets: d.valueOffsets,
      data: d.values,
    } as never);
  };
  return batchFromColumns(new Schema(FIELDS, new Map([[SCHEMA_KEY, LANE_LINKS_SCHEMA]])), [
    i32(cols.lane),
    utf8Data(cols.rel),
    i32(cols.other),
    i32(cols.s0),
    i32(cols.s1),
    i32(cols.n0),
    i32(cols.n1),
    nullable(cols.type),
    i32(cols.via),
  ]);
}

/** Attach the links of `batches` to the lanes (by id); lanes of a source with links get empty lists. */
export function applyLaneLinks(lanes: Lane[], batches: readonly RecordBatch[], where: string): void {
  const byId = new Map(lanes.map((l) => [l.id, l]));
  for (const l of lanes)
    if (l.laneType !== undefined) {
      l.leftNeighborSpans = [];
      l.rightNeighborSpans = [];
      l.leftBoundaries = [];
      l.rightBoundaries = [];
    }
  for (const b of batches) {
    const version = b.schema.metadata.get(SCHEMA_KEY);
    if (version !== LANE_LINKS_SCHEMA)
      throw new SchemaError(`${where}: schema is ${version ?? 'missing'}, expected ${LANE_LINKS_SCHEMA}`);
    for (const f of FIELDS)
      if (!b.schema.fields.some((x) => x.name === f.name))
        throw new SchemaError(`${where}: column '${f.name}' is missing (${LANE_LINKS_SCHEMA})`);
    const lane = readNumbers(b, 'lane_id');
    const rel = readUtf8(b, 'relation');
    const other = readNumbers(b, 'other_id');
    const s0 = readNumbers(b, 'self_start_index');
    const s1 = readNumbers(b, 'self_end_index');
    const n0 = readNumbers(b, 'neighbor_start_index');
    const n1 = readNumbers(b, 'neighbor_end_index');
    const type = readUtf8(b, 'boundary_type');
    const via = readNumbers(b, 'neighbor_id');
    for (let i = 0; i < lane.length; i++) {
      const l = byId.get(lane[i]);
      if (!l) throw new SchemaError(`${where}: row ${i} refers to missing lane ${lane[i]}`);
      const side: Side = rel[i].startsWith('left') ? 'left' : 'right';
      const spans = side === 'left' ? (l.leftNeighborSpans ??= []) : (l.rightNeighborSpans ??= []);
      const bound: LaneBoundary = {
        laneStartIndex: s0[i],
        laneEndIndex: s1[i],
        featureId: other[i],
        type: type[i],
      };
      if (rel[i].endsWith('_neighbor')) {
        const sp: LaneNeighborSpan = {
          laneId: other[i],
          selfStartIndex: s0[i],
          selfEndIndex: s1[i],
          neighborStartIndex: n0[i],
          neighborEndIndex: n1[i],
          boundaries: [],
        };
        spans.push(sp);
      } else if (rel[i].endsWith('_neighbor_boundary')) {
        const sp = [...spans].reverse().find((x) => x.laneId === via[i]);
        if (!sp) throw new SchemaError(`${where}: row ${i}: boundary of neighbour ${via[i]} before its row`);
        sp.boundaries.push(bound);
      } else if (rel[i].endsWith('_boundary'))
        (side === 'left' ? (l.leftBoundaries ??= []) : (l.rightBoundaries ??= [])).push(bound);
      else throw new SchemaError(`${where}: row ${i}: unknown relation '${rel[i]}'`);
    }
  }
}
