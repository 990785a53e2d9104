// Training augmentations on typed arrays: OYSTER's random ray dropping (remove whole beams and azimuth
// columns so near objects look as sparse as far ones) and the global flip/rotate/scale/translate of
// PointPillars/CenterPoint, applied to points, boxes, ground level and ego position together.
import type { Box3 } from '../../core/geometry/box.ts';
import { wrapAngle } from '../../core/geometry/pose.ts';
import type { Rng } from '../../core/rng.ts';
import { type BeamHalvingConfig, beamHalvingMask, DEFAULT_BEAM_HALVING_CONFIG } from './beamHalving.ts';
import { DEFAULT_HEIGHT_JITTER_CONFIG, type HeightJitterConfig, jitterGroundZ } from './heightJitter.ts';
import { DEFAULT_RANGE_DROPOUT_CONFIG, type RangeDropoutConfig, rangeDropoutMask } from './rangeDropout.ts';

/** A mutable training sample: points (struct-of-arrays), boxes, and the frame facts the targets need. */
export interface AugPoints {
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
  intensity: Float32Array;
  /** Laser index; all zero when the source has none (beams are then taken from elevation bins). */
  ring: Uint16Array;
}

export interface AugSample {
  points: AugPoints;
  boxes: Box3[];
  groundZ: number;
  /** Where the ego (the sensor's vertical axis) is in this frame, and the frame's scale factor. */
  ego: { x: number; y: number; rangeScale: number };
}

export interface RayDropConfig {
  /** Chance that a sample is thinned at all. */
  probability: number;
  /**
   * The sample is made to look `k` times farther away, k uniform in [1, maxRangeFactor]: an object k times
   * farther is hit by 1/k of the beams and 1/k of the azimuth columns, so each is kept with chance 1/k.
   */
  maxRangeFactor: number;
  /** Azimuth column width (a spinning LiDAR's horizontal resolution, HDL-64E ≈ 0.17°). */
  azimuthBinDeg: number;
  /** Beam width used when the cloud has no ring numbers (HDL-64E ≈ 0.4° between beams). */
  elevationBinDeg: number;
  /** Sensor height above the ground level, for elevations when rings are absent. */
  sensorHeightM: number;
}

export interface AugmentConfig {
  rayDrop: RayDropConfig;
  /** Every other beam removed (64 → 32 beams) in a share of samples (beamHalving.ts). */
  beamHalving: BeamHalvingConfig;
  /** Far points dropped more often than near ones (rangeDropout.ts). */
  rangeDropout: RangeDropoutConfig;
  /** The ground level offset as on another sensor mounting (heightJitter.ts). */
  heightJitter: HeightJitterConfig;
  /** Chance of mirroring y → −y. */
  flipProbability: number;
  /** Rotation about the ego's z axis, uniform in ±this (radians). */
  maxRotationRad: number;
  /** Scale uniform in [min, max] (points, box sizes and positions). */
  scaleMin: number;
  scaleMax: number;
  /** Standard deviation of the translation per axis (metres). */
  translateStdM: [number, number, number];
}

export const DEFAULT_AUGMENT_CONFIG: AugmentConfig = {
  rayDrop: {
    probability: 0.5,
    maxRangeFactor: 3,
    azimuthBinDeg: 0.2,
    elevationBinDeg: 0.4,
    sensorHeightM: 1.8,
  },
  beamHalving: DEFAULT_BEAM_HALVING_CONFIG,
  rangeDropout: DEFAULT_RANGE_DROPOUT_CONFIG,
  heightJitter: DEFAULT_HEIGHT_JITTER_CONFIG,
  flipProbability: 0.5,
  maxRotationRad: Math.PI / 4,
  scaleMin: 0.95,
  scaleMax: 1.05,
  translateStdM: [0.5, 0.5, 0.2],
};

