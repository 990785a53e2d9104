// Strict numeric options (tools/numberOption.ts): only decimal numbers in range pass; anything else is an
// InputError naming the option. The CLI turns `sim --limit abc` into one line and exit 1.
import { describe, expect, it } from 'vitest';
import { InputError } from '../../core/errors.ts';
import { intOption, numberOption, parseNumberText } from '../../tools/numberOption.ts';
import { expectOneLineFailure } from './commands/castLog.ts';

describe('numeric options', () => {
  it('accepts decimal notation in range', () => {
    expect(intOption('--n', 1)('12')).toBe(12);
    expect(numberOption('--x', { above: 0 })('2.5e-1')).toBe(0.25);
    expect(numberOption('--x')('-3')).toBe(-3);
  });

  it('refuses text, partial numbers, hex, empty, fractions for counts and out-of-range values', () => {
    for (const bad of ['abc', '12abc', '0x10', '', ' ', 'NaN', 'Infinity', '1.5', '0'])
      expect(() => intOption('--limit', 1)(bad)).toThrow(InputError);
    expect(() => intOption('--limit', 1)('abc')).toThrow(/^--limit: must be a whole number ≥ 1, got 'abc'$/);
    expect(parseNumberText('1.5', { min: 0, below: 1 })).toEqual({
      problem: "must be a number ≥ 0 and < 1, got '1.5'",
    });
  });

  it('drivekit sim --limit abc fails with one line naming the option', async () => {
    await expectOneLineFailure(
      ['sim', '--scenarios', 'none', '--agents', 'idm', '--out', 'none', '--limit', 'abc'],
      /--limit: must be a whole number ≥ 1, got 'abc'/,
    );
  }, 30_000);

  it('drivekit synth --beam-apex refuses the KITTI table for another sensor and a height out of range', async () => {
    await expectOneLineFailure(
      ['synth', '--out', 'none', '--frames', '1', '--lidar', 'vlp32', '--beam-apex', 'kitti'],
      /--beam-apex: kitti is the HDL-64E's apex table; --lidar is vlp32/,
    );
    await expectOneLineFailure(
      ['synth', '--out', 'none', '--frames', '1', '--beam-apex', '2'],
      /--beam-apex: must be a number ≥ 0 and ≤ 1, got '2'/,
    );
  }, 30_000);

  it('drivekit discover --config with a bad value and a wrong type fails naming both', async () => {
    await expectOneLineFailure(
      ['discover', '--log', 'none', '--config', '{"cluster":{"voxelM":-1,"minPoints":"lots"}}'],
      /--config: invalid config: cluster\.voxelM must be a number > 0, got -1; cluster\.minPoints must be a number, got "lots"/,
    );
  }, 30_000);
});
