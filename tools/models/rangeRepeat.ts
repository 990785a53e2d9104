// How a LiDAR's range error repeats between sweeps: for consecutive sweeps of a (near-)standing car, the range
// difference of returns along the same direction. I.i.d. noise of σ gives a median |Δr| of 0.954 σ (√2 · 0.6745 σ).
// Run: node --import tsx tools/models/rangeRepeat.ts --log <dir> [--max-move 0.05] [--json]
import { concatFloat64 } from '../../core/concatFloat64.ts';
import { InputError } from '../../core/errors.ts';
import type { XYZ } from '../../core/arrow/records.ts';
import { composePoses, invertPose, type Pose } from '../../core/geometry/pose.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { checkReportFlags, isMain } from '../report/reportFlags.ts';

export interface RangeRepeatConfig {
  /** Sweep pairs whose ego moved farther than this (m) between them are skipped. */
  maxMoveM: number;
  /** A return and the previous sweep's nearest in direction pair up only within this angle (degrees). */
  maxAngleDeg: number;
  /** Returns of the later sweep within [minRangeM, maxRangeM] are queried, every queryStride-th. */
  minRangeM: number;
  maxRangeM: number;
  queryStride: number;
}

export const DEFAULT_RANGE_REPEAT: RangeRepeatConfig = {
  maxMoveM: 0.05,
  maxAngleDeg: 0.03,
  minRangeM: 5,
  maxRangeM: 30,
  queryStride: 3,
};

/** Direction cells of 0.1°: a pair within maxAngleDeg is in the same or a neighbouring cell. */
const CELL_RAD = (0.1 * Math.PI) / 180;
const CELLS_PER_ROW = 1 << 13; // elevation cells (±90° / 0.1° = 1,800 each way)

function cellKey(ia: number, ie: number): number {
  return ia * CELLS_PER_ROW + (ie + (CELLS_PER_ROW >> 1));
}

