// The town's map as the scenario model wants it (docs/architecture.md): lanes with topology, curbs,
// drivable polygons, sidewalks, crosswalks and stop lines, all in the world frame.
import { pointAtArcLength } from '../../core/geometry/polyline.ts';
import type { Lane, MapFeature, RoadMap, StopLine } from '../scenario.ts';
import type { JunctionCorner } from './junctions.ts';
import type { TownLane } from './laneGraph.ts';
import {
  type RoadNetwork,
  type TownRoad,
  offsetPolyline,
  reversePolyline,
  slicePolyline,
} from './roadNetwork.ts';
import type { TownConfig } from './townConfig.ts';

/** Polygon between two offsets of a road's reference line over [s0, s1] (offsets positive to the left). */
export function roadStripPolygon(
  road: TownRoad,
  offA: number,
  offB: number,
  s0 = 0,
  s1 = road.lengthM,
): Float32Array {
  const part = s0 <= 0 && s1 >= road.lengthM ? road.ref : slicePolyline(road.ref, road.cum, s0, s1);
  const a = offsetPolyline(part, offA);
  const b = reversePolyline(offsetPolyline(part, offB));
  const out = new Float32Array(a.length + b.length);
  out.set(a, 0);
  out.set(b, a.length);
  return out;
}

/** Sidewalk strips of a road (left then right of A→B). */
export function roadSidewalks(road: TownRoad, cfg: TownConfig): Float32Array[] {
  return [
    roadStripPolygon(road, road.halfWidthLeftM, road.halfWidthLeftM + cfg.sidewalkWidthM),
    roadStripPolygon(road, -(road.halfWidthRightM + cfg.sidewalkWidthM), -road.halfWidthRightM),
  ];
}

/** Crosswalk rectangles of a road: at each end whose junction has 3 or more arms. */
export function roadCrosswalks(net: RoadNetwork, road: TownRoad, cfg: TownConfig): Float32Array[] {
  const out: Float32Array[] = [];
  const ends: [number, number, number][] = [
    [road.nodeA, 0.5, 0.5 + cfg.crosswalkWidthM],
    [road.nodeB, road.lengthM - 0.5 - cfg.crosswalkWidthM, road.lengthM - 0.5],
  ];
  for (const [node, s0, s1] of ends) {
    if (net.nodes[node].degree < 3) continue;
    out.push(roadStripPolygon(road, -road.halfWidthRightM, road.halfWidthLeftM, s0, s1));
  }
  return out;
}

/** Drivable polygon of a junction: its corner curbs joined counter-clockwise. */
export function junctionDrivable(corners: JunctionCorner[]): Float32Array {
  const pts: number[] = [];
  for (const c of corners) pts.push(...c.curb);
  return Float32Array.from(pts);
}

export function buildRoadMap(
  net: RoadNetwork,
  lanes: TownLane[],
  corners: JunctionCorner[],
  cfg: TownConfig,
): RoadMap {
  const mapLanes: Lane[] = lanes.map((l) => ({
    id: l.id,
    xy: l.xy,
    widthM: l.widthM,
    speedLimitMps: l.speedLimitMps,
    successors: [...l.successors],
    predecessors: [...l.predecessors],
    leftNeighbors: [...l.left],
    rightNeighbors: [...l.right],
    inIntersection: l.kind === 'connector',
  }));
  let fid = 0;
  const feature = (xy: Float32Array): MapFeature => ({ id: fid++, xy });
  const roadEdges: MapFeature[] = [];
  const drivableAreas: MapFeature[] = [];
  const sidewalks: MapFeature[] = [];
  const crosswalks: MapFeature[] = [];
  for (const road of net.roads) {
    roadEdges.push(feature(offsetPolyline(road.ref, road.halfWidthLeftM)));
    roadEdges.push(feature(offsetPolyline(road.ref, -road.halfWidthRightM)));
    drivableAreas.push(feature(roadStripPolygon(road, -road.halfWidthRightM, road.halfWidthLeftM)));
    for (const s of roadSidewalks(road, cfg)) sidewalks.push(feature(s));
    for (const c of roadCrosswalks(net, road, cfg)) crosswalks.push(feature(c));
  }
  for (const node of net.nodes) {
    const own = corners.filter((c) => c.nodeId === node.id);
    drivableAreas.push(feature(junctionDrivable(own)));
    for (const c of own) {
      roadEdges.push(feature(c.curb));
      sidewalks.push(feature(c.patch));
    }
  }
  const stopLines: StopLine[] = [];
  for (const l of lanes) {
    if (l.kind !== 'road' || l.stopS >= l.lengthM) continue;
    const p = pointAtArcLength(l.xy, l.stopS, l.cum);
    const nx = -Math.sin(p.heading) * (l.widthM / 2);
    const ny = Math.cos(p.heading) * (l.widthM / 2);
    stopLines.push({ id: fid++, xy: Float32Array.of(p.x - nx, p.y - ny, p.x + nx, p.y + ny), laneId: l.id });
  }
  return { lanes: mapLanes, roadEdges, drivableAreas, crosswalks, sidewalks, stopLines, trafficLights: [] };
}
