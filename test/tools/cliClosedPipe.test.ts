// A reader that closes the pipe early (`drivekit … --help | head`): the command ends with SIGPIPE's status
// (141) and no stack trace, in a real process whose stdout's read end is already closed.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../core/paths.ts';

describe('drivekit writing to a closed pipe', () => {
  it('exits with 141 and prints no stack trace', async () => {
    const child = spawn(
      process.execPath,
      [path.join(REPO_ROOT, 'bin', 'drivekit.js'), 'forecast', '--help'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    // Close the read end before the command writes: its first write meets EPIPE.
    child.stdout.destroy();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('close', (c) => resolve(c)));
    expect(stderr).not.toMatch(/EPIPE|Error|at /);
    expect(code).toBe(141);
  }, 30_000);
});
