// Logs are all-or-nothing (docs/reliability.md): manifest.json lists every file with size and CRC32C; readers
// refuse flipped bytes, truncation, unlisted or half-updated outputs; overwrite replaces the whole log; a
// killed writer's leftovers are cleaned (and a log it had moved aside put back) on the next run.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allocatePointCloud, boxesFromRows } from '../../core/arrow/records.ts';
import { crc32c, crcHex } from '../../core/crc32c.ts';
import { poseFromTranslationYaw } from '../../core/geometry/pose.ts';
import { readManifest } from '../../datasets/logManifest.ts';
import { replaceLogPoses } from '../../datasets/logPoses.ts';
import { verifyLog } from '../../datasets/logVerify.ts';
import { LogReader, LogWriter } from '../../datasets/logstore.ts';
import { tmpDir } from './tmp.ts';

function frame(i: number, n: number) {
  const p = allocatePointCloud(n);
  for (let k = 0; k < n; k++) {
    p.x[k] = i * 1000 + k;
    p.y[k] = -k;
    p.z[k] = 0.5;
    p.intensity[k] = 0.1;
  }
  return { timestampNs: BigInt(i) * 100_000_000n, pose: poseFromTranslationYaw(i, 0, 0, 0), points: p };
}

const box = (frameIndex: number, trackId = 1) =>
  boxesFromRows([{ frameIndex, trackId, cx: 1, cy: 2, cz: 0, length: 4, width: 2, height: 1.5, yaw: 0 }]);

async function makeLog(dir: string, frames = 4, points = 500, source = 'test'): Promise<void> {
  const w = LogWriter.create(dir, { source, overwrite: true });
  for (let i = 0; i < frames; i++) w.appendFrame(frame(i, points + i));
  w.setLabels(box(0));
  await w.close();
}

/** A pid that certainly belonged to a process that has exited. */
const deadPid = () => spawnSync(process.execPath, ['-e', '']).pid!;

async function openAndReadAll(dir: string): Promise<number> {
  const log = await LogReader.open(dir);
  try {
    for (let i = 0; i < log.frameCount; i++) await log.readFrame(i);
    return log.frameCount;
  } finally {
    await log.close();
  }
}

