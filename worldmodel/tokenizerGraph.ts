// The tokenizer's training graph on one sweep: encode → quantise → decode → render along sampled rays, with
// Copilot4D's losses (VQ, L1 depth, surface concentration, occupancy BCE) and the figures training logs.
import { Graph, type Tensor } from '../core/nn/graph.ts';
import { adamW } from '../core/nn/optimizers.ts';
import type { RuntimeOptions } from '../core/nn/runtime.ts';
import type { LrSchedule } from '../core/nn/schedules.ts';
import { Trainer } from '../core/nn/trainer.ts';
import { bceWithLogits } from '../core/nn/losses.ts';
import * as o from '../core/nn/ops/index.ts';
import type { ParamStore } from '../core/nn/params.ts';
import { gridGeometry, type TokenizerConfig } from './config.ts';
import { quantize } from './quantizer.ts';
import { freeSpaceLoss, rayInputs, renderDepth, surfaceConcentration, type RayInputs } from './render.ts';
import { samplesPerRay } from './rays.ts';
import {
  createTokenizerNetwork,
  type TokenizerNetwork,
  type VoxelInputs,
  voxelInputs,
} from './tokenizerNetwork.ts';

export interface TokenizerGraph {
  graph: Graph;
  net: TokenizerNetwork;
  voxels: VoxelInputs;
  rays: RayInputs;
  /** Scalar: 0 during the autoencoder warm-up, 1 with the quantiser on. */
  vqOn: Tensor;
  loss: Tensor;
  /** Named scalars and arrays each step returns. */
  outputs: {
    depthL1: Tensor;
    vqLoss: Tensor;
    surfaceLoss: Tensor;
    occupancyLoss: Tensor;
    /** The free-space loss (a constant 0 when cfg.loss.freeSpace is 0: no extra inputs then). */
    freeSpaceLoss: Tensor;
    /** [tokens²] int64 chosen codes. */
    codeIndex: Tensor;
    /** [tokens², codeDim] normalised encoder vectors. */
    zNorm: Tensor;
    /** [R] rendered depth. */
    depth: Tensor;
  };
}

/** Build the one-sweep training graph; its parameters are created in `ps`. */
export function buildTokenizerGraph(ps: ParamStore, cfg: TokenizerConfig): TokenizerGraph {
  const geo = gridGeometry(cfg);
  const g = new Graph({ name: 'drivekit_lidar_tokenizer_train' });
  const S = samplesPerRay(cfg);
  const Z = geo.cellsZ;
  const N = geo.cellsXY;
  const voxels = voxelInputs(g, cfg);
  const rays = rayInputs(g, S);
  const gtDepth = g.input('gt_depth', ['rays']);
  const far = g.input('far_from_surface', ['rays', S]);
  const occupancyTarget = g.input('occupancy', [1, Z, N, N]);
  const vqOn = g.input('vq_on', []);

  const net = createTokenizerNetwork(ps, cfg);
  const z = net.encode(voxels, 1);
  const vq = quantize(z, g.param(net.codebook), vqOn, cfg.quantizer);
  const grids = net.decode(vq.zq, 1);
  const flat = (t: Tensor) => o.reshape(t, [Z * N * N]);
  const rendered = renderDepth(flat(grids.density), rays, {
    occupancyFlat: flat(grids.occupancy),
    skipBelow: cfg.render.skipOccupancyBelow,
  });
  const depthL1 = o.reduceMean(o.abs(o.sub(rendered.depth, gtDepth)));
  const surfaceLoss = surfaceConcentration(rendered.weights, far);
  const occupancyLoss = bceWithLogits(grids.occupancy, occupancyTarget);
  const L = cfg.loss;
  let loss = o.add(
    o.add(o.mul(depthL1, L.depthL1), o.mul(surfaceLoss, L.surface)),
    o.add(o.mul(occupancyLoss, L.occupancyBce), vq.loss),
  );
  let free = o.mul(depthL1, 0);
  if (L.freeSpace > 0) {
    free = freeSpaceLoss(
      rendered.logits,
      g.input('free_sample', ['rays', S]),
      g.input('hit_sample', ['rays', S]),
    );
    loss = o.add(loss, o.mul(free, L.freeSpace));
  }
  return {
    graph: g,
    net,
    voxels,
    rays,
    vqOn,
    loss,
    outputs: {
      depthL1,
      vqLoss: vq.loss,
      surfaceLoss,
      occupancyLoss,
      freeSpaceLoss: free,
      codeIndex: vq.index,
      zNorm: vq.zNorm,
      depth: rendered.depth,
    },
  };
}

/** The tokenizer's trainer: Copilot4D's AdamW (weight decay 1e-4, not on biases, norms, embeddings — the
 * parameters' own flag), global-norm clipping at 1, and the figures every step returns. */
export function createTokenizerTrainer(
  tg: TokenizerGraph,
  lr: number | LrSchedule,
  runtime: RuntimeOptions = {},
): Promise<Trainer> {
  const { depthL1, vqLoss, surfaceLoss, occupancyLoss, freeSpaceLoss, codeIndex, zNorm } = tg.outputs;
  return Trainer.create(tg.graph, {
    ...runtime,
    loss: tg.loss,
    optimizer: adamW({ weightDecay: 1e-4 }),
    lr,
    clipGradNorm: 1,
    outputs: { depthL1, vqLoss, surfaceLoss, occupancyLoss, freeSpaceLoss, codeIndex, zNorm },
  });
}
