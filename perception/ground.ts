// Ground removal by line fitting per angular segment (Himmelsbach et al. 2010, "Fast segmentation of 3D
// point clouds for ground vehicles"; segment/bin/height settings after CPD, see REFERENCES.md).
import type { XYZ } from '../core/arrow/records.ts';
import { azimuthSector, azimuthSectorTable, insideSector } from '../core/geometry/azimuthSectors.ts';
import { fitNearPlane } from './planeFit.ts';
import type { ConfigRanges } from '../core/configSchema.ts';

export interface GroundConfig {
  /** Angular segments around the vehicle (CPD: 150). */
  segments: number;
  /** Range bins per segment, uniform in [0, maxRangeM) (CPD: 150). */
  bins: number;
  /** Range covered by the bins; farther points use the last bin's line. */
  maxRangeM: number;
  /** A point is ground when it lies at most this far above its segment's ground line (CPD: 0.1 m). */
  maxDistToLineM: number;
  /**
   * The first ground prototype of a segment must lie within this of the plane fitted to the ground near
   * the vehicle (CPD: 0.5 m from the nominal level; tighter here because the plane follows tilt).
   */
  maxStartHeightM: number;
  /** The near-vehicle plane is fitted (RANSAC, then least squares) to prototypes within this range. */
  planeRangeM: number;
  /** A prototype within this height of a candidate plane is its inlier, in RANSAC and in the refit. */
  planeInlierTolM: number;
  /**
   * RANSAC candidate planes, three random prototypes each: 60 find a plane of a half-inlier sweep with
   * probability 1 − (1 − 0.5³)⁶⁰ ≈ 0.9997.
   */
  planeRansacIterations: number;
  /**
   * A candidate's inliers are counted on about this many evenly spaced prototypes (the refit uses all):
   * caps the RANSAC cost on dense sweeps.
   */
  planeInlierSample: number;
  /** With fewer prototypes in range there is no fit: the plane is flat at planeFallbackQuantile. */
  planeMinPrototypes: number;
  /**
   * Quantile of the prototype heights that starts RANSAC (the flat candidate) and is the fallback level:
   * low, because prototypes above the road belong to objects, not ground.
   */
  planeFallbackQuantile: number;
  /** Steepest ground line allowed, |dz/dr| (a 30% grade). */
  maxSlope: number;
  /**
   * Extra height tolerance per metre between a prototype and the last accepted one: lets the line
   * follow hills and step over curbs (≈0.15 m over a 1 m gap) while car bodies (≥0.3 m) stay out.
   */
  slackPerM: number;
  /**
   * Largest rise accepted between neighbouring prototypes whatever the gap: car bodies (≥0.3 m above the
   * road) behind an occluded stretch must not pass as a step up. Drops are not capped (they re-anchor).
   */
  maxStepUpM: number;
  /** Prototypes within this range window are fitted by one local line (centred on each bin). */
  windowM: number;
  /** Prototypes closer than this are ignored (ego-vehicle returns). */
  minRangeM: number;
  /**
   * Ground level near the vehicle in the vehicle frame (e.g. −1.73 for the KITTI velodyne frame, 0 for
   * AV2's ego frame). Estimated from the sweep when absent.
   */
  groundZHintM?: number;
}

export const DEFAULT_GROUND_CONFIG: GroundConfig = {
  segments: 150,
  bins: 150,
  maxRangeM: 80,
  maxDistToLineM: 0.15,
  maxStartHeightM: 0.25,
  planeRangeM: 15,
  planeInlierTolM: 0.1,
  planeRansacIterations: 60,
  planeInlierSample: 1000,
  planeMinPrototypes: 10,
  planeFallbackQuantile: 0.3,
  maxSlope: 0.3,
  slackPerM: 0.06,
  maxStepUpM: 0.25,
  windowM: 8,
  minRangeM: 2.5,
};

/** Allowed values of each field (core/configSchema.ts checks user overrides against them). */
export const GROUND_CONFIG_RANGES: ConfigRanges<GroundConfig> = {
  segments: { integer: true, min: 1 },
  bins: { integer: true, min: 1 },
  maxRangeM: { above: 0 },
  maxDistToLineM: { above: 0 },
  maxStartHeightM: { min: 0 },
  planeRangeM: { above: 0 },
  planeInlierTolM: { above: 0 },
  planeRansacIterations: { integer: true, min: 1 },
  planeInlierSample: { integer: true, min: 1 },
  planeMinPrototypes: { integer: true, min: 1 },
  planeFallbackQuantile: { min: 0, max: 1 },
  maxSlope: { min: 0 },
  slackPerM: { min: 0 },
  maxStepUpM: { min: 0 },
  windowM: { above: 0 },
  minRangeM: { min: 0 },
  groundZHintM: { type: 'number' },
};

