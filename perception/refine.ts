// Temporal refinement of tracked boxes (OYSTER; settings after CPD): drop short tracks, give every box of
// a track one size from its boxes nearest the ego, re-anchor each box at its visible corner, fill short gaps.
import { allocateBoxes, type Boxes } from '../core/arrow/records.ts';
import { wrapAngle } from '../core/geometry/pose.ts';
import { sliceBoxes } from './boxfit.ts';
import { wrapHalfTurn } from './kalman.ts';
import {
  centresToWorld,
  resolveSequence,
  type SequenceInput,
  type WorldCentres,
  worldToVehicle,
} from './sequence.ts';
import { quantile } from '../core/stats.ts';
import type { ConfigRanges } from '../core/configSchema.ts';

export interface RefineConfig {
  /** Tracks seen in fewer frames are dropped (CPD: 10). */
  minTrackFrames: number;
  /** Share of a track's boxes, nearest the ego first, that set its size (CPD: 5%, at least 3). */
  nearestShare: number;
  minNearest: number;
  /**
   * Quantile of each dimension over those boxes (0.5 ≈ CPD's mean; LISO: 0.8). A partial view can only
   * shrink a box, so a high quantile undoes occlusion without trusting the single largest (merged) box.
   */
  sizeQuantile: number;
  /**
   * A track is moving — and takes its heading from its motion — when its least-squares speed reaches
   * movingMinSpeedMps and its ends lie movingMinDisplacementM apart (LISO: ≥ 3 m). The speed test keeps
   * parked cars static: their box centres drift as the ego's view of them changes, but slowly.
   */
  movingMinSpeedMps: number;
  movingMinDisplacementM: number;
  /** Frames either side used for the motion heading of a moving track. */
  headingHalfWindow: number;
  /** Keep the corner nearest the ego fixed when resizing (else the centre). */
  anchorVisibleCorner: boolean;
  /** Interpolate boxes into gaps of at most maxGapFrames missing frames. */
  fillGaps: boolean;
  maxGapFrames: number;
  /** Track score = mean box score · n / (n + scoreHalfFrames) for a track of n boxes. */
  scoreHalfFrames: number;
  /**
   * Score factor of static tracks: whatever moves is an object, while static tracks mix parked cars with
   * structure the filters missed, so moving tracks rank first (synthetic seeds 1–3: AP@0.3 0–30 m 80 → 89).
   */
  staticScoreFactor: number;
  /**
   * Track-level shape filters on the one size of a track (null: off). Walls, fences and hedges stay long
   * and thin from every viewpoint, while a car's partial views are thin only from some angles: a track
   * longer than aspectMinLengthM with long/short > maxAspectRatio is structure (road users stay under
   * ≈5: a bus is 12 × 2.5 m; the 2.5 m minimum spares a car seen only from behind). Poles and trunks keep
   * both sides under poleMaxSideM while taller than poleMinHeightM (people are under ≈2 m). Moving
   * tracks are filtered too: the visible stretch of a long wall slides along with the ego.
   */
  maxAspectRatio: number | null;
  aspectMinLengthM: number;
  poleMaxSideM: number | null;
  poleMinHeightM: number;
  /** The box-fit size limits, checked again on the track's size (a quantile can exceed every single box). */
  maxLengthM: number;
  maxWidthM: number;
  maxHeightM: number;
}

export const DEFAULT_REFINE_CONFIG: RefineConfig = {
  minTrackFrames: 10,
  // Every box, 0.9 quantile: on synthetic seeds 1–3 the nearest boxes are the most truncated (a parked
  // car passed at 3 m shows one side; a truck's roof is above the top beam), so CPD's rule (nearest 5%,
  // mean) loses AP; LISO's track quantile does not (AP@0.3 0–30 m 38 → 54 with distance association).
  nearestShare: 1,
  minNearest: 3,
  sizeQuantile: 0.9,
  movingMinSpeedMps: 1,
  movingMinDisplacementM: 3,
  headingHalfWindow: 3,
  anchorVisibleCorner: true,
  fillGaps: true,
  maxGapFrames: 3,
  scoreHalfFrames: 5,
  staticScoreFactor: 0.5,
  maxAspectRatio: 5,
  aspectMinLengthM: 2.5,
  // 0.65 (was 0.5): box fitting grows small footprints to 0.6 m (boxfit minFootprintM), poles included.
  poleMaxSideM: 0.65,
  poleMinHeightM: 2.2,
  maxLengthM: 10,
  maxWidthM: 4,
  maxHeightM: 4,
};

