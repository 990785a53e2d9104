// The walking network: sidewalk lines along both sides of every road, paths around junction corners, and
// crosswalks across the arms of 3- and 4-way junctions. Pedestrians walk its edges and pick the next at vertices.
import { cumulativeArcLength } from '../../core/geometry/polyline.ts';
import { type JunctionCorner, walkOffsetM } from './junctions.ts';
import { vertexHeadings } from './polylineFrame.ts';
import {
  type RoadNetwork,
  type TownRoad,
  offsetPolyline,
  roadFrameAt,
  slicePolyline,
} from './roadNetwork.ts';
import type { TownConfig } from './townConfig.ts';

export type PedEdgeKind = 'sidewalk' | 'corner' | 'crosswalk';

export interface PedEdge {
  id: number;
  kind: PedEdgeKind;
  xy: Float32Array;
  cum: Float64Array;
  /** Heading at each vertex, for a smooth frame along the edge. */
  headings: Float32Array;
  lengthM: number;
  v0: number;
  v1: number;
  /** Crosswalks: the stretch (arc length along the edge) that lies on the road surface, not the curb. */
  roadS0: number;
  roadS1: number;
  /** Crosswalks: the road and junction they cross at. */
  roadId: number;
  nodeId: number;
}

export interface PedVertex {
  x: number;
  y: number;
  edges: number[];
}

export interface PedestrianGraph {
  vertices: PedVertex[];
  edges: PedEdge[];
}

/** Distance from the junction square to the crosswalk centre (and the pedestrian vertices), metres. */
export function crosswalkCentreM(cfg: TownConfig): number {
  return 0.5 + cfg.crosswalkWidthM / 2;
}

export function buildPedestrianGraph(
  net: RoadNetwork,
  corners: JunctionCorner[],
  cfg: TownConfig,
): PedestrianGraph {
  const wo = walkOffsetM(cfg);
  const cw = crosswalkCentreM(cfg);
  const vertices: PedVertex[] = [];
  const edges: PedEdge[] = [];
  // Vertex of (road, end 0=A / 1=B, side 0=left / 1=right of A→B).
  const vid = new Map<string, number>();
  const vertex = (road: TownRoad, end: number, side: number): number => {
    const key = `${road.id}:${end}:${side}`;
    let id = vid.get(key);
    if (id === undefined) {
      const f = roadFrameAt(road, end === 0 ? cw : road.lengthM - cw);
      const off = side === 0 ? road.halfWidthLeftM + wo : -(road.halfWidthRightM + wo);
      id = vertices.length;
      vertices.push({ x: f.x + f.nx * off, y: f.y + f.ny * off, edges: [] });
      vid.set(key, id);
    }
    return id;
  };
  const addEdge = (
    kind: PedEdgeKind,
    xy: Float32Array,
    v0: number,
    v1: number,
    extra: Partial<PedEdge> = {},
  ) => {
    const cum = cumulativeArcLength(xy);
    const e: PedEdge = {
      id: edges.length,
      kind,
      xy,
      cum,
      headings: vertexHeadings(xy),
      lengthM: cum[cum.length - 1],
      v0,
      v1,
      roadS0: 0,
      roadS1: 0,
      roadId: -1,
      nodeId: -1,
      ...extra,
    };
    edges.push(e);
    vertices[v0].edges.push(e.id);
    vertices[v1].edges.push(e.id);
  };
  for (const road of net.roads) {
    const inner = slicePolyline(road.ref, road.cum, cw, road.lengthM - cw);
    addEdge(
      'sidewalk',
      offsetPolyline(inner, road.halfWidthLeftM + wo),
      vertex(road, 0, 0),
      vertex(road, 1, 0),
    );
    addEdge(
      'sidewalk',
      offsetPolyline(inner, -(road.halfWidthRightM + wo)),
      vertex(road, 0, 1),
      vertex(road, 1, 1),
    );
  }
  // Looking out of a junction along a road: the left side is the road's left at A, its right at B.
  const sideLookingOut = (road: TownRoad, nodeId: number, side: 'left' | 'right') =>
    road.nodeA === nodeId ? (side === 'left' ? 0 : 1) : side === 'left' ? 1 : 0;
  for (const c of corners) {
    const node = net.nodes[c.nodeId];
    const ra = net.roads[node.arms[c.fromArm]];
    const rb = net.roads[node.arms[c.toArm]];
    const va = vertex(ra, ra.nodeA === node.id ? 0 : 1, sideLookingOut(ra, node.id, 'left'));
    const vb = vertex(rb, rb.nodeA === node.id ? 0 : 1, sideLookingOut(rb, node.id, 'right'));
    const pts = [vertices[va].x, vertices[va].y, ...c.walk, vertices[vb].x, vertices[vb].y];
    addEdge('corner', Float32Array.from(pts), va, vb);
  }
  for (const node of net.nodes) {
    if (node.degree < 3) continue;
    for (const r of node.arms) {
      if (r < 0) continue;
      const road = net.roads[r];
      const end = road.nodeA === node.id ? 0 : 1;
      const vl = vertex(road, end, 0);
      const vr = vertex(road, end, 1);
      const xy = Float32Array.of(vertices[vl].x, vertices[vl].y, vertices[vr].x, vertices[vr].y);
      addEdge('crosswalk', xy, vl, vr, {
        roadS0: wo,
        roadS1: wo + road.halfWidthLeftM + road.halfWidthRightM,
        roadId: road.id,
        nodeId: node.id,
      });
    }
  }
  return { vertices, edges };
}
