// Ground material of the town on a 0.2 m grid: asphalt, white paint (lane and edge lines, zebra crossings,
// stop lines), grass and bare soil, so LiDAR intensity shows road markings as on real streets.
import type { GroundMap } from '../lidar/lidarWorld.ts';
import { MAT } from '../lidar/materials.ts';
import { cumulativeArcLength, pointAtArcLength } from '../../core/geometry/polyline.ts';
import { offsetPolyline, slicePolyline } from './roadNetwork.ts';
import { Rng } from '../../core/rng.ts';
import type { Town } from './town.ts';

const CELL_M = 0.2;
const MARGIN_M = 140;

function fillPolygon(g: GroundMap, xy: ArrayLike<number>, material: number): void {
  const n = xy.length >> 1;
  let yMin = Infinity;
  let yMax = -Infinity;
  for (let i = 0; i < n; i++) {
    yMin = Math.min(yMin, xy[2 * i + 1]);
    yMax = Math.max(yMax, xy[2 * i + 1]);
  }
  const j0 = Math.max(0, Math.floor((yMin - g.y0) / g.cellM));
  const j1 = Math.min(g.rows - 1, Math.ceil((yMax - g.y0) / g.cellM));
  const xs: number[] = [];
  for (let j = j0; j <= j1; j++) {
    const yc = g.y0 + (j + 0.5) * g.cellM;
    xs.length = 0;
    for (let i = 0; i < n; i++) {
      const k = (i + 1) % n;
      const ya = xy[2 * i + 1];
      const yb = xy[2 * k + 1];
      if ((ya <= yc && yb > yc) || (yb <= yc && ya > yc)) {
        xs.push(xy[2 * i] + ((yc - ya) / (yb - ya)) * (xy[2 * k] - xy[2 * i]));
      }
    }
    xs.sort((a, b) => a - b);
    for (let q = 0; q + 1 < xs.length; q += 2) {
      const i0 = Math.max(0, Math.ceil((xs[q] - g.x0) / g.cellM - 0.5));
      const i1 = Math.min(g.cols - 1, Math.floor((xs[q + 1] - g.x0) / g.cellM - 0.5));
      for (let i = i0; i <= i1; i++) g.material[j * g.cols + i] = material;
    }
  }
}

/** Paint a line of the given width along a polyline; dashed when `dashM` is given ([on, off] metres). */
function paintLine(g: GroundMap, xy: Float32Array, widthM: number, dashM?: [number, number]): void {
  const cum = cumulativeArcLength(xy);
  const total = cum[cum.length - 1];
  const half = widthM / 2;
  for (let s = 0; s <= total; s += CELL_M / 2) {
    if (dashM && s % (dashM[0] + dashM[1]) > dashM[0]) continue;
    const p = pointAtArcLength(xy, s, cum);
    const nx = -Math.sin(p.heading);
    const ny = Math.cos(p.heading);
    for (let l = -half; l <= half + 1e-9; l += CELL_M / 2) {
      const i = Math.floor((p.x + nx * l - g.x0) / g.cellM);
      const j = Math.floor((p.y + ny * l - g.y0) / g.cellM);
      if (i >= 0 && j >= 0 && i < g.cols && j < g.rows) g.material[j * g.cols + i] = MAT.lanePaint;
    }
  }
}

export function townGroundRaster(town: Town): GroundMap {
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const n of town.network.nodes) {
    x0 = Math.min(x0, n.x);
    x1 = Math.max(x1, n.x);
    y0 = Math.min(y0, n.y);
    y1 = Math.max(y1, n.y);
  }
  x0 -= MARGIN_M;
  y0 -= MARGIN_M;
  const cols = Math.ceil((x1 + MARGIN_M - x0) / CELL_M);
  const rows = Math.ceil((y1 + MARGIN_M - y0) / CELL_M);
  const g: GroundMap = {
    x0,
    y0,
    cellM: CELL_M,
    cols,
    rows,
    material: new Uint8Array(cols * rows),
    outside: MAT.grass,
  };
  // Grass with patches of bare soil: thresholded value noise on a 6 m lattice.
  const rng = new Rng(town.config.seed, 'mulberry32').fork('ground');
  const lat = 6;
  const lc = Math.ceil((cols * CELL_M) / lat) + 2;
  const lr = Math.ceil((rows * CELL_M) / lat) + 2;
  const lattice = Float32Array.from({ length: lc * lr }, () => rng.next());
  for (let j = 0; j < rows; j++) {
    const fy = (j * CELL_M) / lat;
    const jy = Math.floor(fy);
    const ty = fy - jy;
    for (let i = 0; i < cols; i++) {
      const fx = (i * CELL_M) / lat;
      const ix = Math.floor(fx);
      const tx = fx - ix;
      const a = lattice[jy * lc + ix] * (1 - tx) + lattice[jy * lc + ix + 1] * tx;
      const b = lattice[(jy + 1) * lc + ix] * (1 - tx) + lattice[(jy + 1) * lc + ix + 1] * tx;
      g.material[j * cols + i] = a * (1 - ty) + b * ty > 0.68 ? MAT.soil : MAT.grass;
    }
  }
  for (const d of town.map.drivableAreas) fillPolygon(g, d.xy, MAT.asphalt);
  const w = town.config.laneWidthM;
  const cw = town.config.crosswalkWidthM;
  for (const road of town.network.roads) {
    const n = road.lanesPerDir;
    // Centre line: dashed on single-lane roads, solid double on multi-lane roads.
    if (n === 1) paintLine(g, road.ref, 0.15, [3, 6]);
    else {
      paintLine(g, offsetPolyline(road.ref, 0.15), 0.12);
      paintLine(g, offsetPolyline(road.ref, -0.15), 0.12);
      for (const side of [1, -1]) paintLine(g, offsetPolyline(road.ref, side * w), 0.12, [3, 6]);
    }
    // Edge of the carriageway: solid, or dashed along a parking strip.
    paintLine(
      g,
      offsetPolyline(road.ref, n * w - (road.parkingLeft ? 0 : 0.3)),
      0.15,
      road.parkingLeft ? [1, 2] : undefined,
    );
    paintLine(
      g,
      offsetPolyline(road.ref, -(n * w - (road.parkingRight ? 0 : 0.3))),
      0.15,
      road.parkingRight ? [1, 2] : undefined,
    );
    // Zebra crossings: bars along the road, 0.5 m wide every metre across it, at junctions with ≥ 3 arms.
    for (const [node, s0] of [
      [road.nodeA, 0.5],
      [road.nodeB, road.lengthM - 0.5 - cw],
    ] as const) {
      if (town.network.nodes[node].degree < 3) continue;
      const part = slicePolyline(road.ref, road.cum, s0, s0 + cw);
      for (let off = -road.halfWidthRightM + 0.5; off < road.halfWidthLeftM - 0.25; off += 1) {
        paintLine(g, offsetPolyline(part, off), 0.5);
      }
    }
  }
  for (const s of town.map.stopLines) paintLine(g, s.xy, 0.4);
  return g;
}
