// Arrow inputs as common writers produce them (issue 19, point 4): Boxes and AgentStates tables written
// with Int32/Int64 indices, Float32/Float64 values, Utf8/LargeUtf8/Utf8View/dictionary strings and nulls
// read to the same records, through the file reader `drivekit eval` uses; unreadable types are refused.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  type DataType,
  Dictionary,
  Float32,
  Float64,
  Int32,
  Int64,
  Int8,
  LargeUtf8,
  Table,
  tableToIPC,
  Uint8,
  Utf8,
  Utf8View,
  vectorFromArray,
  Bool,
} from 'apache-arrow';
import { afterEach, describe, expect, it } from 'vitest';
import { batchToAgentStates } from '../../core/arrow/codec.ts';
import { readBoxSource } from '../../perception/eval/boxSources.ts';

const tmp: string[] = [];
afterEach(() => tmp.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function writeIpc(table: Table, name: string): string {
  const d = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-arrowin-'));
  tmp.push(d);
  const file = path.join(d, name);
  fs.writeFileSync(file, tableToIPC(table, 'file'));
  return file;
}

const FRAMES = [0, 0, 3, 7];
const TRACKS = [5, null, 2, null];
const LABELS = ['car', 'pedestrian', 'car', 'cyclist'];
const CX = [1.5, -2.25, 10, 40.5];

/** A Boxes table in the writer's choice of types; `track_id` has nulls (no track). */
function boxesTable(intType: () => DataType, floatType: () => DataType, strType: () => DataType): Table {
  const n = FRAMES.length;
  const ints = (v: (number | null)[]) =>
    vectorFromArray(
      v.map((x) => (x === null ? null : intType() instanceof Int64 ? BigInt(x) : x)),
      intType(),
    );
  const floats = (v: number[]) => vectorFromArray(v, floatType());
  return new Table({
    frame_index: ints(FRAMES),
    track_id: ints(TRACKS),
    label: vectorFromArray(LABELS, strType()),
    score: floats([0.9, 0.5, 0.75, 0.25]),
    cx: floats(CX),
    cy: floats(Array(n).fill(0.5)),
    cz: floats(Array(n).fill(-1)),
    length: floats(Array(n).fill(4)),
    width: floats(Array(n).fill(2)),
    height: floats(Array(n).fill(1.5)),
    yaw: floats([0, 0.5, -0.5, 3]),
    num_points: ints([10, null, 3, 0]),
  });
}

const INTS = { Int32: () => new Int32(), Int64: () => new Int64(), Int8: () => new Int8() };
const FLOATS = { Float32: () => new Float32(), Float64: () => new Float64() };
const STRINGS = {
  Utf8: () => new Utf8(),
  LargeUtf8: () => new LargeUtf8(),
  Utf8View: () => new Utf8View(),
  'Dictionary<Int32, Utf8>': () => new Dictionary(new Utf8(), new Int32()),
  'Dictionary<Int8, LargeUtf8>': () => new Dictionary(new LargeUtf8(), new Int8()),
};

describe('Arrow inputs from other writers', () => {
  for (const [iName, intType] of Object.entries(INTS))
    for (const [fName, floatType] of Object.entries(FLOATS))
      for (const [sName, strType] of Object.entries(STRINGS)) {
        it(`reads Boxes with ${iName} indices, ${fName} values, ${sName} labels`, async () => {
          const file = writeIpc(boxesTable(intType, floatType, strType), 'pred.arrow');
          const { boxes } = await readBoxSource(file, ['detections']);
          expect(Array.from(boxes.frameIndex)).toEqual(FRAMES);
          expect(Array.from(boxes.trackId)).toEqual([5, -1, 2, -1]);
          expect(Array.from(boxes.numPoints)).toEqual([10, -1, 3, 0]);
          expect(boxes.label).toEqual(LABELS);
          expect(Array.from(boxes.cx)).toEqual(CX);
          expect(boxes.score[2]).toBe(0.75);
        });
      }

  it('refuses Int64 indices beyond the Int32 range, and float indices, naming the column', async () => {
    const big = boxesTable(
      () => new Int64(),
      () => new Float32(),
      () => new Utf8(),
    );
    const huge = new Table({
      ...Object.fromEntries(big.schema.fields.map((f) => [f.name, big.getChild(f.name)!])),
      frame_index: vectorFromArray([0n, 1n, 2n, 2n ** 40n], new Int64()),
    });
    await expect(readBoxSource(writeIpc(huge, 'huge.arrow'), [])).rejects.toThrow(
      /frame_index.*outside the range/,
    );
    const floatIdx = new Table({
      ...Object.fromEntries(big.schema.fields.map((f) => [f.name, big.getChild(f.name)!])),
      frame_index: vectorFromArray([0, 1, 2, 3], new Float64()),
    });
    await expect(readBoxSource(writeIpc(floatIdx, 'f.arrow'), [])).rejects.toThrow(
      /column 'frame_index' has type Float64/,
    );
  });

  it('reads AgentStates with Int64 steps, Float64 values, Utf8View types and integer validity', () => {
    const n = 3;
    const t: Table = new Table({
      scenario_id: vectorFromArray(['s', 's', 's'], new Dictionary(new Utf8(), new Int32())),
      step: vectorFromArray([0n, 1n, 2n], new Int64()),
      agent_id: vectorFromArray([7n, 7n, 7n], new Int64()),
      type: vectorFromArray(['vehicle', 'vehicle', null], new Utf8View()),
      x: vectorFromArray([1, 2, 3], new Float64()),
      y: vectorFromArray([0, 0, 0], new Float64()),
      z: vectorFromArray([0, 0, 0], new Float64()),
      yaw: vectorFromArray([0, 0, 0], new Float64()),
      vx: vectorFromArray([10, 10, 10], new Float64()),
      vy: vectorFromArray([0, 0, 0], new Float64()),
      length: vectorFromArray(Array(n).fill(4.5), new Float64()),
      width: vectorFromArray(Array(n).fill(2), new Float64()),
      height: vectorFromArray(Array(n).fill(1.6), new Float64()),
      valid: vectorFromArray([1, 0, 1], new Uint8()),
    });
    const a = batchToAgentStates(t.batches[0]);
    expect(Array.from(a.step)).toEqual([0, 1, 2]);
    expect(Array.from(a.agentId)).toEqual([7, 7, 7]);
    expect(a.type).toEqual(['vehicle', 'vehicle', 'other']);
    expect(a.scenarioId).toEqual(['s', 's', 's']);
    expect(Array.from(a.x)).toEqual([1, 2, 3]);
    expect(Array.from(a.valid)).toEqual([1, 0, 1]);
    const asBool = new Table({
      ...Object.fromEntries(t.schema.fields.map((f) => [f.name, t.getChild(f.name)!])),
      valid: vectorFromArray([true, false, true], new Bool()),
    });
    expect(Array.from(batchToAgentStates(asBool.batches[0]).valid)).toEqual([1, 0, 1]);
  });
});
