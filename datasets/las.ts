// LAS/LAZ aerial or mobile LiDAR (ASPRS LAS 1.2–1.4): LAS ≤ 1.3 and LAZ through @loaders.gl/las (LAZ
// via its bundled laz-perf WebAssembly, offline), LAS 1.4 (formats 6–10) through our own record decoder.
import { LAZPerfLoader } from '@loaders.gl/las';
import { allocatePointCloud, type PointCloud } from '../core/arrow/records.ts';
import { InputError } from '../core/errors.ts';
import { poseFromTranslationYaw } from '../core/geometry/pose.ts';
import type { FrameInput } from './logstore.ts';
import { frameFiles, readFileHead, readInputFile } from './inputFiles.ts';
import { type LasCrs, readLasCrs } from './lasCrs.ts';
import { decodeLasPoints, parseLasHeader, type LasHeader, type LasPoints } from './lasFormat.ts';
import type { SourceOpener } from './source.ts';
import { checkDeclaredBounds, type PlausibilityOptions } from './plausibility.ts';

/**
 * Points of a LAS/LAZ file in the file's CRS (float64), whichever decoder fits its version, checked
 * against the header's own bounds (outside = corrupt: refused, or dropped and counted on request).
 */
export async function readLasPoints(
  file: string,
  opts: PlausibilityOptions = {},
): Promise<{ header: LasHeader; points: LasPoints; decoder: string; dropped: number; crs: LasCrs }> {
  const r = await decodeLasFile(file);
  const { keep, dropped } = hasBounds(r.header)
    ? checkDeclaredBounds(
        r.points,
        { min: r.header.min, max: r.header.max, tolerance: r.header.scale.map(Math.abs) as Vec3 },
        file,
        opts,
      )
    : { keep: null, dropped: 0 };
  return { ...r, points: keep ? keepLasPoints(r.points, keep) : r.points, dropped };
}

type Vec3 = [number, number, number];

/** Writers that never filled the bounds leave them all zero (or min > max): nothing to check against. */
function hasBounds(h: LasHeader): boolean {
  const all = [...h.min, ...h.max];
  return all.every(Number.isFinite) && all.some((v) => v !== 0) && h.min.every((v, j) => v <= h.max[j]);
}

function keepLasPoints(p: LasPoints, keep: Uint8Array): LasPoints {
  let n = 0;
  for (let i = 0; i < keep.length; i++) n += keep[i];
  const out: LasPoints = {
    x: new Float64Array(n),
    y: new Float64Array(n),
    z: new Float64Array(n),
    intensity: new Uint16Array(n),
  };
  for (let i = 0, k = 0; i < keep.length; i++) {
    if (!keep[i]) continue;
    out.x[k] = p.x[i];
    out.y[k] = p.y[i];
    out.z[k] = p.z[i];
    out.intensity[k] = p.intensity[i];
    k++;
  }
  return out;
}

/**
 * A LAZ file's chunk table offset (the int64 at the start of its point data) must lie inside the
 * file: a truncated file loses the table, and laz-perf then fails with "Failed to open file: undefined".
 */
function checkLazChunkTable(bytes: Uint8Array, h: LasHeader, file: string): void {
  if (bytes.length < h.pointDataOffset + 8)
    throw new InputError(file, `truncated LAZ: no compressed point data after byte ${h.pointDataOffset}`);
  const v = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const table = v.getBigInt64(h.pointDataOffset, true);
  // −1: the writer did not seek back to fill it in (streamed LAZ); the table is then found at the end.
  if (table !== -1n && (table < BigInt(h.pointDataOffset) || table + 8n > BigInt(bytes.length)))
    throw new InputError(
      file,
      `truncated or corrupt LAZ: its chunk table is at byte ${table}, the file has ${bytes.length} bytes`,
    );
}

async function decodeLasFile(
  file: string,
): Promise<{ header: LasHeader; points: LasPoints; decoder: string; crs: LasCrs }> {
  const bytes = readInputFile(file);
  const header = parseLasHeader(bytes, file);
  const crs = readLasCrs(bytes, header, file);
  return { ...(await decodeLasBody(bytes, header, file)), crs };
}

async function decodeLasBody(
  bytes: Uint8Array,
  header: LasHeader,
  file: string,
): Promise<{ header: LasHeader; points: LasPoints; decoder: string }> {
  if (header.versionMinor >= 4) {
    if (header.compressed)
      throw new InputError(
        file,
        'LAZ 1.4 is not supported (loaders.gl reads LAZ up to 1.3); decompress it to LAS first',
      );
    return { header, points: decodeLasPoints(bytes, header, file), decoder: 'drivekit LAS 1.4 decoder' };
  }
  if (header.compressed) checkLazChunkTable(bytes, header, file);
  const ab = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  let mesh: Awaited<ReturnType<typeof LAZPerfLoader.parse>>;
  try {
    mesh = await LAZPerfLoader.parse(ab, { las: { shape: 'mesh', fp64: true, skip: 1, colorDepth: 8 } });
  } catch (e) {
    const why = (e as Error).message;
    // laz-perf's own text for a file it cannot read says nothing ("Failed to open file: undefined").
    throw new InputError(
      file,
      /undefined/.test(why)
        ? `${header.compressed ? 'LAZ' : 'LAS'} point data cannot be decoded (truncated or corrupt file)`
        : `LAS/LAZ decoding failed (${why})`,
    );
  }
  const pos = mesh.attributes.POSITION.value as Float64Array;
  const n = pos.length / 3;
  if (n !== header.pointCount)
    throw new InputError(file, `decoded ${n} points, the LAS header says ${header.pointCount}`);
  const points: LasPoints = {
    x: new Float64Array(n),
    y: new Float64Array(n),
    z: new Float64Array(n),
    intensity: new Uint16Array(n),
  };
  for (let i = 0; i < n; i++) {
    points.x[i] = pos[3 * i];
    points.y[i] = pos[3 * i + 1];
    points.z[i] = pos[3 * i + 2];
  }
  const inten = mesh.attributes.intensity?.value as ArrayLike<number> | undefined;
  if (inten) points.intensity.set(inten);
  return { header, points, decoder: header.compressed ? 'loaders.gl laz-perf (LAZ)' : 'loaders.gl (LAS)' };
}

