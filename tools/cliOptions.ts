// The conventions every `drivekit` command shares (docs/cli.md): snake_case JSON, outputs refused unless
// --force, the log as --log (a positional log as its synonym), --threads (with --workers as a deprecated alias).
import fs from 'node:fs';
import { type Command, Option } from 'commander';
import { InputError } from '../core/errors.ts';
import { intOption } from './numberOption.ts';

/** `pointsPerFrame` → `points_per_frame`; keys that are already snake_case or data (`Car`, `0012`) stay. */
export function snakeCase(key: string): string {
  return key
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/_([A-Z])(?=[a-z0-9_]|$)/g, (_m, c: string) => `_${c.toLowerCase()}`);
}

/**
 * A copy of a JSON value with every object key in snake_case (deeply), non-finite numbers as null: the one
 * key style of every command's --json output and summary files. Typed arrays become plain arrays.
 */
export function snakeKeys(value: unknown): unknown {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (value === null || typeof value !== 'object') return value;
  if (ArrayBuffer.isView(value) && !(value instanceof DataView))
    return Array.from(value as unknown as ArrayLike<number>, snakeKeys);
  if (Array.isArray(value)) return value.map(snakeKeys);
  if (value instanceof Map) return snakeKeys(Object.fromEntries(value));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) if (v !== undefined) out[snakeCase(k)] = snakeKeys(v);
  return out;
}

/** The JSON text of a command's summary: snake_case keys, non-finite numbers as null. */
export function toJson(value: unknown, indent?: number): string {
  return JSON.stringify(snakeKeys(value), null, indent);
}

/** Prints a command's --json summary as one line. */
export function printJson(value: unknown): void {
  process.stdout.write(toJson(value) + '\n');
}

/** A file, or a directory with something in it (an empty directory is a place to write, not an output). */
function holdsOutput(p: string): boolean {
  try {
    return !fs.statSync(p).isDirectory() || fs.readdirSync(p).length > 0;
  } catch {
    return false;
  }
}

/**
 * A command that writes refuses an output that is already there unless --force: a rerun never replaces a
 * result silently. `paths` are the files or directories the command would write.
 */
export function refuseExisting(paths: string | readonly string[], force: boolean | undefined): void {
  if (force) return;
  for (const p of typeof paths === 'string' ? [paths] : paths) {
    if (holdsOutput(p)) throw new InputError(p, 'exists (pass --force to replace it)');
  }
}

/** The --force option, worded the same in every command. */
export function addForce(cmd: Command, what = 'the outputs'): Command {
  return cmd.option('--force', `replace ${what} (refused without --force)`);
}

/**
 * The log input: `--log <dir>`, or the same as one positional argument (`drivekit info <log>`). Read it
 * back with `logInput`.
 */
export function addLogInput(cmd: Command, description = 'log directory'): Command {
  return cmd.argument('[log]', 'the log (same as --log)').option('--log <dir>', description);
}

/** The log of a command set up with `addLogInput`: --log or the positional one (not two different ones). */
export function logInput(positional: string | undefined, opts: { log?: string }): string {
  if (positional !== undefined && opts.log !== undefined && positional !== opts.log)
    throw new InputError('--log', `two logs given ('${positional}' and --log '${opts.log}'): give one`);
  const log = opts.log ?? positional;
  if (log === undefined) throw new InputError('--log', 'missing: give the log as --log <dir>');
  return log;
}

/**
 * `--threads <n>` with `--workers <n>` kept as a hidden alias for one version (it was the flag of synth
 * and export). Read it back with `threadsInput`.
 */
export function addThreads(cmd: Command, description: string, min = 1, defaultValue?: number): Command {
  const threads = new Option('--threads <n>', description).argParser(intOption('--threads', min));
  if (defaultValue !== undefined) threads.default(defaultValue);
  return cmd
    .addOption(threads)
    .addOption(
      new Option('--workers <n>', 'deprecated: use --threads')
        .argParser(intOption('--workers', min))
        .hideHelp(),
    );
}

/** --threads, or the deprecated --workers (with a note on stderr). */
export function threadsInput(opts: { threads?: number; workers?: number }): number | undefined {
  if (opts.workers === undefined) return opts.threads;
  process.stderr.write('drivekit: --workers is deprecated, use --threads\n');
  return opts.workers;
}

/**
 * A renamed option kept as a hidden alias for one version: `--range` became `--cluster-range` in discover
 * and `--grid-range` in detect. Read back with `renamedInput`.
 */
export function addRenamed(cmd: Command, oldFlag: string, parse: (text: string) => number): Command {
  return cmd.addOption(new Option(`${oldFlag} <x>`, 'deprecated').argParser(parse).hideHelp());
}

/** The new option's value, or the old one's (with a note on stderr); both given is a usage error. */
export function renamedInput<T>(
  newValue: T | undefined,
  oldValue: T | undefined,
  oldFlag: string,
  newFlag: string,
) {
  if (oldValue === undefined) return newValue;
  if (newValue !== undefined)
    throw new InputError(oldFlag, `is the old name of ${newFlag}: give one of them`);
  process.stderr.write(`drivekit: ${oldFlag} is deprecated, use ${newFlag}\n`);
  return oldValue;
}

/** The line every command with AP figures adds to its --help: the unit of each output. */
export const AP_UNITS_HELP =
  '\nAP and other shares print in percent; the --json output and the files written hold fractions (0–1).';
