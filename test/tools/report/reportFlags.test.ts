import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const run = (...args: string[]) =>
  spawnSync(process.execPath, ['--import', 'tsx', 'tools/report/agentsTable.ts', ...args], {
    encoding: 'utf8',
    timeout: 60_000,
  });

describe('report scripts check their flags before any work', () => {
  it('print their usage on --help', () => {
    const r = run('--help');
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^usage: npm run agents-table/);
  });

  it('refuse a flag they do not know, or one without its value, naming it', () => {
    const typo = run('--rollouts', '2', '--row', 'IDM');
    expect(typo.status).toBe(2);
    expect(typo.stderr).toMatch(/--row is not an option here/);
    const bare = run('--sets', 'real', '--rollouts');
    expect(bare.status).toBe(2);
    expect(bare.stderr).toMatch(/--rollouts needs a value/);
  });
});
