// `drivekit agent-settings`: a copy of a learned agent model with settings that act at inference changed in
// its metadata (classes left to the IDM probe, the probe's merge yield, the sampling temperature), the weights
// untouched; the metadata records where it came from and the command (docs/agents.md).
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { writeFileAtomicSync } from '../../core/atomic.ts';
import { InputError } from '../../core/errors.ts';
import { modelMetaPath, readLearnedModel } from '../../simulation/agents/learned.ts';
import { checkedProbeDriven } from '../../simulation/agents/probeDriven.ts';
import { ActionBins, type ActionBinsConfig } from '../../simulation/training/actionBins.ts';
import type { AgentType } from '../../simulation/scenario.ts';
import { addForce, printJson, refuseExisting } from '../cliOptions.ts';
import { numberOption } from '../numberOption.ts';

/** The inference-time settings the command can change; absent fields stay as the model has them. */
export interface AgentSettingsChange {
  /** Classes left to the observation's IDM probe ([] : none). */
  probeDriven?: AgentType[];
  /** The probe lets the car ahead go first where two lanes merge (ObservationConfig.probeMergeYield). */
  probeMergeYield?: boolean;
  /** Softmax temperature of sampled actions. */
  temperature?: number;
}

type Metadata = {
  settings: Record<string, unknown> & { observation: Record<string, unknown> };
  data?: Record<string, unknown>;
};

/** The metadata with the change applied and its origin recorded under data.derived (a new object). */
export function changedMetadata(meta: Metadata, change: AgentSettingsChange, derived: object): Metadata {
  const settings: Metadata['settings'] = { ...meta.settings, observation: { ...meta.settings.observation } };
  if (change.probeDriven !== undefined) {
    if (change.probeDriven.length > 0) settings.probeDriven = change.probeDriven;
    else delete settings.probeDriven;
  }
  if (change.probeMergeYield !== undefined) settings.observation.probeMergeYield = change.probeMergeYield;
  if (change.temperature !== undefined) settings.temperature = change.temperature;
  return { ...meta, settings, data: { ...meta.data, derived } };
}

/** --probe-drives: comma-separated classes, or 'none'. */
function probeClasses(text: string): AgentType[] {
  if (text === 'none') return [];
  return text.split(',').map((t) => t.trim()) as AgentType[];
}

export function register(program: Command): void {
  const cmd = program
    .command('agent-settings')
    .description(
      "copy a learned agent model with inference settings changed in its metadata (probe-driven classes, the probe's merge yield, temperature); weights untouched",
    )
    .requiredOption('--model <onnx>', 'the agent model (its metadata JSON beside it)')
    .requiredOption('--out <dir>', 'folder for the copy: agent.onnx and agent.json')
    .option(
      '--probe-drives <classes>',
      "classes left to the observation's IDM probe: vehicle, cyclist (comma-separated), or none; residual models only",
      probeClasses,
    )
    .option('--probe-merge-yield', 'the probe lets the car ahead go first where two lanes merge')
    .option('--no-probe-merge-yield', 'the probe does not yield at merges')
    .option(
      '--temperature <t>',
      'softmax temperature of sampled actions',
      numberOption('--temperature', { min: 0.01 }),
    )
    .option('--json', 'print what was written as one JSON object');
  addForce(cmd, 'an existing agent.onnx / agent.json in --out');
  cmd.action(
    (opts: {
      model: string;
      out: string;
      probeDrives?: AgentType[];
      probeMergeYield?: boolean;
      temperature?: number;
      json?: boolean;
      force?: boolean;
    }) => {
      // commander gives probeMergeYield a default once --no-probe-merge-yield exists: only a flag given on the
      // command line changes the setting.
      const mergeGiven = cmd.getOptionValueSource('probeMergeYield') === 'cli';
      const change: AgentSettingsChange = {
        ...(opts.probeDrives !== undefined ? { probeDriven: opts.probeDrives } : {}),
        ...(mergeGiven ? { probeMergeYield: opts.probeMergeYield === true } : {}),
        ...(opts.temperature !== undefined ? { temperature: opts.temperature } : {}),
      };
      if (Object.keys(change).length === 0)
        throw new InputError(
          '--probe-drives',
          'nothing to change (give --probe-drives, --probe-merge-yield or --temperature)',
        );
      readLearnedModel(opts.model); // a clear error for a missing or foreign model before anything is written
      const onnx = path.join(opts.out, 'agent.onnx');
      const metaFile = modelMetaPath(onnx);
      if (path.resolve(onnx) === path.resolve(opts.model))
        throw new InputError(opts.out, 'is the model’s own folder: write the copy elsewhere');
      refuseExisting([onnx, metaFile], opts.force);
      const meta = JSON.parse(fs.readFileSync(modelMetaPath(opts.model), 'utf8')) as Metadata;
      const derived = {
        from: opts.model,
        command: ['drivekit', ...process.argv.slice(2)].join(' '),
        change,
      };
      const next = changedMetadata(meta, change, derived);
      // Checked before anything lands in --out: a class the network does not drive, or a model without
      // residual bins, is refused naming the model (temperature is checked as an option).
      if (change.probeDriven)
        checkedProbeDriven(
          opts.model,
          change.probeDriven,
          new ActionBins(next.settings.bins as ActionBinsConfig),
        );
      fs.mkdirSync(opts.out, { recursive: true });
      writeFileAtomicSync(onnx, new Uint8Array(fs.readFileSync(opts.model)));
      writeFileAtomicSync(metaFile, JSON.stringify(next, null, 1) + '\n');
      if (opts.json) printJson({ model: opts.model, out: opts.out, files: [onnx, metaFile], change });
      else process.stdout.write(`wrote ${onnx}, ${metaFile}: ${JSON.stringify(change)}\n`);
    },
  );
}
