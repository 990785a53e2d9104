// Placement of the town's static world: buildings, garden walls and hedges along every road's frontage,
// street trees and lamp/sign poles on the sidewalks, bushes in front yards, trees inside blocks, parked cars.
import { projectOntoPolyline } from '../../core/geometry/polyline.ts';
import { type AgentClass, type AgentSize, sampleAgentSize } from './agentSizes.ts';
import { crosswalkCentreM } from './pedestrianGraph.ts';
import { type RoadNetwork, type TownRoad, roadFrameAt } from './roadNetwork.ts';
import { type Rect2, rectsOverlap } from './obb.ts';
import type { Rng } from '../../core/rng.ts';
import type { TownConfig } from './townConfig.ts';

export type StaticKind = 'building' | 'wall' | 'hedge' | 'tree' | 'streetLight' | 'signPole' | 'bush';

export interface StaticObject {
  kind: StaticKind;
  x: number;
  y: number;
  /** Height of the ground it stands on (the sidewalk's top for street furniture). */
  z: number;
  yaw: number;
  /** Footprint along `yaw` and across it; for trees and bushes the crown's diameters. */
  length: number;
  width: number;
  height: number;
  /** Shape / material variant (facade, species, roof type). */
  variant: number;
  /** Buildings: roof height (0 = flat roof); trees: height of the crown's base; street lights: arm length. */
  param: number;
}

export interface ParkedCar {
  cls: AgentClass;
  size: AgentSize;
  x: number;
  y: number;
  yaw: number;
  roadId: number;
}

export interface StaticWorld {
  objects: StaticObject[];
  parked: ParkedCar[];
}

/** Distance test against every road's surface + sidewalks and every junction square. */
function makeClearance(net: RoadNetwork, cfg: TownConfig) {
  const boxes = net.roads.map((r) => {
    let x0 = Infinity;
    let y0 = Infinity;
    let x1 = -Infinity;
    let y1 = -Infinity;
    for (let i = 0; i < r.ref.length; i += 2) {
      x0 = Math.min(x0, r.ref[i]);
      x1 = Math.max(x1, r.ref[i]);
      y0 = Math.min(y0, r.ref[i + 1]);
      y1 = Math.max(y1, r.ref[i + 1]);
    }
    const pad = Math.max(r.halfWidthLeftM, r.halfWidthRightM) + cfg.sidewalkWidthM + 20;
    return [x0 - pad, y0 - pad, x1 + pad, y1 + pad];
  });
  /** Free distance from (x, y) to the nearest road/sidewalk surface or junction square (negative inside). */
  return (x: number, y: number): number => {
    let best = Infinity;
    for (const n of net.nodes) {
      const d = Math.max(Math.abs(x - n.x), Math.abs(y - n.y)) - n.radiusM;
      best = Math.min(best, d);
    }
    for (let k = 0; k < net.roads.length; k++) {
      const b = boxes[k];
      if (x < b[0] || x > b[2] || y < b[1] || y > b[3]) continue;
      const r = net.roads[k];
      const p = projectOntoPolyline(r.ref, x, y, r.cum);
      const half = (p.lateral >= 0 ? r.halfWidthLeftM : r.halfWidthRightM) + cfg.sidewalkWidthM;
      best = Math.min(best, p.distance - half);
    }
    return best;
  };
}

/** Sample points on a rectangle's outline (every ~1.5 m) and its centre. */
function rectSamples(r: Rect2): [number, number][] {
  const c = Math.cos(r.yaw);
  const s = Math.sin(r.yaw);
  const pts: [number, number][] = [[r.x, r.y]];
  const nl = Math.max(1, Math.ceil(r.length / 1.5));
  const nw = Math.max(1, Math.ceil(r.width / 1.5));
  for (let i = 0; i <= nl; i++) {
    for (const v of [-0.5, 0.5]) {
      const u = (i / nl - 0.5) * r.length;
      pts.push([r.x + c * u - s * v * r.width, r.y + s * u + c * v * r.width]);
    }
  }
  for (let j = 0; j <= nw; j++) {
    for (const u of [-0.5, 0.5]) {
      const v = (j / nw - 0.5) * r.width;
      pts.push([r.x + c * u * r.length - s * v, r.y + s * u * r.length + c * v]);
    }
  }
  return pts;
}

