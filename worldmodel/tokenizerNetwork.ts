// The tokenizer's networks on core/nn: per-voxel PointNet → pillar pooling with a height embedding →
// conv encoder to the token grid; decoder from codes back to voxel occupancy and rendering-density logits.
import type { Graph, Tensor } from '../core/nn/graph.ts';
import { conv2d, convTranspose2d, embedding, layerNorm, linear, type Layer } from '../core/nn/layers.ts';
import * as o from '../core/nn/ops/index.ts';
import type { ParamStore, Parameter } from '../core/nn/params.ts';
import { gridGeometry, type TokenizerConfig } from './config.ts';

/** The voxelised sweep(s) as graph inputs (see voxelize.ts). */
export interface VoxelInputs {
  /** [V, P, 3] offsets from voxel centres in cell units. */
  offsets: Tensor;
  /** [V, P] 0 for a point, −1e4 for an empty slot. */
  slotPenalty: Tensor;
  /** [V] int64 pillar index b·cells² + row·cells + col in the batch of `frames` BEV maps. */
  pillar: Tensor;
  /** [V] int64 height level of the voxel. */
  level: Tensor;
}

/** The voxel feeds as inputs of `g` (any number of voxels). */
export function voxelInputs(g: Graph, cfg: TokenizerConfig): VoxelInputs {
  const P = cfg.maxPointsPerVoxel;
  return {
    offsets: g.input('offsets', ['voxels', P, 3]),
    slotPenalty: g.input('slot_penalty', ['voxels', P]),
    pillar: g.input('pillar', ['voxels'], 'int64'),
    level: g.input('level', ['voxels'], 'int64'),
  };
}

export interface DecodedGrids {
  /** [B, Z, cells, cells] occupancy logits. */
  occupancy: Tensor;
  /** [B, Z, cells, cells] logits of the rendering opacity α. */
  density: Tensor;
}

export interface TokenizerNetwork {
  readonly config: TokenizerConfig;
  /** Voxels of `frames` sweeps → [frames·tokens², codeDim] encoder vectors (row-major token order). */
  encode(v: VoxelInputs, frames: number): Tensor;
  /** [frames·tokens², codeDim] quantised vectors → voxel grids. */
  decode(z: Tensor, frames: number): DecodedGrids;
  /** The codebook [codes, codeDim] parameter. */
  readonly codebook: Parameter;
}

