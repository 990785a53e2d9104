// The LiDAR tokenizer's training step as a learning-engine reference model (`lidar_tokenizer`): the default
// config's graph on random inputs of a sweep's sizes, drawn as train_step.py's PyTorch mirror draws them.
import { Rng } from '../../core/rng.ts';
import { ParamStore } from '../../core/nn/params.ts';
import { DEFAULT_TOKENIZER_CONFIG, gridGeometry } from '../../worldmodel/config.ts';
import { regionExitM, sampleRays, type Rays } from '../../worldmodel/rays.ts';
import { buildTokenizerGraph } from '../../worldmodel/tokenizerGraph.ts';
import { farFromSurface, rayFeeds } from '../../worldmodel/tokenizerFeeds.ts';
import { EMPTY_SLOT_PENALTY } from '../../worldmodel/voxelize.ts';
import type { ReferenceModel } from './nn.bench.ts';

/**
 * Input sizes and distributions (train_step.py's LIDAR_TOKENIZER holds the same numbers). About as many
 * non-empty voxels as a synthetic HDL-64 sweep gives at the default grid; the rays of one training step.
 */
export const TOKENIZER_REFERENCE = {
  voxels: 11000,
  rays: DEFAULT_TOKENIZER_CONFIG.render.raysPerFrame,
  /** HDL-64E's vertical field of view (degrees). */
  elevationDeg: [-24.9, 2] as const,
  /** Gradient clipping of worldmodel/trainTokenizer.ts. */
  clipGradNorm: 1,
  seed: 2,
};

/**
 * Random voxels: distinct cells, 1–8 points each at uniform offsets. Random rays: uniform azimuth and
 * elevation in the sensor's field of view, a return uniform between the minimum range and the region's edge.
 */
export function lidarTokenizer(): ReferenceModel {
  const cfg = DEFAULT_TOKENIZER_CONFIG;
  const geo = gridGeometry(cfg);
  const R = TOKENIZER_REFERENCE;
  const ps = new ParamStore({ seed: 1 });
  const tg = buildTokenizerGraph(ps, cfg);
  const rng = new Rng(R.seed);
  const plane = geo.cellsXY * geo.cellsXY;
  const cells = geo.cellsZ * plane;
  const P = cfg.maxPointsPerVoxel;
  const V = R.voxels;
  const occupancy = new Float32Array(cells);
  const offsets = new Float32Array(V * P * 3);
  const slotPenalty = new Float32Array(V * P).fill(EMPTY_SLOT_PENALTY);
  const pillar = new BigInt64Array(V);
  const level = new BigInt64Array(V);
  for (let i = 0; i < V; i++) {
    let v = rng.int(cells);
    while (occupancy[v]) v = rng.int(cells);
    occupancy[v] = 1;
    pillar[i] = BigInt(v % plane);
    level[i] = BigInt(Math.floor(v / plane));
    const n = 1 + rng.int(P);
    for (let k = 0; k < n; k++) {
      slotPenalty[i * P + k] = 0;
      for (let d = 0; d < 3; d++) offsets[(i * P + k) * 3 + d] = rng.uniform() - 0.5;
    }
  }
  const rays: Rays = {
    count: R.rays,
    dirX: new Float32Array(R.rays),
    dirY: new Float32Array(R.rays),
    dirZ: new Float32Array(R.rays),
    depthM: new Float32Array(R.rays),
    pointIndex: Int32Array.from({ length: R.rays }, (_, i) => i),
  };
  const [elLo, elHi] = R.elevationDeg.map((d) => (d * Math.PI) / 180);
  for (let r = 0; r < R.rays; r++) {
    const az = (rng.uniform() * 2 - 1) * Math.PI;
    const el = elLo + rng.uniform() * (elHi - elLo);
    rays.dirX[r] = Math.cos(el) * Math.cos(az);
    rays.dirY[r] = Math.cos(el) * Math.sin(az);
    rays.dirZ[r] = Math.sin(el);
    const exit = regionExitM(cfg, rays.dirX[r], rays.dirY[r], rays.dirZ[r]);
    rays.depthM[r] = cfg.render.minRangeM + rng.uniform() * (exit - cfg.render.minRangeM);
  }
  const samples = sampleRays(cfg, rays);
  return {
    graph: tg.graph,
    params: ps,
    loss: tg.loss,
    clipGradNorm: R.clipGradNorm,
    feeds: {
      offsets: { data: offsets, dims: [V, P, 3] },
      slot_penalty: { data: slotPenalty, dims: [V, P] },
      pillar: { data: pillar, dims: [V] },
      level: { data: level, dims: [V] },
      ...rayFeeds(samples),
      gt_depth: { data: rays.depthM, dims: [R.rays] },
      far_from_surface: {
        data: farFromSurface(samples, rays, cfg.loss.surfaceMarginM),
        dims: [samples.rays, samples.samples],
      },
      occupancy: { data: occupancy, dims: [1, geo.cellsZ, geo.cellsXY, geo.cellsXY] },
      vq_on: { data: new Float32Array([1]), dims: [] },
    },
  };
}
