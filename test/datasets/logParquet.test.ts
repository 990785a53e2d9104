// A log exported as Parquet (`drivekit export --log … --format parquet`, issue 19 point 2) opens in
// DuckDB: every table's row count matches the log, points join boxes by frame_index (the count of points
// inside each box equals the count from the log's own frames), one row group per frame with statistics.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { allocatePointCloud, boxesFromRows, type BoxRow } from '../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { LogReader, LogWriter } from '../../datasets/logstore.ts';
import { runExport } from '../../tools/commands/export.ts';

const tmp: string[] = [];
afterEach(() => tmp.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));

/** 4 frames of a grid of points that moves by frame; axis-aligned boxes over parts of it. */
async function makeLog(dir: string): Promise<void> {
  const w = LogWriter.create(dir, { source: 'synthetic' });
  for (let f = 0; f < 4; f++) {
    const n = 200 + 50 * f;
    const p = allocatePointCloud(n);
    for (let k = 0; k < n; k++) {
      p.x[k] = (k % 20) + 0.5 * f;
      p.y[k] = Math.floor(k / 20) - 5;
      p.z[k] = 0.1 * (k % 3);
      p.intensity[k] = k % 7;
      p.ring[k] = k % 32;
    }
    w.appendFrame({
      timestampNs: 1_000_000_000n * BigInt(f + 1),
      pose: poseFromTranslationYaw(f, 0, 0, 0),
      points: p,
    });
  }
  const box = (frameIndex: number, cx: number, extra: Partial<BoxRow> = {}): BoxRow => ({
    frameIndex,
    cx,
    cy: 0,
    cz: 0,
    length: 4,
    width: 3,
    height: 2,
    yaw: 0,
    ...extra,
  });
  w.setLabels(
    boxesFromRows([box(3, 5, { label: 'Car', trackId: 1 }), box(0, 10, { label: 'Pedestrian' }), box(2, 2)]),
  );
  w.setBoxes('detections', boxesFromRows([box(1, 6, { score: 0.5 })]));
  w.setBoxes('tracks', boxesFromRows([box(0, 4, { trackId: 9 }), box(1, 4, { trackId: 9 })]));
  await w.close();
}

