// Core geometry against hand-computed values: poses (compose/invert, 90° turns, quaternion = yaw), box
// membership and transforms, BEV IoU of known overlaps, hulls, minimum-area rectangles and polylines.
import { describe, expect, it } from 'vitest';
import {
  bevIou,
  composePoses,
  convexHull,
  pointAtArcLength,
  polylineLength,
  projectOntoPolyline,
  resamplePolyline,
  countPointsInBox,
  identityPose,
  invertPose,
  iou3d,
  minAreaRect,
  pointInBox,
  poseFromQuaternion,
  poseFromTranslationYaw,
  polygonArea,
  transformBox,
  transformPackedPointsInPlace,
  transformPoint,
  transformPointsInPlace,
  type Box3,
} from '../../core/geometry/index.ts';

const box = (o: Partial<Box3> = {}): Box3 => ({
  cx: 0,
  cy: 0,
  cz: 0,
  length: 2,
  width: 2,
  height: 2,
  yaw: 0,
  ...o,
});

describe('poses', () => {
  it('composes and inverts rigid transforms', () => {
    const a = poseFromTranslationYaw(1, 2, 3, 0.7);
    const b = poseFromTranslationYaw(-4, 0.5, 1, -1.9);
    const ab = composePoses(a, b);
    const back = composePoses(invertPose(ab), ab);
    back.forEach((v, i) => expect(v).toBeCloseTo(identityPose()[i], 12));
    // (a·b)·p == a·(b·p)
    const p = transformPoint(b, 0.3, -2, 5);
    const q = transformPoint(a, ...p);
    const r = transformPoint(ab, 0.3, -2, 5);
    q.forEach((v, i) => expect(v).toBeCloseTo(r[i], 12));
  });

  it('rotates a point by 90° about z', () => {
    const [x, y, z] = transformPoint(poseFromTranslationYaw(10, 0, 0, Math.PI / 2), 1, 0, 0);
    expect(x).toBeCloseTo(10, 12);
    expect(y).toBeCloseTo(1, 12);
    expect(z).toBeCloseTo(0, 12);
  });

  it('builds the same rotation from a quaternion as from a yaw', () => {
    const yaw = 0.9;
    const q = poseFromQuaternion(Math.cos(yaw / 2), 0, 0, Math.sin(yaw / 2), 1, 2, 3);
    const y = poseFromTranslationYaw(1, 2, 3, yaw);
    q.forEach((v, i) => expect(v).toBeCloseTo(y[i], 12));
  });

  it('transforms struct-of-arrays and packed points in place', () => {
    const p = poseFromTranslationYaw(1, 0, 0, Math.PI);
    const xs = Float32Array.of(1, 2);
    const ys = Float32Array.of(0, 1);
    const zs = Float32Array.of(0, 0);
    transformPointsInPlace(p, xs, ys, zs);
    expect(Array.from(xs)).toEqual([0, -1].map((v) => expect.closeTo(v, 6)));
    expect(ys[1]).toBeCloseTo(-1, 6);
    const packed = Float32Array.of(1, 0, 0, 9, 2, 1, 0, 9);
    transformPackedPointsInPlace(p, packed, 4);
    expect(packed[0]).toBeCloseTo(0, 6);
    expect(packed[3]).toBe(9);
    expect(packed[5]).toBeCloseTo(-1, 6);
    expect(() => transformPackedPointsInPlace(p, new Float32Array(5), 4)).toThrow(/multiple of 4/);
  });
});

describe('boxes', () => {
  it('tests point membership in a rotated box, boundary included', () => {
    const b = box({ length: 4, width: 2, yaw: Math.PI / 2 });
    expect(pointInBox(b, 0, 1.9, 0)).toBe(true); // along the heading (now +y)
    expect(pointInBox(b, 1.1, 0, 0)).toBe(false); // across it
    expect(pointInBox(b, 0, 2, 1)).toBe(true); // corner of the boundary
    expect(pointInBox(b, 0, 0, 1.01)).toBe(false);
    const xs = Float32Array.of(0, 0, 1.1, 0);
    const ys = Float32Array.of(0, 1.9, 0, 2.5);
    expect(countPointsInBox(b, xs, ys, new Float32Array(4))).toBe(2);
  });

  it('transforms a box with a pose', () => {
    const t = transformBox(poseFromTranslationYaw(5, 0, 0, Math.PI / 2), box({ cx: 1, yaw: 0.1 }));
    expect(t.cx).toBeCloseTo(5, 12);
    expect(t.cy).toBeCloseTo(1, 12);
    expect(t.yaw).toBeCloseTo(Math.PI / 2 + 0.1, 12);
  });
});

