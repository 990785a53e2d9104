// The conventions every drivekit command shares (docs/cli.md), checked over the whole command table in
// process: one-line usage errors with exit code 2, --force on every command that writes, no old names in --help.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, describe, expect, it, vi } from 'vitest';
import { COMMANDS } from '../../tools/commands/index.ts';
import { runCli, usageLine } from '../../tools/program.ts';
import { snakeCase, snakeKeys } from '../../tools/cliOptions.ts';
import { saveScenario } from '../../simulation/scenarioIo.ts';
import { allocatePointCloud, boxesFromRows } from '../../core/arrow/records.ts';
import { LogWriter } from '../../datasets/logstore.ts';
import { STAGES } from '../../tools/stages/index.ts';
import { straightRoadScenario } from '../simulation/fixtures.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-conventions-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));
afterEach(() => vi.restoreAllMocks());

/** `drivekit <args>` in this process: its exit code and what it printed. */
async function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  vi.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
    stdout += String(s);
    return true;
  });
  vi.spyOn(process.stderr, 'write').mockImplementation((s: string | Uint8Array) => {
    stderr += String(s);
    return true;
  });
  try {
    const code = await runCli(['node', 'drivekit', ...args]);
    return { code, stdout, stderr };
  } finally {
    vi.restoreAllMocks();
  }
}

/** Commands that write files, each with its --force wording checked in --help. */
const WRITERS = [
  'import',
  'synth',
  'discover',
  'detect',
  'tokenize',
  'forecast',
  'sim',
  'longtail',
  'export',
  'odometry',
  'agent-settings',
];

