// The command line of a report script run with node: `--help` prints its usage, and a flag it does not know
// is refused before any work starts (these tables run for minutes, and a typo must not cost a run).
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Whether the module at `moduleUrl` (its import.meta.url) is the script node was started with. */
export function isMain(moduleUrl: string): boolean {
  return !!process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(moduleUrl);
}

/** The value after `--name` on the command line, or undefined. */
export function flagValue(name: string): string | undefined {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
}

/** A number flag, `fallback` when absent; a value that is not a finite number ends the script (exit 2). */
export function numberFlag(name: string, fallback: number): number {
  const v = flagValue(name);
  if (v === undefined) return fallback;
  const n = Number(v);
  if (v.trim() === '' || !Number.isFinite(n)) {
    process.stderr.write(`error: ${name}: expected a number, got '${v}'\n`);
    process.exit(2);
  }
  return n;
}

/**
 * Check argv (from index 2) against the script's flags, each of which takes one value unless listed in
 * `switches`; prints `usage` and exits on --help or -h, and exits with status 2 on a flag it does not know
 * or one without its value.
 */
export function checkReportFlags(
  argv: readonly string[],
  usage: string,
  flags: readonly string[],
  switches: readonly string[] = [],
): void {
  const args = argv.slice(2);
  if (args.includes('--help') || args.includes('-h')) {
    process.stdout.write(`${usage}\n`);
    process.exit(0);
  }
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (switches.includes(a)) continue;
    if (!flags.includes(a))
      refuse(`${a} is not an option here (${[...flags, ...switches].join(', ')})`, usage);
    if (i + 1 >= args.length || args[i + 1].startsWith('--')) refuse(`${a} needs a value`, usage);
    i++;
  }
}

function refuse(problem: string, usage: string): never {
  process.stderr.write(`error: ${problem}\n${usage}\n`);
  process.exit(2);
}
