// Config overrides checked against a module's defaults and ranges (core/configSchema.ts): wrong types,
// out-of-range values and unknown keys are each named; a valid override passes through unchanged.
import { describe, expect, it } from 'vitest';
import { parseConfigJson, validateConfig } from '../../core/configSchema.ts';
import { InputError } from '../../core/errors.ts';
import { DEFAULT_PIPELINE_INPUT, PIPELINE_INPUT_RANGES } from '../../perception/discoverLog.ts';
import { DEFAULT_TOKENIZER_CONFIG, TOKENIZER_CONFIG_RANGES } from '../../worldmodel/config.ts';

const check = (v: unknown) => validateConfig(v, DEFAULT_PIPELINE_INPUT, PIPELINE_INPUT_RANGES, 'cfg.json');
const problem = (v: unknown) => {
  try {
    check(v);
  } catch (e) {
    expect(e).toBeInstanceOf(InputError);
    return (e as Error).message;
  }
  return null;
};

describe('validateConfig', () => {
  it('names every wrong type, out-of-range value and unknown key in one line', () => {
    const msg = problem({ cluster: { voxelM: -1, minPoints: 'lots' }, refin: {} })!;
    expect(msg.split('\n')).toHaveLength(1);
    expect(msg).toMatch(/^cfg\.json: invalid config: /);
    expect(msg).toMatch(/cluster\.voxelM must be a number > 0, got -1/);
    expect(msg).toMatch(/cluster\.minPoints must be a number, got "lots"/);
    expect(msg).toMatch(/unknown key 'refin'/);
  });

  it('checks whole numbers, enums, nullable fields, nested sections and optional fields', () => {
    expect(problem({ cluster: { minPoints: 2.5 } })).toMatch(/minPoints must be a whole number ≥ 1, got 2.5/);
    expect(problem({ boxfit: { method: 'fancy' } })).toMatch(/method must be one of closeness, minArea/);
    expect(problem({ refine: { minTrackFrames: null } })).toMatch(/minTrackFrames must not be null/);
    expect(problem({ tracker: { noise: 3 } })).toMatch(/tracker\.noise must be an object/);
    expect(problem({ cluster: { egoMinXM: 'x' } })).toMatch(/egoMinXM must be a number/);
    expect(problem({ ground: { groundZHintM: 'low' } })).toMatch(/groundZHintM must be a number/);
    expect(problem([1])).toMatch(/config must be a JSON object, got array/);
    expect(problem({ cluster: { rangeM: Infinity } })).toMatch(/rangeM must be a number > 0/);
  });

  it('passes valid overrides through unchanged', () => {
    const v = {
      cluster: { voxelM: 0.4, minPoints: 5 },
      refine: { maxAspectRatio: null },
      ground: { groundZHintM: -1.7 },
      minSweepPoints: 0,
    };
    expect(check(v)).toBe(v);
    const tok = { quantizer: { codes: 1024 }, grid: { rangeM: 80 } };
    expect(validateConfig(tok, DEFAULT_TOKENIZER_CONFIG, TOKENIZER_CONFIG_RANGES, '--config')).toBe(tok);
    expect(() =>
      validateConfig({ quantizer: { codes: 1 } }, DEFAULT_TOKENIZER_CONFIG, TOKENIZER_CONFIG_RANGES, 'x'),
    ).toThrow(/quantizer\.codes must be a whole number ≥ 2/);
  });

  it('reads inline JSON or a file, naming what failed', () => {
    expect(parseConfigJson('{"a":1}', () => '')).toEqual({ a: 1 });
    expect(parseConfigJson('f.json', () => '{"b":2}')).toEqual({ b: 2 });
    expect(() => parseConfigJson('{"a":', () => '')).toThrow(/^--config: not valid JSON/);
    const missing = () => {
      throw Object.assign(new Error('nope'), { code: 'ENOENT' });
    };
    expect(() => parseConfigJson('nope.json', missing)).toThrow(/^nope\.json: no such config file/);
  });
});
