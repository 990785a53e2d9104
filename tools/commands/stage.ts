// `drivekit stage <name> …`: runs one stream stage as this process (docs/architecture.md). The stage
// table (tools/stages/index.ts) is lazy: only the named stage's module loads, then parses the rest.
import { Command } from 'commander';
import { ENDPOINT_HELP } from '../../core/stream/endpoint.ts';
import { STAGES, type StageSpec } from '../stages/index.ts';
import { defaultsOneWay, oneLineUsageErrors } from '../program.ts';

const MESSAGE_HELP = [
  'Messages are ZeroMQ multipart [topic, Arrow IPC stream bytes], one record batch each; a stream ends',
  'with [$eos, {"topic","messages"}]. Malformed messages are counted, logged once per kind and skipped.',
  'SIGINT/SIGTERM: stop taking input, finish in-flight work, send end-of-stream, close, exit 0.',
].join('\n');

async function runStageCommand(spec: StageSpec, args: string[]): Promise<void> {
  const mod = await spec.load();
  const root = new Command('drivekit stage').exitOverride();
  mod.register(root);
  oneLineUsageErrors(root, 'drivekit stage');
  defaultsOneWay(root);
  await root.parseAsync([spec.name, ...args], { from: 'user' });
}

export function register(program: Command): void {
  const stage = program
    .command('stage')
    .description('run a stream stage as its own process (ZeroMQ sockets carrying Arrow batches)')
    .addHelpText('after', `\n${MESSAGE_HELP}\n\n${ENDPOINT_HELP}`);
  for (const spec of STAGES) {
    // A placeholder that loads the real command and hands it the raw arguments (options included),
    // so `drivekit stage replay --help` shows the stage's own help.
    stage
      .command(spec.name)
      .description(spec.summary)
      .helpOption(false)
      .allowUnknownOption()
      .allowExcessArguments()
      .action(async (_opts: unknown, cmd: Command) => {
        await runStageCommand(spec, cmd.args);
      });
  }
}