/** Allowed values of each field (core/configSchema.ts checks user overrides against them). */
export const REFINE_CONFIG_RANGES: ConfigRanges<RefineConfig> = {
  minTrackFrames: { integer: true, min: 1 },
  nearestShare: { above: 0, max: 1 },
  minNearest: { integer: true, min: 1 },
  sizeQuantile: { min: 0, max: 1 },
  movingMinSpeedMps: { min: 0 },
  movingMinDisplacementM: { min: 0 },
  headingHalfWindow: { integer: true, min: 0 },
  maxGapFrames: { integer: true, min: 0 },
  scoreHalfFrames: { above: 0 },
  staticScoreFactor: { min: 0, max: 1 },
  maxAspectRatio: { above: 0, nullable: true },
  aspectMinLengthM: { min: 0 },
  poleMaxSideM: { min: 0, nullable: true },
  poleMinHeightM: { min: 0 },
  maxLengthM: { above: 0 },
  maxWidthM: { above: 0 },
  maxHeightM: { above: 0 },
};

export interface RefineStats {
  tracksIn: number;
  tracksKept: number;
  /** Tracks dropped by the shape filters (aspect ratio, pole, size). */
  tracksShapeFiltered: number;
  boxesIn: number;
  boxesOut: number;
  gapBoxes: number;
  movingTracks: number;
}

export interface RefineResult {
  boxes: Boxes;
  stats: RefineStats;
  warnings: string[];
}

interface RefinedBox {
  frame: number;
  // world frame
  x: number;
  y: number;
  z: number;
  yaw: number;
  numPoints: number;
}

/**
 * Refine tracked boxes (vehicle frame of each `frameIndex`, `trackId` set; rows with trackId −1 are
 * single-box tracks). Returns boxes in the same frames, sorted by frame then track.
 */