describe('log manifest', () => {
  it('lists every file of a new log with its size and CRC32C', async () => {
    const dir = path.join(tmpDir(), 'log');
    await makeLog(dir);
    const m = readManifest(dir)!;
    expect(Object.keys(m.files).sort()).toEqual(['frames.arrow', 'labels.arrow', 'meta.json', 'poses.arrow']);
    for (const [name, e] of Object.entries(m.files)) {
      const bytes = fs.readFileSync(path.join(dir, name));
      expect(e.bytes, name).toBe(bytes.length);
      expect(e.crc32c, name).toBe(crcHex(crc32c(bytes)));
      expect(e.group).toBe('log');
    }
    expect(m.files['frames.arrow'].blocks!.batches).toHaveLength(4);
    // No temporaries anywhere: not in the log, not beside it.
    expect(fs.readdirSync(path.dirname(dir)).filter((n) => n.startsWith('.'))).toEqual([]);
    expect(await openAndReadAll(dir)).toBe(4);
  });

  it('refuses a frames.arrow with 4,000 bytes flipped, a truncated one and an edited meta.json', async () => {
    const dir = path.join(tmpDir(), 'log');
    await makeLog(dir, 6, 2000);
    const file = path.join(dir, 'frames.arrow');
    const good = fs.readFileSync(file);
    // 4,000 bytes in the middle of the point data (frame bodies, not the footer or schema).
    const bad = Buffer.from(good);
    const at = Math.floor(good.length / 2);
    for (let i = at; i < at + 4000; i++) bad[i] ^= 0xff;
    fs.writeFileSync(file, bad);
    await expect(openAndReadAll(dir)).rejects.toThrow(/frames\.arrow: batch \d does not match its checksum/);
    // Flipping a footer byte is caught at open.
    const badTail = Buffer.from(good);
    badTail[good.length - 40] ^= 0x01;
    fs.writeFileSync(file, badTail);
    await expect(LogReader.open(dir)).rejects.toThrow(/frames\.arrow/);
    fs.writeFileSync(file, good.subarray(0, good.length - 100));
    await expect(LogReader.open(dir)).rejects.toThrow(/frames\.arrow: is \d+ bytes, manifest\.json says/);
    fs.writeFileSync(file, good);
    expect(await openAndReadAll(dir)).toBe(6);
    const metaFile = path.join(dir, 'meta.json');
    const meta = fs.readFileSync(metaFile, 'utf8');
    fs.writeFileSync(metaFile, meta.replace('"source": "test"', '"source": "TEST"'));
    await expect(LogReader.open(dir)).rejects.toThrow(
      /meta\.json: has CRC32C [0-9a-f]{8}, manifest.json says/,
    );
  });

  it('overwrite replaces the whole log: no labels, detections or tracks of the old one survive', async () => {
    const dir = path.join(tmpDir(), 'log');
    await makeLog(dir, 3);
    const old = await LogReader.open(dir);
    old.commitBoxes('discover', { detections: box(2), tracks: box(2, 9) });
    expect(old.readBoxes('tracks')!.trackId[0]).toBe(9);
    await old.close();
    const w = LogWriter.create(dir, { source: 'new', overwrite: true });
    w.appendFrame(frame(0, 10));
    await w.close();
    const log = await LogReader.open(dir);
    expect([log.meta.source, log.frameCount]).toEqual(['new', 1]);
    expect(['labels', 'detections', 'tracks'].map((n) => log.readBoxes(n))).toEqual([null, null, null]);
    expect(fs.readdirSync(dir).sort()).toEqual(['frames.arrow', 'manifest.json', 'meta.json', 'poses.arrow']);
    await log.close();
  });

  it("refuses a stage's outputs as a group when an update was interrupted, and unlisted files", async () => {
    const dir = path.join(tmpDir(), 'log');
    await makeLog(dir);
    const log = await LogReader.open(dir);
    log.commitBoxes('discover', { detections: box(1), tracks: box(1, 5) });
    expect(log.readBoxes('detections')!.frameIndex[0]).toBe(1);
    // A second run killed after renaming detections.arrow but before rewriting the manifest.
    const before = readManifest(dir)!;
    log.commitBoxes('discover', { detections: boxesFromRows([]), tracks: box(2, 6) });
    const manifestFile = path.join(dir, 'manifest.json');
    const after = fs.readFileSync(manifestFile);
    fs.writeFileSync(manifestFile, JSON.stringify(before));
    expect(() => log.readBoxes('tracks')).toThrow(/the 'discover' files of this log are not a complete set/);
    expect(() => log.readBoxes('detections')).toThrow(/detections\.arrow/);
    fs.writeFileSync(manifestFile, after);
    expect(log.readBoxes('tracks')!.trackId[0]).toBe(6);
    // A file no commit listed (e.g. copied in, or left by a killed first run of a stage).
    fs.copyFileSync(path.join(dir, 'tracks.arrow'), path.join(dir, 'stray.arrow'));
    expect(log.hasBoxes('stray')).toBe(false);
    expect(() => log.readBoxes('stray')).toThrow(/stray\.arrow: is not listed in manifest\.json/);
    // The log's own files are not a stage's to replace.
    expect(() => log.commitBoxes('x', { labels: box(0) })).toThrow(/belongs to the log itself/);
    await log.close();
  });

  it('cleans temporaries of dead writers, puts back a log moved aside, and keeps a live writer’s', async () => {
    const root = tmpDir();
    const dir = path.join(root, 'log');
    await makeLog(dir, 2);
    const dead = deadPid();
    // A killed LogWriter (its temporary directory beside the log), a killed stage output inside the log,
    // and one of a writer that is still running (this process).
    const deadDir = path.join(root, `.log.tmp-${dead}-1-0`);
    fs.mkdirSync(deadDir);
    fs.writeFileSync(path.join(deadDir, 'frames.arrow'), Buffer.alloc(1000));
    fs.writeFileSync(path.join(dir, `.detections.arrow.tmp-${dead}-1-0`), Buffer.alloc(10));
    const live = path.join(dir, `.tracks.arrow.tmp-${process.pid}-1-0`);
    fs.writeFileSync(live, Buffer.alloc(10));
    expect(await openAndReadAll(dir)).toBe(2);
    expect(fs.existsSync(deadDir)).toBe(false);
    expect(fs.readdirSync(dir).filter((n) => n.startsWith('.'))).toEqual([path.basename(live)]);
    fs.rmSync(live);
    // A --force replacement killed between its two renames: the old log is aside, nothing at the path.
    fs.renameSync(dir, path.join(root, `.log.old-${dead}-2-0`));
    expect(await openAndReadAll(dir)).toBe(2);
    expect(fs.readdirSync(root)).toEqual(['log']);
  });

  it("rewrites the log's own files (odometry's poses and meta.json) through the manifest", async () => {
    const dir = path.join(tmpDir(), 'log');
    await makeLog(dir, 3);
    const poses = new Float64Array(48);
    for (let i = 0; i < 3; i++) poses.set(poseFromTranslationYaw(2 * i, 1, 0, 0), 16 * i);
    await replaceLogPoses(dir, poses, BigInt64Array.from([0n, 1n, 2n]), { method: 'test odometry' });
    expect((await verifyLog(dir)).problems).toEqual([]);
    expect(readManifest(dir)!.files['poses.source.arrow'].group).toBe('log');
    const log = await LogReader.open(dir);
    expect(log.pose(2)[3]).toBe(4);
    expect(log.meta.extra.sourcePoses).toBe('poses.source.arrow');
    await log.close();
  });

  it('reads a log written before manifests (no manifest.json) as before', async () => {
    const dir = path.join(tmpDir(), 'log');
    await makeLog(dir, 3);
    fs.rmSync(path.join(dir, 'manifest.json'));
    const log = await LogReader.open(dir);
    expect(log.hasManifest).toBe(false);
    expect(log.readBoxes('labels')!.frameIndex[0]).toBe(0);
    // A stage output is written as before (no manifest is made up for data nobody checked).
    await log.writeBoxes('detections', box(1));
    expect(fs.existsSync(path.join(dir, 'manifest.json'))).toBe(false);
    expect(log.readBoxes('detections')!.frameIndex[0]).toBe(1);
    await log.close();
  });

  it('refuses to replace a directory that is not a log, even when asked to overwrite, or to nest one in a file', async () => {
    const dir = tmpDir();
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'mine');
    expect(() => LogWriter.create(dir, { source: 'x', overwrite: true })).toThrow(/not a drivekit log/);
    expect(fs.readFileSync(path.join(dir, 'notes.txt'), 'utf8')).toBe('mine');
    // A log under a file: one line naming the log, not the temporary directory or a raw errno.
    expect(() => LogWriter.create(path.join(dir, 'notes.txt', 'log'), { source: 'x' })).toThrow(
      /notes\.txt\/log: cannot create a log here \(\S*notes\.txt: cannot create a directory here: it is a file\)$/,
    );
  });
});
