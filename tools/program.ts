// The `drivekit` program: the command table registered with commander (each command loaded only when it
// runs), usage errors as one line with exit code 2, runtime errors as one line with exit code 1 (docs/cli.md).
import fs from 'node:fs';
import { Command, Help, type Option } from 'commander';
import { describeError, InputError } from '../core/errors.ts';
import { COMMANDS } from './commands/index.ts';
import { nativeAddonProblem } from '../core/native/addon.ts';

/** Exit code of a usage error (bad or missing option, unknown command); runtime errors exit 1. */
export const USAGE_EXIT = 2;

/** The version in package.json, the one place it is written, so `--version` cannot disagree with it. */
function packageVersion(): string {
  const pkg = JSON.parse(fs.readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version: string;
  };
  return pkg.version;
}

/** commander's error text ("error: unknown option '--x'\n(Did you mean --y?)") as one line naming `name`. */
export function usageLine(text: string, name: string): string {
  const said = text
    .trim()
    .replace(/^error:\s*/i, '')
    .split('\n')
    .map((s) => s.trim())
    .filter(Boolean)
    .join(' ');
  return `${name}: ${said} (see ${name} --help)\n`;
}

/** Every command of the tree prints its usage errors as one line naming itself, without the whole help. */
export function oneLineUsageErrors(cmd: Command, name: string): void {
  cmd.showHelpAfterError(false).configureOutput({
    outputError: (text, write) => write(usageLine(text, name)),
  });
  for (const sub of cmd.commands) oneLineUsageErrors(sub, `${name} ${sub.name()}`);
}

/**
 * An option's help text with its default written one way everywhere, `(default: 100)`: the default a
 * description already states is not repeated, and commander's JSON quotes ("100") are dropped.
 */
export function optionHelp(this: Help, option: Option): string {
  const text = option.description ?? '';
  if (/\(default: /.test(text)) return text;
  return Help.prototype.optionDescription
    .call(this, option)
    .replace(/(\(|, )default: "([^"]*)"/, '$1default: $2');
}

/** Every command of the tree writes its defaults as optionHelp does (added subcommands inherit nothing). */
export function defaultsOneWay(cmd: Command): void {
  cmd.configureHelp({ ...cmd.configureHelp(), optionDescription: optionHelp });
  for (const sub of cmd.commands) defaultsOneWay(sub);
}

/** An InputError naming an option (`--range: must be …`) is a usage error; one naming a file is not. */
const isUsageInputError = (e: unknown) => e instanceof InputError && e.file.startsWith('--');

/**
 * Runs `drivekit` on `argv` (process.argv form) and returns the exit code: 0, 1 (runtime error: bad
 * input file, failure) or 2 (usage error). Errors are printed as one line on stderr.
 */
export async function runCli(argv: string[]): Promise<number> {
  const program = new Command('drivekit')
    .description(
      'Self-driving perception and simulation: LiDAR logs → labels, world models, closed-loop traffic',
    )
    .version(packageVersion())
    .exitOverride();
  // bin/drivekit.js says whether it started the compiled tree (dist/) or the sources through tsx.
  const ranFrom = process.env.DRIVEKIT_RAN_FROM;
  if (ranFrom) program.addHelpText('after', `\nRunning ${ranFrom}.`);
  // Checked log reads cost 4× more without it, so say whether the build compiled it.
  const crcProblem = nativeAddonProblem('crc32c');
  program.addHelpText(
    'after',
    crcProblem ? `CRC32C in TypeScript: ${crcProblem}.` : "CRC32C on the CPU's instructions (native addon).",
  );
  const wanted = argv[2];
  for (const spec of COMMANDS) {
    if (spec.name === wanted) {
      const mod = await spec.load();
      mod.register(program);
    } else {
      program.command(spec.name).description(spec.summary);
    }
  }
  oneLineUsageErrors(program, 'drivekit');
  defaultsOneWay(program);
  try {
    await program.parseAsync(argv);
    return typeof process.exitCode === 'number' ? process.exitCode : 0;
  } catch (e) {
    const code = (e as { code?: string }).code;
    if (code === 'commander.helpDisplayed' || code === 'commander.version') return 0;
    // `drivekit` alone prints the help (on stderr) as a usage error.
    if (code === 'commander.help') return (e as { exitCode?: number }).exitCode ? USAGE_EXIT : 0;
    if (code?.startsWith('commander.')) return USAGE_EXIT;
    // Input problems are InputErrors and errno errors (describeError names their path); a TypeError
    // here is a bug, said so rather than passed off as something the user did.
    const bug = e instanceof TypeError || e instanceof ReferenceError;
    const hint =
      bug && !process.env.DRIVEKIT_DEBUG ? ' (a bug in drivekit: DRIVEKIT_DEBUG=1 shows where)' : '';
    const usage = isUsageInputError(e);
    const see = usage && wanted ? ` (see drivekit ${wanted} --help)` : '';
    // Every error of a command names it, as commander's usage errors do: `drivekit <command>: …`.
    const who = wanted && COMMANDS.some((c) => c.name === wanted) ? `drivekit ${wanted}` : 'drivekit';
    process.stderr.write(`${who}: ${bug ? 'internal error: ' : ''}${describeError(e)}${hint}${see}\n`);
    if (process.env.DRIVEKIT_DEBUG) console.error(e);
    return usage ? USAGE_EXIT : 1;
  }
}