/** Beam id per point: its ring when the cloud has rings, else its elevation bin seen from the sensor. */
export function beamIds(p: AugPoints, groundZ: number, cfg: RayDropConfig): Int32Array {
  const n = p.x.length;
  const ids = new Int32Array(n);
  let hasRings = false;
  for (let i = 0; i < n && !hasRings; i++) if (p.ring[i] !== 0) hasRings = true;
  if (hasRings) {
    for (let i = 0; i < n; i++) ids[i] = p.ring[i];
    return ids;
  }
  const sensorZ = groundZ + cfg.sensorHeightM;
  const inv = 180 / Math.PI / cfg.elevationBinDeg;
  // Offset so ids are non-negative for elevations down to −90°.
  const base = Math.ceil(90 / cfg.elevationBinDeg);
  for (let i = 0; i < n; i++) {
    const el = Math.atan2(p.z[i] - sensorZ, Math.hypot(p.x[i], p.y[i]));
    ids[i] = base + Math.floor(el * inv);
  }
  return ids;
}

/** Compact `p` in place to the points where keep[i] is 1; returns the trimmed views. */
export function compactPoints(p: AugPoints, keep: Uint8Array): AugPoints {
  let k = 0;
  for (let i = 0; i < p.x.length; i++) {
    if (!keep[i]) continue;
    p.x[k] = p.x[i];
    p.y[k] = p.y[i];
    p.z[k] = p.z[i];
    p.intensity[k] = p.intensity[i];
    p.ring[k] = p.ring[i];
    k++;
  }
  return {
    x: p.x.subarray(0, k),
    y: p.y.subarray(0, k),
    z: p.z.subarray(0, k),
    intensity: p.intensity.subarray(0, k),
    ring: p.ring.subarray(0, k),
  };
}

/**
 * Drop rays: each beam is kept with chance `beamKeep` and each azimuth column with chance `azimuthKeep`
 * (independently, from `rng`); a point survives when both its beam and its column do. Compacts in place.
 */
export function dropRays(
  p: AugPoints,
  beamKeep: number,
  azimuthKeep: number,
  rng: Rng,
  groundZ: number,
  cfg: RayDropConfig = DEFAULT_AUGMENT_CONFIG.rayDrop,
): AugPoints {
  const beams = beamIds(p, groundZ, cfg);
  let maxBeam = 0;
  for (let i = 0; i < beams.length; i++) if (beams[i] > maxBeam) maxBeam = beams[i];
  const beamOk = new Uint8Array(maxBeam + 1);
  for (let b = 0; b <= maxBeam; b++) beamOk[b] = rng.uniform() < beamKeep ? 1 : 0;
  const columns = Math.ceil(360 / cfg.azimuthBinDeg);
  const colOk = new Uint8Array(columns);
  for (let c = 0; c < columns; c++) colOk[c] = rng.uniform() < azimuthKeep ? 1 : 0;
  const toCol = columns / (2 * Math.PI);
  const keep = new Uint8Array(p.x.length);
  for (let i = 0; i < p.x.length; i++) {
    let c = Math.floor((Math.atan2(p.y[i], p.x[i]) + Math.PI) * toCol);
    if (c >= columns) c = columns - 1;
    keep[i] = beamOk[beams[i]] & colOk[c];
  }
  return compactPoints(p, keep);
}

/** Copy a sample's points into fresh arrays (augmentations work in place). */
export function clonePoints(p: AugPoints): AugPoints {
  return {
    x: p.x.slice(),
    y: p.y.slice(),
    z: p.z.slice(),
    intensity: p.intensity.slice(),
    ring: p.ring.slice(),
  };
}

/** What `augment` drew, for tests and logs. */
export interface AugmentDraw {
  rangeFactor: number;
  flip: boolean;
  rotationRad: number;
  scale: number;
  translation: [number, number, number];
}

/**
 * Augment a sample in place (points are compacted when rays drop; `sample.points` is replaced by views).
 * Ray dropping happens first, in the sensor's own geometry; then p' = s·R·F·p + t for points, boxes,
 * ground level and ego.
 */
