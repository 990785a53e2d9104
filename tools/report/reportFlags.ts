// The command line of a report script run with node: `--help` prints its usage, and a flag it does not know
// is refused before any work starts (these tables run for minutes, and a typo must not cost a run).

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