export function refineTracks(
  tracks: Boxes,
  seqInput: SequenceInput,
  config: Partial<RefineConfig> = {},
): RefineResult {
  const cfg: RefineConfig = { ...DEFAULT_REFINE_CONFIG, ...config };
  const seq = resolveSequence(seqInput);
  const world = centresToWorld(tracks, seq);
  const n = tracks.cx.length;
  const groups = new Map<number, number[]>();
  let single = -1;
  for (let i = 0; i < n; i++) {
    const id = tracks.trackId[i] >= 0 ? tracks.trackId[i] : single--;
    let g = groups.get(id);
    if (!g) groups.set(id, (g = []));
    g.push(i);
  }
  const rowsOut: { id: number; score: number; l: number; w: number; h: number; box: RefinedBox }[] = [];
  const stats: RefineStats = {
    tracksIn: groups.size,
    tracksKept: 0,
    tracksShapeFiltered: 0,
    boxesIn: n,
    boxesOut: 0,
    gapBoxes: 0,
    movingTracks: 0,
  };
  for (const [id, rowsAll] of groups) {
    // One box per frame (a merged track never holds two; keep the first if a caller passes some).
    const seen = new Set<number>();
    const rows = rowsAll
      .slice()
      .sort((a, b) => tracks.frameIndex[a] - tracks.frameIndex[b])
      .filter((r) => !seen.has(tracks.frameIndex[r]) && seen.add(tracks.frameIndex[r]));
    if (rows.length < cfg.minTrackFrames) continue;
    const m = rows.length;
    const range = rows.map((r) => Math.hypot(tracks.cx[r], tracks.cy[r]));
    const byRange = rows.map((_, k) => k).sort((a, b) => range[a] - range[b]);
    const nearest = byRange.slice(0, Math.min(m, Math.max(cfg.minNearest, Math.ceil(cfg.nearestShare * m))));
    const first = rows[0];
    const last = rows[m - 1];
    const moving =
      Math.hypot(world.x[last] - world.x[first], world.y[last] - world.y[first]) >=
        cfg.movingMinDisplacementM &&
      fittedSpeed(rows, world, seq.timesS, tracks.frameIndex) >= cfg.movingMinSpeedMps;
    if (moving) stats.movingTracks++;
    // Reference heading (world) per box: motion direction for moving tracks, else the heading of the
    // nearest boxes (circular mean of the doubled angle: headings are known up to a half turn).
    const heading = new Float64Array(m);
    if (moving) {
      for (let k = 0; k < m; k++) {
        const a = rows[Math.max(0, k - cfg.headingHalfWindow)];
        const b = rows[Math.min(m - 1, k + cfg.headingHalfWindow)];
        const dx = world.x[b] - world.x[a];
        const dy = world.y[b] - world.y[a];
        heading[k] = Math.hypot(dx, dy) > 0.3 ? Math.atan2(dy, dx) : NaN;
      }
      fillNaNHeadings(heading);
    } else {
      let sc = 0;
      let ss = 0;
      for (const k of nearest) {
        // Orientation mod π/2 (a box side), weighted by the box's points.
        const wgt = Math.max(1, tracks.numPoints[rows[k]]);
        sc += wgt * Math.cos(4 * world.yaw[rows[k]]);
        ss += wgt * Math.sin(4 * world.yaw[rows[k]]);
      }
      const side = Math.atan2(ss, sc) / 4;
      // Of the two perpendicular axes, the one the nearest boxes call "length" most often.
      let votes = 0;
      for (const k of nearest)
        votes += Math.abs(Math.cos(world.yaw[rows[k]] - side)) >= Math.SQRT1_2 ? 1 : -1;
      heading.fill(votes >= 0 ? side : side + Math.PI / 2);
    }
    // Each box's own length/width re-expressed along its reference heading.
    const snapL = new Float64Array(m);
    const snapW = new Float64Array(m);
    for (let k = 0; k < m; k++) {
      const r = rows[k];
      const d = wrapHalfTurn(world.yaw[r] - heading[k]);
      const across = Math.abs(d) > Math.PI / 4;
      snapL[k] = across ? tracks.width[r] : tracks.length[r];
      snapW[k] = across ? tracks.length[r] : tracks.width[r];
    }
    let L = quantile(
      nearest.map((k) => snapL[k]),
      cfg.sizeQuantile,
    );
    let W = quantile(
      nearest.map((k) => snapW[k]),
      cfg.sizeQuantile,
    );
    const H = quantile(
      nearest.map((k) => tracks.height[rows[k]]),
      cfg.sizeQuantile,
    );
    if (W > L && !moving) {
      // A static track's "length" is its longer side.
      [L, W] = [W, L];
      heading.forEach((h, k) => (heading[k] = h + Math.PI / 2));
      for (let k = 0; k < m; k++) [snapL[k], snapW[k]] = [snapW[k], snapL[k]];
    }
    if (!shapePasses(L, W, H, cfg)) {
      stats.tracksShapeFiltered++;
      continue;
    }
    stats.tracksKept++;
    let scoreSum = 0;
    for (const r of rows) scoreSum += tracks.score[r];
    let score = (scoreSum / m) * (m / (m + cfg.scoreHalfFrames));
    if (!moving) score *= cfg.staticScoreFactor;
    const refined: RefinedBox[] = [];
    for (let k = 0; k < m; k++) {
      const r = rows[k];
      const f = tracks.frameIndex[r];
      // Work in the box's own vehicle frame: the ego is at the origin there.
      const yawV = wrapAngle(heading[k] - (world.yaw[r] - tracks.yaw[r]));
      const bottom = tracks.cz[r] - tracks.height[r] / 2;
      let cx = tracks.cx[r];
      let cy = tracks.cy[r];
      if (cfg.anchorVisibleCorner) {
        [cx, cy] = anchorAtVisibleCorner(cx, cy, snapL[k], snapW[k], yawV, L, W);
      }
      const p = seq.poses.subarray(16 * f, 16 * f + 16);
      const cz = bottom + H / 2;
      refined.push({
        frame: f,
        x: p[0] * cx + p[1] * cy + p[2] * cz + p[3],
        y: p[4] * cx + p[5] * cy + p[6] * cz + p[7],
        z: p[8] * cx + p[9] * cy + p[10] * cz + p[11],
        yaw: heading[k],
        numPoints: tracks.numPoints[r],
      });
    }
    for (const box of refined) rowsOut.push({ id, score, l: L, w: W, h: H, box });
    stats.boxesOut += refined.length;
    if (cfg.fillGaps) {
      for (let k = 1; k < m; k++) {
        const a = refined[k - 1];
        const b = refined[k];
        const gap = b.frame - a.frame - 1;
        if (gap < 1 || gap > cfg.maxGapFrames) continue;
        for (let f = a.frame + 1; f < b.frame; f++) {
          const t = (f - a.frame) / (b.frame - a.frame);
          rowsOut.push({
            id,
            score,
            l: L,
            w: W,
            h: H,
            box: {
              frame: f,
              x: a.x + t * (b.x - a.x),
              y: a.y + t * (b.y - a.y),
              z: a.z + t * (b.z - a.z),
              yaw: a.yaw + t * wrapAngle(b.yaw - a.yaw),
              numPoints: -1,
            },
          });
          stats.gapBoxes++;
          stats.boxesOut++;
        }
      }
    }
  }
  rowsOut.sort((a, b) => a.box.frame - b.box.frame || a.id - b.id);
  const out = allocateBoxes(rowsOut.length);
  // Track ids renumbered densely in order of appearance.
  const dense = new Map<number, number>();
  rowsOut.forEach((row, i) => {
    const [x, y, z, yaw] = worldToVehicle(seq, row.box.frame, row.box.x, row.box.y, row.box.z, row.box.yaw);
    let tid = dense.get(row.id);
    if (tid === undefined) dense.set(row.id, (tid = dense.size));
    out.frameIndex[i] = row.box.frame;
    out.trackId[i] = tid;
    out.score[i] = row.score;
    out.cx[i] = x;
    out.cy[i] = y;
    out.cz[i] = z;
    out.length[i] = row.l;
    out.width[i] = row.w;
    out.height[i] = row.h;
    out.yaw[i] = yaw;
    out.numPoints[i] = row.box.numPoints;
  });
  return { boxes: sliceBoxes(out, rowsOut.length), stats, warnings: seq.warnings };
}

