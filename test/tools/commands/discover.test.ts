// `drivekit discover` and `drivekit eval` as a user runs them: files written into the log, the --json
// shapes the issue fixes, and one-line errors with a non-zero exit on bad input.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allocatePointCloud } from '../../../core/arrow/records.ts';
import { LogWriter, readBoxesFile } from '../../../datasets/logstore.ts';
import { drivekit, expectOneLineFailure, writeCastLog } from './castLog.ts';
import { tmpDir } from '../../perception/tmp.ts';

describe('drivekit discover / eval', () => {
  it('discovers into the log and scores it in the documented JSON shape', async () => {
    const log = path.join(tmpDir(), 'log');
    await writeCastLog(log, 60);
    const d = await drivekit('discover', '--log', log, '--min-track', '5', '--json');
    const summary = JSON.parse(d.stdout);
    expect(summary.frames).toBe(12);
    expect(summary.refined.tracks_kept).toBe(2);
    const det = readBoxesFile(path.join(log, 'detections.arrow'));
    const tracks = readBoxesFile(path.join(log, 'tracks.arrow'));
    expect(det.cx.length).toBe(summary.detections);
    expect(new Set(tracks.trackId).size).toBe(2);

    const [e, rawOut, textOut] = await Promise.all([
      drivekit('eval', '--pred', log, '--gt', log, '--json'),
      drivekit('eval', '--pred', `${log}:detections`, '--gt', log, '--json'),
      drivekit('eval', '--pred', log, '--gt', log),
    ]);
    const r = JSON.parse(e.stdout);
    const buckets = ['0-30', '30-50', '50-80', 'all'];
    expect(Object.keys(r.ap).sort()).toEqual(['3d', 'bev']);
    expect(Object.keys(r.ap.bev).sort()).toEqual(['0.3', '0.5']);
    expect(Object.keys(r.ap['3d'])).toEqual(['0.3']);
    for (const t of [r.ap.bev['0.3'], r.ap.bev['0.5'], r.ap['3d']['0.3']])
      expect(Object.keys(t)).toEqual(buckets);
    expect(r.ap.bev['0.3'].all).toBeGreaterThan(0);
    expect(r.ap.bev['0.3'].all).toBeLessThanOrEqual(1);
    expect(Object.keys(r.dtc)).toEqual(
      expect.arrayContaining(['mean_abs_err_m', 'p95_abs_err_m', 'phantom_rate', 'missed_rate']),
    );
    expect(r.best_f1.bev['0.3'].f1).toBeGreaterThan(0);
    // Raw detections of the same log, and the text table.
    expect(JSON.parse(rawOut.stdout).counts.pred_boxes).toBe(det.cx.length);
    expect(textOut.stdout).toMatch(/BEV IoU 0\.3/);
    expect(textOut.stdout).toMatch(/DTC over \d+ frames/);
  });

  it('runs the DBSCAN baseline with --method dbscan into dbscan.arrow, which eval scores', async () => {
    const log = path.join(tmpDir(), 'log');
    await writeCastLog(log, 60);
    const d = JSON.parse((await drivekit('discover', '--log', log, '--method', 'dbscan', '--json')).stdout);
    expect(d.method).toBe('dbscan');
    expect(d.frames).toBe(12);
    const boxes = readBoxesFile(path.join(log, 'dbscan.arrow'));
    expect(boxes.cx.length).toBe(d.boxes);
    expect(boxes.cx.length).toBeGreaterThan(0);
    // Discovery's own files are left alone.
    expect(fs.existsSync(path.join(log, 'detections.arrow'))).toBe(false);
    const r = JSON.parse((await drivekit('eval', '--pred', `${log}:dbscan`, '--gt', log, '--json')).stdout);
    expect(r.counts.pred_boxes).toBeGreaterThan(0);
    expect(r.ap.bev['0.3'].all).toBeGreaterThan(0);
    await Promise.all([
      expectOneLineFailure(['discover', '--log', log, '--method', 'kmeans'], /--method: 'kmeans' is not/),
      expectOneLineFailure(
        ['discover', '--log', log, '--method', 'dbscan', '--min-track', '3'],
        /dbscan takes only --cluster-range/,
      ),
    ]);
  });

  it('fails with one line (exit 2 naming an option, 1 otherwise) on bad input, writing nothing', async () => {
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, 'pred.json'), '{"frames": 3}');
    const log = path.join(dir, 'log');
    const w = LogWriter.create(log, { source: 'test' });
    w.appendFrame({
      timestampNs: 0n,
      pose: Float64Array.of(1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1),
      points: allocatePointCloud(0),
    });
    await w.close();
    await Promise.all([
      expectOneLineFailure(['discover', '--log', path.join(dir, 'missing')], /no such log directory/),
      expectOneLineFailure(
        ['eval', '--pred', path.join(dir, 'pred.json'), '--gt', path.join(dir, 'pred.json')],
        /'frames' array/,
      ),
      expectOneLineFailure(
        ['discover', '--log', log, '--cluster-range', '-3'],
        /--cluster-range: must be a (positive )?number/,
      ),
    ]);
    expect(fs.existsSync(path.join(log, 'detections.arrow'))).toBe(false);
    // An empty sweep is not an error: nothing found.
    const ok = JSON.parse((await drivekit('discover', '--log', log, '--json')).stdout);
    expect(ok.detections).toBe(0);
    // A second run refuses to replace those outputs unless --force; the log given positionally is the same.
    await expectOneLineFailure(['discover', log], /detections\.arrow: exists \(pass --force/);
    expect(JSON.parse((await drivekit('discover', log, '--force', '--json')).stdout).detections).toBe(0);
  });
});
