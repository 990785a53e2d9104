// TFRecord framing against the RFC 3720 CRC-32C check value and its own round trip, and the Waymo Open
// Motion reader on the real one-scenario file: its 91 steps, track count and map as the file holds them.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../core/errors.ts';
import { realData } from '../../core/paths.ts';
import { itWithSharedData } from '../sharedData.ts';
import { crc32c } from '../../core/crc32c.ts';
import { encodeTfRecords, maskCrc, readTfRecordFile, readTfRecords } from '../../datasets/tfrecord.ts';
import { readWomdFile } from '../../datasets/womd.ts';

const WOMD = realData('womd', 'motion_data_one_scenario.tfrecord');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'womd-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('TFRecord framing', () => {
  it('computes CRC-32C (RFC 3720 check value) and TensorFlow masking', () => {
    expect(crc32c(new TextEncoder().encode('123456789'))).toBe(0xe3069283);
    expect(crc32c(new Uint8Array(32))).toBe(0x8a9136aa); // 32 zero bytes (RFC 3720 B.4)
    expect(maskCrc(0)).toBe(0xa282ead8);
  });

  it('round-trips records and verifies both CRCs', () => {
    const recs = [Uint8Array.of(1, 2, 3), new Uint8Array(0), new Uint8Array(1000).fill(7)];
    const bytes = encodeTfRecords(recs);
    expect(readTfRecords(bytes, 'x').map((r) => Array.from(r))).toEqual(recs.map((r) => Array.from(r)));
    const flipped = bytes.slice();
    flipped[12 + 1] ^= 0xff; // a data byte of record 0
    expect(() => readTfRecords(flipped, 'f.tfrecord')).toThrow(
      'f.tfrecord: corrupt TFRecord: record 0 at byte 0: data CRC mismatch',
    );
    const badLen = bytes.slice();
    badLen[16 + 3 + 8] ^= 1; // the length CRC of record 1
    expect(() => readTfRecords(badLen, 'f')).toThrow(/record 1 at byte 19: length CRC mismatch/);
  });

  itWithSharedData('reports a truncated file clearly', () => {
    const bytes = fs.readFileSync(WOMD);
    const cut = path.join(tmp, 'cut.tfrecord');
    fs.writeFileSync(cut, bytes.subarray(0, 5000));
    expect(() => readTfRecordFile(cut)).toThrow(InputError);
    expect(() => readTfRecordFile(cut)).toThrow(
      /cut\.tfrecord: truncated TFRecord: record 0 at byte 0 declares 952947 data bytes but only 4984 remain/,
    );
    fs.writeFileSync(cut, bytes.subarray(0, 7));
    expect(() => readTfRecordFile(cut)).toThrow(/has a 7-byte header \(12 expected\)/);
  });
});

describe('Waymo Open Motion scenario', () => {
  itWithSharedData('decodes the real scenario: 91 steps at 10 Hz, its tracks and map', () => {
    const [w] = readWomdFile(WOMD);
    expect(w.scenarioId).toBe('637f20cafde22ff8');
    expect(w.timestampsSeconds.length).toBe(91);
    expect(w.timestampsSeconds[1] - w.timestampsSeconds[0]).toBeCloseTo(0.1, 3);
    expect(w.currentTimeIndex).toBe(10);
    expect(w.tracks.length).toBe(83);
    for (const t of w.tracks) expect(t.valid.length).toBe(91);
    expect(w.sdcTrackIndex).toBe(82);
    expect(w.tracks[w.sdcTrackIndex].valid.every((v) => v === 1)).toBe(true);
    expect(w.lanes.length).toBe(199);
    expect(w.features.filter((f) => f.kind === 'road_edge').length).toBe(28);
    expect(w.dynamicMapStates.length).toBe(91);
    expect(w.tracksToPredict.map((r) => r.trackIndex)).toEqual([72, 43, 42]);
  });

  it('refuses a record that is not a Scenario', () => {
    const f = path.join(tmp, 'junk.tfrecord');
    fs.writeFileSync(f, encodeTfRecords([Uint8Array.of(0xff, 0xff, 0xff, 0xff, 0xff)]));
    expect(() => readWomdFile(f)).toThrow(
      /junk\.tfrecord \(record 0\): not a waymo\.open_dataset\.Scenario protobuf/,
    );
  });
});