describe('log export as Parquet', () => {
  it('writes points, poses, labels, detections and tracks that DuckDB reads and joins by frame_index', async () => {
    const d = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-pq-'));
    tmp.push(d);
    const logDir = path.join(d, 'log');
    await makeLog(logDir);
    const out = path.join(d, 'pq');
    const r = await runExport({ log: logDir, format: 'parquet', out, json: true });
    expect(r.files.map((f) => path.basename(f)).sort()).toEqual(
      ['detections', 'labels', 'points', 'poses', 'tracks'].map((t) => `${t}.parquet`),
    );

    const db = await (await DuckDBInstance.create(':memory:')).connect();
    const q = async (sql: string) => (await db.runAndReadAll(sql)).getRowObjects();
    const t = (name: string) => `'${path.join(out, `${name}.parquet`)}'`;
    const count = async (name: string) => Number((await q(`select count(*) as n from ${t(name)}`))[0].n);

    const log = await LogReader.open(logDir);
    const frames = await Promise.all(Array.from({ length: log.frameCount }, (_, i) => log.readFrame(i)));
    expect(await count('points')).toBe(frames.reduce((s, f) => s + f.points.x.length, 0));
    expect(await count('poses')).toBe(4);
    expect(await count('labels')).toBe(3);
    expect(await count('detections')).toBe(1);
    expect(await count('tracks')).toBe(2);

    // Points inside each label box, joined by frame_index, against the same count from the log's frames.
    const joined = await q(
      `select l.frame_index as f, l.cx as cx, count(p.x) as n from ${t('labels')} l
       left join ${t('points')} p on p.frame_index = l.frame_index
        and abs(p.x - l.cx) <= l.length / 2 and abs(p.y - l.cy) <= l.width / 2
       group by l.frame_index, l.cx order by l.frame_index`,
    );
    const labels = log.readBoxes('labels')!;
    const expected = Array.from(labels.frameIndex, (f, i) => {
      const p = frames[f].points;
      let n = 0;
      for (let k = 0; k < p.x.length; k++)
        if (
          Math.abs(p.x[k] - labels.cx[i]) <= labels.length[i] / 2 &&
          Math.abs(p.y[k] - labels.cy[i]) <= labels.width[i] / 2
        )
          n++;
      return { f, cx: labels.cx[i], n };
    }).sort((a, b) => a.f - b.f);
    expect(joined.map((j) => ({ f: j.f, cx: j.cx, n: Number(j.n) }))).toEqual(expected);
    expect(expected.every((e) => e.n > 0)).toBe(true);
    // Frames with a different point grid give different counts: a wrong frame_index would not match.
    expect(new Set(expected.map((e) => e.n)).size).toBeGreaterThan(1);
    await log.close();

    // Nulls, not sentinels; the source's label beside the canonical class; timestamps from the poses.
    const lab = await q(
      `select frame_index, track_id, label, class, num_points, timestamp_ns from ${t('labels')}`,
    );
    const ns = (v: unknown) => (v as { nanos: bigint }).nanos;
    expect(
      lab.map((x) => [x.frame_index, x.track_id, x.label, x.class, x.num_points, ns(x.timestamp_ns)]),
    ).toEqual([
      [0, null, 'Pedestrian', 'pedestrian', null, 1_000_000_000n],
      [2, null, 'object', 'other', null, 3_000_000_000n],
      [3, 1, 'Car', 'car', null, 4_000_000_000n],
    ]);
    // Native types: timestamp_ns is a nanosecond timestamp in every table; label and class are
    // dictionary-encoded strings.
    for (const name of ['points', 'poses', 'labels', 'tracks']) {
      const cols = await q(`describe select timestamp_ns from ${t(name)}`);
      expect(cols[0].column_type, name).toBe('TIMESTAMP_NS');
    }
    const enc = await q(
      `select path_in_schema as c, encodings as e from parquet_metadata(${t('labels')})
       where path_in_schema in ('label', 'class')`,
    );
    expect(new Set(enc.map((e) => e.c))).toEqual(new Set(['label', 'class'])); // one row per row group
    for (const e of enc) expect(String(e.e), String(e.c)).toMatch(/RLE_DICTIONARY/);
    const pose = await q(
      `select pose_03, pose_13, pose_23, pose_33 from ${t('poses')} where frame_index = 2`,
    );
    expect(pose).toEqual([{ pose_03: 2, pose_13: 0, pose_23: 0, pose_33: 1 }]);

    // One row group per frame, each with frame_index statistics that DuckDB can prune on.
    const groups = await q(
      `select row_group_id as g, stats_min_value as lo, stats_max_value as hi from parquet_metadata(${t('points')})
       where path_in_schema = 'frame_index' order by row_group_id`,
    );
    expect(groups.map((g) => [Number(g.g), g.lo, g.hi])).toEqual(
      [0, 1, 2, 3].map((i) => [i, `${i}`, `${i}`]),
    );
    const meta = await q(
      `select decode(key) as k, decode(value) as v from parquet_kv_metadata(${t('points')})`,
    );
    const kv = Object.fromEntries(meta.map((m) => [m.k, m.v]));
    expect(kv['drivekit.schema']).toBe('log_parquet_points/2');
    expect(kv['drivekit.frame']).toMatch(/x forward, y left, z up/);
    db.closeSync();
  });

  it('refuses formats other than parquet for a log, naming --format', async () => {
    await expect(runExport({ log: 'nowhere', format: 'json' })).rejects.toThrow(
      /--format.*parquet or mcap only/,
    );
  });
});
