// One BVH traversal per LiDAR column instead of one per ray: a spinning LiDAR's beams at one azimuth share origin
// and vertical plane, so a node is tested once against the fan (2-D slab, then its slope range → beams); a packet
// traversal in the manner of Wald et al., "Interactive rendering with coherent ray tracing" (2001).
import { type BvhCaster, castRay } from './packedBvh.ts';

/**
 * Per-beam state of one column: directions in, nearest hits out, plus the traversal stack. The beams of a column
 * lie in one vertical half-plane through the origin, with horizontal unit direction (ua, ub): beam b's ray is
 * o + t·(dx, dy, dz), its horizontal distance from o is t·hs[b] and its slope dz / hs is slope[b], strictly
 * decreasing in b. A mesh in its own scaled frame (an agent template) keeps this form, so one packet type serves
 * the static world and the agents.
 */
export interface ColumnPacket {
  beams: number;
  /** World elevations: tan, cos, sin per beam (top beam first). */
  tanEl: Float64Array;
  cosEl: Float64Array;
  sinEl: Float64Array;
  dx: Float64Array;
  dy: Float64Array;
  dz: Float64Array;
  slope: Float64Array;
  hs: Float64Array;
  /** In: the farthest t each beam may hit (0 for a beam not to cast). Out: the nearest hit's t. Shared, so a
   * second packet cast (agents after the static world) continues from the first one's hits. */
  best: Float64Array;
  /** Out: triangle index where a cast improved best[b]; the caller sets −1 before casting. */
  tri: Int32Array;
  /** best[] on entry to castColumn, and beams where two triangles met the ray at the same t (see castColumn). */
  prior: Float64Array;
  tie: Uint8Array;
  stackNode: Int32Array;
  stackLo: Int32Array;
  stackHi: Int32Array;
  stackH: Float64Array;
}

export function createColumnPacket(elevRad: Float64Array, shareHitsWith?: ColumnPacket): ColumnPacket {
  const nb = elevRad.length;
  const sinEl = elevRad.map(Math.sin);
  const cosEl = elevRad.map(Math.cos);
  const tanEl = elevRad.map(Math.tan);
  return {
    beams: nb,
    tanEl,
    cosEl,
    sinEl,
    dx: new Float64Array(nb),
    dy: new Float64Array(nb),
    dz: Float64Array.from(sinEl),
    slope: Float64Array.from(tanEl),
    hs: Float64Array.from(cosEl),
    best: shareHitsWith ? shareHitsWith.best : new Float64Array(nb),
    tri: new Int32Array(nb).fill(-1),
    prior: new Float64Array(nb),
    tie: new Uint8Array(nb),
    stackNode: new Int32Array(256),
    stackLo: new Int32Array(256),
    stackHi: new Int32Array(256),
    stackH: new Float64Array(256),
  };
}

/**
 * World directions at world azimuth (cos, sin) = (ca, sa): dx = cosEl·ca, dy = cosEl·sa, dz = sinEl (the products
 * renderColumns forms per ray); slope and hs stay tan and cos of the elevation.
 */
export function setColumnDirections(p: ColumnPacket, ca: number, sa: number): void {
  for (let b = 0; b < p.beams; b++) {
    p.dx[b] = p.cosEl[b] * ca;
    p.dy[b] = p.cosEl[b] * sa;
  }
}

// Slack on the culling tests (metres, slope): they only decide which boxes to open, so erring wide costs a few
// extra tests, never a missed hit to rounding.
const H_EPS = 1e-6;
const S_EPS = 1e-7;

/**
 * Nearest hit of beams [lo0, hi0] of one column (origin o, horizontal unit direction (ua, ub), per-beam arrays as
 * set by the caller) with the BVH: updates p.best and p.tri where a triangle is nearer than p.best. Per ray the triangle test is the same Möller–Trumbore
 * arithmetic as castRay, so the same hits come out; the origin's terms (s = o − a, q = s × e1, e2·q) are formed
 * once per triangle for the whole column. Where two triangles meet a ray at exactly the same t (coplanar
 * parts, e.g. a window on a body panel) the winner depends on the visiting order, so such a beam is cast again
 * with castRay: the result is castRay's, tie-break included.
 */
