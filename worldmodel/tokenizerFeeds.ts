// From a sweep in the sensor frame to the tokenizer graph's feeds: voxels for the encoder, the sampled
// rays' trilinear tables for the renderer, and the targets (depths, surface indicator, occupancy).
import type { Feeds } from '../core/nn/graphSession.ts';
import type { Rng } from '../core/rng.ts';
import { gridGeometry, type TokenizerConfig } from './config.ts';
import { type LaserBlock, raysFromLasers } from './laserLines.ts';
import { raysFromPoints, sampleRays, type RaySamples, type Rays } from './rays.ts';
import { voxelize, type SensorPoints, type Voxels } from './voxelize.ts';

/** The encoder's feeds for one sweep (pillar indices of frame 0 of the batch). */
export function voxelFeeds(cfg: TokenizerConfig, v: Voxels): Feeds {
  const N = cfg.grid.cellsXY;
  const pillar = new BigInt64Array(v.count);
  const level = new BigInt64Array(v.count);
  for (let i = 0; i < v.count; i++) {
    pillar[i] = BigInt(v.voxel[i] % (N * N));
    level[i] = BigInt(Math.floor(v.voxel[i] / (N * N)));
  }
  const P = v.slots;
  return {
    offsets: { data: v.offsets, dims: [v.count, P, 3] },
    slot_penalty: { data: v.slotPenalty, dims: [v.count, P] },
    pillar: { data: pillar, dims: [v.count] },
    level: { data: level, dims: [v.count] },
  };
}

/** The renderer's feeds for a sample table. */
export function rayFeeds(s: RaySamples): Feeds {
  const R = s.rays;
  const S = s.samples;
  return {
    corner: { data: s.corner, dims: [R, S, 8] },
    corner_weight: { data: s.cornerWeight, dims: [R, S, 8] },
    sample_depth: { data: s.sampleDepthM, dims: [R, S] },
    inside: { data: s.inside, dims: [R, S] },
    exit: { data: s.exitM, dims: [R] },
  };
}

/** 1 where a sample is farther than `marginM` from the ray's measured depth (surface concentration). */
export function farFromSurface(s: RaySamples, rays: Rays, marginM: number): Float32Array {
  const far = new Float32Array(s.rays * s.samples);
  for (let r = 0; r < s.rays; r++) {
    const d = rays.depthM[r];
    for (let k = 0; k < s.samples; k++) {
      const i = r * s.samples + k;
      far[i] = Math.abs(s.sampleDepthM[i] - d) > marginM ? 1 : 0;
    }
  }
  return far;
}

/**
 * The free-space loss's labels (UnO): samples inside the region more than `marginM` before the return are
 * free; the samples from half a step before to a step and a half past it are occupied (the surface). A
 * ray whose return lies low (below `groundZM`, the ground under a roof LiDAR) grazes the ground and stays
 * within a z cell of it for metres: its samples are free only once they are `cellZM` above the return, else
 * the label would empty the ground's voxels.
 */
export function freeSpaceLabels(
  s: RaySamples,
  rays: Rays,
  marginM: number,
  stepM: number,
  cellZM = 0,
  groundZM = -1,
): { free: Float32Array; hit: Float32Array } {
  const free = new Float32Array(s.rays * s.samples);
  const hit = new Float32Array(s.rays * s.samples);
  for (let r = 0; r < s.rays; r++) {
    const d = rays.depthM[r];
    const ground = (rays.originZM ? rays.originZM[r] : 0) + d * rays.dirZ[r] < groundZM;
    const down = -rays.dirZ[r];
    for (let k = 0; k < s.samples; k++) {
      const i = r * s.samples + k;
      if (!s.inside[i]) continue;
      const h = s.sampleDepthM[i];
      if (h < d - marginM && (!ground || (d - h) * down >= cellZM)) free[i] = 1;
      else if (h >= d - 0.5 * stepM && h <= d + 1.5 * stepM) hit[i] = 1;
    }
  }
  return { free, hit };
}

export interface TrainingExample {
  feeds: Feeds;
  voxels: Voxels;
  rays: Rays;
}

/**
 * Every feed of the training graph for one sweep; `maxRays` rays drawn with `rng`, rendered from the origin or,
 * with `lasers`, each from its laser (laserLines.ts). A sweep with no point in the region, or no ray to render,
 * is an error naming `source` (there is nothing to learn from it).
 */
export function trainingFeeds(
  cfg: TokenizerConfig,
  pts: SensorPoints,
  rng: Rng,
  vqOn: boolean,
  source: string,
  lasers: readonly LaserBlock[] | null = null,
): TrainingExample {
  const geo = gridGeometry(cfg);
  const voxels = voxelize(cfg, pts, source);
  if (voxels.count === 0) throw new Error(`${source}: no point inside the tokenizer's region`);
  const drawn = raysFromPoints(cfg, pts, { max: cfg.render.raysPerFrame, rng });
  const rays = lasers ? raysFromLasers(drawn, lasers) : drawn;
  if (rays.count === 0) throw new Error(`${source}: no return to render inside the region`);
  const samples = sampleRays(cfg, rays);
  const occ = new Float32Array(voxels.occupancy.length);
  for (let i = 0; i < occ.length; i++) occ[i] = voxels.occupancy[i];
  const feeds: Record<string, Feeds[string]> = {
    ...voxelFeeds(cfg, voxels),
    ...rayFeeds(samples),
    gt_depth: { data: rays.depthM, dims: [rays.count] },
    far_from_surface: {
      data: farFromSurface(samples, rays, cfg.loss.surfaceMarginM),
      dims: [samples.rays, samples.samples],
    },
    occupancy: { data: occ, dims: [1, geo.cellsZ, geo.cellsXY, geo.cellsXY] },
    vq_on: { data: new Float32Array([vqOn ? 1 : 0]), dims: [] },
  };
  if (cfg.loss.freeSpace > 0) {
    const l = freeSpaceLabels(samples, rays, cfg.loss.freeSpaceMarginM, cfg.render.stepM, geo.cellZM);
    feeds.free_sample = { data: l.free, dims: [samples.rays, samples.samples] };
    feeds.hit_sample = { data: l.hit, dims: [samples.rays, samples.samples] };
  }
  return { feeds, voxels, rays };
}
