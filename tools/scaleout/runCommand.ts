// Run one drivekit command in this process, as `drivekit <command> <argv…> --json` would, and return
// its JSON summary: the command table's own module parses the arguments (commander); no shell involved.
import { Command, CommanderError } from 'commander';
import { InputError } from '../../core/errors.ts';
import { setProgressSilent } from '../../core/progress.ts';
import { COMMANDS } from '../commands/index.ts';

/**
 * The command's stdout is captured while it runs, so this must not run two commands at once in one
 * process (the worker gives every running job its own process).
 */
export async function runCommandInProcess(command: string, argv: string[]): Promise<unknown> {
  const spec = COMMANDS.find((c) => c.name === command);
  if (!spec) throw new InputError('job', `no command '${command}' in this drivekit`);
  const errors: string[] = [];
  const program = new Command('drivekit')
    .exitOverride()
    .configureOutput({ writeOut: () => {}, writeErr: (s) => errors.push(s.trim()) });
  (await spec.load()).register(program);
  // A job's outputs are the queue's own: it reruns one only when its inputs or options changed (the done
  // marker), and then replaces what the last run wrote, so a command that refuses an existing output
  // without --force gets it here.
  const force = program.commands[0]?.options.some((o) => o.long === '--force') ? ['--force'] : [];
  setProgressSilent(true);
  const chunks: string[] = [];
  const write = process.stdout.write;
  process.stdout.write = ((chunk: string | Uint8Array) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk).toString('utf8'));
    return true;
  }) as typeof process.stdout.write;
  const exitBefore = process.exitCode;
  try {
    await program.parseAsync(['node', 'drivekit', command, ...argv, ...force, '--json']);
  } catch (e) {
    // Bad arguments are the job's input, as much as a bad log is.
    if (e instanceof CommanderError) throw new InputError(command, errors[0] ?? e.message);
    throw e;
  } finally {
    process.stdout.write = write;
  }
  const exitCode = process.exitCode;
  if (exitCode && exitCode !== exitBefore) {
    process.exitCode = exitBefore;
    throw new Error(`${command} exited with status ${String(exitCode)}`);
  }
  const lines = chunks.join('').trim().split('\n');
  try {
    return JSON.parse(lines[lines.length - 1]) as unknown;
  } catch {
    return { output: lines.slice(-5).join('\n') };
  }
}
