// The command line of a report script run directly (`node --import tsx tools/report/<name>.ts …`): whether it
// is the entry point, its flags' values (numbers checked), and `--help`.
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
    console.error(`${name}: expected a number, got '${v}'`);
    process.exit(2);
  }
  return n;
}

/** With `--help` on the command line: print `usage` and exit 0. */
export function helpAndExit(usage: string): void {
  if (!process.argv.includes('--help')) return;
  console.log(`usage: ${usage}`);
  process.exit(0);
}
