// Azimuth sector of a point, floor((atan2(y, x) + π) / 2π · S), without an arctangent: a table over
// u = x / r gives the sector and the one boundary inside each table cell (as Math.atan2, but for
// directions within rounding of a boundary).

/** Precomputed sector lookup for one sector count (build once, reuse for every point of every sweep). */
export interface AzimuthSectorTable {
  sectors: number;
  /** Table cells over u = x / r ∈ [−1, 1]. */
  cells: number;
  /** cells / 2: table cells per unit of u. */
  cellsPerU: number;
  /** For y ≥ 0 (θ = acos u, falling with u): the sector at the cell's low u, and the u past which it is one less. */
  upperSector: Int32Array;
  upperBoundaryU: Float64Array;
  /** For y < 0 (θ = −acos u, rising with u): the sector at the cell's low u, and the u from which it is one more. */
  lowerSector: Int32Array;
  lowerBoundaryU: Float64Array;
  /** Unit direction of each sector's first boundary, sector s from angle s·2π/S − π (S + 1 entries). */
  boundaryX: Float64Array;
  boundaryY: Float64Array;
}

const TWO_PI = 2 * Math.PI;

function sectorOfAngle(theta: number, sectors: number): number {
  const s = Math.floor(((theta + Math.PI) / TWO_PI) * sectors);
  return s >= sectors ? sectors - 1 : s < 0 ? 0 : s;
}

const tables = new Map<number, AzimuthSectorTable>();

/**
 * The table for `sectors` sectors (cached). A cell spans at most one sector boundary: near u = ±1 the
 * angle changes as √(2·Δu), so the cell count grows with the square of the sector count (S²/π², ≥ 1024).
 */
export function azimuthSectorTable(sectors: number): AzimuthSectorTable {
  if (!Number.isInteger(sectors) || sectors < 1)
    throw new RangeError(`sectors must be a positive integer, got ${sectors}`);
  const cached = tables.get(sectors);
  if (cached) return cached;
  const cells = Math.max(1024, 2 * Math.ceil((sectors * sectors) / (Math.PI * Math.PI)));
  const upperSector = new Int32Array(cells + 1);
  const upperBoundaryU = new Float64Array(cells + 1);
  const lowerSector = new Int32Array(cells + 1);
  const lowerBoundaryU = new Float64Array(cells + 1);
  for (let k = 0; k <= cells; k++) {
    const u0 = -1 + (2 * k) / cells;
    const u1 = Math.min(1, -1 + (2 * (k + 1)) / cells);
    const a = sectorOfAngle(Math.acos(u0), sectors);
    const b = sectorOfAngle(Math.acos(u1), sectors);
    upperSector[k] = a;
    // Sector a starts at angle a·2π/S − π, i.e. at u = cos of that; larger u lies in sector a − 1.
    upperBoundaryU[k] = a === b ? Infinity : Math.cos((a / sectors) * TWO_PI - Math.PI);
    const c = sectorOfAngle(-Math.acos(u0), sectors);
    const d = sectorOfAngle(-Math.acos(u1), sectors);
    lowerSector[k] = c;
    // Sector c + 1 starts at angle (c + 1)·2π/S − π (negative here): from u = cos of that on.
    lowerBoundaryU[k] = c === d ? Infinity : Math.cos(((c + 1) / sectors) * TWO_PI - Math.PI);
    if (a - b > 1 || d - c > 1)
      throw new Error(`azimuth table: ${cells} cells too coarse for ${sectors} sectors`);
  }
  const boundaryX = new Float64Array(sectors + 1);
  const boundaryY = new Float64Array(sectors + 1);
  for (let s = 0; s <= sectors; s++) {
    boundaryX[s] = Math.cos((s / sectors) * TWO_PI - Math.PI);
    boundaryY[s] = Math.sin((s / sectors) * TWO_PI - Math.PI);
  }
  const t = {
    sectors,
    cells,
    cellsPerU: cells / 2,
    upperSector,
    upperBoundaryU,
    lowerSector,
    lowerBoundaryU,
    boundaryX,
    boundaryY,
  };
  tables.set(sectors, t);
  return t;
}

/**
 * Sector of (x, y) with rangeM = hypot(x, y) already at hand; the origin falls in sector ⌊S/2⌋ (θ = 0)
 * and y = −0 counts as +0 (the negative x axis is θ = π, the last sector).
 */
export function azimuthSector(t: AzimuthSectorTable, x: number, y: number, rangeM: number): number {
  if (!(rangeM > 0)) return t.sectors >> 1;
  const u = x / rangeM;
  // u + 1 ≥ 0 up to rounding, so truncation is the floor (and −0.x truncates to cell 0); a per-point hot
  // path, where `| 0` costs a third of Math.floor of a quotient.
  let k = ((u + 1) * t.cellsPerU) | 0;
  if (k > t.cells) k = t.cells;
  if (y >= 0) return u > t.upperBoundaryU[k] ? t.upperSector[k] - 1 : t.upperSector[k];
  return u >= t.lowerBoundaryU[k] ? t.lowerSector[k] + 1 : t.lowerSector[k];
}

/**
 * Whether (x, y) lies more than 1e-9 rad inside the sector between boundary directions (bx0, by0) and (bx1, by1)
 * (two cross products, far beyond the rounding of either test), for a caller that keeps one sector's boundaries
 * in locals from point to point. Sectors must be narrower than π (at least 3).
 */
export function insideSector(
  bx0: number,
  by0: number,
  bx1: number,
  by1: number,
  x: number,
  y: number,
  rangeM: number,
): boolean {
  const eps = 1e-9 * rangeM;
  return bx0 * y - by0 * x > eps && x * by1 - y * bx1 > eps;
}

/**
 * azimuthSector, trying `hint` first (−1: none), e.g. the sector of the previous point of a scan, where
 * consecutive points mostly share one: a point inside the hint's two boundaries (insideSector) is in it; any
 * other point is looked up as usual. Needs at least 3 sectors (each narrower than π).
 */
export function azimuthSectorNear(
  t: AzimuthSectorTable,
  x: number,
  y: number,
  rangeM: number,
  hint: number,
): number {
  if (hint >= 0 && t.sectors >= 3) {
    const bx = t.boundaryX;
    const by = t.boundaryY;
    if (insideSector(bx[hint], by[hint], bx[hint + 1], by[hint + 1], x, y, rangeM)) return hint;
  }
  return azimuthSector(t, x, y, rangeM);
}