/** Piecewise-linear ground height z = slope·r + intercept per (segment, bin), in the vehicle frame. */
export interface GroundModel {
  segments: number;
  bins: number;
  binM: number;
  slope: Float32Array;
  intercept: Float32Array;
  /** Ground height below the vehicle origin, from the near-vehicle plane. */
  levelZ: number;
  /** The near-vehicle plane z = a·x + b·y + c the segment lines started from. */
  plane: [number, number, number];
}

export interface GroundResult {
  /** 1 for ground points, 0 otherwise (also 0 for non-finite points). */
  isGround: Uint8Array;
  groundCount: number;
  /** Height of each point above its ground line (NaN for non-finite points). */
  heightAboveGround: Float32Array;
  /** Points with a non-finite coordinate (neither ground nor anything else). */
  invalidCount: number;
  model: GroundModel;
}

/**
 * Arrays of exactly one slot per point that segmentGround fills instead of allocating its outputs: a loop
 * over sweeps passes the same ones (views of a larger buffer) to every call.
 */
export interface GroundOutputs {
  isGround: Uint8Array;
  heightAboveGround: Float32Array;
  /**
   * Optionally, 1 for the points above the ground by at most `maxHeightM` (not ground, finite), 0 for the
   * rest: what object discovery clusters, written in the same pass as the ground flags.
   */
  aboveGround?: { mask: Uint8Array; maxHeightM: number };
}

const TWO_PI = 2 * Math.PI;

/**
 * The points' cells, kept between calls and grown when a sweep needs more (only read within one call): a
 * fresh half-megabyte array per sweep costs allocation and cold cache lines on every sweep.
 */
const work = { cellOf: new Int32Array(0) };

/** Height of the ground model below (x, y) in the vehicle frame. */
export function groundHeightAt(m: GroundModel, x: number, y: number): number {
  const r = Math.hypot(x, y);
  // The same product as cellPrototypes, so a point on a bin edge lands in the same bin.
  const bf = r * (1 / m.binM);
  const b = bf >= m.bins ? m.bins - 1 : Math.floor(bf);
  const c = azimuthSector(azimuthSectorTable(m.segments), x, y, r) * m.bins + b;
  return m.slope[c] * r + m.intercept[c];
}

/** A ground model that is one flat plane at `levelZ` (used when a sweep has too few points). */
export function flatGroundModel(levelZ: number, cfg: GroundConfig = DEFAULT_GROUND_CONFIG): GroundModel {
  const n = cfg.segments * cfg.bins;
  return {
    segments: cfg.segments,
    bins: cfg.bins,
    binM: cfg.maxRangeM / cfg.bins,
    slope: new Float32Array(n),
    intercept: new Float32Array(n).fill(levelZ),
    levelZ,
    plane: [0, 0, levelZ],
  };
}

/**
 * Segment ground points. Each (segment, bin) keeps its lowest point as prototype; walking outwards,
 * a prototype is accepted as ground when it lies near the line through the previously accepted ones;
 * every bin then gets a line fitted to the accepted prototypes in a window centred on it, and points at
 * most `maxDistToLineM` above that line are ground. Cost: one pass over the points plus O(segments·bins).
 */