function lowerBound(keys: Int32Array, k: number): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (keys[mid] < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * |Δr| for every queried return of `cur` whose nearest-in-direction return of `prev` (placed in cur's frame by
 * `curFromPrev`) lies within cfg.maxAngleDeg. Directions and ranges are taken from the frame's origin.
 */
export function rangeRepeatDiffs(
  prev: XYZ,
  cur: XYZ,
  curFromPrev: Pose,
  cfg: RangeRepeatConfig = DEFAULT_RANGE_REPEAT,
): Float64Array {
  const m = prev.x.length;
  const az = new Float64Array(m);
  const el = new Float64Array(m);
  const range = new Float64Array(m);
  const key = new Int32Array(m);
  const p = curFromPrev;
  for (let i = 0; i < m; i++) {
    const x0 = prev.x[i];
    const y0 = prev.y[i];
    const z0 = prev.z[i];
    const x = p[0] * x0 + p[1] * y0 + p[2] * z0 + p[3];
    const y = p[4] * x0 + p[5] * y0 + p[6] * z0 + p[7];
    const z = p[8] * x0 + p[9] * y0 + p[10] * z0 + p[11];
    const r = Math.hypot(x, y, z);
    range[i] = r;
    az[i] = Math.atan2(y, x);
    el[i] = r > 0 ? Math.asin(z / r) : 0;
    key[i] = cellKey(Math.floor(az[i] / CELL_RAD), Math.floor(el[i] / CELL_RAD));
  }
  const order = new Int32Array(m);
  for (let i = 0; i < m; i++) order[i] = i;
  order.sort((a, b) => key[a] - key[b]);
  const sortedKeys = Int32Array.from(order, (i) => key[i]);
  const maxAngle = (cfg.maxAngleDeg * Math.PI) / 180;
  const out: number[] = [];
  for (let q = 0; q < cur.x.length; q += cfg.queryStride) {
    const x = cur.x[q];
    const y = cur.y[q];
    const z = cur.z[q];
    const r = Math.hypot(x, y, z);
    if (!(r >= cfg.minRangeM && r <= cfg.maxRangeM)) continue;
    const a = Math.atan2(y, x);
    const e = Math.asin(z / r);
    const ia = Math.floor(a / CELL_RAD);
    const ie = Math.floor(e / CELL_RAD);
    let best = maxAngle;
    let bestJ = -1;
    for (let da = -1; da <= 1; da++) {
      for (let de = -1; de <= 1; de++) {
        const k = cellKey(ia + da, ie + de);
        for (let s = lowerBound(sortedKeys, k); s < m && sortedKeys[s] === k; s++) {
          const j = order[s];
          const d = Math.hypot(a - az[j], e - el[j]);
          if (d <= best) {
            best = d;
            bestJ = j;
          }
        }
      }
    }
    if (bestJ >= 0) out.push(Math.abs(range[bestJ] - r));
  }
  return Float64Array.from(out);
}

export interface RangeRepeat {
  log: string;
  /** Sweep pairs used (ego moved ≤ maxMoveM) and returns paired. */
  pairs: number;
  returns: number;
  /** |Δr| quantiles, metres. */
  medianM: number;
  p25M: number;
  p75M: number;
  /** σ of i.i.d. per-return noise that would give this median: the upper bound of the noise drawn per sweep. */
  iidSigmaM: number;
}

export async function rangeRepeat(dir: string, cfg: RangeRepeatConfig = DEFAULT_RANGE_REPEAT): Promise<RangeRepeat> {
  const log = await LogReader.open(dir);
  try {
    const diffs: Float64Array[] = [];
    let pairs = 0;
    let prev = await log.readFrame(0);
    for (let t = 1; t < log.frameCount; t++) {
      const cur = await log.readFrame(t);
      const curFromPrev = composePoses(invertPose(cur.pose), prev.pose);
      if (Math.hypot(curFromPrev[3], curFromPrev[7], curFromPrev[11]) <= cfg.maxMoveM) {
        pairs++;
        diffs.push(rangeRepeatDiffs(prev.points, cur.points, curFromPrev, cfg));
      }
      prev = cur;
    }
    const all = concatFloat64(diffs);
    if (all.length === 0)
      throw new InputError(dir, `no sweep pair with the car standing (moved ≤ ${cfg.maxMoveM} m) and returns paired`);
    all.sort();
    const at = (q: number) => all[Math.floor(q * (all.length - 1))];
    const medianM = at(0.5);
    return {
      log: dir,
      pairs,
      returns: all.length,
      medianM,
      p25M: at(0.25),
      p75M: at(0.75),
      iidSigmaM: medianM / (Math.SQRT2 * 0.6745),
    };
  } finally {
    await log.close();
  }
}

if (isMain(import.meta.url)) {
  const USAGE = `usage: node --import tsx tools/models/rangeRepeat.ts --log <dir> [--max-move <m>] [--json]
The median range difference between consecutive sweeps along the same direction (within ${DEFAULT_RANGE_REPEAT.maxAngleDeg}°, ${DEFAULT_RANGE_REPEAT.minRangeM}–${DEFAULT_RANGE_REPEAT.maxRangeM} m)
over the sweep pairs where the car moved at most --max-move metres (default ${DEFAULT_RANGE_REPEAT.maxMoveM}).`;
  checkReportFlags(process.argv, USAGE, ['--log', '--max-move'], ['--json']);
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i >= 0 ? process.argv[i + 1] : undefined;
  };
  const dir = arg('--log');
  if (!dir) {
    process.stderr.write(`error: --log is required\n${USAGE}\n`);
    process.exit(2);
  }
  const move = arg('--max-move');
  const maxMoveM = move === undefined ? DEFAULT_RANGE_REPEAT.maxMoveM : Number(move);
  if (!(maxMoveM >= 0)) {
    process.stderr.write(`error: --max-move: '${move}' is not a distance ≥ 0\n`);
    process.exit(2);
  }
  let r: RangeRepeat;
  try {
    r = await rangeRepeat(dir, { ...DEFAULT_RANGE_REPEAT, maxMoveM });
  } catch (e) {
    process.stderr.write(`error: ${(e as Error).message}\n`);
    process.exit(1);
  }
  if (process.argv.includes('--json')) process.stdout.write(JSON.stringify(r) + '\n');
  else
    process.stdout.write(
      `${r.log}: ${r.pairs} standing pairs, ${r.returns} returns: |Δr| median ${r.medianM.toFixed(4)} m ` +
        `(p25 ${r.p25M.toFixed(4)}, p75 ${r.p75M.toFixed(4)}); i.i.d. σ at most ${r.iidSigmaM.toFixed(4)} m\n`,
    );
}
