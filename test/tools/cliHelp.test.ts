// What `--help` and errors tell a new user, over the whole command table in process: defaults written one
// way, every error line prefixed `drivekit <command>:`, the agents and the log export named, longtail's output.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { COMMANDS } from '../../tools/commands/index.ts';
import { runCli } from '../../tools/program.ts';
import { STAGES } from '../../tools/stages/index.ts';
import { AGENTS } from '../../simulation/agents/registry.ts';

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'cli-help-'));
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

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
    return { code: await runCli(['node', 'drivekit', ...args]), stdout, stderr };
  } finally {
    vi.restoreAllMocks();
  }
}

describe('drivekit help and error lines', () => {
  it('writes every default as "(default: x)": no quotes, no "(default x)"', async () => {
    const helps = [...COMMANDS.map((c) => [c.name]), ...STAGES.map((s) => ['stage', s.name])];
    let defaults = 0;
    for (const args of helps) {
      const r = await cli(...args, '--help');
      expect(r.code, args.join(' ')).toBe(0);
      const text = r.stdout.replace(/\s+/g, ' ');
      expect(text, args.join(' ')).not.toMatch(/\(default [^:]|default: "/);
      defaults += (text.match(/\(default: /g) ?? []).length;
    }
    // Plenty of options state their default: the check above looked at real ones.
    expect(defaults).toBeGreaterThan(50);
  }, 60_000);

  it('names the command in every error line, usage or runtime', async () => {
    const usage = await cli('import', 'x', '--format', 'foo', '--out', path.join(tmp, 'o'));
    expect([usage.code, usage.stderr]).toEqual([
      2,
      expect.stringMatching(/^drivekit import: --format: unknown format 'foo'/),
    ]);
    const runtime = await cli('info', path.join(tmp, 'no-log'));
    expect(runtime.code).toBe(1);
    expect(runtime.stderr).toMatch(/^drivekit info: .*no-log/);
    const commander = await cli('info', '--nope');
    expect(commander.stderr).toMatch(/^drivekit info: unknown option '--nope'/);
  });

  it('lists every built-in agent and the learned ones in sim --help and the top-level summary', async () => {
    const sim = (await cli('sim', '--help')).stdout.replace(/\s+/g, ' ');
    for (const a of [...Object.keys(AGENTS), 'learned', '<model.onnx>']) expect(sim).toContain(a);
    const top = (await cli('--help')).stdout.replace(/\s+/g, ' ');
    expect(top).toMatch(/sim N seeded rollouts of replay \/ CV \/ IDM \/ learned agents/);
    // The log export (Parquet, MCAP) is named where a user looks first.
    expect(top).toMatch(/export export a log \(Parquet, Foxglove MCAP\) or simulated scenarios/);
  });

  it("documents longtail's default output folder and its layout", async () => {
    const r = (await cli('longtail', '--help')).stdout.replace(/\s+/g, ' ');
    expect(r).toContain('<out>/<kind>/0000');
    expect(r).toContain('(default: out/longtail)');
  });

  it('view takes --log as the same as its positional target', async () => {
    const missing = path.join(tmp, 'nothing-here');
    const a = await cli('view', missing);
    const b = await cli('view', '--log', missing);
    expect(a.code).toBe(1);
    expect([b.code, b.stderr]).toEqual([a.code, a.stderr]);
    const two = await cli('view', missing, '--log', path.join(tmp, 'other'));
    expect([two.code, two.stderr]).toEqual([
      2,
      expect.stringMatching(/^drivekit view: --log: two logs given/),
    ]);
  });
});
