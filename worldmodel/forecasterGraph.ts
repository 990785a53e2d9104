// The forecaster's training graph (cross-entropy with label smoothing over a sample of the tokens) and
// its inference graph (future logits only, any batch: guidance runs both branches in one batch of 2).
import { Graph, type Tensor } from '../core/nn/graph.ts';
import { crossEntropy } from '../core/nn/losses.ts';
import * as o from '../core/nn/ops/index.ts';
import { adamW } from '../core/nn/optimizers.ts';
import type { ParamStore } from '../core/nn/params.ts';
import type { RuntimeOptions } from '../core/nn/runtime.ts';
import type { LrSchedule } from '../core/nn/schedules.ts';
import { Trainer } from '../core/nn/trainer.ts';
import type { ForecasterConfig } from './forecastConfig.ts';
import {
  createForecasterNetwork,
  forecasterInputs,
  type ForecasterInputs,
  type ForecasterNetwork,
} from './forecasterNetwork.ts';

export interface ForecasterGraph {
  graph: Graph;
  net: ForecasterNetwork;
  inputs: ForecasterInputs;
  loss: Tensor;
  /** [N] int64 argmax prediction of every scored token. */
  prediction: Tensor;
}

export function buildForecasterGraph(
  ps: ParamStore,
  cfg: ForecasterConfig,
  codes: number,
  tokensXY: number,
): ForecasterGraph {
  const g = new Graph({ name: 'drivekit_forecaster_train' });
  const B = cfg.train.batch;
  const T = cfg.frames.past + cfg.frames.future;
  const net = createForecasterNetwork(ps, cfg, codes, tokensXY);
  const inputs = forecasterInputs(g, cfg, tokensXY, B);
  const N = B * T * cfg.train.lossTokens;
  const positions = g.input('positions', [N], 'int64');
  const targets = g.input('targets', [N], 'int32');
  const weights = g.input('weights', [N]);
  const logits = net.forward(inputs, positions);
  const loss = crossEntropy(logits, targets, { labelSmoothing: cfg.diffusion.labelSmoothing, weights });
  return { graph: g, net, inputs, loss, prediction: o.argMax(logits, -1) };
}

/** AdamW (β₂ 0.95, weight decay not on biases, norms, embeddings), global-norm clipping. */
export function createForecasterTrainer(
  fg: ForecasterGraph,
  lr: number | LrSchedule,
  runtime: RuntimeOptions = {},
): Promise<Trainer> {
  const t = fg.net.config.train;
  return Trainer.create(fg.graph, {
    ...runtime,
    loss: fg.loss,
    optimizer: adamW({ beta2: t.beta2, weightDecay: t.weightDecay }),
    lr,
    clipGradNorm: t.clipGradNorm,
    outputs: { prediction: fg.prediction },
  });
}

/** The inference graph on the same parameters: future-frame logits for a symbolic batch. */
export function buildInferenceGraph(net: ForecasterNetwork): { graph: Graph; logits: Tensor } {
  const g = new Graph({ name: 'drivekit_forecaster' });
  const inputs = forecasterInputs(g, net.config, net.tokensXY, 'batch');
  return { graph: g, logits: net.forward(inputs, 'future') };
}
