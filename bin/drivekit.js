#!/usr/bin/env node
// Entry point of the `drivekit` command: runs the compiled JavaScript in dist/ (built by `npm ci` /
// `npm run build`) when it is there and not older than the sources, else the TypeScript sources through
// tsx; makes sure glibc keeps freed memory for reuse (core/mallocEnv.ts), then runs the CLI.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
/** The folders compiled into dist/ (tools/build/compile.ts SOURCE_DIRS). */
const SOURCE_DIRS = ['core', 'datasets', 'perception', 'worldmodel', 'simulation', 'tools'];

/** Why dist/ cannot be used ('' when it can): missing, or a source file or folder changed after the build. */
function distProblem() {
  let built;
  try {
    built = fs.statSync(path.join(root, 'dist', 'build.json')).mtimeMs;
  } catch {
    return 'no build in dist/';
  }
  const stack = SOURCE_DIRS.map((d) => path.join(root, d));
  while (stack.length > 0) {
    const dir = stack.pop();
    let entries;
    try {
      if (fs.statSync(dir).mtimeMs > built) return `${path.relative(root, dir)}/ changed after the build`;
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of entries) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.name.endsWith('.ts') && fs.statSync(p).mtimeMs > built)
        return `${path.relative(root, p)} changed after the build`;
    }
  }
  return '';
}

const COMPILED = 'compiled JavaScript in dist/';
// The re-run child of the malloc wrapper (core/mallocEnv.ts) takes its wrapper's choice instead of
// walking the sources again (tens of ms on a busy machine).
const wrapperChose = process.env.DRIVEKIT_WRAPPER_PID ? process.env.DRIVEKIT_RAN_FROM : undefined;
const problem = process.env.DRIVEKIT_FROM_SOURCE
  ? 'DRIVEKIT_FROM_SOURCE is set'
  : wrapperChose === COMPILED
    ? ''
    : distProblem();
if (problem === '') {
  process.env.DRIVEKIT_RAN_FROM = COMPILED;
  const { reexecWithTunedMalloc } = await import('../dist/core/mallocEnv.js');
  if (!reexecWithTunedMalloc()) await import('../dist/tools/cli.js');
} else {
  process.env.DRIVEKIT_RAN_FROM = `TypeScript sources through tsx (${problem}; npm run build compiles them)`;
  const { register } = await import('tsx/esm/api');
  register();
  const { reexecWithTunedMalloc } = await import('../core/mallocEnv.ts');
  if (!reexecWithTunedMalloc()) await import('../tools/cli.ts');
}
