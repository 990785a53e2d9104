// The detector's CNN on core/nn: a small encoder–decoder over the BEV grid (PIXOR/CenterPoint-style,
// stride 8 bottleneck, output stride 4) with two heads: centre heatmap logits and 8 box regressions.
import type { Tensor } from '../../core/nn/graph.ts';
import { conv2d, convTranspose2d, type Layer } from '../../core/nn/layers.ts';
import * as o from '../../core/nn/ops/index.ts';
import type { ParamStore } from '../../core/nn/params.ts';
import { BEV_CHANNEL_COUNT } from './bevGrid.ts';
import { REG_CHANNEL_COUNT } from './targets.ts';

export interface NetworkConfig {
  inChannels: number;
  /** Width after the stride-2 stem (full grid resolution / 2). */
  stemChannels: number;
  /** Width at the output stride 4 (0.8 m cells at the default grid). */
  channels: number;
  /** Width at stride 8. */
  deepChannels: number;
  /** 3 × 3 convolutions at stride 4 before going down, and at stride 8. */
  blocksStride4: number;
  blocksStride8: number;
  /** Width of each head's 3 × 3 conv before its 1 × 1 output (0: 1 × 1 straight from the neck). */
  headChannels: number;
  /** Initial heatmap probability (CenterNet's focal-loss prior: bias −log((1−π)/π)). */
  heatmapPrior: number;
}

export const DEFAULT_NETWORK_CONFIG: NetworkConfig = {
  inChannels: BEV_CHANNEL_COUNT,
  stemChannels: 16,
  channels: 32,
  deepChannels: 64,
  blocksStride4: 1,
  blocksStride8: 2,
  headChannels: 32,
  heatmapPrior: 0.05,
};

/** Output stride of the heads relative to the input grid. */
export const OUTPUT_STRIDE = 4;
/** The input grid's sides must be multiples of this (the stride-8 bottleneck is upsampled back). */
export const INPUT_MULTIPLE = 8;

export interface DetectorHeads {
  /** [N, 1, H/4, W/4] logits. */
  heatmap: Tensor;
  /** [N, 8, H/4, W/4] in REG_CHANNELS order. */
  boxes: Tensor;
}

export interface DetectorNetwork {
  (bev: Tensor): DetectorHeads;
  readonly config: NetworkConfig;
}

/**
 * Create the detector's parameters in `ps` and return its forward function, usable on any graph (the
 * training graph on fixed crops, the exported one on a symbolic grid). All convolutions pad to keep size.
 */
export function createDetectorNetwork(ps: ParamStore, config: Partial<NetworkConfig> = {}): DetectorNetwork {
  const cfg: NetworkConfig = { ...DEFAULT_NETWORK_CONFIG, ...config };
  // He-normal for ReLU layers: without normalisation layers the activations keep their scale.
  const he = (cin: number, k: number) => ({ kind: 'kaimingNormal' as const, fanIn: cin * k * k });
  const conv = (name: string, cin: number, cout: number, k: number, stride = 1): Layer =>
    conv2d(ps, name, cin, cout, k, { stride, padding: k === 1 ? 0 : [1, 1], init: he(cin, k) });
  const C = cfg.channels;
  const D = cfg.deepChannels;
  const stem = conv('stem', cfg.inChannels, cfg.stemChannels, 3, 2);
  const down4 = conv('down4', cfg.stemChannels, C, 3, 2);
  const blocks4 = Array.from({ length: cfg.blocksStride4 }, (_, i) => conv(`s4.${i}`, C, C, 3));
  const down8 = conv('down8', C, D, 3, 2);
  const blocks8 = Array.from({ length: cfg.blocksStride8 }, (_, i) => conv(`s8.${i}`, D, D, 3));
  const up = convTranspose2d(ps, 'up', D, C, 2, { stride: 2, init: he(D, 2) });
  const neck = conv('neck', 2 * C, C, 3);
  const H = cfg.headChannels;
  const heatTower = H > 0 ? conv('heat.tower', C, H, 3) : null;
  const boxTower = H > 0 ? conv('box.tower', C, H, 3) : null;
  const headIn = H > 0 ? H : C;
  const heatOut = conv2d(ps, 'heat.out', headIn, 1, 1, { init: { kind: 'normal', std: 0.01 } });
  const boxOut = conv2d(ps, 'box.out', headIn, REG_CHANNEL_COUNT, 1, { init: { kind: 'normal', std: 0.01 } });
  // Focal-loss prior: start every cell at probability π so the many negatives do not swamp the first steps.
  ps.get('heat.out.bias').data.fill(-Math.log((1 - cfg.heatmapPrior) / cfg.heatmapPrior));
  // Regressions start at a typical car (z 0.8 m above ground, 4 × 1.8 × 1.6 m) rather than a 1 m cube.
  ps.get('box.out.bias').data.set([0.5, 0.5, 0.8, Math.log(4), Math.log(1.8), Math.log(1.6), 0, 0]);

  const forward = (bev: Tensor): DetectorHeads => {
    let x = o.relu(stem(bev));
    x = o.relu(down4(x));
    for (const b of blocks4) x = o.relu(b(x));
    const skip = x;
    let d = o.relu(down8(x));
    for (const b of blocks8) d = o.relu(b(d));
    const u = o.relu(up(d));
    const n = o.relu(neck(o.concat([skip, u], 1)));
    const hx = heatTower ? o.relu(heatTower(n)) : n;
    const bx = boxTower ? o.relu(boxTower(n)) : n;
    return { heatmap: heatOut(hx), boxes: boxOut(bx) };
  };
  return Object.assign(forward, { config: cfg });
}