/** A coarse grid of placed footprints for overlap queries. */
class FootprintIndex {
  private readonly cells = new Map<string, Rect2[]>();
  constructor(private readonly cellM = 25) {}
  private keys(r: Rect2): string[] {
    const rad = Math.hypot(r.length, r.width) / 2;
    const out: string[] = [];
    for (let i = Math.floor((r.x - rad) / this.cellM); i <= Math.floor((r.x + rad) / this.cellM); i++) {
      for (let j = Math.floor((r.y - rad) / this.cellM); j <= Math.floor((r.y + rad) / this.cellM); j++)
        out.push(`${i},${j}`);
    }
    return out;
  }
  overlaps(r: Rect2, margin: number): boolean {
    for (const k of this.keys(r))
      for (const o of this.cells.get(k) ?? []) if (rectsOverlap(r, o, margin)) return true;
    return false;
  }
  add(r: Rect2): void {
    for (const k of this.keys(r)) {
      let list = this.cells.get(k);
      if (!list) this.cells.set(k, (list = []));
      list.push(r);
    }
  }
}

export function placeStaticWorld(net: RoadNetwork, cfg: TownConfig, rng: Rng): StaticWorld {
  const clearance = makeClearance(net, cfg);
  const objects: StaticObject[] = [];
  const parked: ParkedCar[] = [];
  const footprints = new FootprintIndex();
  const furniture = new FootprintIndex(10);
  const parkedRects = new FootprintIndex(10);
  const cw = crosswalkCentreM(cfg);
  const rFrontage = rng.fork('frontage');
  const rStreet = rng.fork('street');
  const rPark = rng.fork('parking');
  const rBlocks = rng.fork('blocks');

  const tryPlace = (o: StaticObject, minClear: number, margin: number): boolean => {
    const rect: Rect2 = { x: o.x, y: o.y, yaw: o.yaw, length: o.length, width: o.width };
    for (const [x, y] of rectSamples(rect)) if (clearance(x, y) < minClear) return false;
    if (footprints.overlaps(rect, margin)) return false;
    footprints.add(rect);
    objects.push(o);
    return true;
  };

  for (const road of net.roads) {
    for (const side of [1, -1]) {
      const half = side > 0 ? road.halfWidthLeftM : road.halfWidthRightM;
      placeFrontage(road, side, half);
      placeStreetFurniture(road, side, half);
      if (side > 0 ? road.parkingLeft : road.parkingRight) placeParking(road, side);
    }
  }

  function placeFrontage(road: TownRoad, side: number, half: number): void {
    let s = rFrontage.uniform(0, 6);
    while (s < road.lengthM) {
      const roll = rFrontage.next();
      const kind: StaticKind =
        roll < cfg.wallShare ? 'wall' : roll < cfg.wallShare + cfg.hedgeShare ? 'hedge' : 'building';
      const width = kind === 'building' ? rFrontage.uniform(...cfg.buildingWidthM) : rFrontage.uniform(8, 25);
      const sc = s + width / 2;
      if (sc > road.lengthM) break;
      const f = roadFrameAt(road, sc);
      const setback = rFrontage.uniform(...cfg.buildingSetbackM);
      const depth =
        kind === 'building'
          ? rFrontage.uniform(...cfg.buildingDepthM)
          : kind === 'wall'
            ? 0.3
            : rFrontage.uniform(0.8, 1.4);
      const off = side * (half + cfg.sidewalkWidthM + (kind === 'building' ? setback : 0.6) + depth / 2);
      const height =
        kind === 'building'
          ? rFrontage.uniform(...cfg.buildingHeightM)
          : kind === 'wall'
            ? rFrontage.uniform(1.2, 2.4)
            : rFrontage.uniform(1.0, 1.9);
      const o: StaticObject = {
        kind,
        x: f.x + f.nx * off,
        y: f.y + f.ny * off,
        z: 0,
        yaw: f.heading,
        length: width,
        width: depth,
        height,
        variant: rFrontage.int(0, 3),
        param: kind === 'building' && rFrontage.chance(0.45) ? rFrontage.uniform(1.5, 4) : 0,
      };
      if (tryPlace(o, 0.3, kind === 'building' ? 1 : 0.3) && kind === 'building') {
        // Front garden closed off at the back of the sidewalk by a hedge or a low wall/fence.
        if (setback > 1.2 && rFrontage.chance(cfg.frontBoundaryShare)) {
          const hedge = rFrontage.chance(0.6);
          const thick = hedge ? rFrontage.uniform(0.5, 0.9) : 0.2;
          const boff = side * (half + cfg.sidewalkWidthM + 0.2 + thick / 2);
          tryPlace(
            {
              kind: hedge ? 'hedge' : 'wall',
              x: f.x + f.nx * boff,
              y: f.y + f.ny * boff,
              z: 0,
              yaw: f.heading,
              length: width * rFrontage.uniform(0.85, 1.1),
              width: thick,
              height: hedge ? rFrontage.uniform(0.9, 1.8) : rFrontage.uniform(0.7, 1.3),
              variant: rFrontage.int(0, 3),
              param: 0,
            },
            0.1,
            0.1,
          );
        }
        // Bushes in the front yard.
        const nb = Math.round((cfg.bushesPer100M * width) / 100 + rFrontage.uniform(-0.5, 0.5));
        for (let k = 0; k < nb; k++) {
          const bs = sc + rFrontage.uniform(-width / 2, width / 2);
          if (bs < 0 || bs > road.lengthM) continue;
          const bf = roadFrameAt(road, bs);
          const diameter = rFrontage.uniform(0.8, 2.2);
          const boff =
            side *
            (half +
              cfg.sidewalkWidthM +
              0.3 +
              rFrontage.uniform(0, Math.max(0, setback - 0.3)) +
              diameter / 2);
          tryPlace(
            {
              kind: 'bush',
              x: bf.x + bf.nx * boff,
              y: bf.y + bf.ny * boff,
              z: 0,
              yaw: rFrontage.uniform(0, Math.PI),
              length: diameter,
              width: diameter * rFrontage.uniform(0.7, 1),
              height: rFrontage.uniform(0.5, 1.6),
              variant: rFrontage.int(0, 3),
              param: 0,
            },
            0.2,
            0,
          );
        }
      }
      s += width + rFrontage.uniform(...cfg.buildingGapM);
    }
  }

  function placeStreetFurniture(road: TownRoad, side: number, half: number): void {
    const trees = side > 0 ? road.treesLeft : road.treesRight;
    const s0 = cw + cfg.crosswalkWidthM;
    const s1 = road.lengthM - cw - cfg.crosswalkWidthM;
    const place = (o: StaticObject, radius: number) => {
      const r: Rect2 = { x: o.x, y: o.y, yaw: 0, length: 2 * radius, width: 2 * radius };
      if (furniture.overlaps(r, 0.8)) return;
      furniture.add(r);
      objects.push(o);
    };
    // Lamp posts first (regular spacing), then trees between them.
    for (
      let s = s0 + rStreet.uniform(0, cfg.poleSpacingM / 2);
      s < s1;
      s += cfg.poleSpacingM * rStreet.uniform(0.85, 1.15)
    ) {
      const f = roadFrameAt(road, s);
      const off = side * (half + 0.3);
      place(
        {
          kind: 'streetLight',
          x: f.x + f.nx * off,
          y: f.y + f.ny * off,
          z: cfg.curbHeightM,
          yaw: f.heading + (side > 0 ? -Math.PI / 2 : Math.PI / 2),
          length: 0.2,
          width: 0.2,
          height: rStreet.uniform(6.5, 8.5),
          variant: 0,
          param: rStreet.uniform(1.2, 2),
        },
        0.15,
      );
    }
    // A sign pole near each end of the road.
    for (const s of [s0 - 1, s1 + 1]) {
      if (s < 0 || s > road.lengthM || !rStreet.chance(0.7)) continue;
      const f = roadFrameAt(road, s);
      const off = side * (half + 0.35);
      place(
        {
          kind: 'signPole',
          x: f.x + f.nx * off,
          y: f.y + f.ny * off,
          z: cfg.curbHeightM,
          yaw: f.heading,
          length: 0.1,
          width: 0.1,
          height: rStreet.uniform(2.4, 3.2),
          variant: rStreet.int(0, 2),
          param: 0,
        },
        0.3,
      );
    }
    if (!trees) return;
    for (let s = s0 + rStreet.uniform(0, 5); s < s1; s += rStreet.uniform(...cfg.treeSpacingM)) {
      const f = roadFrameAt(road, s);
      const off = side * (half + cfg.furnitureStripM / 2);
      const crown = rStreet.uniform(3, 6);
      const height = rStreet.uniform(6, 12);
      place(
        {
          kind: 'tree',
          x: f.x + f.nx * off,
          y: f.y + f.ny * off,
          z: cfg.curbHeightM,
          yaw: rStreet.uniform(0, Math.PI),
          length: crown,
          width: crown * rStreet.uniform(0.8, 1),
          height,
          variant: rStreet.int(0, 2),
          param: Math.min(height - 2, rStreet.uniform(4, 5)),
        },
        0.25,
      );
    }
  }

  function placeParking(road: TownRoad, side: number): void {
    const slot = 6.2;
    const s0 = road.lengthM > 0 ? cw + cfg.crosswalkWidthM + 6 : 0;
    const s1 = road.lengthM - s0;
    for (let s = s0 + slot / 2; s + slot / 2 < s1; s += slot) {
      if (!rPark.chance(cfg.parkingOccupancy)) continue;
      const cls: AgentClass = rPark.chance(0.12) ? 'van' : 'car';
      const size = sampleAgentSize(cls, rPark);
      const sc = s + rPark.uniform(-0.4, 0.4);
      const f = roadFrameAt(road, sc);
      const off =
        side * (road.lanesPerDir * cfg.laneWidthM + cfg.parkingWidthM / 2 + rPark.uniform(-0.1, 0.1));
      // Parked in the direction of the adjacent lane (right-hand traffic: left side faces B→A).
      const yaw = f.heading + (side > 0 ? Math.PI : 0) + rPark.normal(0, 0.02);
      const rect: Rect2 = {
        x: f.x + f.nx * off,
        y: f.y + f.ny * off,
        yaw,
        length: size.length,
        width: size.width,
      };
      // A long van may not fit its slot: leave the slot empty rather than touch the neighbour.
      if (parkedRects.overlaps(rect, 0.3)) continue;
      parkedRects.add(rect);
      parked.push({
        cls,
        size,
        x: rect.x,
        y: rect.y,
        yaw,
        roadId: road.id,
      });
    }
  }

  // Trees scattered inside and around the blocks.
  let x0 = Infinity;
  let y0 = Infinity;
  let x1 = -Infinity;
  let y1 = -Infinity;
  for (const n of net.nodes) {
    x0 = Math.min(x0, n.x);
    x1 = Math.max(x1, n.x);
    y0 = Math.min(y0, n.y);
    y1 = Math.max(y1, n.y);
  }
  const pad = 45;
  const blocks = (cfg.gridCols + 1) * (cfg.gridRows + 1);
  const target = blocks * cfg.blockTreesPerBlock;
  for (let k = 0, placed = 0; k < target * 4 && placed < target; k++) {
    const x = rBlocks.uniform(x0 - pad, x1 + pad);
    const y = rBlocks.uniform(y0 - pad, y1 + pad);
    const crown = rBlocks.uniform(3, 8);
    const height = rBlocks.uniform(5, 16);
    const tree: StaticObject = {
      kind: 'tree',
      x,
      y,
      z: 0,
      yaw: rBlocks.uniform(0, Math.PI),
      length: crown,
      width: crown * rBlocks.uniform(0.8, 1),
      height,
      variant: rBlocks.int(0, 2),
      param: Math.min(height - 2, rBlocks.uniform(1.5, 4)),
    };
    // Trunks must stand clear; crowns may overhang yards but not roofs.
    const trunk: Rect2 = { x, y, yaw: 0, length: crown * 0.6, width: crown * 0.6 };
    if (clearance(x, y) < crown / 2 || footprints.overlaps(trunk, 0.5)) continue;
    footprints.add(trunk);
    objects.push(tree);
    placed++;
  }
  return { objects, parked };
}