/**
 * The origin a file's points are stored relative to: float32 cannot hold raw UTM/State Plane
 * coordinates to the centimetre, so points are re-centred on the whole-metre centre (x, y) and
 * floor (z) of their bounds, and the origin becomes the frame's pose translation (world = the CRS).
 */
export function lasOrigin(p: LasPoints): [number, number, number] {
  let x0 = Infinity;
  let x1 = -Infinity;
  let y0 = Infinity;
  let y1 = -Infinity;
  let z0 = Infinity;
  for (let i = 0; i < p.x.length; i++) {
    const x = p.x[i];
    const y = p.y[i];
    const z = p.z[i];
    if (x < x0) x0 = x;
    if (x > x1) x1 = x;
    if (y < y0) y0 = y;
    if (y > y1) y1 = y;
    if (z < z0) z0 = z;
  }
  if (!Number.isFinite(x0 + x1 + y0 + y1 + z0)) return [0, 0, 0];
  return [Math.round((x0 + x1) / 2), Math.round((y0 + y1) / 2), Math.floor(z0)];
}

/**
 * Scale coordinates from the file's linear units to metres in place (x, y by the horizontal unit, z by
 * the vertical one); a file without a usable unit keeps its coordinates, and the log says so.
 */
export function lasToMetres(p: LasPoints, crs: LasCrs): void {
  const h = crs.horizontalUnit?.metres ?? 1;
  const v = crs.verticalUnit?.metres ?? 1;
  if (h === 1 && v === 1) return;
  for (let i = 0; i < p.x.length; i++) {
    p.x[i] *= h;
    p.y[i] *= h;
    p.z[i] *= v;
  }
}

/** The CRS as stated in meta.json (`extra.crs`): snake_case keys, units named with their length. */
export function crsMetadata(crs: LasCrs): Record<string, unknown> {
  const unit = (u: LasCrs['horizontalUnit']) => (u ? { name: u.name, metres: u.metres } : null);
  const known = crs.horizontalUnit !== null && crs.verticalUnit !== null;
  return {
    from: crs.from,
    name: crs.name,
    epsg: crs.epsg,
    wkt: crs.wkt,
    file_horizontal_unit: unit(crs.horizontalUnit),
    file_vertical_unit: unit(crs.verticalUnit),
    vertical_unit_assumed: crs.verticalUnitAssumed,
    coordinates: known
      ? 'metres: converted from the file units above, then re-centred on extra.origins (pose translation)'
      : 'as stored in the file: the file states no linear unit, so they are NOT known to be metres',
  };
}

/** Two files of one log must share their CRS, or their coordinates would be silently mixed. */
function sameCrs(a: LasCrs, b: LasCrs): boolean {
  return (
    a.wkt === b.wkt &&
    a.epsg === b.epsg &&
    a.name === b.name &&
    a.horizontalUnit?.metres === b.horizontalUnit?.metres &&
    a.verticalUnit?.metres === b.verticalUnit?.metres
  );
}

function toCloud(p: LasPoints, origin: [number, number, number]): PointCloud {
  const n = p.x.length;
  const c = allocatePointCloud(n);
  const [ox, oy, oz] = origin;
  for (let i = 0; i < n; i++) {
    c.x[i] = p.x[i] - ox;
    c.y[i] = p.y[i] - oy;
    c.z[i] = p.z[i] - oz;
    c.intensity[i] = p.intensity[i];
  }
  return c;
}

export const open: SourceOpener = async (input, opts) => {
  const files = frameFiles(input, ['.las', '.laz'], 'LAS/LAZ');
  // Headers first: a broken one fails before anything is written.
  for (const f of files) {
    const { head, size } = readFileHead(f, 512);
    parseLasHeader(head, f, size);
  }
  const rateHz = opts.rateHz ?? 10;
  const extra: Record<string, unknown> = {
    poses: 'no sensor pose in LAS: each file is one frame whose pose is the translation to its origin',
    origins: [] as number[][],
    decoders: [] as string[],
  };
  let dropped = 0;
  let crs0: LasCrs | null = null;
  return {
    source: 'las',
    sensor: null,
    rateHz,
    frameCount: files.length,
    async *frames(): AsyncIterable<FrameInput> {
      for (let i = 0; i < files.length; i++) {
        const r = await readLasPoints(files[i], opts);
        const { points, decoder, crs } = r;
        if (!crs0) {
          crs0 = crs;
          extra.crs = crsMetadata(crs);
        } else if (!sameCrs(crs0, crs))
          throw new InputError(
            files[i],
            `its coordinate system (${crs.name ?? crs.from}) differs from ${files[0]}'s (${crs0.name ?? crs0.from}); import them as separate logs`,
          );
        lasToMetres(points, crs);
        dropped += r.dropped;
        if (dropped) extra.droppedImplausiblePoints = dropped;
        const origin = lasOrigin(points);
        (extra.origins as number[][]).push(origin);
        (extra.decoders as string[]).push(decoder);
        yield {
          timestampNs: BigInt(Math.round((i * 1e9) / rateHz)),
          pose: poseFromTranslationYaw(origin[0], origin[1], origin[2], 0),
          points: toCloud(points, origin),
        };
      }
    },
    labels: () => null,
    extra,
  };
};
