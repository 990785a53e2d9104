// Where each return of a spinning LiDAR was measured from. A real sensor's lasers sit in blocks above the frame its
// points are given in (KITTI's HDL-64E: two blocks, fitted by tools/models/beamApex.ts), so a return lies on the line
// from its laser, not from the origin: rays re-aimed from each return's laser render along the line that measured it.
import type { Rays } from './rays.ts';

/** One block of lasers: its height above the sensor origin and the lowest elevation its lasers fire at. */
export interface LaserBlock {
  heightM: number;
  /** A return belongs to the first block (top first) from which it is seen at or above this elevation. */
  lowestElevationDeg: number;
}

/**
 * Laser blocks of known sensors. `hdl64-kitti`: the Velodyne HDL-64E as KITTI gives its points, as beamApex.ts fits
 * it on kitti-raw-78 and KITTI 0048 alike: the upper block 0.198 m above the origin, its lowest laser at −8.71°; the
 * lower block 0.121 m (its lasers at 0.116–0.126 m, here their median), its highest at −9.03°. The split lies
 * midway between those two lasers.
 */
export const LASER_BLOCKS: Readonly<Record<string, readonly LaserBlock[]>> = {
  'hdl64-kitti': [
    { heightM: 0.198, lowestElevationDeg: -8.87 },
    { heightM: 0.121, lowestElevationDeg: -90 },
  ],
};

/** Sources whose sensor is known without the log saying so (as the sensor origin by source). */
export const LASERS_BY_SOURCE: Readonly<Record<string, string>> = { kitti: 'hdl64-kitti' };

/**
 * The laser blocks of a log: `extra.laserBlocks` when the log states them, else by source, else null (every ray
 * from the origin). Throws, naming `what`, when the stated list is malformed.
 */
export function laserBlocksOf(
  meta: { source: string; extra?: Record<string, unknown> },
  what = 'log',
): readonly LaserBlock[] | null {
  const stated = meta.extra?.laserBlocks;
  if (stated !== undefined) {
    const ok =
      Array.isArray(stated) &&
      stated.length > 0 &&
      stated.every(
        (b) =>
          typeof b === 'object' &&
          b !== null &&
          Number.isFinite((b as LaserBlock).heightM) &&
          Number.isFinite((b as LaserBlock).lowestElevationDeg),
      );
    if (!ok)
      throw new Error(
        `${what}: meta.json extra.laserBlocks must be a non-empty list of { heightM, lowestElevationDeg } numbers`,
      );
    return stated as LaserBlock[];
  }
  const preset = LASERS_BY_SOURCE[meta.source];
  return preset ? LASER_BLOCKS[preset] : null;
}

/**
 * The same returns as `rays`, each re-aimed from its laser: direction and depth from the laser's point
 * (0, 0, heightM) above the origin to the return, with that height in `originZM`.
 */
export function raysFromLasers(rays: Rays, blocks: readonly LaserBlock[]): Rays {
  const n = rays.count;
  const out: Rays = {
    count: n,
    dirX: new Float32Array(n),
    dirY: new Float32Array(n),
    dirZ: new Float32Array(n),
    depthM: new Float32Array(n),
    pointIndex: rays.pointIndex,
    originZM: new Float32Array(n),
  };
  const last = blocks.length - 1;
  const tanLowest = blocks.map((b) => Math.tan((Math.max(-89.9, b.lowestElevationDeg) * Math.PI) / 180));
  for (let k = 0; k < n; k++) {
    const d = rays.depthM[k];
    const px = rays.dirX[k] * d;
    const py = rays.dirY[k] * d;
    const pz = rays.dirZ[k] * d + (rays.originZM?.[k] ?? 0);
    const r = Math.hypot(px, py);
    let b = 0;
    while (b < last && pz - blocks[b].heightM < tanLowest[b] * r) b++;
    const h = blocks[b].heightM;
    const dz = pz - h;
    const len = Math.hypot(r, dz);
    out.dirX[k] = px / len;
    out.dirY[k] = py / len;
    out.dirZ[k] = dz / len;
    out.depthM[k] = len;
    out.originZM![k] = h;
  }
  return out;
}
