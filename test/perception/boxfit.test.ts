// Box fitting: an L-shaped view of a car gives its heading and footprint, the box reaches down to the
// ground, and the documented filters drop tall, floating, tiny, long and sparse clusters.
import { describe, expect, it } from 'vitest';
import { closenessRect, columnHull, fitBoxes, padFootprint } from '../../perception/boxfit.ts';
import { convexHull, polygonArea } from '../../core/geometry/polygon.ts';
import type { ClusterResult } from '../../perception/cluster.ts';
import { flatGroundModel } from '../../perception/ground.ts';
import { wrapHalfTurn } from '../../perception/kalman.ts';
import { mulberry32 } from './scene.ts';

/** Points on the two sides of a rectangle facing the origin (what a LiDAR sees of a car), z in [z0, z1]. */
function lView(
  cx: number,
  cy: number,
  l: number,
  w: number,
  yaw: number,
  n: number,
  z0: number,
  z1: number,
  seed = 1,
) {
  const rnd = mulberry32(seed);
  const c = Math.cos(yaw);
  const s = Math.sin(yaw);
  const corners = [
    [l / 2, -w / 2],
    [l / 2, w / 2],
    [-l / 2, w / 2],
    [-l / 2, -w / 2],
  ].map(([u, v]) => [cx + c * u - s * v, cy + s * u + c * v]);
  // The corner nearest the origin and its two edges.
  let k = 0;
  corners.forEach((p, i) =>
    Math.hypot(p[0], p[1]) < Math.hypot(corners[k][0], corners[k][1]) ? (k = i) : 0,
  );
  const a = corners[k];
  const edges = [corners[(k + 1) % 4], corners[(k + 3) % 4]];
  const xs: number[] = [];
  const ys: number[] = [];
  const zs: number[] = [];
  for (let i = 0; i < n; i++) {
    const e = edges[i % 2];
    const t = rnd();
    xs.push(a[0] + t * (e[0] - a[0]) + (rnd() - 0.5) * 0.03);
    ys.push(a[1] + t * (e[1] - a[1]) + (rnd() - 0.5) * 0.03);
    zs.push(z0 + rnd() * (z1 - z0));
  }
  return { xs, ys, zs };
}

function asCluster(parts: { xs: number[]; ys: number[]; zs: number[] }[]) {
  const x = parts.flatMap((p) => p.xs);
  const y = parts.flatMap((p) => p.ys);
  const z = parts.flatMap((p) => p.zs);
  const labels = Int32Array.from(parts.flatMap((p, k) => p.xs.map(() => k)));
  const pts = { x: Float32Array.from(x), y: Float32Array.from(y), z: Float32Array.from(z) };
  const clusters: ClusterResult = { labels, count: parts.length };
  return { pts, clusters };
}

