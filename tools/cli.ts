// The `drivekit` command line (tools/program.ts): exits with the program's code — 0, 1 for a runtime
// error, 2 for a usage error — each error printed as one line.
import { runCli } from './program.ts';

// A reader that stopped reading (`drivekit … --help | head`) closes the pipe: end quietly with the status a C
// tool killed by SIGPIPE has (128 + 13), instead of a stack trace from the next write.
for (const stream of [process.stdout, process.stderr])
  stream.on('error', (e: NodeJS.ErrnoException) => {
    if (e.code === 'EPIPE') process.exit(141);
    throw e;
  });

const code = await runCli(process.argv);
// A failed run may leave handles open (workers, sockets): end it; a good one ends when its work does.
if (code !== 0) process.exit(code);
