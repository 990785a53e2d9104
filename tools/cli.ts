// The `drivekit` command line (tools/program.ts): exits with the program's code — 0, 1 for a runtime
// error, 2 for a usage error — each error printed as one line.
import { runCli } from './program.ts';

const code = await runCli(process.argv);
// A failed run may leave handles open (workers, sockets): end it; a good one ends when its work does.
if (code !== 0) process.exit(code);
