// The tokenizer config a `train-tokenizer` run uses: defaults or Copilot4D's scale, with JSON overrides
// merged section by section, and unknown keys refused by name.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../../core/errors.ts';
import { gridGeometry } from '../../../worldmodel/config.ts';
import { configFrom } from '../../../tools/commands/trainTokenizer.ts';

describe('train-tokenizer config', () => {
  it("is Copilot4D's scale with --paper and keeps it where an override names other fields", () => {
    const cfg = configFrom('{"quantizer":{"codes":2048}}', true);
    expect(cfg.quantizer.codes).toBe(2048);
    expect(cfg.quantizer.codeDim).toBe(32);
    expect(cfg.grid).toMatchObject({ rangeM: 80, cellsXY: 1024, cellsZ: 64 });
    expect(gridGeometry(cfg).tokensXY).toBe(128);
    expect(gridGeometry(configFrom(undefined, false)).tokenM).toBe(1.25);
  });

  it('names an unknown key or bad JSON', () => {
    expect(() => configFrom('{"quantiser":{}}', false)).toThrow(InputError);
    expect(() => configFrom('{"quantiser":{}}', false)).toThrow(/unknown key 'quantiser'/);
    expect(() => configFrom('{not json', false)).toThrow(/--config/);
  });
});
