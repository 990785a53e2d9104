// `drivekit stage forecast --in … --out …`: the world model on a live stream — each SensorFrame with enough
// past behind it is answered by the predicted sweep `future` model frames ahead, in that frame's vehicle frame.
import { RecordBatch } from 'apache-arrow';
import { batchToSensorFrame, batchToTokens, pointCloudToBatch } from '../../core/arrow/codec.ts';
import { allocatePointCloud, type SensorFrame } from '../../core/arrow/records.ts';
import { composePoses, invertPose } from '../../core/geometry/pose.ts';
import { Rng } from '../../core/rng.ts';
import { poseFeatures } from '../../worldmodel/diffusionBatch.ts';
import { constantVelocityPose } from '../../worldmodel/evalForecast.ts';
import { nominalRays } from '../../worldmodel/forecastLog.ts';
import { rayPoints } from '../../worldmodel/forecastProtocol.ts';
import { placedSweep } from '../../worldmodel/forecastTokens.ts';
import { Forecaster } from '../../worldmodel/forecasterModel.ts';
import { sampleFuture } from '../../worldmodel/sampling.ts';
import { sensorPoints } from '../../worldmodel/sweep.ts';
import { Tokenizer } from '../../worldmodel/tokenizerModel.ts';
import { SHIPPED_TOKENIZER } from '../commands/tokenize.ts';
import { SHIPPED_WORLDMODEL } from '../commands/forecast.ts';
import { parseOrigin } from './tokenize.ts';
import { transformStage } from './transformStage.ts';

interface ForecastStageOptions {
  model: string;
  tokenizer: string;
  sensorOrigin: string;
  rateHz: string;
  steps?: string;
  tokensIn?: boolean;
  forwardTokens?: boolean;
}

/** Frames of history a forecast needs before a frame (past frames `step` apart), so a resend starts that early. */
export const forecastContextFrames = (past: number, step: number) => (past - 1) * step;

export const register = transformStage<ForecastStageOptions>({
  name: 'forecast',
  description:
    'forecast the sweep ahead of each SensorFrame with the world model (ONNX); poses ahead by constant velocity',
  // SensorFrames, or SensorFrames each followed by its Tokens (--tokens-in); each batch's schema is checked.
  defaultTopic: 'forecast',
  options: (cmd) =>
    cmd
      .option(
        '--model <file>',
        'world model (default: the shipped models/worldmodel.onnx)',
        SHIPPED_WORLDMODEL,
      )
      .option('--tokenizer <dir>', 'tokenizer directory', SHIPPED_TOKENIZER)
      .option('--sensor-origin <x,y,z>', "the LiDAR's position in the frames' vehicle frame", '0,0,0')
      .option('--rate-hz <hz>', 'the stream’s frame rate', '10')
      .option('--steps <k>', "denoising steps (default: the model's)")
      .option(
        '--tokens-in',
        'the input is each SensorFrame followed by its Tokens (`stage tokenize --forward-frames`): use those tokens',
      )
      .option(
        '--forward-tokens',
        'send each input Tokens batch on before the forecast (for one recorder of both)',
      ),
  create: async (opts) => {
    const origin = parseOrigin(opts.sensorOrigin);
    const fc = await Forecaster.load(opts.model);
    const tok = await Tokenizer.load(opts.tokenizer);
    const cfg = fc.config;
    const { past, future } = cfg.frames;
    const step = Math.max(1, Math.round(cfg.frames.frameDtS * Number(opts.rateHz)));
    const sampling = { ...cfg.sampling, ...(opts.steps ? { steps: Math.max(1, Number(opts.steps)) } : {}) };
    const history: { frame: SensorFrame; tokens: Int32Array }[] = [];
    const rays = nominalRays();
    let pending: SensorFrame | null = null;
    const forecastFrom = async (frame: SensorFrame, tokens: Int32Array) => {
      // History is consecutive frames: a gap or a step back (a resend after a restart) starts it afresh,
      // so a resent frame gets the same forecast as the first time.
      const prev = history[history.length - 1];
      if (prev && prev.frame.frameIndex !== frame.frameIndex - 1) history.length = 0;
      history.push({ frame, tokens });
      const keep = (past - 1) * step + 1;
      if (history.length > keep) history.shift();
      if (history.length < keep) return null;
      const ctx = Array.from({ length: past }, (_, i) => history[i * step]);
      // Future poses are not known on a live stream: extrapolate the last motion at constant velocity.
      const poses = new Float64Array(16 * (keep + future * step + 1));
      history.forEach((h, i) => poses.set(h.frame.pose, 16 * i));
      const last = keep - 1;
      for (let k = 1; k <= future * step; k++)
        poses.set(constantVelocityPose(poses, last, k), 16 * (last + k));
      const fut = Array.from({ length: future }, (_, j) => last + (j + 1) * step);
      const idx = [...Array.from({ length: past }, (_, i) => i * step), ...fut];
      const rel = (f: number) => composePoses(invertPose(poses.subarray(16 * f, 16 * f + 16)), frame.pose);
      const priors = await Promise.all(
        fut.map((f) => (cfg.network.egoPrior ? tok.encode(placedSweep(frame.points, rel(f), origin)) : null)),
      );
      const pred = await sampleFuture(
        (feeds) => fc.logits(feeds),
        {
          cfg,
          codes: fc.spec.codes,
          tokensXY: fc.spec.tokensXY,
          past: ctx.map((h) => h.tokens),
          priors,
          poses: idx.map((f) => poseFeatures(poses, last, f)),
        },
        sampling,
        new Rng(frame.frameIndex + 1),
      );
      const target = fut[future - 1];
      const depth = await tok.render(await tok.decode(pred[future - 1]), rays);
      const lastFromTarget = composePoses(
        invertPose(frame.pose),
        poses.subarray(16 * target, 16 * target + 16),
      );
      const p = rayPoints(rays, depth, origin, lastFromTarget);
      const pc = allocatePointCloud(p.x.length);
      pc.x.set(p.x);
      pc.y.set(p.y);
      pc.z.set(p.z);
      return pointCloudToBatch(pc, {
        log_id: frame.logId,
        start_frame: String(frame.frameIndex),
        target_frame: String(frame.frameIndex + future * step),
        horizon_s: String(future * cfg.frames.frameDtS),
      });
    };
    return async (batch) => {
      const schema = batch.schema.metadata.get('drivekit.schema') ?? '';
      if (opts.tokensIn && schema.startsWith('tokens/')) {
        const [grid] = batchToTokens(batch, 'forecast input');
        const frame = pending;
        pending = null;
        if (!frame || frame.frameIndex !== grid.frameIndex)
          throw new Error(`Tokens of frame ${grid.frameIndex} came without that SensorFrame before them`);
        const out = await forecastFrom(frame, grid.tokens);
        if (!opts.forwardTokens) return out;
        // A copy, encoded afresh: the received bytes go with the input socket when it closes (tokenize.ts).
        const copy = new RecordBatch(batch.schema, batch.data, batch.metadata);
        return out ? [copy, out] : copy;
      }
      const frame = batchToSensorFrame(batch, 'forecast input');
      // With --tokens-in the frame waits for its Tokens (the next message from the tokenize stage).
      if (opts.tokensIn) {
        pending = frame;
        return null;
      }
      const tokens = await tok.encode(
        sensorPoints(frame.points, origin),
        `${frame.logId} frame ${frame.frameIndex}`,
      );
      return forecastFrom(frame, tokens);
    };
  },
});