export function createTokenizerNetwork(ps: ParamStore, cfg: TokenizerConfig): TokenizerNetwork {
  const geo = gridGeometry(cfg);
  const n = cfg.network;
  const q = cfg.quantizer;
  const he = (cin: number, k: number, gain?: number) => ({
    kind: 'kaimingNormal' as const,
    fanIn: cin * k * k,
    ...(gain === undefined ? {} : { gain }),
  });
  const conv = (name: string, cin: number, cout: number, k: number, stride = 1, gain?: number): Layer =>
    conv2d(ps, name, cin, cout, k, { stride, padding: k === 1 ? 0 : [1, 1], init: he(cin, k, gain) });
  const downs = Math.log2(cfg.downsample);
  if (!Number.isInteger(downs) || downs < 1)
    throw new Error(`tokenizer: downsample ${cfg.downsample} is not 2^k`);

  // Encoder.
  const pn1 = linear(ps, 'pointnet.0', 3, n.pointFeatures);
  const pnNorm = layerNorm(ps, 'pointnet.norm', n.pointFeatures);
  const pn2 = linear(ps, 'pointnet.1', n.pointFeatures, n.pointFeatures);
  const toBev = linear(ps, 'pillar.proj', n.pointFeatures, n.bevChannels);
  const heightEmb = embedding(ps, 'pillar.height', geo.cellsZ, n.bevChannels, {
    init: { kind: 'normal', std: 0.02 },
  });
  const bevNorm = layerNorm(ps, 'pillar.norm', n.bevChannels);
  const encDown: Layer[] = [];
  for (let i = 0; i < downs; i++) {
    const cin = i === 0 ? n.bevChannels : i === 1 ? n.stemChannels : n.trunkChannels;
    const cout = i === downs - 1 ? n.trunkChannels : n.stemChannels;
    encDown.push(conv(`enc.down${i}`, cin, cout, 3, 2));
  }
  const residual = (prefix: string) =>
    Array.from({ length: n.residualBlocks }, (_, i) => [
      conv(`${prefix}.res${i}.a`, n.trunkChannels, n.trunkChannels, 3),
      // The second conv starts small so each block starts near the identity.
      conv(`${prefix}.res${i}.b`, n.trunkChannels, n.trunkChannels, 3, 1, 0.1),
    ]);
  const encRes = residual('enc');
  const encOut = conv('enc.out', n.trunkChannels, q.codeDim, 1);
  const codebookLayer = embedding(ps, 'quantizer.codebook', q.codes, q.codeDim);
  const codebook = codebookLayer.params[0];

  // Decoder.
  const decIn = conv('dec.in', q.codeDim, n.trunkChannels, 1);
  const decRes = residual('dec');
  const decUp: { up: Layer; conv: Layer | null }[] = [];
  for (let i = 0; i < downs; i++) {
    const last = i === downs - 1;
    const cin = i === 0 ? n.trunkChannels : n.upChannels;
    const cout = last ? n.headChannels : n.upChannels;
    decUp.push({
      up: convTranspose2d(ps, `dec.up${i}`, cin, cout, 2, { stride: 2, init: he(cin, 2) }),
      conv: last ? null : conv(`dec.up${i}.conv`, cout, cout, 3),
    });
  }
  const head = conv('dec.head', n.headChannels, 2 * geo.cellsZ, 1);
  // Occupancy starts at the rare-voxel prior (a few % occupied), density at α ≈ 0.05 per sample.
  ps.get('dec.head.bias').data.fill(-3);

  const runResidual = (x: Tensor, blocks: Layer[][]) => {
    for (const [a, b] of blocks) x = o.relu(o.add(x, b(o.relu(a(x)))));
    return x;
  };

  const encode = (v: VoxelInputs, frames: number): Tensor => {
    const g = v.offsets.graph;
    const C = n.bevChannels;
    const cells = geo.cellsXY;
    let h = o.relu(pnNorm(pn1(v.offsets)));
    h = pn2(h);
    h = o.reduceMax(o.add(h, o.unsqueeze(v.slotPenalty, -1)), [1]); // [V, F]: max over the voxel's points
    const feat = o.add(toBev(h), heightEmb(v.level)); // [V, C]
    const zeros = o.constantOfShape(
      g.int64s([frames * cells * cells, C]),
      [frames * cells * cells, C],
      0,
      g.floatType,
    );
    let bev = o.scatterND(zeros, o.unsqueeze(v.pillar, -1), feat, 'add'); // pillar pooling: sum per pillar
    bev = bevNorm(o.reshape(bev, [frames, cells, cells, C]));
    let x = o.transpose(bev, [0, 3, 1, 2]);
    for (const d of encDown) x = o.relu(d(x));
    x = encOut(runResidual(x, encRes));
    return o.reshape(o.transpose(x, [0, 2, 3, 1]), [frames * geo.tokensXY * geo.tokensXY, q.codeDim]);
  };

  const decode = (z: Tensor, frames: number): DecodedGrids => {
    const t = geo.tokensXY;
    let x = o.transpose(o.reshape(z, [frames, t, t, q.codeDim]), [0, 3, 1, 2]);
    x = runResidual(o.relu(decIn(x)), decRes);
    for (const s of decUp) {
      x = o.relu(s.up(x));
      if (s.conv) x = o.relu(s.conv(x));
    }
    const [occupancy, density] = o.split(head(x), [geo.cellsZ, geo.cellsZ], 1);
    return { occupancy, density };
  };

  return { config: cfg, encode, decode, codebook };
}
