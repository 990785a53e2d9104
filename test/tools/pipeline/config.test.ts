// The pipeline's config (tools/pipeline/config.ts): defaults, then a JSON file, then options; every bad
// value a one-line InputError naming the option or the file.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../../core/errors.ts';
import {
  DEFAULT_PIPELINE_CONFIG,
  readPipelineFile,
  resolvePipelineConfig,
} from '../../../tools/pipeline/config.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'dk-pipeline-config-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
const file = (name: string, text: string) => {
  const f = path.join(tmp, name);
  fs.writeFileSync(f, text);
  return f;
};

describe('pipeline config', () => {
  it('layers defaults, the file and the options, later ones winning', () => {
    const f = readPipelineFile(
      file('a.json', JSON.stringify({ log: 'L', out: 'O', hwm: 2, stages: ['detect'] })),
    );
    const cfg = resolvePipelineConfig(f, { hwm: 8, out: undefined });
    expect(cfg).toEqual({ ...DEFAULT_PIPELINE_CONFIG, log: 'L', out: 'O', hwm: 8, stages: ['detect'] });
  });

  it('names unknown keys, wrong types, YAML and missing files', () => {
    expect(() => readPipelineFile(file('b.json', '{"hwmm": 2}'))).toThrow(/unknown key 'hwmm'/);
    expect(() => readPipelineFile(file('c.json', '{"hwm": "2"}'))).toThrow(/'hwm' must be a number/);
    expect(() => readPipelineFile(file('d.json', '[1]'))).toThrow(/not a JSON object/);
    expect(() => readPipelineFile(file('e.yaml', 'hwm: 2'))).toThrow(/YAML is not supported/);
    expect(() => readPipelineFile(path.join(tmp, 'none.json'))).toThrow(/no such file/);
  });

  it('refuses stages it cannot record, repeats, bad numbers and a missing log', () => {
    const base = { log: 'L', out: 'O' };
    const bad = (over: object, msg: RegExp) => {
      let err: unknown;
      try {
        resolvePipelineConfig(base, over);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(InputError);
      expect((err as Error).message).toMatch(msg);
    };
    bad({ stages: ['plan'] }, /'plan' is not one of discover, detect, tokenize, forecast/);
    bad({ stages: ['warp'] }, /not one of discover, detect/);
    bad({ stages: ['discover', 'discover'] }, /twice/);
    bad({ hwm: 0 }, /--hwm: must be a whole number ≥ 1/);
    bad({ maxRestarts: 1.5 }, /--max-restarts/);
    bad({ transport: 'udp' }, /not ipc or tcp/);
    bad({ log: '' }, /--log: is required/);
  });
});
