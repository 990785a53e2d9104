// Geometry of each junction's corners: the raised sidewalk patch between two neighbouring arms, its curb
// (chamfered where two roads meet at a right angle) and the pedestrian path around the corner.
import { ARM_DIRS, type RoadNetwork, type TownNode, type TownRoad, armHalfWidth } from './roadNetwork.ts';
import type { TownConfig } from './townConfig.ts';

export interface JunctionCorner {
  nodeId: number;
  /** Arm the corner starts at and the next present arm counter-clockwise. */
  fromArm: number;
  toArm: number;
  /** Raised sidewalk polygon filling the junction square beyond the curb. */
  patch: Float32Array;
  /** Curb polyline from the left curb of `fromArm` to the right curb of `toArm` (looking out). */
  curb: Float32Array;
  /** Walking line through the patch between the two arms' sidewalks (its ends lie on the square's edge). */
  walk: Float32Array;
}

/** Lateral distance from the curb to the pedestrians' walking line (middle of the free sidewalk). */
export function walkOffsetM(cfg: TownConfig): number {
  return cfg.furnitureStripM + (cfg.sidewalkWidthM - cfg.furnitureStripM) / 2;
}

function presentArms(node: TownNode): number[] {
  return [0, 1, 2, 3].filter((d) => node.arms[d] >= 0);
}

/** Corners of one junction, counter-clockwise. */
export function junctionCorners(net: RoadNetwork, node: TownNode, cfg: TownConfig): JunctionCorner[] {
  const arms = presentArms(node);
  const R = node.radiusM;
  const H = Math.max(
    ...arms.map((d) =>
      Math.max(net.roads[node.arms[d]].halfWidthLeftM, net.roads[node.arms[d]].halfWidthRightM),
    ),
  );
  const g = (d: number, side: 'left' | 'right'): number => {
    const r = node.arms[d];
    return r >= 0 ? armHalfWidth(net.roads[r], node.id, side) : H;
  };
  const u = (d: number) => ARM_DIRS[((d % 4) + 4) % 4];
  const wo = walkOffsetM(cfg);
  const c = cfg.cornerChamferM;
  const out: JunctionCorner[] = [];
  for (let k = 0; k < arms.length; k++) {
    const a = arms[k];
    const b = arms[(k + 1) % arms.length];
    const seq: number[] = [a];
    for (let d = a + 1; ; d++) {
      seq.push(d % 4);
      if (d % 4 === b) break;
    }
    const adjacent = seq.length === 2;
    const ua = u(a);
    const ub = u(b);
    const ual = u(a + 1);
    const ubr = u(b + 3);
    const A: [number, number] = [R * ua[0] + g(a, 'left') * ual[0], R * ua[1] + g(a, 'left') * ual[1]];
    const B: [number, number] = [R * ub[0] + g(b, 'right') * ubr[0], R * ub[1] + g(b, 'right') * ubr[1]];
    const inner: [number, number][] = [];
    const walkPts: [number, number][] = [];
    const squareCorners: [number, number][] = [];
    for (let i = 0; i + 1 < seq.length; i++) {
      const d0 = seq[i];
      const d1 = seq[i + 1];
      const u0 = u(d0);
      const u1 = u(d1);
      const gx = g(d1, 'right');
      const gy = g(d0, 'left');
      const I: [number, number] = [gx * u0[0] + gy * u1[0], gx * u0[1] + gy * u1[1]];
      if (adjacent) {
        inner.push([I[0] + c * u0[0], I[1] + c * u0[1]], [I[0] + c * u1[0], I[1] + c * u1[1]]);
      } else {
        inner.push(I);
      }
      walkPts.push([(gx + wo) * u0[0] + (gy + wo) * u1[0], (gx + wo) * u0[1] + (gy + wo) * u1[1]]);
      squareCorners.push([R * (u0[0] + u1[0]), R * (u0[1] + u1[1])]);
    }
    const poly: [number, number][] = [A, ...squareCorners, B, ...[...inner].reverse()];
    const curb: [number, number][] = [A, ...inner, B];
    const walkA: [number, number] = [
      R * ua[0] + (g(a, 'left') + wo) * ual[0],
      R * ua[1] + (g(a, 'left') + wo) * ual[1],
    ];
    const walkB: [number, number] = [
      R * ub[0] + (g(b, 'right') + wo) * ubr[0],
      R * ub[1] + (g(b, 'right') + wo) * ubr[1],
    ];
    const walk: [number, number][] = [walkA, ...walkPts, walkB];
    const flat = (pts: [number, number][]) =>
      Float32Array.from(pts.flatMap(([x, y]) => [node.x + x, node.y + y]));
    out.push({
      nodeId: node.id,
      fromArm: a,
      toArm: b,
      patch: flat(poly),
      curb: flat(curb),
      walk: flat(walk),
    });
  }
  return out;
}

/** Arc length along the road (from A) of the point `distM` in from the junction end at `nodeId`. */
export function roadSFromEnd(road: TownRoad, nodeId: number, distM: number): number {
  return road.nodeA === nodeId ? distM : road.lengthM - distM;
}
