// A batch-in, batch-out stage in one definition: `--in`, `--out`, topics, end-of-stream and socket
// options come from here; a stage file only names its record kind, its own options and its transform.
import type { Command } from 'commander';
import type { RecordKind } from '../../core/arrow/schemas.ts';
import { parseEndpoint } from '../../core/stream/endpoint.ts';
import type { Transform } from '../../core/stream/stageRunner.ts';
import {
  addStreamOptions,
  intOption,
  printSummary,
  resultSummary,
  runCliStage,
  type StreamCliOptions,
} from './streamOptions.ts';

export interface TransformCliOptions extends StreamCliOptions {
  in: string;
  out: string;
  topic: string;
  inTopic: string[];
  eosCount: number;
  subscribers: number;
  delayMs: number;
}

export interface TransformStageDefinition<O> {
  name: string;
  description: string;
  /** Input batches must match this record kind (others are skipped); any kind when absent. */
  inputKind?: RecordKind;
  /** Output topic unless --topic says otherwise. */
  defaultTopic: string;
  /** The stage's own options. */
  options?: (cmd: Command) => Command;
  /** Build the transform once, before the sockets open (load models here). */
  create: (opts: O & TransformCliOptions) => Transform | Promise<Transform>;
}

const collect = (value: string, previous: string[]) => [...previous, value];

/** The `register` of a stage module for a transform stage. */
export function transformStage<O = object>(def: TransformStageDefinition<O>): (stage: Command) => void {
  return (stage) => {
    let cmd = stage
      .command(def.name)
      .description(def.description)
      .requiredOption('--in <endpoint>', 'input endpoint (pull or sub)')
      .requiredOption('--out <endpoint>', 'output endpoint (push or pub)')
      .option('--topic <topic>', 'output topic', def.defaultTopic)
      .option(
        '--in-topic <prefix>',
        'SUB input: topic prefix to subscribe to (repeatable; default all)',
        collect,
        [],
      )
      .option(
        '--eos-count <n>',
        'end-of-stream markers to wait for (one per upstream producer)',
        intOption(1),
        1,
      )
      .option('--subscribers <n>', 'PUB output: subscribers to wait for before sending', intOption(0), 0)
      .option(
        '--delay-ms <ms>',
        'wait this long per batch: a slow stage (back-pressure tests)',
        intOption(0),
        0,
      );
    if (def.options) cmd = def.options(cmd);
    addStreamOptions(cmd).action(async (opts: O & TransformCliOptions) => {
      const work = await def.create(opts);
      const transform: Transform =
        opts.delayMs > 0
          ? async (batch, ctx) => {
              await new Promise((r) => setTimeout(r, opts.delayMs));
              return work(batch, ctx);
            }
          : work;
      const result = await runCliStage(
        {
          name: def.name,
          input: {
            endpoint: parseEndpoint(opts.in, 'in'),
            kind: def.inputKind,
            topics: opts.inTopic,
            eosCount: opts.eosCount,
          },
          output: {
            endpoint: parseEndpoint(opts.out, 'out'),
            topic: opts.topic,
            subscribers: opts.subscribers,
          },
          transform,
        },
        opts,
      );
      printSummary({ stage: def.name, ...resultSummary(result) }, opts.json);
    });
  };
}
