// Scale-out payloads: only allow-listed commands and known, well-typed options; every path inside the
// worker's roots (symlinks resolved); --redis URLs with TLS and passwords; done-markers of reruns.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { parseRedisUrl, redactRedisUrl } from '../../../tools/scaleout/connection.ts';
import { inputHash, outputPaths, readDoneMarker, writeDoneMarker } from '../../../tools/scaleout/marker.ts';
import { parseJobArgs, validatePayload } from '../../../tools/scaleout/payload.ts';

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach((d) => fs.rmSync(d, { recursive: true, force: true })));
function tmp(): string {
  const d = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'dk-so-')));
  dirs.push(d);
  return d;
}

describe('scale-out payloads', () => {
  it('builds the argv from the table and rejects unknown commands, options and values', () => {
    const root = tmp();
    const log = path.join(root, 'a');
    const { inputs, options } = parseJobArgs(
      'discover',
      ['a', '--cluster-range', '30', '--min-track=5'],
      root,
    );
    expect(inputs).toEqual([log]);
    const job = validatePayload({ v: 1, command: 'discover', input: log, options }, [root]);
    expect(job.argv).toEqual(['--log', log, '--cluster-range', '30', '--min-track', '5']);
    expect(job.outDir).toBe(log);
    const e = validatePayload({ v: 1, command: 'eval', input: log, options: {} }, [root]);
    expect(e.argv).toEqual(['--pred', log, '--gt', log]);
    expect(e.outDir).toBeNull();

    expect(() => validatePayload({ v: 1, command: 'rm', input: log, options: {} }, [root])).toThrow(
      /command 'rm' is not a scale-out command/,
    );
    expect(() => validatePayload({ v: 1, command: 'demo', input: log, options: {} }, [root])).toThrow(
      /not a scale-out command/,
    );
    expect(() =>
      validatePayload({ v: 1, command: 'discover', input: log, options: { '--exec': 'x' } }, [root]),
    ).toThrow(/--exec: not an option/);
    expect(() =>
      validatePayload(
        { v: 1, command: 'discover', input: log, options: { '--cluster-range': '1; rm -rf /' } },
        [root],
      ),
    ).toThrow(/--cluster-range: must be a number/);
    expect(() =>
      validatePayload({ v: 1, command: 'sim', input: log, options: { '--agents': '$(id)', '--out': root } }, [
        root,
      ]),
    ).toThrow(/--agents: must be a plain word/);
    expect(() => parseJobArgs('sim', ['s.json', '--agents', 'idm'], root)).toThrow(
      /--out: required by 'sim'/,
    );
    expect(() => parseJobArgs('discover', ['--cluster-range', '3'], root)).toThrow(/no inputs/);
  });

  it('rejects paths outside the roots, also through .. and symlinks', () => {
    const root = tmp();
    const outside = tmp();
    const ok = (input: string, options: Record<string, string | true> = {}) =>
      validatePayload({ v: 1, command: 'discover', input, options }, [root]);
    expect(() => ok(path.join(root, 'log'))).not.toThrow();
    expect(() => ok(path.join(outside, 'log'))).toThrow(/outside the worker's roots/);
    expect(() => ok(path.join(root, '..', path.basename(outside), 'log'))).toThrow(/outside/);
    expect(() => ok('relative/log')).toThrow(/absolute path/);
    fs.symlinkSync(outside, path.join(root, 'link'));
    expect(() => ok(path.join(root, 'link', 'log'))).toThrow(/outside/);
    expect(() => ok(path.join(root, 'log'), { '--config': path.join(outside, 'c.json') })).toThrow(
      /--config: path/,
    );
    // A per-input output directory under an --out root is checked too.
    expect(() =>
      validatePayload(
        {
          v: 1,
          command: 'sim',
          input: path.join(root, 's.json'),
          options: { '--agents': 'idm', '--out': outside },
        },
        [root],
      ),
    ).toThrow(/--out: path/);
  });

  it('parses redis:// and rediss:// URLs with passwords, and refuses other schemes', () => {
    expect(parseRedisUrl('redis://127.0.0.1:6390/2', {})).toMatchObject({
      host: '127.0.0.1',
      port: 6390,
      db: 2,
    });
    const tls = parseRedisUrl('rediss://u:p%40ss@redis.example:6380', {});
    expect(tls).toMatchObject({
      host: 'redis.example',
      port: 6380,
      username: 'u',
      password: 'p@ss',
      tls: {},
    });
    expect(parseRedisUrl('redis://h', { REDISCLI_AUTH: 'secret' }).password).toBe('secret');
    expect(() => parseRedisUrl('http://h:1', {})).toThrow(/--redis: scheme must be/);
    expect(() => parseRedisUrl('nonsense', {})).toThrow(/--redis: not a URL/);
    expect(redactRedisUrl('rediss://u:secret@h:1')).toBe('rediss://u:***@h:1');
  });

  it('a done-marker holds while inputs and outputs are untouched, and not after either changes', () => {
    const root = tmp();
    const log = path.join(root, 'log');
    fs.mkdirSync(log);
    for (const f of ['meta.json', 'frames.arrow', 'poses.arrow']) fs.writeFileSync(path.join(log, f), f);
    const job = validatePayload({ v: 1, command: 'discover', input: log, options: {} }, [root]);
    const outs = outputPaths(job, {});
    for (const o of outs) fs.writeFileSync(o, 'boxes');
    const hash = inputHash(job);
    expect(readDoneMarker(job, hash, outs)).toBeNull();
    writeDoneMarker(job, hash, outs, { detections: 3 });
    expect(readDoneMarker(job, inputHash(job), outs)).toEqual({ detections: 3 });
    fs.writeFileSync(outs[1], 'other boxes!');
    expect(readDoneMarker(job, inputHash(job), outs)).toBeNull();
    writeDoneMarker(job, hash, outs, { detections: 3 });
    fs.writeFileSync(path.join(log, 'frames.arrow'), 'new sweeps');
    expect(inputHash(job)).not.toBe(hash);
    expect(readDoneMarker(job, inputHash(job), outs)).toBeNull();
  });
});
