// The real-data table's rows: pooled rows only where a method applies to every set (tracks need a
// sequence), per-set rows for each method, and the markdown shape the README and docs quote.
import { describe, expect, it } from 'vitest';
import { boxesFromRows, type BoxRow } from '../../../core/arrow/records.ts';
import {
  type LabelledLog,
  realMarkdownTable,
  REAL_SOURCES,
  scoreRows,
} from '../../../tools/report/realEval.ts';

const box = (cx: number, label = '', score = 1): BoxRow => ({
  frameIndex: 0,
  cx,
  cy: 0,
  cz: 0,
  length: 4,
  width: 2,
  height: 1.5,
  yaw: 0,
  label,
  score,
  numPoints: 40,
});

describe('real-data rows', () => {
  const logs: LabelledLog[] = REAL_SOURCES.map((source) => ({
    source,
    dir: `/nowhere/${source.name}`,
    gt: boxesFromRows([box(10, 'Car'), box(20, 'PEDESTRIAN')]),
  }));
  const hit = boxesFromRows([box(10.1, '', 0.9)]);
  const preds = logs.map((l) => ({ dbscan: hit, detections: hit, tracks: l.source.sequence ? hit : null }));
  const rows = scoreRows(logs, preds, ['dbscan', 'detections', 'tracks'], 'pooled');

  it('pools every set where the method applies, and scores each set', () => {
    expect(rows.map((r) => `${r.dataset}/${r.method}`)).toEqual([
      'pooled/dbscan',
      'pooled/detections',
      'pooled/tracks',
      ...logs.flatMap((l) => ['dbscan', 'detections', 'tracks'].map((m) => `${l.source.dataset}/${m}`)),
    ]);
    const pooled = rows[0].score!;
    expect(pooled.frames).toBe(logs.length);
    expect(pooled.recall.car).toEqual({ tp: logs.length, gt: logs.length });
    expect(pooled.recall.pedestrian).toEqual({ tp: 0, gt: logs.length });
    expect(pooled.ap['0-40']).toBeCloseTo(0.5, 9);
    // KITTI is a set of single frames: no tracks there, so no pooled tracks row.
    expect(rows[2].score).toBeNull();
    const kittiTracks = rows.find((r) => r.dataset === REAL_SOURCES[0].dataset && r.method === 'tracks')!;
    expect(kittiTracks.score).toBeNull();
  });

  it('prints one markdown row per (data, method) with AP in % and recall as found/total', () => {
    const md = realMarkdownTable(rows).split('\n');
    expect(md).toHaveLength(2 + rows.length);
    expect(md[0]).toMatch(/^\| data \| method \| AP 0–40 m \| AP 40–80 m \| car recall/);
    expect(md[2]).toMatch(
      /^\| pooled \| DBSCAN baseline \| 50\.0 \| – \| 2\/2 \| 0\/2 \| – \| – \| 4 \/ 0 \|$/,
    );
    expect(md[4]).toMatch(/\| n\/a \| n\/a \|/);
  });
});
