// `drivekit submit --redis <url> <command> <inputs…> [command options] [--wait]`: one job per input (log,
// scenario file) in a BullMQ flow whose parent aggregates them; with --wait, progress and a summary.
import type { Command } from 'commander';
import { printJson } from '../cliOptions.ts';
import { createProgress } from '../../core/progress.ts';
import { DEFAULT_SCALEOUT_CONFIG as DEF } from '../scaleout/config.ts';
import { checkRedis, parseRedisUrl } from '../scaleout/connection.ts';
import { JOB_COMMANDS } from '../scaleout/jobCommands.ts';
import { parseJobArgs } from '../scaleout/payload.ts';
import { submitFlow, waitFlow } from '../scaleout/submit.ts';
import { intOption } from '../numberOption.ts';

interface SubmitCliOptions {
  redis: string;
  queue: string;
  attempts: number;
  wait?: boolean;
  json?: boolean;
}

export function register(program: Command): void {
  program
    .command('submit')
    .description(
      `enqueue one job per input for \`drivekit worker\`s (commands: ${Object.keys(JOB_COMMANDS).join(', ')})`,
    )
    .argument('<command>', 'the drivekit command each job runs')
    .argument(
      '[inputs-and-options...]',
      "inputs (one job each) and the command's options, e.g. logs/* --cluster-range 30",
    )
    .requiredOption(
      '--redis <url>',
      'redis://host:port or rediss:// (TLS); password in the URL or REDISCLI_AUTH',
    )
    .option('--queue <name>', 'queue', DEF.queue)
    .option(
      '--attempts <n>',
      'attempts per job on errors other than bad input',
      intOption('--attempts', 1),
      DEF.attempts,
    )
    .option('--wait', 'wait for every job, showing progress, and print a summary')
    .option(
      '--json',
      'print {"jobs","completed","failed","retried","seconds"} (with --wait) as one JSON object',
    )
    .allowUnknownOption()
    .action(async (command: string, rest: string[], opts: SubmitCliOptions) => {
      const connection = parseRedisUrl(opts.redis);
      await checkRedis(connection, opts.redis);
      const { inputs, options } = parseJobArgs(command, rest, process.cwd());
      const config = { ...DEF, queue: opts.queue, attempts: opts.attempts };
      const start = Date.now();
      const handle = await submitFlow(connection, config, command, inputs, options);
      if (!opts.wait) {
        process.stdout.write(
          opts.json
            ? JSON.stringify({
                queue: config.queue,
                parent: handle.parentId,
                jobs: handle.childIds.length,
                ids: handle.childIds,
              }) + '\n'
            : `submitted ${handle.childIds.length} ${command} jobs to ${config.queue} (flow ${handle.parentId})\n`,
        );
        return;
      }
      const bar = createProgress(`${command} jobs`, inputs.length, { silent: opts.json });
      let summary;
      try {
        summary = await waitFlow(connection, config, handle, (done) => bar.update(done), start);
      } finally {
        bar.stop();
      }
      if (opts.json) printJson(summary);
      else {
        process.stdout.write(
          `jobs ${summary.jobs}: ${summary.completed} completed, ${summary.failed} failed, ${summary.retried} retried in ${summary.seconds.toFixed(1)} s\n`,
        );
        for (const f of summary.failures) process.stdout.write(`failed ${f.input}: ${f.error}\n`);
      }
      if (summary.failed > 0) {
        process.stderr.write(
          `drivekit: ${summary.failed} of ${summary.jobs} jobs failed (first: ${summary.failures[0].error})\n`,
        );
        process.exitCode = 1;
      }
    });
}
