// Allocation-free ray casting through a three-mesh-bvh BVH (SAH): its serialized nodes walked with a typed-array
// stack, triangles stored in leaf order as (a, b−a, c−a) for Möller–Trumbore; shareable with workers.
import { BufferAttribute, BufferGeometry } from 'three';
import { MeshBVH, SAH } from 'three-mesh-bvh';
import type { TaggedGeometry } from './meshKit.ts';

export interface PackedBvh {
  /** three-mesh-bvh's serialized root: 32 bytes per node (6 float32 bounds, then offset/count or child/axis). */
  nodes: ArrayBuffer;
  /** 9 floats per triangle, in BVH leaf order: a, e1 = b − a, e2 = c − a. */
  tris: Float32Array;
  /** Material id per triangle (same order). */
  materials: Uint8Array;
  triangleCount: number;
}

/** Build the BVH of a tagged geometry (leaves of up to `leafSize` triangles). */
export function buildPackedBvh(geo: TaggedGeometry, leafSize = 4): PackedBvh {
  const n = geo.materials.length;
  if (n === 0) throw new Error('buildPackedBvh: empty geometry');
  const g = new BufferGeometry();
  g.setAttribute('position', new BufferAttribute(geo.positions, 3));
  const index = n * 3 > 65535 ? new Uint32Array(n * 3) : new Uint16Array(n * 3);
  for (let i = 0; i < index.length; i++) index[i] = i;
  g.setIndex(new BufferAttribute(index, 1));
  const bvh = new MeshBVH(g, { strategy: SAH, targetLeafSize: leafSize, setBoundingBox: false });
  const ser = MeshBVH.serialize(bvh, { cloneBuffers: false });
  if (ser.roots.length !== 1)
    throw new Error(`buildPackedBvh: expected one BVH root, got ${ser.roots.length}`);
  const order = ser.index as Uint16Array | Uint32Array;
  const tris = new Float32Array(9 * n);
  const materials = new Uint8Array(n);
  const p = geo.positions;
  for (let k = 0; k < n; k++) {
    // Vertices are unique per triangle, so the vertex id tells the original triangle.
    const a = order[3 * k];
    const b = order[3 * k + 1];
    const c = order[3 * k + 2];
    const ax = p[3 * a];
    const ay = p[3 * a + 1];
    const az = p[3 * a + 2];
    tris[9 * k] = ax;
    tris[9 * k + 1] = ay;
    tris[9 * k + 2] = az;
    tris[9 * k + 3] = p[3 * b] - ax;
    tris[9 * k + 4] = p[3 * b + 1] - ay;
    tris[9 * k + 5] = p[3 * b + 2] - az;
    tris[9 * k + 6] = p[3 * c] - ax;
    tris[9 * k + 7] = p[3 * c + 1] - ay;
    tris[9 * k + 8] = p[3 * c + 2] - az;
    materials[k] = geo.materials[Math.floor(a / 3)];
  }
  const root = ser.roots[0] as ArrayBuffer;
  return { nodes: root.slice(0), tris, materials, triangleCount: n };
}

/** A reusable caster over one packed BVH: typed-array views and a traversal stack, no allocation per ray. */
export interface BvhCaster {
  bvh: PackedBvh;
  f32: Float32Array;
  u32: Uint32Array;
  u16: Uint16Array;
  stackNode: Int32Array;
  stackT: Float64Array;
  /** After a hit: distance along the ray (in units of the direction vector) and the triangle index. */
  t: number;
  tri: number;
}

export function createCaster(bvh: PackedBvh): BvhCaster {
  return {
    bvh,
    f32: new Float32Array(bvh.nodes),
    u32: new Uint32Array(bvh.nodes),
    u16: new Uint16Array(bvh.nodes),
    stackNode: new Int32Array(256),
    stackT: new Float64Array(256),
    t: Infinity,
    tri: -1,
  };
}

/**
 * Nearest hit of the ray o + t·d with 0 < t < tMax (d need not be unit length; t is in units of d).
 * Returns true on a hit and leaves t and the triangle index in the caster. Triangles are double-sided.
 * The box tests are written out inline (near/far planes picked once per ray by the direction's signs): this
 * loop is the LiDAR's hot path and V8 does not reliably inline a helper with this many arguments.
 */
