// Validation of user config overrides (JSON from --config or a file) against a module's DEFAULT_*
// config: the defaults give each key's type, a ranges table beside them gives the allowed values.
import { InputError } from './errors.ts';

/** Allowed values of one number (or string) field; bounds are inclusive unless named above/below. */
export interface FieldRange {
  min?: number;
  max?: number;
  /** Exclusive lower bound (e.g. a voxel edge must be > 0). */
  above?: number;
  /** Exclusive upper bound. */
  below?: number;
  integer?: boolean;
  /** The field may be null (its default is null or "off"). */
  nullable?: boolean;
  /** Type of a field whose default is null. */
  type?: 'number' | 'string' | 'boolean' | 'array';
  /** The only strings allowed. */
  oneOf?: readonly string[];
}

/** Ranges of a config's fields, nested like the config; fields without an entry are only type-checked. */
export type ConfigRanges<T> = {
  [K in keyof T]?: NonNullable<T[K]> extends readonly unknown[]
    ? FieldRange
    : NonNullable<T[K]> extends object
      ? ConfigRanges<NonNullable<T[K]>>
      : FieldRange;
};

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** How a value reads in an error ("lots" quoted, numbers as they are). */
const shown = (v: unknown) => (typeof v === 'string' ? JSON.stringify(v) : String(v));

function typeName(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  return typeof v;
}

/**
 * Bounds for numbers whose range declares none, so that no value is unbounded (a voxel edge of 1e308 ran
 * and found nothing; a count of 1e12 reached the allocator): lengths (config fields ending in M, the unit
 * convention) within ±10 km, whole numbers within ±(2³¹ − 1), other numbers within ±10⁹. A module or
 * option declares its own bound where a tighter one is known.
 */
export const DEFAULT_BOUNDS = { lengthM: 10_000, integer: 2 ** 31 - 1, other: 1e9 } as const;

/** The problem with `x` against the default bound for a field named `key` (null when `r` bounds it). */
export function defaultBoundProblem(x: number, r: FieldRange, key = ''): string | null {
  const [bound, what] = /[a-z]M$/.test(key)
    ? [DEFAULT_BOUNDS.lengthM, 'a length in metres']
    : r.integer
      ? [DEFAULT_BOUNDS.integer, 'a whole number']
      : [DEFAULT_BOUNDS.other, 'a number'];
  if (r.max === undefined && r.below === undefined && x > bound) return `must be ≤ ${bound} (${what})`;
  if (r.min === undefined && r.above === undefined && x < -bound) return `must be ≥ ${-bound} (${what})`;
  return null;
}

/** The problem with a number against its range, or null. */
export function rangeProblem(x: number, r: FieldRange): string | null {
  const bounds: string[] = [];
  if (r.min !== undefined) bounds.push(`≥ ${r.min}`);
  if (r.above !== undefined) bounds.push(`> ${r.above}`);
  if (r.max !== undefined) bounds.push(`≤ ${r.max}`);
  if (r.below !== undefined) bounds.push(`< ${r.below}`);
  const want = `must be ${r.integer ? 'a whole number' : 'a number'}${bounds.length ? ' ' + bounds.join(' and ') : ''}`;
  const bad =
    !Number.isFinite(x) ||
    (r.integer && !Number.isInteger(x)) ||
    (r.min !== undefined && x < r.min) ||
    (r.above !== undefined && x <= r.above) ||
    (r.max !== undefined && x > r.max) ||
    (r.below !== undefined && x >= r.below);
  return bad ? want : null;
}

function checkField(
  value: unknown,
  def: unknown,
  range: FieldRange | ConfigRanges<unknown> | undefined,
  where: string,
  problems: string[],
): void {
  if (isPlainObject(def)) {
    if (!isPlainObject(value)) {
      problems.push(`${where} must be an object, got ${typeName(value)}`);
      return;
    }
    checkObject(value, def, range as ConfigRanges<unknown> | undefined, `${where}.`, problems);
    return;
  }
  const r = (range ?? {}) as FieldRange;
  if (value === null) {
    if (!(def === null || def === undefined || r.nullable)) problems.push(`${where} must not be null`);
    return;
  }
  const want = def === null || def === undefined ? r.type : typeName(def);
  if (want && typeName(value) !== want) {
    problems.push(`${where} must be a ${want}, got ${shown(value)}`);
    return;
  }
  if (typeof value === 'number') {
    const p =
      rangeProblem(value, r) ?? defaultBoundProblem(value, r, where.slice(where.lastIndexOf('.') + 1));
    if (p) problems.push(`${where} ${p}, got ${value}`);
  } else if (typeof value === 'string' && r.oneOf && !r.oneOf.includes(value)) {
    problems.push(`${where} must be one of ${r.oneOf.join(', ')}, got ${shown(value)}`);
  } else if (Array.isArray(value) && Array.isArray(def) && def.length > 0) {
    // Elements are checked against the default's first element (e.g. [[0, 30], [30, 50]] buckets).
    value.forEach((el, i) => checkField(el, def[0], undefined, `${where}[${i}]`, problems));
  }
}

function checkObject(
  value: Record<string, unknown>,
  defaults: Record<string, unknown>,
  ranges: ConfigRanges<unknown> | undefined,
  prefix: string,
  problems: string[],
): void {
  // Optional fields absent from the defaults are known by their range entry (which gives their type).
  const known = [...new Set([...Object.keys(defaults), ...Object.keys(ranges ?? {})])];
  for (const [k, v] of Object.entries(value)) {
    if (!known.includes(k)) {
      problems.push(`unknown key '${prefix}${k}' (known: ${known.join(', ')})`);
      continue;
    }
    const r = (ranges as Record<string, FieldRange | ConfigRanges<unknown> | undefined> | undefined)?.[k];
    checkField(v, defaults[k], r, `${prefix}${k}`, problems);
  }
}

/**
 * Check a (partial) config override against the defaults it will be merged over: every key must
 * exist in the defaults, have the default's type and lie in its declared range. Throws one InputError
 * naming `source` (the file or option) and every problem found; returns the value, typed.
 */
export function validateConfig<T>(
  value: unknown,
  defaults: T,
  ranges: ConfigRanges<T>,
  source: string,
): Partial<T> {
  if (!isPlainObject(value))
    throw new InputError(source, `config must be a JSON object, got ${typeName(value)}`);
  const problems: string[] = [];
  checkObject(value, defaults as Record<string, unknown>, ranges as ConfigRanges<unknown>, '', problems);
  if (problems.length) throw new InputError(source, `invalid config: ${problems.join('; ')}`);
  return value as Partial<T>;
}

/** Parse --config: inline JSON when it starts with '{', else a JSON file; InputError naming it on failure. */
export function parseConfigJson(text: string, readFile: (file: string) => string): unknown {
  const inline = text.trimStart().startsWith('{');
  let body: string;
  try {
    body = inline ? text : readFile(text);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new InputError(
      text,
      code === 'ENOENT'
        ? 'no such config file'
        : code === 'EISDIR'
          ? 'is a directory, expected a JSON config file'
          : `cannot read (${code})`,
    );
  }
  try {
    return JSON.parse(body) as unknown;
  } catch (e) {
    throw new InputError(inline ? '--config' : text, `not valid JSON (${(e as Error).message})`);
  }
}
