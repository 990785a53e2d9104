// Building blocks for the simulated scene: three.js geometries turned into flat triangle soups that carry a
// material id per triangle, placed with a matrix, merged, and fitted to a box (templates fill their box exactly).
import { type BufferGeometry, ExtrudeGeometry, Matrix4, Shape, Vector2 } from 'three';

/** Triangles as 9 floats each (a, b, c) with one material id per triangle. */
export interface TaggedGeometry {
  positions: Float32Array;
  materials: Uint8Array;
}

export function triangleCount(t: TaggedGeometry): number {
  return t.materials.length;
}

/** A three.js geometry as tagged triangles, transformed by `matrix` (Z is up in the world). */
export function tag(geo: BufferGeometry, material: number, matrix?: Matrix4): TaggedGeometry {
  const flat = geo.index ? geo.toNonIndexed() : geo;
  if (matrix) flat.applyMatrix4(matrix);
  const pos = flat.getAttribute('position').array as Float32Array;
  const positions = Float32Array.from(pos);
  const materials = new Uint8Array(positions.length / 9).fill(material);
  flat.dispose();
  if (flat !== geo) geo.dispose();
  return { positions, materials };
}

export function mergeTagged(parts: readonly TaggedGeometry[]): TaggedGeometry {
  let n = 0;
  for (const p of parts) n += p.materials.length;
  const positions = new Float32Array(9 * n);
  const materials = new Uint8Array(n);
  let k = 0;
  for (const p of parts) {
    positions.set(p.positions, 9 * k);
    materials.set(p.materials, k);
    k += p.materials.length;
  }
  return { positions, materials };
}

export function transformTagged(t: TaggedGeometry, m: Matrix4): TaggedGeometry {
  const e = m.elements; // column-major
  const out = new Float32Array(t.positions.length);
  for (let i = 0; i < t.positions.length; i += 3) {
    const x = t.positions[i];
    const y = t.positions[i + 1];
    const z = t.positions[i + 2];
    out[i] = e[0] * x + e[4] * y + e[8] * z + e[12];
    out[i + 1] = e[1] * x + e[5] * y + e[9] * z + e[13];
    out[i + 2] = e[2] * x + e[6] * y + e[10] * z + e[14];
  }
  return { positions: out, materials: t.materials };
}

export function boundsOf(t: TaggedGeometry): [number, number, number, number, number, number] {
  const b: [number, number, number, number, number, number] = [
    Infinity,
    Infinity,
    Infinity,
    -Infinity,
    -Infinity,
    -Infinity,
  ];
  for (let i = 0; i < t.positions.length; i += 3) {
    for (let k = 0; k < 3; k++) {
      b[k] = Math.min(b[k], t.positions[i + k]);
      b[k + 3] = Math.max(b[k + 3], t.positions[i + k]);
    }
  }
  return b;
}

/** Scale and shift so the bounding box is exactly x, y ∈ [−½, ½], z ∈ [0, 1] (a unit box standing on z = 0). */
export function fitToUnitBox(t: TaggedGeometry): TaggedGeometry {
  const b = boundsOf(t);
  const m = new Matrix4()
    .makeScale(1 / (b[3] - b[0]), 1 / (b[4] - b[1]), 1 / (b[5] - b[2]))
    .multiply(new Matrix4().makeTranslation(-(b[0] + b[3]) / 2, -(b[1] + b[4]) / 2, -b[2]));
  return transformTagged(t, m);
}

/** Matrix placing a part: translate · rotate about z (yaw) · rotate about y (pitch) · rotate about x (roll). */
export function place(x: number, y: number, z: number, yaw = 0, pitch = 0, roll = 0): Matrix4 {
  return new Matrix4()
    .makeTranslation(x, y, z)
    .multiply(new Matrix4().makeRotationZ(yaw))
    .multiply(new Matrix4().makeRotationY(pitch))
    .multiply(new Matrix4().makeRotationX(roll));
}

/**
 * A prism from a side profile: polygon (x forward, z up) extruded across y ∈ [yMin, yMax]. The cheapest way to
 * give vehicles a bonnet, windscreen and boot instead of a box.
 */
export function sideProfilePrism(
  profile: readonly [number, number][],
  yMin: number,
  yMax: number,
  material: number,
): TaggedGeometry {
  const shape = new Shape(profile.map(([x, z]) => new Vector2(x, z)));
  const geo = new ExtrudeGeometry(shape, { depth: yMax - yMin, bevelEnabled: false, curveSegments: 1 });
  // Shape plane (x, y) → world (x, z); extrusion +z → world −y; then shift to [yMin, yMax].
  const m = new Matrix4().makeTranslation(0, yMax, 0).multiply(new Matrix4().makeRotationX(Math.PI / 2));
  return tag(geo, material, m);
}

/** A raised slab from a ground polygon [x0, y0, …] between zBottom and zTop. */
export function polygonSlab(
  xy: ArrayLike<number>,
  zBottom: number,
  zTop: number,
  material: number,
): TaggedGeometry {
  const pts: Vector2[] = [];
  for (let i = 0; i + 1 < xy.length; i += 2) pts.push(new Vector2(xy[i], xy[i + 1]));
  const geo = new ExtrudeGeometry(new Shape(pts), {
    depth: zTop - zBottom,
    bevelEnabled: false,
    curveSegments: 1,
  });
  return tag(geo, material, new Matrix4().makeTranslation(0, 0, zBottom));
}

/**
 * A raised strip between two polylines of equal vertex count (e.g. a sidewalk between curb and back edge): top
 * quads plus both side faces and end caps. Small quads keep the BVH tight, unlike triangulating one long polygon.
 */
export function stripSlab(
  inner: ArrayLike<number>,
  outer: ArrayLike<number>,
  zBottom: number,
  zTop: number,
  material: number,
): TaggedGeometry {
  const n = inner.length >> 1;
  if (outer.length !== inner.length || n < 2)
    throw new Error('stripSlab: polylines must have the same ≥ 2 vertices');
  const tris: number[] = [];
  const quad = (a: number[], b: number[], c: number[], d: number[]) =>
    tris.push(...a, ...b, ...c, ...a, ...c, ...d);
  const P = (xy: ArrayLike<number>, i: number, z: number) => [xy[2 * i], xy[2 * i + 1], z];
  for (let i = 0; i + 1 < n; i++) {
    quad(P(inner, i, zTop), P(inner, i + 1, zTop), P(outer, i + 1, zTop), P(outer, i, zTop));
    quad(P(inner, i, zBottom), P(inner, i + 1, zBottom), P(inner, i + 1, zTop), P(inner, i, zTop));
    quad(P(outer, i, zBottom), P(outer, i + 1, zBottom), P(outer, i + 1, zTop), P(outer, i, zTop));
  }
  quad(P(inner, 0, zBottom), P(outer, 0, zBottom), P(outer, 0, zTop), P(inner, 0, zTop));
  quad(P(inner, n - 1, zBottom), P(outer, n - 1, zBottom), P(outer, n - 1, zTop), P(inner, n - 1, zTop));
  const positions = Float32Array.from(tris);
  return { positions, materials: new Uint8Array(positions.length / 9).fill(material) };
}