export function augment(
  sample: AugSample,
  rng: Rng,
  cfg: AugmentConfig = DEFAULT_AUGMENT_CONFIG,
): AugmentDraw {
  const draw: AugmentDraw = { rangeFactor: 1, flip: false, rotationRad: 0, scale: 1, translation: [0, 0, 0] };
  if (rng.uniform() < cfg.rayDrop.probability) {
    draw.rangeFactor = 1 + rng.uniform() * (cfg.rayDrop.maxRangeFactor - 1);
    const keep = 1 / draw.rangeFactor;
    sample.points = dropRays(sample.points, keep, keep, rng, sample.groundZ, cfg.rayDrop);
  }
  sensorAugment(sample, rng, cfg);
  draw.flip = rng.uniform() < cfg.flipProbability;
  draw.rotationRad = (2 * rng.uniform() - 1) * cfg.maxRotationRad;
  draw.scale = cfg.scaleMin + rng.uniform() * (cfg.scaleMax - cfg.scaleMin);
  draw.translation = [
    rng.normal() * cfg.translateStdM[0],
    rng.normal() * cfg.translateStdM[1],
    rng.normal() * cfg.translateStdM[2],
  ];
  applyGlobalTransform(sample, draw);
  return draw;
}

/**
 * The sensor-gap augmentations (each off at probability or std 0), in the sensor's own geometry before the
 * global transform: beam halving, range-dependent dropout, then the ground level's jitter. A config without
 * them (a model or checkpoint from before they existed) skips them. Draws from `rng` only when enabled, so
 * runs without them reproduce earlier runs exactly.
 */
export function sensorAugment(sample: AugSample, rng: Rng, cfg: Partial<AugmentConfig>): void {
  const bh = cfg.beamHalving;
  if (bh && bh.probability > 0 && rng.uniform() < bh.probability) {
    const beams = beamIds(sample.points, sample.groundZ, cfg.rayDrop ?? DEFAULT_AUGMENT_CONFIG.rayDrop);
    sample.points = compactPoints(sample.points, beamHalvingMask(beams, bh.keepOneIn, rng));
  }
  const rd = cfg.rangeDropout;
  if (rd && rd.probability > 0 && rng.uniform() < rd.probability) {
    const drop = rng.uniform() * rd.maxDrop;
    const p = sample.points;
    const mask = rangeDropoutMask(p.x, p.y, drop, rd.farM, rng, sample.ego.x, sample.ego.y);
    sample.points = compactPoints(p, mask);
  }
  if (cfg.heightJitter) sample.groundZ = jitterGroundZ(sample.groundZ, rng, cfg.heightJitter);
}

/** p' = s·R(θ)·F·p + t, with F mirroring y when `flip`. */
export function applyGlobalTransform(sample: AugSample, d: Omit<AugmentDraw, 'rangeFactor'>): void {
  const s = d.scale;
  const c = Math.cos(d.rotationRad) * s;
  const sn = Math.sin(d.rotationRad) * s;
  const fy = d.flip ? -1 : 1;
  const [tx, ty, tz] = d.translation;
  const p = sample.points;
  for (let i = 0; i < p.x.length; i++) {
    const x = p.x[i];
    const y = fy * p.y[i];
    p.x[i] = c * x - sn * y + tx;
    p.y[i] = sn * x + c * y + ty;
    p.z[i] = s * p.z[i] + tz;
  }
  sample.boxes = sample.boxes.map((b) => {
    const y = fy * b.cy;
    return {
      cx: c * b.cx - sn * y + tx,
      cy: sn * b.cx + c * y + ty,
      cz: s * b.cz + tz,
      length: b.length * s,
      width: b.width * s,
      height: b.height * s,
      yaw: wrapAngle(fy * b.yaw + d.rotationRad),
    };
  });
  sample.groundZ = s * sample.groundZ + tz;
  const ex = sample.ego.x;
  const ey = fy * sample.ego.y;
  sample.ego = { x: c * ex - sn * ey + tx, y: sn * ex + c * ey + ty, rangeScale: sample.ego.rangeScale * s };
}