describe('IoU', () => {
  it('is 1 for identical boxes, 0 for touching and disjoint ones', () => {
    expect(bevIou(box(), box())).toBeCloseTo(1, 12);
    expect(iou3d(box(), box())).toBeCloseTo(1, 12);
    expect(bevIou(box(), box({ cx: 2 }))).toBe(0); // sharing an edge
    expect(bevIou(box(), box({ cx: 5 }))).toBe(0);
    expect(iou3d(box(), box({ cz: 2 }))).toBe(0); // touching faces vertically
  });

  it('matches hand-computed overlaps', () => {
    // Two 2×2 squares offset by 1 in x: intersection 2, union 6.
    expect(bevIou(box(), box({ cx: 1 }))).toBeCloseTo(1 / 3, 12);
    // 2×2 and a square rotated 45° with the same centre: the octagon area is 8(√2 − 1).
    const inter = 8 * (Math.SQRT2 - 1);
    expect(bevIou(box(), box({ yaw: Math.PI / 4 }))).toBeCloseTo(inter / (8 - inter), 10);
    // 90° rotation of a 4×2 box about its centre: the overlap is the central 2×2 square.
    expect(bevIou(box({ length: 4 }), box({ length: 4, yaw: Math.PI / 2 }))).toBeCloseTo(4 / 12, 12);
    // Half the height overlapping: 3D IoU = 4 / (8 + 8 − 4).
    expect(iou3d(box(), box({ cz: 1 }))).toBeCloseTo(4 / 12, 12);
  });

  it('is 0 for zero-area boxes', () => {
    expect(bevIou(box({ length: 0 }), box())).toBe(0);
    expect(bevIou(box({ width: 0 }), box({ width: 0 }))).toBe(0);
    expect(iou3d(box({ height: 0 }), box({ height: 0 }))).toBe(0);
  });
});

describe('polygons and rectangles', () => {
  it('computes hulls and areas', () => {
    const xs = [0, 1, 1, 0, 0.5];
    const ys = [0, 0, 1, 1, 0.5];
    const h = convexHull(xs, ys);
    expect(h.length).toBe(8);
    expect(polygonArea(h)).toBeCloseTo(1, 12);
  });

  it('fits the minimum-area rectangle of rotated rectangle corners', () => {
    const yaw = 0.4;
    const b = box({ cx: 3, cy: -1, length: 5, width: 2, yaw });
    const c = Math.cos(yaw);
    const s = Math.sin(yaw);
    const xs: number[] = [];
    const ys: number[] = [];
    for (const [u, v] of [
      [2.5, 1],
      [2.5, -1],
      [-2.5, 1],
      [-2.5, -1],
      [0, 0.3],
      [1, -0.5],
    ]) {
      xs.push(b.cx + c * u - s * v);
      ys.push(b.cy + s * u + c * v);
    }
    const r = minAreaRect(xs, ys);
    expect(r.length).toBeCloseTo(5, 9);
    expect(r.width).toBeCloseTo(2, 9);
    expect(r.cx).toBeCloseTo(3, 9);
    expect(r.cy).toBeCloseTo(-1, 9);
    expect(r.yaw).toBeCloseTo(yaw, 9);
  });

  it('handles degenerate inputs: one point, collinear points', () => {
    expect(minAreaRect([2], [3])).toEqual({ cx: 2, cy: 3, length: 0, width: 0, yaw: 0 });
    const r = minAreaRect([0, 1, 2], [0, 1, 2]);
    expect(r.length).toBeCloseTo(2 * Math.SQRT2, 9);
    expect(r.width).toBeCloseTo(0, 9);
    expect(r.yaw).toBeCloseTo(Math.PI / 4, 9);
    expect(() => minAreaRect([], [])).toThrow(/no points/);
  });
});

describe('polylines', () => {
  const L = [0, 0, 10, 0, 10, 5];
  it('measures, interpolates and projects', () => {
    expect(polylineLength(L)).toBe(15);
    const p = pointAtArcLength(L, 12);
    expect(p.x).toBeCloseTo(10, 12);
    expect(p.y).toBeCloseTo(2, 12);
    expect(p.heading).toBeCloseTo(Math.PI / 2, 12);
    expect(pointAtArcLength(L, 99).y).toBe(5); // clamped
    const left = projectOntoPolyline(L, 4, 1);
    expect(left.s).toBeCloseTo(4, 12);
    expect(left.lateral).toBeCloseTo(1, 12);
    const right = projectOntoPolyline(L, 11, 3);
    expect(right.s).toBeCloseTo(13, 12);
    expect(right.lateral).toBeCloseTo(-1, 12);
    const r = resamplePolyline(L, 1);
    expect(r.length / 2).toBe(16);
    expect(r[r.length - 1]).toBe(5);
  });
});