describe('drivekit command-line conventions', () => {
  it('turns camelCase keys into snake_case and keeps data keys', () => {
    expect(snakeCase('pointsPerFrameMedian')).toBe('points_per_frame_median');
    expect(snakeCase('depthL1MeanM')).toBe('depth_l1_mean_m');
    expect(snakeCase('ade_m')).toBe('ade_m');
    expect(snakeCase('REGULAR_VEHICLE')).toBe('REGULAR_VEHICLE');
    expect(snakeCase('Car')).toBe('Car');
    expect(snakeKeys({ aB: [{ cD: NaN }], e: new Float32Array([1]), f: undefined })).toEqual({
      a_b: [{ c_d: null }],
      e: [1],
    });
  });

  it('prints a usage error as one line naming the bad option, with exit code 2', async () => {
    expect(usageLine("error: unknown option '--x'\n(Did you mean --y?)\n", 'drivekit sim')).toBe(
      "drivekit sim: unknown option '--x' (Did you mean --y?) (see drivekit sim --help)\n",
    );
    for (const { name } of COMMANDS) {
      const r = await cli(name, '--no-such-option', 'x');
      expect(r.code, name).toBe(2);
      const lines = r.stderr.trim().split('\n');
      expect(lines, name).toHaveLength(1);
      expect(lines[0], name).toMatch(new RegExp(`^drivekit ${name}: .*'--[a-z-]+`));
      expect(lines[0], name).not.toMatch(/Usage:/);
    }
    const bad = await cli('sim', '--scenarios', 'x', '--agents', 'cv', '--out', 'y', '--rollouts', 'many');
    expect([bad.code, bad.stderr]).toEqual([
      2,
      "drivekit sim: --rollouts: must be a whole number ≥ 1 and ≤ 1024, got 'many' (see drivekit sim --help)\n",
    ]);
    expect((await cli('no-such-command')).code).toBe(2);
  }, 60_000);

  it('exits 1 with one line on a runtime error (a missing input file)', async () => {
    const r = await cli(
      'sim',
      '--scenarios',
      path.join(tmp, 'missing'),
      '--agents',
      'cv',
      '--out',
      path.join(tmp, 'o'),
    );
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
    expect(r.stderr).toContain('missing');
  });

  it('has --force on every command that writes, and no old option names in any --help', async () => {
    for (const { name } of COMMANDS) {
      const r = await cli(name, '--help');
      expect(r.code, name).toBe(0);
      if (WRITERS.includes(name)) expect(r.stdout, name).toMatch(/--force/);
      expect(r.stdout, name).not.toMatch(/--workers|--range\b/);
    }
  }, 60_000);

  it('has no old option names in any stage --help either', async () => {
    for (const { name } of STAGES) {
      const r = await cli('stage', name, '--help');
      expect(r.code, name).toBe(0);
      expect(r.stdout, name).not.toMatch(/--workers|--range\b/);
    }
  }, 60_000);

  it('prints snake_case JSON (info, verify) and takes the log as --log or one positional', async () => {
    const log = path.join(tmp, 'small-log');
    const w = LogWriter.create(log, { source: 'test' });
    for (let f = 0; f < 2; f++) {
      const p = allocatePointCloud(3);
      p.x.set([1, 2, 3]);
      w.appendFrame({
        timestampNs: BigInt(f) * 100_000_000n,
        pose: Float64Array.of(1, 0, 0, f, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1),
        points: p,
      });
    }
    w.setLabels(
      boxesFromRows([
        {
          cx: 2,
          cy: 0,
          cz: 0,
          length: 4,
          width: 2,
          height: 1.5,
          yaw: 0,
          label: 'Car',
          frameIndex: 0,
          trackId: 1,
        },
      ]),
    );
    await w.close();
    // Every key snake_case, except data keys (class names) under `classes`.
    const keysOf = (v: unknown, under = ''): string[] =>
      v === null || typeof v !== 'object'
        ? []
        : Array.isArray(v)
          ? v.flatMap((x) => keysOf(x, under))
          : Object.entries(v).flatMap(([k, x]) => [...(under === 'classes' ? [] : [k]), ...keysOf(x, k)]);
    for (const args of [
      ['info', '--log', log, '--json'],
      ['info', log, '--json'],
      ['verify', log, '--json'],
    ]) {
      const r = await cli(...args);
      expect(r.code, args.join(' ')).toBe(0);
      const keys = keysOf(JSON.parse(r.stdout));
      expect(keys.length).toBeGreaterThan(5);
      expect(
        keys.filter((k) => !/^[a-z0-9_.]+$/.test(k)),
        args.join(' '),
      ).toEqual([]);
    }
    const info = JSON.parse((await cli('info', log, '--json')).stdout);
    expect(info).toMatchObject({ frames: 2, duration_s: 0.1, labels: { classes: { Car: 1 } } });
    const two = await cli('info', log, '--log', path.join(tmp, 'other'));
    expect([two.code, two.stderr]).toEqual([
      2,
      expect.stringMatching(/^drivekit info: --log: two logs given/),
    ]);
    const none = await cli('info');
    expect([none.code, none.stderr]).toEqual([2, expect.stringMatching(/^drivekit info: --log: missing/)]);
  });

  it('still takes --range and --workers for one version, with a note; old and new name together is an error', async () => {
    const missing = path.join(tmp, 'no-log');
    const old = await cli('discover', '--log', missing, '--range', '5');
    expect(old.code).toBe(1); // gets past the options to the missing log
    expect(old.stderr).toMatch(/--range is deprecated, use --cluster-range\n.*no-log/);
    const both = await cli('detect', '--log', missing, '--range', '5', '--grid-range', '6');
    expect([both.code, both.stderr]).toEqual([
      2,
      expect.stringMatching(/--range: is the old name of --grid-range/),
    ]);
  });

  it('sim and export refuse an existing output unless --force, and replace it with --force', async () => {
    const scen = path.join(tmp, 'scen.json');
    saveScenario(straightRoadScenario({ numAgents: 2, numSteps: 21 }), scen);
    const out = path.join(tmp, 'sim');
    const args = ['sim', '--scenarios', scen, '--agents', 'cv', '--out', out, '--json'];
    expect((await cli(...args)).code).toBe(0);
    const again = await cli(...args);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/rollouts\.arrow: exists \(pass --force to replace it\)/);
    const forced = await cli(...args, '--force');
    expect(forced.code).toBe(0);
    expect(Object.keys(JSON.parse(forced.stdout)).every((k) => k === snakeCase(k))).toBe(true);
    // export of that run: the same rule for its default target, <rollouts>/export-<format>.
    const exp = ['export', '--rollouts', out, '--format', 'json', '--json'];
    expect((await cli(...exp)).code).toBe(0);
    const twice = await cli(...exp);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/export-json: exists \(pass --force to replace it\)/);
    expect((await cli(...exp, '--force')).code).toBe(0);
  }, 60_000);

  it('longtail refuses a kind folder already in --out unless --force', async () => {
    const out = path.join(tmp, 'longtail');
    const args = ['longtail', '--kind', 'cut-in', '--count', '1', '--out', out, '--json'];
    const first = await cli(...args);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toHaveProperty('oracle_mean_brake_mps2');
    const again = await cli(...args);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/cut-in: exists \(pass --force to replace it\)/);
    expect((await cli(...args, '--force')).code).toBe(0);
  }, 60_000);

  it('detect refuses an existing output before loading anything, unless --force', async () => {
    const log = path.join(tmp, 'detect-log');
    fs.mkdirSync(log);
    fs.writeFileSync(path.join(log, 'detector.arrow'), 'earlier boxes');
    const r = await cli('detect', log);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/detector\.arrow: exists \(pass --force to replace it\)/);
    // With --force it goes on to open the log (not one here: a different error).
    const forced = await cli('detect', '--log', log, '--force');
    expect(forced.code).toBe(1);
    expect(forced.stderr).not.toMatch(/exists/);
  });
});
