// `drivekit tokenize` and `drivekit eval-tokenizer` with the shipped model on a cast log: tokens.arrow
// holds one grid per frame and matches the library; eval prints the documented JSON keys; bad input fails.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { batchToTokens } from '../../../core/arrow/codec.ts';
import { readArrowFile } from '../../../core/arrow/ipc.ts';
import { commitLogFiles } from '../../../datasets/logCommit.ts';
import { LOG_GROUP } from '../../../datasets/logManifest.ts';
import { drivekit, expectOneLineFailure, writeCastLog } from './castLog.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-cmd-tok-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('drivekit tokenize / eval-tokenizer', () => {
  it('writes one token grid per frame and scores the reconstruction', async () => {
    const log = path.join(tmp, 'log');
    await writeCastLog(log, 40);
    // The cast sensor sits 1.8 m above the ground at z = 0: the log states where its rays start.
    const metaFile = path.join(log, 'meta.json');
    const meta = JSON.parse(fs.readFileSync(metaFile, 'utf8'));
    // (Through the log's commit path, so its manifest still matches: docs/reliability.md.)
    const edited = JSON.stringify({ ...meta, extra: { ...meta.extra, sensorOriginM: [0, 0, 1.8] } });
    commitLogFiles(log, LOG_GROUP, [{ name: 'meta.json', bytes: Buffer.from(edited) }]);
    const { stdout } = await drivekit('tokenize', '--log', log, '--json');
    const summary = JSON.parse(stdout);
    expect(summary.frames).toBe(12);
    const { batches } = readArrowFile(path.join(log, 'tokens.arrow'));
    const grids = batches.flatMap((b) => batchToTokens(b));
    expect(grids.map((g) => g.frameIndex)).toEqual([...Array(12).keys()]);
    expect(grids.every((g) => g.tokens.every((t) => t >= 0 && t < 512))).toBe(true);
    // A second run refuses to overwrite without --force.
    await expectOneLineFailure(['tokenize', '--log', log], /tokens\.arrow.*--force/);

    const ev = JSON.parse((await drivekit('eval-tokenizer', '--log', log, '--frames', '2', '--json')).stdout);
    expect(Object.keys(ev).sort()).toEqual(
      [
        'chamfer_m2',
        'chamfer_near_m2',
        'codes_used',
        'depth_l1_mean_m',
        'depth_l1_median_m',
        'frames',
        'perplexity',
        'too_far_5m',
        'within_1m',
        'rays_from',
      ].sort(),
    );
    expect(ev.frames).toBe(2);
    expect(ev.rays_from).toBe('origin');
    expect(ev.too_far_5m).toBeGreaterThanOrEqual(0);
    expect(ev.too_far_5m).toBeLessThanOrEqual(1);
    // Flat ground and one car seen by a 32-beam sensor: most returns come back within a metre.
    expect(ev.depth_l1_median_m).toBeLessThan(1);

    // A log that states its lasers at the origin renders along the same lines: the same figures, from lasers.
    const atOrigin = {
      ...meta,
      extra: {
        ...meta.extra,
        sensorOriginM: [0, 0, 1.8],
        laserBlocks: [{ heightM: 0, lowestElevationDeg: -90 }],
      },
    };
    commitLogFiles(log, LOG_GROUP, [{ name: 'meta.json', bytes: Buffer.from(JSON.stringify(atOrigin)) }]);
    const ev0 = JSON.parse(
      (await drivekit('eval-tokenizer', '--log', log, '--frames', '2', '--json')).stdout,
    );
    expect(ev0.rays_from).toBe('lasers');
    expect(ev0.depth_l1_mean_m).toBeCloseTo(ev.depth_l1_mean_m, 4);
    expect(ev0.chamfer_m2).toBeCloseTo(ev.chamfer_m2, 4);
    // Lasers 0.5 m above the origin see the same returns along other lines: other figures, unless --origin-rays.
    const raised = {
      ...atOrigin,
      extra: { ...atOrigin.extra, laserBlocks: [{ heightM: 0.5, lowestElevationDeg: -90 }] },
    };
    commitLogFiles(log, LOG_GROUP, [{ name: 'meta.json', bytes: Buffer.from(JSON.stringify(raised)) }]);
    const ev5 = JSON.parse(
      (await drivekit('eval-tokenizer', '--log', log, '--frames', '2', '--json')).stdout,
    );
    expect(ev5.depth_l1_mean_m).not.toBeCloseTo(ev.depth_l1_mean_m, 4);
    const evO = JSON.parse(
      (await drivekit('eval-tokenizer', '--log', log, '--frames', '2', '--json', '--origin-rays')).stdout,
    );
    expect(evO.rays_from).toBe('origin');
    expect(evO.depth_l1_mean_m).toBeCloseTo(ev.depth_l1_mean_m, 6);
    // A malformed list is refused, naming the log.
    const bad = { ...atOrigin, extra: { ...atOrigin.extra, laserBlocks: [{ heightM: 'high' }] } };
    commitLogFiles(log, LOG_GROUP, [{ name: 'meta.json', bytes: Buffer.from(JSON.stringify(bad)) }]);
    await expectOneLineFailure(
      ['eval-tokenizer', '--log', log, '--frames', '1'],
      /extra\.laserBlocks must be/,
    );
  });

  it('names a missing model directory', async () => {
    const log = path.join(tmp, 'log2');
    await writeCastLog(log, 40);
    await expectOneLineFailure(
      ['tokenize', '--log', log, '--model', path.join(tmp, 'nope')],
      /nope.*encoder\.onnx/,
    );
  });
});
