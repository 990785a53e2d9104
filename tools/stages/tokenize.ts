// `drivekit stage tokenize --in … --out …`: the LiDAR tokenizer on a live stream — each SensorFrame in,
// its BEV token grid out as a Tokens batch (frame index and pose kept, DESIGN.md "Tokens").
import { RecordBatch } from 'apache-arrow';
import path from 'node:path';
import { batchToSensorFrame, tokensToBatch } from '../../core/arrow/codec.ts';
import { InputError } from '../../core/errors.ts';
import { gridGeometry } from '../../worldmodel/config.ts';
import { sensorPoints } from '../../worldmodel/sweep.ts';
import { Tokenizer } from '../../worldmodel/tokenizerModel.ts';
import { SHIPPED_TOKENIZER } from '../commands/tokenize.ts';
import { transformStage } from './transformStage.ts';

interface TokenizeStageOptions {
  model: string;
  sensorOrigin: string;
  forwardFrames?: boolean;
}

/** "x,y,z" in metres → a triple; InputError naming the flag otherwise. */
export function parseOrigin(v: string): [number, number, number] {
  const p = v.split(',').map(Number);
  if (p.length !== 3 || !p.every(Number.isFinite))
    throw new InputError('--sensor-origin', `expected x,y,z in metres, got '${v}'`);
  return [p[0], p[1], p[2]];
}

export const register = transformStage<TokenizeStageOptions>({
  name: 'tokenize',
  description: 'encode each SensorFrame into BEV tokens with the LiDAR tokenizer (ONNX) and emit Tokens',
  inputKind: 'sensorFrame',
  defaultTopic: 'tokens',
  options: (cmd) =>
    cmd
      .option(
        '--model <dir>',
        'tokenizer directory (default: the shipped models/tokenizer)',
        SHIPPED_TOKENIZER,
      )
      .option(
        '--sensor-origin <x,y,z>',
        "the LiDAR's position in the frames' vehicle frame (0,0,0 for KITTI and synthetic sweeps)",
        '0,0,0',
      )
      .option(
        '--forward-frames',
        'send each input SensorFrame on before its Tokens (a downstream forecast stage needs the points)',
      ),
  create: async (opts) => {
    const origin = parseOrigin(opts.sensorOrigin);
    const tok = await Tokenizer.load(opts.model);
    const geo = gridGeometry(tok.config);
    return async (batch) => {
      const frame = batchToSensorFrame(batch, 'tokenize input');
      const tokens = await tok.encode(
        sensorPoints(frame.points, origin),
        `${frame.logId} frame ${frame.frameIndex}`,
      );
      const out = tokensToBatch(
        [{ frameIndex: frame.frameIndex, rows: geo.tokensXY, cols: geo.tokensXY, pose: frame.pose, tokens }],
        {
          log_id: frame.logId,
          timestamp_ns: String(frame.timestampNs),
          // As `drivekit tokenize` writes them in tokens.arrow, so a recorder can write the same file.
          token_m: String(geo.tokenM),
          range_m: String(tok.config.grid.rangeM),
          sensor_origin_m: origin.join(','),
          model: path.resolve(opts.model),
        },
      );
      // A new batch object: the runner encodes it afresh instead of re-sending the received bytes, whose
      // memory goes with the input socket when it closes at the end (the last frame arrived corrupted).
      return opts.forwardFrames ? [new RecordBatch(batch.schema, batch.data, batch.metadata), out] : out;
    };
  },
});
