// `drivekit odometry` as a user runs it: poses written into the log with the source's kept aside and scored
// against them, --no-write leaving the log alone, and one-line errors for a log without frames or a bad flag.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { LogWriter } from '../../../datasets/logstore.ts';
import { readPosesArrow } from '../../../datasets/logPoses.ts';
import { drivekit, expectOneLineFailure, writeCastLog } from './castLog.ts';
import { tmpDir } from '../../perception/tmp.ts';

describe('drivekit odometry', () => {
  it('writes poses.arrow, keeps the source poses and scores against them', async () => {
    const log = path.join(tmpDir(), 'log');
    await writeCastLog(log, 40);
    const before = fs.readFileSync(path.join(log, 'poses.arrow'));
    const dry = JSON.parse((await drivekit('odometry', '--log', log, '--no-write', '--json')).stdout);
    expect(dry.written).toBeNull();
    expect(fs.readFileSync(path.join(log, 'poses.arrow')).equals(before)).toBe(true);
    const r = JSON.parse((await drivekit('odometry', '--log', log, '--json')).stdout);
    expect(r.frames).toBe(12);
    expect(r.drift.mode).toBe('whole-log');
    expect(r.rpe.pairs).toBe(11);
    expect(fs.readFileSync(path.join(log, 'poses.source.arrow')).equals(before)).toBe(true);
    const est = readPosesArrow(path.join(log, 'poses.arrow')).poses;
    expect(est.length).toBe(12 * 16);
    const meta = JSON.parse(fs.readFileSync(path.join(log, 'meta.json'), 'utf8'));
    expect(meta.extra.posesEstimatedBy.method).toMatch(/odometry/);
    expect(meta.extra.sourcePoses).toBe('poses.source.arrow');
  }, 60_000);

  it('fails with one line on a log without frames and on a bad --deskew', async () => {
    const log = path.join(tmpDir(), 'empty');
    await LogWriter.create(log, { source: 'test' }).close();
    await expectOneLineFailure(['odometry', '--log', log], /no frames/);
    await expectOneLineFailure(['odometry', '--log', log, '--deskew', 'maybe'], /--deskew/);
  }, 60_000);
});