describe('box fitting', () => {
  it('recovers heading and footprint of a car seen as an L, where the plain minimum-area rectangle turns', () => {
    for (const yaw of [0.2, -0.7, 1.3]) {
      const v = lView(12, 5, 4.5, 1.8, yaw, 400, 0.3, 1.5, 3);
      const xs = Float64Array.from(v.xs);
      const ys = Float64Array.from(v.ys);
      const r = closenessRect(xs, ys, xs.length, 1, 256);
      expect(Math.abs(wrapHalfTurn(r.yaw - yaw))).toBeLessThan(0.05);
      expect(r.length).toBeCloseTo(4.5, 0);
      expect(r.width).toBeCloseTo(1.8, 0);
      const { pts, clusters } = asCluster([v]);
      const b = fitBoxes(pts, clusters, flatGroundModel(0)).boxes;
      expect(b.cx.length).toBe(1);
      expect(Math.abs(wrapHalfTurn(b.yaw[0] - yaw))).toBeLessThan(0.05);
      expect(Math.hypot(b.cx[0] - 12, b.cy[0] - 5)).toBeLessThan(0.15);
      // The hull of an L is nearly a triangle: its smallest rectangle lies along the hypotenuse.
      const m = fitBoxes(pts, clusters, flatGroundModel(0), { method: 'minArea' }).boxes;
      expect(Math.abs(wrapHalfTurn(m.yaw[0] - yaw))).toBeGreaterThan(0.2);
    }
  });

  it('extends boxes down to the ground and keeps the cluster top', () => {
    const v = lView(10, 0, 4, 1.8, 0.1, 300, 0.35, 1.5);
    const { pts, clusters } = asCluster([v]);
    const b = fitBoxes(pts, clusters, flatGroundModel(-0.2)).boxes;
    expect(b.cz[0] - b.height[0] / 2).toBeCloseTo(-0.2, 5);
    expect(b.cz[0] + b.height[0] / 2).toBeCloseTo(Math.max(...v.zs), 5);
    expect(b.numPoints[0]).toBe(300);
    const off = fitBoxes(pts, clusters, flatGroundModel(-0.2), { extendToGround: false }).boxes;
    expect(off.cz[0] - off.height[0] / 2).toBeCloseTo(Math.min(...v.zs), 5);
  });

  it('drops clusters the filters name: too tall, floating, too long, too small, too few points', () => {
    const parts = [
      lView(10, 0, 4, 1.8, 0, 300, 0, 1.5, 1), // kept: a car
      lView(-10, 5, 1, 1, 0, 300, 0, 6, 2), // 6 m tall
      lView(5, -10, 2, 2, 0, 300, 2.5, 3.5, 3), // floats 2.5 m up (a canopy)
      lView(20, 10, 14, 0.4, 0.3, 300, 0, 2, 4), // a 14 m wall
      lView(-5, -8, 0.15, 0.15, 0, 300, 0, 0.5, 5), // 0.15 × 0.15 × 0.5 m: under the minimum volume
      lView(15, -15, 2, 1, 0, 5, 0, 1, 6), // 5 points, under the minimum of 6
    ];
    const { pts, clusters } = asCluster(parts);
    const r = fitBoxes(pts, clusters, flatGroundModel(0));
    expect(r.stats.kept).toBe(1);
    expect(r.boxes.cx[0]).toBeCloseTo(10, 0);
    expect(r.stats.rejected).toEqual({ points: 1, floating: 1, height: 1, size: 1, volume: 1 });
  });

  it('rejects an over-long cluster as too long at every yaw, whether or not its axis-aligned extent shows it', () => {
    // At 45° a 12 m × 0.4 m wall spans only 8.8 m in x and y (under the 10.8 m diagonal of the largest
    // box): the full rectangle fit must catch it; along an axis the extent alone does.
    for (let k = 0; k < 8; k++) {
      const yaw = (k / 8) * Math.PI;
      const { pts, clusters } = asCluster([lView(15, 5, 12, 0.4, yaw, 400, 0, 2, 1)]);
      const r = fitBoxes(pts, clusters, flatGroundModel(0));
      expect(r.stats.kept).toBe(0);
      expect(r.stats.rejected.size).toBe(1);
    }
  });

  it('lowers the point minimum with range when asked: a far 5-point object is kept, a near one is not', () => {
    const parts = [
      lView(5, 2, 0.6, 0.5, 0, 5, 0, 1.7, 1), // a pedestrian at 5 m, 5 points
      lView(30, 2, 0.6, 0.5, 0, 5, 0, 1.7, 2), // the same at 30 m
    ];
    const { pts, clusters } = asCluster(parts);
    const cfg = { minPoints: 10, minPointsRefRangeM: 10, minPointsFloor: 4, minVolumeM3: 0 };
    const r = fitBoxes(pts, clusters, flatGroundModel(0), cfg);
    // At 30 m the minimum is max(4, 10·(10/30)²) = 4.
    expect(r.stats.kept).toBe(1);
    expect(r.boxes.cx[0]).toBeCloseTo(30, 0);
    expect(fitBoxes(pts, clusters, flatGroundModel(0), { ...cfg, minPointsRefRangeM: 0 }).stats.kept).toBe(0);
  });

  it('grows a small footprint to the minimum away from the sensor, keeping the side the points are on', () => {
    // A pedestrian's front at 10 m straight ahead: 0.5 m across (y), 0.2 m deep (x), nearest side x = 9.9.
    const rect = { cx: 10, cy: 3, length: 0.5, width: 0.2, yaw: Math.PI / 2 };
    padFootprint(rect, 0.6);
    expect(rect.length).toBeCloseTo(0.6, 9);
    expect(rect.width).toBeCloseTo(0.6, 9);
    // Width (along x) grew by 0.4 m, all of it behind: the near side stays at x = 9.9.
    expect(rect.cx - rect.width / 2).toBeCloseTo(9.9, 9);
    // Length (along y) grew by 0.1 m away from the sensor (+y side): the near side stays at y = 2.75.
    expect(rect.cy - rect.length / 2).toBeCloseTo(2.75, 9);
    const big = { cx: -20, cy: 0, length: 4, width: 1.8, yaw: 0 };
    padFootprint(big, 0.6);
    expect(big).toEqual({ cx: -20, cy: 0, length: 4, width: 1.8, yaw: 0 });
  });

  it('column hull of a large cluster matches the sorted convex hull to within the column width', () => {
    const rnd = mulberry32(9);
    for (const m of [100, 5000, 30000]) {
      const xs = new Float64Array(m);
      const ys = new Float64Array(m);
      for (let i = 0; i < m; i++) {
        const a = rnd() * 2 * Math.PI;
        const r = Math.sqrt(rnd()) * 3;
        xs[i] = 5 + 2 * r * Math.cos(a);
        ys[i] = r * Math.sin(a) + 0.3 * xs[i];
      }
      const fast = columnHull(xs, ys, m);
      const exact = convexHull(xs, ys);
      expect(polygonArea(fast)).toBeGreaterThan(0);
      // Every point lies inside (or within 2 cm of) the fast hull: signed distance to each CCW edge.
      const h = fast.length / 2;
      let worst = 0;
      for (let i = 0; i < m; i += 7) {
        for (let e = 0; e < h; e++) {
          const ax = fast[2 * e];
          const ay = fast[2 * e + 1];
          const bx = fast[(2 * e + 2) % (2 * h)];
          const by = fast[(2 * e + 3) % (2 * h)];
          const out = ((bx - ax) * (ys[i] - ay) - (by - ay) * (xs[i] - ax)) / Math.hypot(bx - ax, by - ay);
          worst = Math.max(worst, -out);
        }
      }
      expect(worst).toBeLessThan(0.02);
      expect(polygonArea(fast)).toBeCloseTo(polygonArea(exact), 1);
    }
  });

  it('ranks denser clusters higher', () => {
    const { pts, clusters } = asCluster([
      lView(10, 0, 4, 1.8, 0, 400, 0, 1.5, 1),
      lView(-10, 0, 4, 1.8, 0, 20, 0, 1.5, 2),
    ]);
    const b = fitBoxes(pts, clusters, flatGroundModel(0)).boxes;
    expect(b.score[0]).toBeGreaterThan(b.score[1]);
    expect(b.score[0]).toBeLessThanOrEqual(1);
  });
});
