// Strict parsing of numeric command-line options, one helper for every command: 'abc', '', '12abc',
// '0x10', out-of-range and unbounded values are a one-line error naming the option, never NaN or a default.
import { InvalidArgumentError } from 'commander';
import { defaultBoundProblem, type FieldRange, rangeProblem } from '../core/configSchema.ts';
import { InputError } from '../core/errors.ts';

/** Decimal notation only (optionally signed, with a fraction and exponent): what a user types for a number. */
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** The number a text holds under a range, or the problem with it (as "must be …, got '…'"). */
export function parseNumberText(text: string, range: FieldRange = {}): number | { problem: string } {
  const t = text.trim();
  const x = DECIMAL.test(t) ? Number(t) : NaN;
  // Every option is bounded: one that declares no upper bound gets the default one (core/configSchema.ts).
  const p = rangeProblem(x, range) ?? defaultBoundProblem(x, range);
  return p ? { problem: `${p}, got '${text}'` } : x;
}

/** A commander option parser: the number, or an InputError naming `flag` (exit 1, one line). */
export function numberOption(flag: string, range: FieldRange = {}): (text: string) => number {
  return (text) => {
    const r = parseNumberText(text, range);
    if (typeof r === 'number') return r;
    throw new InputError(flag, r.problem);
  };
}

/** A whole number ≥ `min` (and ≤ `max`) for `flag`. */
export const intOption = (flag: string, min: number, max?: number) =>
  numberOption(flag, { integer: true, min, max });

/** The same check for parsers that do not know their flag: commander names the option in its error. */
export function anonymousNumberOption(range: FieldRange): (text: string) => number {
  return (text) => {
    const r = parseNumberText(text, range);
    if (typeof r === 'number') return r;
    throw new InvalidArgumentError(r.problem);
  };
}
