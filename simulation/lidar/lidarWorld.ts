// What the LiDAR sees that does not move: one BVH of all static meshes (built once per town), the ground plane
// with a material raster, and one BVH per road-user template; plain typed arrays, so workers receive it whole.
import { buildAgentTemplates } from './agentMeshes.ts';
import { reflectivityTable } from './materials.ts';
import type { TaggedGeometry } from './meshKit.ts';
import { type PackedBvh, buildPackedBvh } from './packedBvh.ts';

/** Material of the ground plane on a regular grid (world x, y); `outside` beyond it. */
export interface GroundMap {
  x0: number;
  y0: number;
  cellM: number;
  cols: number;
  rows: number;
  material: Uint8Array;
  outside: number;
}

export interface LidarWorld {
  /** Static scene (buildings, trees, poles, sidewalks, parked cars…), or null when there is none. */
  staticBvh: PackedBvh | null;
  /** Height of the ground plane (world z); null for no ground. */
  groundZ: number | null;
  ground: GroundMap | null;
  /** BVH of each agent template in unit-box space (indexed by TemplateId). */
  templates: PackedBvh[];
  reflectivity: Float32Array;
}

export function groundMaterialAt(g: GroundMap, x: number, y: number): number {
  const i = Math.floor((x - g.x0) / g.cellM);
  const j = Math.floor((y - g.y0) / g.cellM);
  if (i < 0 || j < 0 || i >= g.cols || j >= g.rows) return g.outside;
  return g.material[j * g.cols + i];
}

/** Build the world: BVH of the static geometry (if any) plus the agent templates. */
export function buildLidarWorld(
  staticGeometry: TaggedGeometry | null,
  ground: GroundMap | null,
  groundZ: number | null = 0,
): LidarWorld {
  return {
    staticBvh: staticGeometry && staticGeometry.materials.length ? buildPackedBvh(staticGeometry) : null,
    groundZ,
    ground,
    templates: buildAgentTemplates().map((t) => buildPackedBvh(t, 2)),
    reflectivity: reflectivityTable(),
  };
}
