// `drivekit verify` and `import --force` (issue 21, cases 2 and 5): a good log verifies; 4,000 flipped bytes in
// frames.arrow, a truncated or unlisted file fail with one line naming them; a pre-manifest log fails until
// sealed; `import --force` replaces the whole log, keeping none of the old one's labels, detections, tracks.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { allocatePointCloud, boxesFromRows } from '../../../core/arrow/records.ts';
import { poseFromTranslationYaw } from '../../../core/geometry/pose.ts';
import { LogReader, LogWriter } from '../../../datasets/logstore.ts';
import { verifyLog } from '../../../datasets/logVerify.ts';
import { kittiBin, tmpDir } from '../../datasets/tmp.ts';
import { drivekit, expectOneLineFailure } from './castLog.ts';

async function makeLog(dir: string, frames: number): Promise<void> {
  const w = LogWriter.create(dir, { source: 'test' });
  for (let i = 0; i < frames; i++) {
    const p = allocatePointCloud(4000);
    for (let k = 0; k < 4000; k++) {
      p.x[k] = 5 + (k % 40);
      p.y[k] = (k % 13) - 6;
      p.z[k] = -1.5 + (k % 7) * 0.1;
      p.intensity[k] = 0.5;
    }
    w.appendFrame({
      timestampNs: BigInt(i) * 100_000_000n,
      pose: poseFromTranslationYaw(i, 0, 0, 0),
      points: p,
    });
  }
  w.setLabels(
    boxesFromRows([{ frameIndex: 0, cx: 10, cy: 0, cz: 0, length: 4, width: 2, height: 1.5, yaw: 0 }]),
  );
  await w.close();
}

const verifyJson = async (dir: string) => {
  const r = await drivekit('verify', dir, '--json').then(
    (ok) => ({ code: 0, stdout: ok.stdout }),
    (e: { code: number; stdout: string }) => ({ code: e.code, stdout: e.stdout }),
  );
  return {
    code: r.code,
    report: JSON.parse(r.stdout) as { ok: boolean; problems: string[]; manifest: boolean },
  };
};

describe('drivekit verify', () => {
  it('passes a good log and names 4,000 flipped bytes, a truncated and a missing file', async () => {
    const dir = path.join(tmpDir(), 'log');
    await makeLog(dir, 6);
    expect((await verifyLog(dir)).problems).toEqual([]);
    const file = path.join(dir, 'frames.arrow');
    const good = fs.readFileSync(file);
    const bad = Buffer.from(good);
    for (let i = 30_000; i < 34_000; i++) bad[i] ^= 0xff;
    fs.writeFileSync(file, bad);
    await expectOneLineFailure(
      ['verify', dir],
      /log: does not verify: .*frames\.arrow: has CRC32C [0-9a-f]{8}, manifest\.json says [0-9a-f]{8}: batch(es)? [\d, ]+ differs?/,
    );
    // A reader that reads every frame refuses it too (here: discover's frame loop).
    await expectOneLineFailure(
      ['discover', '--log', dir],
      /frames\.arrow: batch \d does not match its checksum/,
    );
    fs.writeFileSync(file, good);
    expect((await verifyLog(dir)).problems).toEqual([]);
    fs.truncateSync(path.join(dir, 'labels.arrow'), 50);
    expect((await verifyLog(dir)).problems[0]).toMatch(/labels\.arrow: is 50 bytes, manifest\.json says \d+/);
    fs.rmSync(path.join(dir, 'labels.arrow'));
    expect((await verifyLog(dir)).problems[0]).toMatch(/labels\.arrow: is missing/);
  });

  it('fails a log written before manifests until --seal, which then guards it', async () => {
    const dir = path.join(tmpDir(), 'log');
    await makeLog(dir, 3);
    fs.rmSync(path.join(dir, 'manifest.json'));
    const legacy = await verifyJson(dir);
    expect(legacy.code).toBe(1);
    expect(legacy.report.manifest).toBe(false);
    expect(legacy.report.problems[0]).toMatch(/has no manifest\.json \(written before manifests\)/);
    expect(await verifyLog(dir, { seal: true })).toMatchObject({ sealed: true, problems: [] });
    expect((await verifyLog(dir)).problems).toEqual([]);
    // Sealed with per-batch checksums: a reader now refuses a damaged frame.
    const frames = path.join(dir, 'frames.arrow');
    const bytes = fs.readFileSync(frames);
    bytes[20_000] ^= 0x10;
    fs.writeFileSync(frames, bytes);
    const log = await LogReader.open(dir);
    await expect(log.readFrame(0)).rejects.toThrow(/does not match its checksum/);
    await log.close();
    bytes[20_000] ^= 0x10;
    fs.writeFileSync(frames, bytes);
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'mine');
    expect((await verifyLog(dir)).problems).toEqual([
      expect.stringMatching(/notes\.txt: is not listed in manifest\.json/),
    ]);
  });
});

describe('drivekit import --force', () => {
  it('replaces the whole log: the old labels, detections and tracks are gone', async () => {
    const root = tmpDir();
    const bins = (name: string, frames: number) => {
      const d = path.join(root, name);
      fs.mkdirSync(d);
      const rows = Array.from({ length: 500 }, (_, k) => [5 + (k % 30), (k % 11) - 5, -1.6, 0.3]);
      for (let i = 0; i < frames; i++)
        fs.writeFileSync(path.join(d, `${String(i).padStart(6, '0')}.bin`), kittiBin(rows));
      return d;
    };
    const out = path.join(root, 'log');
    await drivekit('import', bins('a', 3), '--format', 'kitti', '--out', out);
    const old = await LogReader.open(out);
    const box = boxesFromRows([
      { frameIndex: 2, cx: 9, cy: 0, cz: 0, length: 4, width: 2, height: 1.5, yaw: 0 },
    ]);
    old.commitBoxes('discover', { detections: box, tracks: box });
    await old.writeBoxes('labels_extra', box);
    await old.close();
    await expectOneLineFailure(['import', bins('b', 1), '--format', 'kitti', '--out', out], /already exists/);
    const { stdout } = await drivekit(
      'import',
      path.join(root, 'b'),
      '--format',
      'kitti',
      '--out',
      out,
      '--force',
      '--json',
    );
    expect(JSON.parse(stdout)).toMatchObject({ frames: 1 });
    expect(fs.readdirSync(out).sort()).toEqual(['frames.arrow', 'manifest.json', 'meta.json', 'poses.arrow']);
    expect(fs.readdirSync(root).sort()).toEqual(['a', 'b', 'log']);
    const log = await LogReader.open(out);
    expect(['detections', 'tracks', 'labels_extra'].map((n) => log.hasBoxes(n))).toEqual([
      false,
      false,
      false,
    ]);
    await log.close();
    expect((await verifyLog(out)).problems).toEqual([]);
  });
});
