// The compiled tree (tools/build/compile.ts): built into a scratch checkout, bin/drivekit.js runs it (and
// says so), its worker threads start from compiled files, and a source newer than the build falls back to tsx.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../../core/paths.ts';
import { compile, rewriteTsSpecifiers, SOURCE_DIRS } from '../../../tools/build/compile.ts';

let tmp: string;
let root: string;

const drivekit = (args: string[], env: NodeJS.ProcessEnv = {}) =>
  spawnSync(process.execPath, [path.join(root, 'bin', 'drivekit.js'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, DRIVEKIT_FROM_SOURCE: '', ...env },
  });

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'drivekit-build-'));
  // A checkout whose sources are the repository's (linked), with its own bin/ and dist/.
  root = path.join(tmp, 'checkout');
  fs.mkdirSync(path.join(root, 'bin'), { recursive: true });
  fs.copyFileSync(path.join(REPO_ROOT, 'bin', 'drivekit.js'), path.join(root, 'bin', 'drivekit.js'));
  for (const name of [...SOURCE_DIRS, 'package.json', 'models', 'node_modules'])
    fs.symlinkSync(path.join(REPO_ROOT, name), path.join(root, name));
  await compile(root);
}, 120_000);

afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

describe('compiled CLI', () => {
  it('compiles every source module and rewrites its .ts specifiers', () => {
    const cli = fs.readFileSync(path.join(root, 'dist', 'tools', 'cli.js'), 'utf8');
    expect(cli).toContain('"./program.js"');
    expect(cli).not.toMatch(/\.ts["']/);
    const pool = fs.readFileSync(path.join(root, 'dist', 'simulation', 'lidar', 'sweepPool.js'), 'utf8');
    expect(pool).toContain('new URL("./sweepWorker.js", import.meta.url)');
    // Type annotations are gone: the file parses as plain JavaScript.
    expect(
      spawnSync(process.execPath, ['--check', path.join(root, 'dist', 'core', 'workers.js')]).status,
    ).toBe(0);
  });

  it('leaves specifiers alone that name no source file', () => {
    const dir = path.join(REPO_ROOT, 'core');
    expect(rewriteTsSpecifiers(`import a from './paths.ts'; const s = './nothing-here.ts';`, dir)).toBe(
      `import a from './paths.js'; const s = './nothing-here.ts';`,
    );
  });

  it('runs from dist/ and says so in the help', () => {
    const p = drivekit(['--help']);
    expect(p.status).toBe(0);
    expect(p.stdout).toContain('Running compiled JavaScript in dist/.');
    // The build compiled the CRC32C addon into this checkout's dist/native/, and the compiled tree loads it.
    expect(fs.existsSync(path.join(root, 'dist', 'native', 'crc32c.node'))).toBe(true);
    expect(p.stdout).toContain("CRC32C on the CPU's instructions (native addon).");
    const v = drivekit(['--version']);
    expect(v.stdout.trim()).toBe(
      JSON.parse(fs.readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')).version,
    );
  });

  it('starts worker threads (LiDAR sweeps, learned agents) from the compiled files', () => {
    const log = path.join(tmp, 'log');
    const s = drivekit(['synth', '--frames', '2', '--azimuth', '64', '--threads', '2', '--out', log]);
    expect(s.status, s.stderr).toBe(0);
    const sim = drivekit([
      'sim',
      '--scenarios',
      path.join(log, 'scenario.json'),
      '--agents',
      'learned',
      '--rollouts',
      '1',
      '--out',
      path.join(tmp, 'sim'),
    ]);
    expect(sim.status, sim.stderr).toBe(0);
    expect(fs.existsSync(path.join(tmp, 'sim', 'metrics.json'))).toBe(true);
  });

  it('falls back to the sources through tsx when the build is older than them, and says why', () => {
    fs.utimesSync(path.join(root, 'dist', 'build.json'), new Date(1000), new Date(1000));
    const p = drivekit(['--help']);
    expect(p.status).toBe(0);
    expect(p.stdout).toMatch(
      /Running TypeScript sources through tsx \(.* changed after the build; npm run build/,
    );
    const forced = drivekit(['--help'], { DRIVEKIT_FROM_SOURCE: '1' });
    expect(forced.stdout).toContain('DRIVEKIT_FROM_SOURCE is set');
  });
});