export function castColumn(
  c: BvhCaster,
  p: ColumnPacket,
  ox: number,
  oy: number,
  oz: number,
  ua: number,
  ub: number,
  lo0: number,
  hi0: number,
): void {
  const f32 = c.f32;
  const u32 = c.u32;
  const u16 = c.u16;
  const tris = c.bvh.tris;
  const slope = p.slope;
  const hs = p.hs;
  const dzA = p.dz;
  const dxA = p.dx;
  const dyA = p.dy;
  const best = p.best;
  const triOut = p.tri;
  const stackNode = p.stackNode;
  const stackLo = p.stackLo;
  const stackHi = p.stackHi;
  const stackH = p.stackH;
  const tie = p.tie;
  let ties = 0;
  for (let b = lo0; b <= hi0; b++) {
    p.prior[b] = best[b];
    tie[b] = 0;
  }
  // Horizontal slabs: the fan's footprint is the half-line o + h·(ca, sa), h ≥ 0.
  const ix = 1 / ua;
  const iy = 1 / ub;
  const nx = ix >= 0 ? 0 : 3;
  const ny = iy >= 0 ? 1 : 4;
  const fx = 3 - nx;
  const fy = 5 - ny;
  // The root is opened whole; each child is tested below before it is pushed.
  stackNode[0] = 0;
  stackLo[0] = lo0;
  stackHi[0] = hi0;
  stackH[0] = 0;
  let sp = 1;
  while (sp > 0) {
    sp--;
    const n32 = stackNode[sp];
    let lo = stackLo[sp];
    let hi = stackHi[sp];
    const h0 = stackH[sp];
    // Beams whose current hit lies before the box cannot be improved by it.
    while (lo <= hi && best[lo] * hs[lo] < h0 - H_EPS) lo++;
    while (hi >= lo && best[hi] * hs[hi] < h0 - H_EPS) hi--;
    if (lo > hi) continue;
    const n16 = n32 << 1;
    if (u16[n16 + 15] === 0xffff) {
      const offset = u32[n32 + 6];
      const end = offset + u16[n16 + 14];
      for (let k = offset; k < end; k++) {
        const o = 9 * k;
        const e1x = tris[o + 3];
        const e1y = tris[o + 4];
        const e1z = tris[o + 5];
        const e2x = tris[o + 6];
        const e2y = tris[o + 7];
        const e2z = tris[o + 8];
        const sx = ox - tris[o];
        const sy = oy - tris[o + 1];
        const sz = oz - tris[o + 2];
        const qx = sy * e1z - sz * e1y;
        const qy = sz * e1x - sx * e1z;
        const qz = sx * e1y - sy * e1x;
        const tq = e2x * qx + e2y * qy + e2z * qz;
        for (let b = lo; b <= hi; b++) {
          const dx = dxA[b];
          const dy = dyA[b];
          const dz = dzA[b];
          const px = dy * e2z - dz * e2y;
          const py = dz * e2x - dx * e2z;
          const pz = dx * e2y - dy * e2x;
          const det = e1x * px + e1y * py + e1z * pz;
          if (det > -1e-12 && det < 1e-12) continue;
          const inv = 1 / det;
          const u = (sx * px + sy * py + sz * pz) * inv;
          if (u < 0 || u > 1) continue;
          const v = (dx * qx + dy * qy + dz * qz) * inv;
          if (v < 0 || u + v > 1) continue;
          const t = tq * inv;
          if (t > 1e-6 && t < best[b]) {
            best[b] = t;
            triOut[b] = k;
          } else if (t === best[b] && triOut[b] >= 0) {
            tie[b] = 1;
            ties++;
          }
        }
      }
      continue;
    }
    // Both children: horizontal interval, then the beams whose slope meets the box's z range over it.
    const left = n32 + 8;
    const right = n32 + u32[n32 + 6] * 8;
    let lLo = lo;
    let lHi = hi;
    let lH = -1;
    let rLo = lo;
    let rHi = hi;
    let rH = -1;
    for (let side = 0; side < 2; side++) {
      const m = side === 0 ? left : right;
      let a0 = (f32[m + nx] - ox) * ix;
      let a1 = (f32[m + fx] - ox) * ix;
      const b0 = (f32[m + ny] - oy) * iy;
      const b1 = (f32[m + fy] - oy) * iy;
      if (b0 > a0) a0 = b0;
      if (b1 < a1) a1 = b1;
      a0 -= H_EPS;
      a1 += H_EPS;
      if (!(a0 <= a1) || a1 < 0) continue;
      if (a0 < 0) a0 = 0;
      const zLo = f32[m + 2] - oz;
      const zHi = f32[m + 5] - oz;
      // Steepest and shallowest slope from the origin to the box's z range within [a0, a1].
      const sHi = (zHi >= 0 ? (a0 > 0 ? zHi / a0 : Infinity) : zHi / a1) + S_EPS;
      const sLo = (zLo <= 0 ? (a0 > 0 ? zLo / a0 : -Infinity) : zLo / a1) - S_EPS;
      let bl = lo;
      let bh = hi;
      while (bl <= bh && slope[bl] > sHi) bl++;
      while (bh >= bl && slope[bh] < sLo) bh--;
      while (bl <= bh && best[bl] * hs[bl] < a0) bl++;
      while (bh >= bl && best[bh] * hs[bh] < a0) bh--;
      if (bl > bh) continue;
      if (side === 0) {
        lLo = bl;
        lHi = bh;
        lH = a0;
      } else {
        rLo = bl;
        rHi = bh;
        rH = a0;
      }
    }
    // Push the farther child first so the nearer one is opened next (front to back).
    if (lH >= 0 && rH >= 0) {
      const lFirst = lH <= rH;
      stackNode[sp] = lFirst ? right : left;
      stackLo[sp] = lFirst ? rLo : lLo;
      stackHi[sp] = lFirst ? rHi : lHi;
      stackH[sp++] = lFirst ? rH : lH;
      stackNode[sp] = lFirst ? left : right;
      stackLo[sp] = lFirst ? lLo : rLo;
      stackHi[sp] = lFirst ? lHi : rHi;
      stackH[sp++] = lFirst ? lH : rH;
    } else if (lH >= 0) {
      stackNode[sp] = left;
      stackLo[sp] = lLo;
      stackHi[sp] = lHi;
      stackH[sp++] = lH;
    } else if (rH >= 0) {
      stackNode[sp] = right;
      stackLo[sp] = rLo;
      stackHi[sp] = rHi;
      stackH[sp++] = rH;
    }
  }
  if (ties === 0) return;
  for (let b = lo0; b <= hi0; b++) {
    if (tie[b] === 0) continue;
    if (castRay(c, ox, oy, oz, p.dx[b], p.dy[b], p.dz[b], p.prior[b])) {
      best[b] = c.t;
      triOut[b] = c.tri;
    }
  }
}