export function segmentGround(
  pts: XYZ,
  config: Partial<GroundConfig> = {},
  out?: GroundOutputs,
): GroundResult {
  const cfg: GroundConfig = { ...DEFAULT_GROUND_CONFIG, ...config };
  const { segments: S, bins: B } = cfg;
  const binM = cfg.maxRangeM / B;
  const n = pts.x.length;
  if (
    out &&
    (out.isGround.length !== n ||
      out.heightAboveGround.length !== n ||
      (out.aboveGround && out.aboveGround.mask.length !== n))
  )
    throw new RangeError(`segmentGround: output arrays must hold ${n} points`);
  const cellOf = (work.cellOf = work.cellOf.length >= n ? work.cellOf : new Int32Array(Math.ceil(n * 1.25)));
  const rangeOf = out ? out.heightAboveGround : new Float32Array(n);
  const { proto, protoR, protoX, protoY, invalid } = cellPrototypes(
    pts,
    S,
    B,
    binM,
    cfg.minRangeM,
    cellOf,
    rangeOf,
  );
  const plane: [number, number, number] =
    cfg.groundZHintM !== undefined
      ? [0, 0, cfg.groundZHintM]
      : fitNearPlane(proto, protoX, protoY, protoR, cfg);
  const levelZ = plane[2];
  const slope = new Float32Array(S * B);
  const intercept = new Float32Array(S * B);
  const hasLine = new Uint8Array(S);
  const accR = new Float64Array(B);
  const accZ = new Float64Array(B);
  const binHas = new Uint8Array(B);
  for (let s = 0; s < S; s++) {
    // The near-vehicle plane's slope along this segment: the prior for lines the data cannot fix.
    const theta = ((s + 0.5) / S) * TWO_PI - Math.PI;
    const planeSlope = plane[0] * Math.cos(theta) + plane[1] * Math.sin(theta);
    const na = acceptPrototypes(proto, protoR, protoX, protoY, s * B, B, plane, planeSlope, cfg, accR, accZ);
    if (na > 0) {
      fitBinLines(accR, accZ, na, s * B, B, binM, cfg, planeSlope, slope, intercept, binHas);
      hasLine[s] = 1;
    }
  }
  fillEmptySegments(hasLine, S, B, slope, intercept, plane);
  const heightAboveGround = rangeOf; // reused: the range of a point is not needed past this
  const isGround = out ? out.isGround : new Uint8Array(n);
  const above = out?.aboveGround;
  const groundCount = classifyPoints(
    pts.z,
    cellOf,
    slope,
    intercept,
    cfg.maxDistToLineM,
    heightAboveGround,
    isGround,
    above ? above.mask : null,
    above ? above.maxHeightM : 0,
  );
  return {
    isGround,
    groundCount,
    heightAboveGround,
    invalidCount: invalid,
    model: { segments: S, bins: B, binM, slope, intercept, levelZ, plane },
  };
}

/** The cells' prototypes (lowest point per segment × bin) and each point's cell and range. */
function cellPrototypes(
  pts: XYZ,
  S: number,
  B: number,
  binM: number,
  minRangeM: number,
  cellOf: Int32Array,
  rangeOf: Float32Array,
): {
  proto: Float32Array;
  protoR: Float32Array;
  protoX: Float32Array;
  protoY: Float32Array;
  invalid: number;
} {
  const proto = new Float32Array(S * B).fill(Infinity);
  // The lowest point's index per cell; its range and position are looked up once after the pass (one
  // store per new minimum instead of four).
  const lowest = new Int32Array(S * B);
  const sectors = azimuthSectorTable(S);
  const px = pts.x;
  const py = pts.y;
  const pz = pts.z;
  const n = px.length;
  const binsPerM = 1 / binM;
  let invalid = 0;
  const { boundaryX, boundaryY } = sectors;
  const hinted = S >= 3; // the two-boundary test needs sectors narrower than π
  // No sector yet: boundaries no point lies strictly inside.
  let sector = 0;
  let bx0 = 0;
  let by0 = 0;
  let bx1 = 0;
  let by1 = 0;

  for (let i = 0; i < n; i++) {
    const x = px[i];
    const y = py[i];
    const z = pz[i];
    // A NaN or infinite x or y makes r2 NaN or Infinity (a float32 squared cannot overflow), which fails
    // the first test; z has its own (NaN fails every comparison, Infinity the difference).
    const r2 = x * x + y * y;
    if (!(r2 < Infinity) || !(z - z === 0)) {
      cellOf[i] = -1;
      invalid++;
      continue;
    }
    const r = Math.sqrt(r2);
    // Truncation of a non-negative product, clamped first (a far point's bin may not fit in 32 bits).
    const bf = r * binsPerM;
    // Scans visit a sector's points together: the previous point's sector, its two boundary directions
    // kept in locals, answers most points (as azimuthSectorNear, without reloading them per point).
    // Leaving it, a scan line mostly enters a neighbouring sector: those are tried before the table.
    if (!(hinted && insideSector(bx0, by0, bx1, by1, x, y, r))) {
      const up = sector + 1;
      const down = sector - 1;
      if (hinted && up < S && insideSector(bx1, by1, boundaryX[up + 1], boundaryY[up + 1], x, y, r)) {
        sector = up;
      } else if (hinted && down >= 0 && insideSector(boundaryX[down], boundaryY[down], bx0, by0, x, y, r)) {
        sector = down;
      } else sector = azimuthSector(sectors, x, y, r);
      bx0 = boundaryX[sector];
      by0 = boundaryY[sector];
      bx1 = boundaryX[sector + 1];
      by1 = boundaryY[sector + 1];
    }
    const c = sector * B + (bf >= B ? B - 1 : bf | 0);
    cellOf[i] = c;
    rangeOf[i] = r;
  }
  // The lowest point per cell in a second pass: its hard-to-predict branch kept out of the loop above
  // measured faster than one fused loop.
  for (let i = 0; i < n; i++) {
    const c = cellOf[i];
    if (c >= 0 && rangeOf[i] >= minRangeM) {
      const z = pz[i];
      if (z < proto[c]) {
        proto[c] = z;
        lowest[c] = i;
      }
    }
  }
  const protoR = new Float32Array(S * B);
  const protoX = new Float32Array(S * B);
  const protoY = new Float32Array(S * B);
  for (let c = 0; c < S * B; c++) {
    if (proto[c] === Infinity) continue;
    const i = lowest[c];
    protoR[c] = rangeOf[i];
    protoX[c] = px[i];
    protoY[c] = py[i];
  }
  return { proto, protoR, protoX, protoY, invalid };
}

