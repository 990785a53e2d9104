// The tokenizer's training graph on one sweep: encode → quantise → decode → render along sampled rays, with
// Copilot4D's losses (VQ, L1 depth, surface concentration, occupancy BCE) and the figures training logs.
import { Graph, type Tensor } from '../core/nn/graph.ts';
import { bceWithLogits } from '../core/nn/losses.ts';
import * as o from '../core/nn/ops/index.ts';
import type { ParamStore } from '../core/nn/params.ts';
import { gridGeometry, type TokenizerConfig } from './config.ts';
import { quantize } from './quantizer.ts';
import { renderDepth, surfaceConcentration, type RayInputs } from './render.ts';
import { samplesPerRay } from './rays.ts';
import { createTokenizerNetwork, type TokenizerNetwork, type VoxelInputs } from './tokenizerNetwork.ts';

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
  const P = cfg.maxPointsPerVoxel;
  const S = samplesPerRay(cfg);
  const Z = geo.cellsZ;
  const N = geo.cellsXY;
  const voxels: VoxelInputs = {
    offsets: g.input('offsets', ['voxels', P, 3]),
    slotPenalty: g.input('slot_penalty', ['voxels', P]),
    pillar: g.input('pillar', ['voxels'], 'int64'),
    level: g.input('level', ['voxels'], 'int64'),
  };
  const rays: RayInputs = {
    corner: g.input('corner', ['rays', S, 8], 'int32'),
    cornerWeight: g.input('corner_weight', ['rays', S, 8]),
    sampleDepth: g.input('sample_depth', ['rays', S]),
    inside: g.input('inside', ['rays', S]),
    exit: g.input('exit', ['rays']),
  };
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
  const loss = o.add(
    o.add(o.mul(depthL1, L.depthL1), o.mul(surfaceLoss, L.surface)),
    o.add(o.mul(occupancyLoss, L.occupancyBce), vq.loss),
  );
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
      codeIndex: vq.index,
      zNorm: vq.zNorm,
      depth: rendered.depth,
    },
  };
}