export function castRay(
  c: BvhCaster,
  ox: number,
  oy: number,
  oz: number,
  dx: number,
  dy: number,
  dz: number,
  tMax: number,
): boolean {
  const f32 = c.f32;
  const u32 = c.u32;
  const u16 = c.u16;
  const tris = c.bvh.tris;
  const stackNode = c.stackNode;
  const stackT = c.stackT;
  const ix = 1 / dx;
  const iy = 1 / dy;
  const iz = 1 / dz;
  // Offsets of the near and far box planes within a node: min at +0..2, max at +3..5.
  const nx = ix >= 0 ? 0 : 3;
  const ny = iy >= 0 ? 1 : 4;
  const nz = iz >= 0 ? 2 : 5;
  const fx = 3 - nx;
  const fy = 5 - ny;
  const fz = 7 - nz;
  let best = tMax;
  let bestTri = -1;
  let t0 = (f32[nx] - ox) * ix;
  let t1 = (f32[fx] - ox) * ix;
  let a = (f32[ny] - oy) * iy;
  let b = (f32[fy] - oy) * iy;
  if (a > t0) t0 = a;
  if (b < t1) t1 = b;
  a = (f32[nz] - oz) * iz;
  b = (f32[fz] - oz) * iz;
  if (a > t0) t0 = a;
  if (b < t1) t1 = b;
  // NaN (a ray lying in a box plane) fails every comparison and counts as a miss.
  if (!(t0 <= t1) || t1 < 0 || t0 > best) {
    c.tri = -1;
    c.t = Infinity;
    return false;
  }
  stackNode[0] = 0;
  stackT[0] = t0;
  let sp = 1;
  while (sp > 0) {
    sp--;
    if (stackT[sp] > best) continue;
    let n32 = stackNode[sp];
    for (;;) {
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
          const px = dy * e2z - dz * e2y;
          const py = dz * e2x - dx * e2z;
          const pz = dx * e2y - dy * e2x;
          const det = e1x * px + e1y * py + e1z * pz;
          if (det > -1e-12 && det < 1e-12) continue;
          const inv = 1 / det;
          const sx = ox - tris[o];
          const sy = oy - tris[o + 1];
          const sz = oz - tris[o + 2];
          const u = (sx * px + sy * py + sz * pz) * inv;
          if (u < 0 || u > 1) continue;
          const qx = sy * e1z - sz * e1y;
          const qy = sz * e1x - sx * e1z;
          const qz = sx * e1y - sy * e1x;
          const v = (dx * qx + dy * qy + dz * qz) * inv;
          if (v < 0 || u + v > 1) continue;
          const t = (e2x * qx + e2y * qy + e2z * qz) * inv;
          if (t > 1e-6 && t < best) {
            best = t;
            bestTri = k;
          }
        }
        break;
      }
      const left = n32 + 8;
      const right = n32 + u32[n32 + 6] * 8;
      let tl = Infinity;
      let tr = Infinity;
      t0 = (f32[left + nx] - ox) * ix;
      t1 = (f32[left + fx] - ox) * ix;
      a = (f32[left + ny] - oy) * iy;
      b = (f32[left + fy] - oy) * iy;
      if (a > t0) t0 = a;
      if (b < t1) t1 = b;
      a = (f32[left + nz] - oz) * iz;
      b = (f32[left + fz] - oz) * iz;
      if (a > t0) t0 = a;
      if (b < t1) t1 = b;
      if (t0 <= t1 && t1 >= 0 && t0 <= best) tl = t0 > 0 ? t0 : 0;
      t0 = (f32[right + nx] - ox) * ix;
      t1 = (f32[right + fx] - ox) * ix;
      a = (f32[right + ny] - oy) * iy;
      b = (f32[right + fy] - oy) * iy;
      if (a > t0) t0 = a;
      if (b < t1) t1 = b;
      a = (f32[right + nz] - oz) * iz;
      b = (f32[right + fz] - oz) * iz;
      if (a > t0) t0 = a;
      if (b < t1) t1 = b;
      if (t0 <= t1 && t1 >= 0 && t0 <= best) tr = t0 > 0 ? t0 : 0;
      // Descend into the nearer child, keep the farther one for later.
      if (tl === Infinity) {
        if (tr === Infinity) break;
        n32 = right;
      } else if (tr === Infinity) {
        n32 = left;
      } else if (tl <= tr) {
        stackNode[sp] = right;
        stackT[sp++] = tr;
        n32 = left;
      } else {
        stackNode[sp] = left;
        stackT[sp++] = tl;
        n32 = right;
      }
    }
  }
  c.tri = bestTri;
  c.t = bestTri >= 0 ? best : Infinity;
  return bestTri >= 0;
}

/** Unit normal of triangle `tri` (orientation arbitrary) written to out[0..2]. */
export function triangleNormal(bvh: PackedBvh, tri: number, out: Float64Array): void {
  const o = 9 * tri;
  const t = bvh.tris;
  const nx = t[o + 4] * t[o + 8] - t[o + 5] * t[o + 7];
  const ny = t[o + 5] * t[o + 6] - t[o + 3] * t[o + 8];
  const nz = t[o + 3] * t[o + 7] - t[o + 4] * t[o + 6];
  const len = Math.hypot(nx, ny, nz) || 1;
  out[0] = nx / len;
  out[1] = ny / len;
  out[2] = nz / len;
}