/**
 * Height of each point above its cell's line (in place of its range, which `rangeOf` holds on entry;
 * NaN for invalid points), the ground flag (every slot written) and, with `above`, the points above the
 * ground by at most `maxAboveM`; returns the ground count.
 */
function classifyPoints(
  pz: ArrayLike<number>,
  cellOf: Int32Array,
  slope: Float32Array,
  intercept: Float32Array,
  maxDistToLineM: number,
  rangeOf: Float32Array,
  isGround: Uint8Array,
  above: Uint8Array | null,
  maxAboveM: number,
): number {
  let groundCount = 0;
  for (let i = 0; i < isGround.length; i++) {
    const c = cellOf[i];
    if (c < 0) {
      rangeOf[i] = NaN;
      isGround[i] = 0;
      if (above) above[i] = 0;
      continue;
    }
    const h = pz[i] - (slope[c] * rangeOf[i] + intercept[c]);
    rangeOf[i] = h;
    // Flags as arithmetic, not branches: ground and non-ground points interleave along a scan line.
    const ground = +(h <= maxDistToLineM);
    isGround[i] = ground;
    groundCount += ground;
    if (above) above[i] = (ground ^ 1) & +(h <= maxAboveM);
  }
  return groundCount;
}

/**
 * Walk one segment's prototypes outwards, keeping those consistent with the running ground line
 * (least squares over the accepted prototypes in the trailing window). Returns how many were accepted;
 * their ranges and heights are written to accR/accZ in range order.
 */
function acceptPrototypes(
  proto: Float32Array,
  protoR: Float32Array,
  protoX: Float32Array,
  protoY: Float32Array,
  base: number,
  B: number,
  plane: [number, number, number],
  planeSlope: number,
  cfg: GroundConfig,
  accR: Float64Array,
  accZ: Float64Array,
): number {
  let na = 0;
  let head = 0; // first accepted prototype inside the trailing window
  let sr = 0;
  let sz = 0;
  let srr = 0;
  let srz = 0;
  for (let b = 0; b < B; b++) {
    const z = proto[base + b];
    if (z === Infinity) continue;
    const r = protoR[base + b];
    const k = na - head;
    if (na === 0) {
      const onPlane = plane[0] * protoX[base + b] + plane[1] * protoY[base + b] + plane[2];
      if (Math.abs(z - onPlane) > cfg.maxStartHeightM) continue;
    } else {
      const tol = cfg.maxDistToLineM + cfg.slackPerM * (r - accR[na - 1]);
      let expected: number;
      if (k >= 2) {
        lineFromSums(k, sr, sz, srr, srz, cfg.maxSlope, planeSlope);
        expected = line[0] * r + line[1];
      } else {
        expected = accZ[na - 1];
      }
      const d = z - expected;
      if (d > Math.min(tol, cfg.maxStepUpM) || d < -tol) continue;
    }
    accR[na] = r;
    accZ[na] = z;
    na++;
    sr += r;
    sz += z;
    srr += r * r;
    srz += r * z;
    while (na - head > 2 && r - accR[head] > cfg.windowM) {
      const hr = accR[head];
      const hz = accZ[head];
      sr -= hr;
      sz -= hz;
      srr -= hr * hr;
      srz -= hr * hz;
      head++;
    }
  }
  return na;
}

/**
 * Least-squares line z = a·r + c from running sums, slope clamped to ±maxSlope. Prototypes bunched in
 * range (spread under 0.3 m) cannot fix a slope: they take `fallbackSlope` through their mean.
 */
function lineFromSums(
  k: number,
  sr: number,
  sz: number,
  srr: number,
  srz: number,
  maxSlope: number,
  fallbackSlope: number,
): void {
  const den = k * srr - sr * sr;
  let a = den > k * k * 0.09 ? (k * srz - sr * sz) / den : fallbackSlope;
  if (a > maxSlope) a = maxSlope;
  else if (a < -maxSlope) a = -maxSlope;
  line[0] = a;
  line[1] = (sz - a * sr) / k;
}

