// The `drivekit` command line: a table of commands, each loaded only when it runs (so `drivekit info`
// does not pay for onnxruntime or three.js), with one-line errors and non-zero exits on failure.
import fs from 'node:fs';
import { Command } from 'commander';
import { describeError } from '../core/errors.ts';
import { COMMANDS } from './commands/index.ts';

/** The version in package.json, the one place it is written, so `--version` cannot disagree with it. */
function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

async function main(argv: string[]): Promise<void> {
  const program = new Command('drivekit')
    .description(
      'Self-driving perception and simulation: LiDAR logs → labels, world models, closed-loop traffic',
    )
    .version(packageVersion())
    .showHelpAfterError()
    .exitOverride();
  const wanted = argv[2];
  for (const spec of COMMANDS) {
    if (spec.name === wanted) {
      const mod = await spec.load();
      mod.register(program);
    } else {
      program.command(spec.name).description(spec.summary);
    }
  }
  try {
    await program.parseAsync(argv);
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version' || code === 'commander.help')
      return;
    if (code?.startsWith('commander.')) {
      process.exitCode = (e as { exitCode?: number }).exitCode || 2;
      return;
    }
    throw e;
  }
}

main(process.argv).catch((e: unknown) => {
  // Input problems are InputErrors and errno errors (describeError names their path); a TypeError
  // here is a bug, said so rather than passed off as something the user did.
  const bug = e instanceof TypeError || e instanceof ReferenceError;
  const hint = bug && !process.env.DRIVEKIT_DEBUG ? ' (a bug in drivekit: DRIVEKIT_DEBUG=1 shows where)' : '';
  process.stderr.write(`drivekit: ${bug ? 'internal error: ' : ''}${describeError(e)}${hint}\n`);
  if (process.env.DRIVEKIT_DEBUG) console.error(e);
  process.exit(1);
});
