// Token grids of a log for the forecaster: every sweep encoded in its own frame, and an earlier sweep placed
// by the known ego poses into a later frame and encoded there (the copy-last prior), cached on disk.
import fs from 'node:fs';
import path from 'node:path';
import { writeFileAtomic } from '../core/atomic.ts';
import { InputError } from '../core/errors.ts';
import type { PointCloud } from '../core/arrow/records.ts';
import { composePoses, invertPose, type Pose } from '../core/geometry/pose.ts';
import { createProgress } from '../core/progress.ts';
import type { LogReader } from '../datasets/logstore.ts';
import { gridGeometry, type TokenizerConfig } from './config.ts';
import { sensorOrigin, sensorPoints } from './sweep.ts';
import type { Tokenizer } from './tokenizerModel.ts';
import type { SensorPoints } from './voxelize.ts';
import { makeDirs } from '../core/dirs.ts';

/** A log's sweeps as token grids (row-major tokensXY², rows along y, columns along x). */
export interface LogTokens {
  logId: string;
  frames: number;
  tokensXY: number;
  /** [frames · 16] world_from_vehicle. */
  poses: Float64Array;
  /** [frames · tokensXY²] each sweep encoded in its own frame. */
  tokens: Int32Array;
  /** [frames · tokensXY²] 1 where the token's column holds a return (occupied), else 0. */
  occupied: Uint8Array;
  /** Sweep `src` encoded in frame `dst`'s vehicle frame, by "src,dst". */
  priors: Map<string, Int32Array>;
}

/** Why a log cannot be forecast: fewer than two distinct poses means the log carries none, unless it says it does. */
export function requirePoses(log: LogReader): void {
  const n = log.frameCount;
  let moved = false;
  for (let i = 1; i < n && !moved; i++) {
    const a = log.pose(0);
    const b = log.pose(i);
    for (let k = 0; k < 16; k++) if (Math.abs(a[k] - b[k]) > 1e-9) moved = true;
  }
  const stated = log.meta.extra?.posesKnown;
  if (stated === false || (stated !== true && !moved && n > 1))
    throw new InputError(
      log.dir,
      'the log has no ego poses (every frame has the same pose): forecasting needs them — estimate them with `drivekit odometry` first',
    );
}

/** The pose taking points of frame `src`'s vehicle frame into frame `dst`'s: inv(world_from_dst)·world_from_src. */
export function relativePose(poses: Float64Array, dst: number, src: number): Pose {
  return composePoses(
    invertPose(poses.subarray(16 * dst, 16 * dst + 16)),
    poses.subarray(16 * src, 16 * src + 16),
  );
}

/** Points of a sweep moved by `dstFromSrc` (vehicle frames), then made sensor-relative. */
export function placedSweep(
  pc: Pick<PointCloud, 'x' | 'y' | 'z'>,
  dstFromSrc: Pose,
  origin: readonly [number, number, number],
): SensorPoints {
  const n = pc.x.length;
  const m = dstFromSrc;
  const x = new Float32Array(n);
  const y = new Float32Array(n);
  const z = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const px = pc.x[i];
    const py = pc.y[i];
    const pz = pc.z[i];
    x[i] = m[0] * px + m[1] * py + m[2] * pz + m[3] - origin[0];
    y[i] = m[4] * px + m[5] * py + m[6] * pz + m[7] - origin[1];
    z[i] = m[8] * px + m[9] * py + m[10] * pz + m[11] - origin[2];
  }
  return { x, y, z };
}

/**
 * The ego prior of each future frame: the start sweep placed in that frame (through the log's poses) and
 * tokenized; null per frame when the forecaster was trained without it.
 */
export function egoPriorTokens(
  tok: Tokenizer,
  enabled: boolean,
  start: Pick<PointCloud, 'x' | 'y' | 'z'>,
  poses: Float64Array,
  t0: number,
  frames: readonly number[],
  origin: readonly [number, number, number],
  logDir: string,
): Promise<(Int32Array | null)[]> {
  return Promise.all(
    frames.map((f) =>
      enabled
        ? tok.encode(placedSweep(start, relativePose(poses, f, t0), origin), `${logDir} frame ${t0} in ${f}`)
        : null,
    ),
  );
}

