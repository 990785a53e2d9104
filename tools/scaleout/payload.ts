// A scale-out job's payload (what goes into Redis) and its validation: the command must be in the
// allow-list (jobCommands.ts), every option known and well-typed, every path inside the worker's roots.
import fs from 'node:fs';
import path from 'node:path';
import { InputError } from '../../core/errors.ts';
import { JOB_COMMANDS, type JobCommand } from './jobCommands.ts';

export const PAYLOAD_VERSION = 1;

/** One job: a command on one input. Paths are absolute on the storage every worker sees. */
export interface JobPayload {
  v: number;
  command: string;
  input: string;
  options: Record<string, string | true>;
}

/** The flow's parent: aggregates its children's results once they have all finished. */
export interface AggregatePayload {
  v: number;
  aggregate: true;
  command: string;
  options: Record<string, string | true>;
}

/** A payload that passed validation, with everything the worker needs to run and fingerprint it. */
export interface ValidJob {
  command: string;
  spec: JobCommand;
  input: string;
  /** argv after the command name (no shell ever sees it). */
  argv: string[];
  /** Where the job writes (and keeps its done-marker); null for a read-only command. */
  outDir: string | null;
  /** Input files and directories whose fingerprint forms the job's input hash. */
  reads: string[];
}

export function jobCommand(name: unknown): JobCommand {
  if (typeof name !== 'string' || !Object.hasOwn(JOB_COMMANDS, name))
    throw new InputError(
      'job',
      `command '${String(name)}' is not a scale-out command (${Object.keys(JOB_COMMANDS).join(', ')})`,
    );
  return JOB_COMMANDS[name];
}

function checkValue(flag: string, kind: string, value: string | true): void {
  const bad = (what: string) => new InputError(flag, `${what}, got '${String(value)}'`);
  if (kind === 'flag') {
    if (value !== true) throw bad('takes no value');
    return;
  }
  if (typeof value !== 'string') throw bad('needs a value');
  if (kind === 'number' && !Number.isFinite(Number(value))) throw bad('must be a number');
  if (kind === 'int' && !/^-?\d+$/.test(value)) throw bad('must be a whole number');
  if (kind === 'word' && !/^[A-Za-z0-9_.,][A-Za-z0-9_.,-]*$/.test(value))
    throw bad('must be a plain word (letters, digits, . , _ -)');
  if ((kind === 'path' || kind === 'outRoot') && (!path.isAbsolute(value) || value.includes('\0')))
    throw bad('must be an absolute path');
}

/**
 * Split the tokens after `submit … <command>` into inputs and options, using the command's table entry
 * to know which options take a value. Relative paths become absolute against `cwd`.
 */
export function parseJobArgs(
  command: string,
  tokens: string[],
  cwd: string,
): { inputs: string[]; options: Record<string, string | true> } {
  const spec = jobCommand(command);
  const inputs: string[] = [];
  const options: Record<string, string | true> = {};
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (!t.startsWith('--')) {
      inputs.push(path.resolve(cwd, t));
      continue;
    }
    const [flag, inline] = t.includes('=') ? [t.slice(0, t.indexOf('=')), t.slice(t.indexOf('=') + 1)] : [t];
    const kind = Object.hasOwn(spec.options, flag) ? spec.options[flag] : undefined;
    if (!kind)
      throw new InputError(
        flag,
        `not an option a '${command}' job can carry (${Object.keys(spec.options).join(', ') || 'none'})`,
      );
    let value: string | true = true;
    if (kind !== 'flag') {
      const v = inline ?? tokens[++i];
      if (v === undefined) throw new InputError(flag, 'needs a value');
      value = kind === 'path' || kind === 'outRoot' ? path.resolve(cwd, v) : v;
    }
    checkValue(flag, kind, value);
    options[flag] = value;
  }
  for (const r of spec.required ?? [])
    if (!(r in options)) throw new InputError(r, `required by '${command}'`);
  if (inputs.length === 0) throw new InputError(command, 'no inputs given (one job per input)');
  return { inputs, options };
}

/** The real path of `p`, or of its nearest existing ancestor joined with the rest (for outputs to come). */
function realish(p: string): string {
  const rest: string[] = [];
  let cur = path.resolve(p);
  for (;;) {
    try {
      return path.join(fs.realpathSync(cur), ...rest.reverse());
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return path.join(cur, ...rest.reverse());
      rest.push(path.basename(cur));
      cur = parent;
    }
  }
}

/** Throws unless `p` (symlinks resolved) lies inside one of `roots`. */
export function assertInsideRoots(p: string, roots: string[], what: string): void {
  const real = realish(p);
  for (const root of roots) {
    const rel = path.relative(realish(root), real);
    if (rel === '' || (!rel.startsWith('..') && !path.isAbsolute(rel))) return;
  }
  throw new InputError(what, `path '${p}' is outside the worker's roots (${roots.join(', ')})`);
}

/** The output directory of an 'outRoot' command: one per input, named after it. */
export function outDirFor(outRoot: string, input: string): string {
  const base = path.basename(input).replace(/\.[^.]+$/, '');
  return path.join(outRoot, base || 'input');
}

/** Validate a payload read from Redis (it may come from anyone who can reach Redis). */
export function validatePayload(data: unknown, roots: string[]): ValidJob {
  if (typeof data !== 'object' || data === null) throw new InputError('job', 'payload is not an object');
  const p = data as Partial<JobPayload>;
  if (p.v !== PAYLOAD_VERSION)
    throw new InputError('job', `payload version ${String(p.v)} is not ${PAYLOAD_VERSION}`);
  const spec = jobCommand(p.command);
  const command = p.command as string;
  if (typeof p.input !== 'string' || !path.isAbsolute(p.input))
    throw new InputError('job', 'input must be an absolute path');
  assertInsideRoots(p.input, roots, 'input');
  const options = p.options ?? {};
  if (typeof options !== 'object' || Array.isArray(options))
    throw new InputError('job', 'options must be an object');
  const argv: string[] = spec.inputFlag ? [spec.inputFlag, p.input] : [p.input];
  for (const f of spec.inputAlso ?? []) argv.push(f, p.input);
  const reads = spec.reads === 'input' ? [p.input] : spec.reads.map((n) => path.join(p.input as string, n));
  let outDir: string | null = spec.writes(options).length > 0 ? p.input : null;
  for (const [flag, value] of Object.entries(options)) {
    const kind = Object.hasOwn(spec.options, flag) ? spec.options[flag] : undefined;
    if (!kind) throw new InputError(flag, `not an option a '${command}' job can carry`);
    checkValue(flag, kind, value);
    if (kind === 'flag') {
      argv.push(flag);
      continue;
    }
    let v = value as string;
    if (kind === 'path') {
      assertInsideRoots(v, roots, flag);
      reads.push(v);
    } else if (kind === 'outRoot') {
      v = outDirFor(v, p.input);
      assertInsideRoots(v, roots, flag);
      outDir = v;
    }
    argv.push(flag, v);
  }
  for (const r of spec.required ?? [])
    if (!(r in options)) throw new InputError(r, `required by '${command}'`);
  if (outDir !== null && outDir === p.input) assertInsideRoots(outDir, roots, 'output');
  return { command, spec, input: p.input, argv, outDir, reads };
}
