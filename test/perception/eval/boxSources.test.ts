// Box sources for `drivekit eval`: the same boxes read back from a log, an Arrow file, a Parquet file and
// JSON; malformed files fail with an InputError naming the file and the problem.
import fs from 'node:fs';
import path from 'node:path';
import { parquetWriteBuffer } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { allocatePointCloud, type Boxes, boxesFromRows } from '../../../core/arrow/records.ts';
import { InputError } from '../../../core/errors.ts';
import { poseFromTranslationYaw } from '../../../core/geometry/pose.ts';
import { LogWriter, writeBoxesFile } from '../../../datasets/logstore.ts';
import { readBoxSource } from '../../../perception/eval/boxSources.ts';
import { tmpDir } from '../tmp.ts';

const rows = [
  { frameIndex: 0, cx: 10, cy: 1, cz: 0.8, length: 4.5, width: 1.8, height: 1.6, yaw: 0.1, score: 0.9 },
  {
    frameIndex: 2,
    cx: -5,
    cy: 3,
    cz: 0.9,
    length: 0.7,
    width: 0.6,
    height: 1.8,
    yaw: -1,
    score: 0.4,
    trackId: 3,
  },
];

function expectRows(b: Boxes) {
  expect(b.cx.length).toBe(2);
  expect(Array.from(b.frameIndex)).toEqual([0, 2]);
  expect(b.cx[1]).toBeCloseTo(-5, 5);
  expect(b.yaw[0]).toBeCloseTo(0.1, 5);
  expect(b.score[1]).toBeCloseTo(0.4, 5);
  expect(b.length[0]).toBeCloseTo(4.5, 5);
}

describe('box sources', () => {
  it('reads the same boxes from a log, Arrow, Parquet and JSON', async () => {
    const dir = tmpDir();
    const boxes = boxesFromRows(rows);
    // A log with poses, labels and tracks.
    const w = LogWriter.create(path.join(dir, 'log'), { source: 'test' });
    for (let f = 0; f < 3; f++)
      w.appendFrame({
        timestampNs: BigInt(f) * 100_000_000n,
        pose: poseFromTranslationYaw(f, 0, 0, 0),
        points: allocatePointCloud(3),
      });
    w.setLabels(boxes);
    w.setBoxes('tracks', boxes);
    await w.close();
    const fromLog = await readBoxSource(path.join(dir, 'log'), ['labels']);
    expectRows(fromLog.boxes);
    expect(fromLog.ego?.timesS[2]).toBeCloseTo(0.2, 10);
    expect(fromLog.ego?.poses[16 + 3]).toBe(1);
    expectRows((await readBoxSource(`${path.join(dir, 'log')}:tracks`, ['labels'])).boxes);

    await writeBoxesFile(path.join(dir, 'b.arrow'), boxes);
    expectRows((await readBoxSource(path.join(dir, 'b.arrow'), [])).boxes);

    const buf = parquetWriteBuffer({
      columnData: [
        { name: 'frame_index', data: Int32Array.from([0, 2]), type: 'INT32' },
        ...(['cx', 'cy', 'cz', 'length', 'width', 'height', 'yaw', 'score'] as const).map((k) => ({
          name: k,
          data: Float64Array.from(rows.map((r) => r[k])),
          type: 'DOUBLE' as const,
        })),
      ],
    });
    fs.writeFileSync(path.join(dir, 'b.parquet'), new Uint8Array(buf));
    const pq = await readBoxSource(path.join(dir, 'b.parquet'), []);
    expectRows(pq.boxes);
    expect(pq.ego).toBeNull();

    const json = {
      frames: [
        {
          frame_index: 0,
          boxes: [{ cx: 10, cy: 1, cz: 0.8, length: 4.5, width: 1.8, height: 1.6, yaw: 0.1, score: 0.9 }],
        },
        { frame_index: 1, boxes: [] },
        {
          frame_index: 2,
          boxes: [{ cx: -5, cy: 3, cz: 0.9, length: 0.7, width: 0.6, height: 1.8, yaw: -1, score: 0.4 }],
        },
      ],
    };
    fs.writeFileSync(path.join(dir, 'b.json'), JSON.stringify(json));
    expectRows((await readBoxSource(path.join(dir, 'b.json'), [])).boxes);
  });

  it('refuses malformed sources with the file and the problem', async () => {
    const dir = tmpDir();
    const bad = async (name: string, text: string, msg: RegExp) => {
      const f = path.join(dir, name);
      fs.writeFileSync(f, text);
      const p = readBoxSource(f, []);
      await expect(p).rejects.toBeInstanceOf(InputError);
      await expect(p).rejects.toThrow(msg);
    };
    await bad('a.json', '{"frames": [', /a\.json: not valid JSON/);
    await bad('b.json', '{"boxes": []}', /'frames' array/);
    await bad('c.json', '{"frames": [{"frame_index": 0, "boxes": [{"cx": 1}]}]}', /row 0: 'cy' is missing/);
    await bad(
      'd.json',
      '{"frames": [{"frame_index": 0, "boxes": [{"cx": 1, "cy": 1, "cz": 1, "length": "x", "width": 1, "height": 1, "yaw": 0}]}]}',
      /length is not a finite number/,
    );
    await bad('e.parquet', 'not parquet', /not a readable Parquet file/);
    await bad('f.txt', 'x', /unknown box file type/);
    await expect(readBoxSource(path.join(dir, 'nope.json'), [])).rejects.toThrow(/no such file/);
    const w = LogWriter.create(path.join(dir, 'log'), { source: 'test' });
    w.appendFrame({
      timestampNs: 0n,
      pose: poseFromTranslationYaw(0, 0, 0, 0),
      points: allocatePointCloud(1),
    });
    await w.close();
    await expect(readBoxSource(path.join(dir, 'log'), ['labels'])).rejects.toThrow(/has no labels\.arrow/);
  });
});