/** 1 per token column that holds a return inside the tokenizer's region. */
export function occupiedTokens(cfg: TokenizerConfig, pts: SensorPoints): Uint8Array {
  const geo = gridGeometry(cfg);
  const t = geo.tokensXY;
  const r = cfg.grid.rangeM;
  const out = new Uint8Array(t * t);
  for (let i = 0; i < pts.x.length; i++) {
    const x = pts.x[i];
    const y = pts.y[i];
    const z = pts.z[i];
    if (Math.abs(x) >= r || Math.abs(y) >= r || z < cfg.grid.zMinM || z >= cfg.grid.zMaxM) continue;
    const c = Math.floor((x + r) / geo.tokenM);
    const w = Math.floor((y + r) / geo.tokenM);
    out[w * t + c] = 1;
  }
  return out;
}

/** Encode every sweep, and the priors for `offsets` (raw frames ahead of their source sweep). */
export async function encodeLogTokens(
  log: LogReader,
  tok: Tokenizer,
  offsets: readonly number[],
  progress = true,
): Promise<LogTokens> {
  requirePoses(log);
  const cfg = tok.config;
  const t = gridGeometry(cfg).tokensXY;
  const n = log.frameCount;
  const origin = sensorOrigin(log.meta);
  const pairs: [number, number][] = [];
  for (let s = 0; s < n; s++) for (const d of offsets) if (s + d < n) pairs.push([s, s + d]);
  const bar = progress ? createProgress(`tokens ${log.meta.logId}`, n + pairs.length) : null;
  const out: LogTokens = {
    logId: log.meta.logId,
    frames: n,
    tokensXY: t,
    poses: log.poses.slice(0, 16 * n),
    tokens: new Int32Array(n * t * t),
    occupied: new Uint8Array(n * t * t),
    priors: new Map(),
  };
  for (let i = 0; i < n; i++) {
    const frame = await log.readFrame(i);
    const pts = sensorPoints(frame.points, origin);
    out.tokens.set(await tok.encode(pts, `${log.dir} frame ${i}`), i * t * t);
    out.occupied.set(occupiedTokens(cfg, pts), i * t * t);
    for (const [s, d] of pairs) {
      if (s !== i) continue;
      const placed = placedSweep(frame.points, relativePose(out.poses, d, s), origin);
      out.priors.set(`${s},${d}`, await tok.encode(placed, `${log.dir} frame ${s} placed in frame ${d}`));
      bar?.tick();
    }
    bar?.tick();
  }
  bar?.stop();
  return out;
}

const CACHE_FORMAT = 'drivekit-forecast-tokens/1';

/** Write the tokens as one file: a JSON header line, then the int32/uint8/float64 arrays. */
export async function saveLogTokens(file: string, lt: LogTokens): Promise<void> {
  const keys = [...lt.priors.keys()];
  const header = JSON.stringify({
    format: CACHE_FORMAT,
    logId: lt.logId,
    frames: lt.frames,
    tokensXY: lt.tokensXY,
    priors: keys,
  });
  const parts: Buffer[] = [Buffer.from(header + '\n')];
  const raw = (a: ArrayBufferView) => Buffer.from(a.buffer, a.byteOffset, a.byteLength);
  parts.push(raw(lt.poses), raw(lt.tokens), raw(lt.occupied));
  for (const k of keys) parts.push(raw(lt.priors.get(k)!));
  makeDirs(path.dirname(file));
  await writeFileAtomic(file, Buffer.concat(parts));
}

export function loadLogTokens(file: string): LogTokens {
  if (!fs.existsSync(file)) throw new InputError(file, 'no such token cache');
  const buf = fs.readFileSync(file);
  const nl = buf.indexOf(10);
  const h = JSON.parse(buf.subarray(0, nl).toString()) as {
    format: string;
    logId: string;
    frames: number;
    tokensXY: number;
    priors: string[];
  };
  if (h.format !== CACHE_FORMAT) throw new InputError(file, `format ${h.format}, expected ${CACHE_FORMAT}`);
  let off = nl + 1;
  const take = (bytes: number) => {
    const b = new Uint8Array(bytes);
    b.set(buf.subarray(off, off + bytes));
    off += bytes;
    return b.buffer;
  };
  const g = h.tokensXY * h.tokensXY;
  const poses = new Float64Array(take(h.frames * 16 * 8));
  const tokens = new Int32Array(take(h.frames * g * 4));
  const occupied = new Uint8Array(take(h.frames * g));
  const priors = new Map<string, Int32Array>();
  for (const k of h.priors) priors.set(k, new Int32Array(take(g * 4)));
  return { logId: h.logId, frames: h.frames, tokensXY: h.tokensXY, poses, tokens, occupied, priors };
}
