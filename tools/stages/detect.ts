// `drivekit stage detect --model <onnx> --in … --out …`: the trained BEV detector on a live stream — each
// SensorFrame in, its scored Boxes out (onnxruntime-node); frame metadata travels with the Boxes batch.
import fs from 'node:fs';
import { batchToSensorFrame, boxesToBatch, sensorFrameMetadata } from '../../core/arrow/codec.ts';
import { boxAt } from '../../core/arrow/records.ts';
import { InputError } from '../../core/errors.ts';
import { countPointsInBox } from '../../core/geometry/box.ts';
import { Detector } from '../../perception/detector/model.ts';
import { Option } from 'commander';
import { SHIPPED_MODEL } from '../commands/detect.ts';
import { renamedInput } from '../cliOptions.ts';
import { intOption, numberOption } from './streamOptions.ts';
import { transformStage } from './transformStage.ts';

interface DetectStageOptions {
  model: string;
  gridRange?: number;
  /** Old name of --grid-range (one version). */
  range?: number;
  score?: number;
  threads?: number;
}

export const register = transformStage<DetectStageOptions>({
  name: 'detect',
  description: 'run a trained BEV detector (ONNX) on each SensorFrame and emit scored Boxes',
  inputKind: 'sensorFrame',
  defaultTopic: 'boxes',
  options: (cmd) =>
    cmd
      .option('--model <onnx>', 'detector model (default: the shipped models/detector.onnx)', SHIPPED_MODEL)
      .option(
        '--grid-range <m>',
        "half side of the grid around the ego, m (default: the model's)",
        numberOption(0.1),
      )
      .addOption(new Option('--range <m>', 'deprecated').argParser(numberOption(0.1)).hideHelp())
      .option('--score <p>', "drop boxes scored below this (default: the model's)", numberOption(0))
      .option('--threads <n>', 'onnxruntime threads (default: all cores)', intOption(1)),
  create: async (opts) => {
    if (!fs.existsSync(opts.model)) throw new InputError(opts.model, 'no such model file');
    const detector = await Detector.load(opts.model, {
      rangeM: renamedInput(opts.gridRange, opts.range, '--range', '--grid-range'),
      threads: opts.threads,
      decode: opts.score !== undefined ? { scoreThreshold: opts.score } : {},
    });
    return async (batch) => {
      // A batch without frame metadata throws a SchemaError: the runner counts it as wrong-schema.
      const frame = batchToSensorFrame(batch, 'detect input');
      const boxes = await detector.detect(frame.points, frame.frameIndex);
      // Each box's point count, as `drivekit detect` fills it (detectLog), so both write the same Boxes.
      const { x, y, z } = frame.points;
      for (let i = 0; i < boxes.cx.length; i++)
        boxes.numPoints[i] = countPointsInBox(boxAt(boxes, i), x, y, z);
      return boxesToBatch(boxes, sensorFrameMetadata(frame));
    };
  },
});
