// `npm run bench [-- <substring>]`: runs every benchmark in tools/bench/*.bench.ts whose figure names
// contain the substring, printing one JSON line per figure (each with a `name` field) on stdout.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Benchmark } from './benchmark.ts';
import { reexecWithTunedMalloc } from '../../core/mallocEnv.ts';

if (reexecWithTunedMalloc()) await new Promise(() => {}); // the child does the work

const here = path.dirname(fileURLToPath(import.meta.url));
const filter = process.argv[2] ?? '';
const files = fs
  .readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .sort();
let ran = 0;
for (const file of files) {
  const mod = (await import(pathToFileURL(path.join(here, file)).href)) as { benchmarks: Benchmark[] };
  for (const b of mod.benchmarks) {
    if (filter && !b.names.some((n) => n.includes(filter))) continue;
    ran++;
    process.stderr.write(`bench ${b.names.join(', ')} …\n`);
    await b.run((figure) => process.stdout.write(JSON.stringify(figure) + '\n'));
  }
}
if (ran === 0) {
  process.stderr.write(`no benchmark matches '${filter}'\n`);
  process.exitCode = 1;
}