/** lineFromSums' result (slope, intercept): written, not allocated, once per bin and per prototype. */
const line = new Float64Array(2);

/**
 * For each bin of a segment, the line through the accepted prototypes within ±windowM/2 of the bin
 * centre (two pointers over the range-sorted prototypes). Bins with fewer than two in reach take the
 * slope of the nearest bin that has a line, through their nearest prototype; a segment with no such bin
 * uses the near-vehicle plane's slope along the segment through its accepted prototypes.
 */
function fitBinLines(
  accR: Float64Array,
  accZ: Float64Array,
  na: number,
  base: number,
  B: number,
  binM: number,
  cfg: GroundConfig,
  planeSlope: number,
  slope: Float32Array,
  intercept: Float32Array,
  has: Uint8Array,
): void {
  const half = cfg.windowM / 2;
  let lo = 0;
  let hi = 0;
  let sr = 0;
  let sz = 0;
  let srr = 0;
  let srz = 0;
  let defined = 0;
  has.fill(0, 0, B);
  for (let b = 0; b < B; b++) {
    const rc = (b + 0.5) * binM;
    while (hi < na && accR[hi] <= rc + half) {
      sr += accR[hi];
      sz += accZ[hi];
      srr += accR[hi] * accR[hi];
      srz += accR[hi] * accZ[hi];
      hi++;
    }
    while (lo < hi && accR[lo] < rc - half) {
      sr -= accR[lo];
      sz -= accZ[lo];
      srr -= accR[lo] * accR[lo];
      srz -= accR[lo] * accZ[lo];
      lo++;
    }
    if (hi - lo >= 2) {
      lineFromSums(hi - lo, sr, sz, srr, srz, cfg.maxSlope, planeSlope);
      slope[base + b] = line[0];
      intercept[base + b] = line[1];
      has[b] = 1;
      defined++;
    }
  }
  if (defined === 0) {
    let mr = 0;
    let mz = 0;
    for (let i = 0; i < na; i++) {
      mr += accR[i];
      mz += accZ[i];
    }
    slope.fill(planeSlope, base, base + B);
    intercept.fill(mz / na - (planeSlope * mr) / na, base, base + B);
    return;
  }
  // Other bins: the slope of the nearest defined bin (ties: the nearer-range one), through the nearest
  // accepted prototype, so sparse far rings still anchor the line where they touch the ground.
  let prev = -1;
  let nearest = 0;
  let next = -1; // the first defined bin after b (B when none): found once per gap, not once per bin
  for (let b = 0; b < B; b++) {
    if (has[b]) {
      prev = b;
      continue;
    }
    if (next <= b) {
      next = b + 1;
      while (next < B && !has[next]) next++;
    }
    const src = prev < 0 ? next : next >= B || b - prev <= next - b ? prev : next;
    const rc = (b + 0.5) * binM;
    while (nearest + 1 < na && Math.abs(accR[nearest + 1] - rc) <= Math.abs(accR[nearest] - rc)) nearest++;
    const a = slope[base + src];
    slope[base + b] = a;
    intercept[base + b] = accZ[nearest] - a * accR[nearest];
  }
}

/**
 * Segments with no accepted prototype (blocked by a wall, or empty) copy the nearest fitted segment;
 * with none fitted at all, every segment takes the near-vehicle plane along its direction.
 */
function fillEmptySegments(
  hasLine: Uint8Array,
  S: number,
  B: number,
  slope: Float32Array,
  intercept: Float32Array,
  plane: [number, number, number],
): void {
  let any = false;
  for (let s = 0; s < S; s++) any ||= hasLine[s] === 1;
  if (!any) {
    for (let s = 0; s < S; s++) {
      const theta = ((s + 0.5) / S) * TWO_PI - Math.PI;
      slope.fill(plane[0] * Math.cos(theta) + plane[1] * Math.sin(theta), s * B, s * B + B);
      intercept.fill(plane[2], s * B, s * B + B);
    }
    return;
  }
  for (let s = 0; s < S; s++) {
    if (hasLine[s]) continue;
    for (let d = 1; d <= S / 2; d++) {
      const left = (s - d + S) % S;
      const right = (s + d) % S;
      const src = hasLine[left] ? left : hasLine[right] ? right : -1;
      if (src < 0) continue;
      slope.copyWithin(s * B, src * B, src * B + B);
      intercept.copyWithin(s * B, src * B, src * B + B);
      break;
    }
  }
}