/** The track-level shape filters of RefineConfig on a track's one size. */
function shapePasses(L: number, W: number, H: number, cfg: RefineConfig): boolean {
  const long = Math.max(L, W);
  const short = Math.min(L, W);
  if (long > cfg.maxLengthM || short > cfg.maxWidthM || H > cfg.maxHeightM) return false;
  if (cfg.maxAspectRatio !== null && long > cfg.aspectMinLengthM && long > cfg.maxAspectRatio * short)
    return false;
  if (cfg.poleMaxSideM !== null && long < cfg.poleMaxSideM && H > cfg.poleMinHeightM) return false;
  return true;
}

/** Speed of the least-squares straight-line motion of a track's centres over time (m/s). */
function fittedSpeed(
  rows: number[],
  world: WorldCentres,
  timesS: Float64Array,
  frameIndex: Int32Array,
): number {
  const n = rows.length;
  if (n < 2) return 0;
  let mt = 0;
  let mx = 0;
  let my = 0;
  for (const r of rows) {
    mt += timesS[frameIndex[r]];
    mx += world.x[r];
    my += world.y[r];
  }
  mt /= n;
  mx /= n;
  my /= n;
  let stt = 0;
  let stx = 0;
  let sty = 0;
  for (const r of rows) {
    const dt = timesS[frameIndex[r]] - mt;
    stt += dt * dt;
    stx += dt * (world.x[r] - mx);
    sty += dt * (world.y[r] - my);
  }
  return stt > 0 ? Math.hypot(stx, sty) / stt : 0;
}

/** Replace NaN headings by the nearest defined one (all NaN → 0). */
function fillNaNHeadings(h: Float64Array): void {
  let lastDefined = NaN;
  for (let k = 0; k < h.length; k++) {
    if (Number.isNaN(h[k])) h[k] = lastDefined;
    else lastDefined = h[k];
  }
  let next = NaN;
  for (let k = h.length - 1; k >= 0; k--) {
    if (Number.isNaN(h[k])) h[k] = next;
    else next = h[k];
  }
  for (let k = 0; k < h.length; k++) if (Number.isNaN(h[k])) h[k] = 0;
}

/**
 * Resize a box (l × w at heading yaw, vehicle frame) to L × W keeping the corner nearest the sensor
 * (the origin) where it is: the visible corner of a partly seen object is its best-placed point.
 * Returns the new centre.
 */
export function anchorAtVisibleCorner(
  cx: number,
  cy: number,
  l: number,
  w: number,
  yaw: number,
  L: number,
  W: number,
): [number, number] {
  const c = Math.cos(yaw);
  const s = Math.sin(yaw);
  let best = Infinity;
  let sx = 1;
  let sy = 1;
  for (const ax of [-1, 1]) {
    for (const ay of [-1, 1]) {
      const x = cx + c * ((ax * l) / 2) - s * ((ay * w) / 2);
      const y = cy + s * ((ax * l) / 2) + c * ((ay * w) / 2);
      const d = x * x + y * y;
      if (d < best) {
        best = d;
        sx = ax;
        sy = ay;
      }
    }
  }
  // Corner stays; the centre moves by the half-size change along each axis, away from the corner.
  const du = (sx * (l - L)) / 2;
  const dv = (sy * (w - W)) / 2;
  return [cx + c * du - s * dv, cy + s * du + c * dv];
}
