// `drivekit stage discover`: object discovery on a live stream — each SensorFrame in, its boxes out
// (ground → clusters → boxes, perception/discover.ts); frame metadata travels with the Boxes batch.
import { batchToSensorFrame, boxesToBatch, sensorFrameMetadata } from '../../core/arrow/codec.ts';
import {
  DEFAULT_DISCOVER_CONFIG,
  DISCOVER_CONFIG_RANGES,
  discoverSweep,
  sweepBuffers,
  resolveDiscoverConfig,
} from '../../perception/discover.ts';
import { Option } from 'commander';
import { readPipelineConfig } from '../commands/discover.ts';
import { renamedInput } from '../cliOptions.ts';
import { numberOption } from './streamOptions.ts';
import { transformStage } from './transformStage.ts';

interface DiscoverStageOptions {
  clusterRange?: number;
  /** Old name of --cluster-range (one version). */
  range?: number;
  config?: string;
}

export const register = transformStage<DiscoverStageOptions>({
  name: 'discover',
  description:
    'discover objects in each SensorFrame (ground removal, clustering, box fitting) and emit Boxes',
  inputKind: 'sensorFrame',
  defaultTopic: 'boxes',
  options: (cmd) =>
    cmd
      .option('--cluster-range <m>', 'clustering radius around the ego, m (default: 40)', numberOption(0.1))
      .addOption(new Option('--range <m>', 'deprecated').argParser(numberOption(0.1)).hideHelp())
      .option('--config <json>', 'config overrides: {ground, cluster, boxfit}'),
  create: (opts) => {
    const input = readPipelineConfig(opts.config, DEFAULT_DISCOVER_CONFIG, DISCOVER_CONFIG_RANGES);
    const rangeM = renamedInput(opts.clusterRange, opts.range, '--range', '--cluster-range');
    if (rangeM !== undefined) input.cluster = { ...input.cluster, rangeM };
    const cfg = resolveDiscoverConfig(input);
    const buffers = sweepBuffers();
    return (batch) => {
      // A batch without frame metadata throws a SchemaError: the runner counts it as wrong-schema.
      const frame = batchToSensorFrame(batch, 'discover input');
      const { boxes } = discoverSweep(frame.points, cfg, frame.frameIndex, buffers);
      return boxesToBatch(boxes, sensorFrameMetadata(frame));
    };
  },
});
