// The nearest hit of every ray of a sweep cast the plain way: three-mesh-bvh `MeshBVH.raycastFirst` on the static
// mesh and on every agent's mesh (ray moved into the mesh frame, as three's Mesh.raycast does): the anchor of the
// `lidar_rays` benchmark and the reference the fast column-packet path of sweep.ts is tested against.
import { Box3, BufferAttribute, BufferGeometry, DoubleSide, Ray } from 'three';
import { MeshBVH, SAH } from 'three-mesh-bvh';
import { buildAgentTemplates, MESH_INSET_M } from './agentMeshes.ts';
import { type LidarConfig, beamApexHeights, sweepPeriodS } from './beams.ts';
import type { TaggedGeometry } from './meshKit.ts';
import { lerpKey } from './sweep.ts';
import { type SweepScene, agentCountOf } from './sweepScene.ts';
import { wrapAngleLow } from '../../core/geometry/pose.ts';

export interface ReferenceWorld {
  staticBvh: MeshBVH | null;
  templates: MeshBVH[];
  groundZ: number | null;
}

function meshBvh(geo: TaggedGeometry, leafSize: number): MeshBVH {
  const g = new BufferGeometry();
  g.setAttribute('position', new BufferAttribute(geo.positions, 3));
  return new MeshBVH(g, { strategy: SAH, targetLeafSize: leafSize });
}

/** Plain three-mesh-bvh BVHs of the same geometry the LiDAR world is built from (same SAH, same leaf sizes). */
export function buildReferenceWorld(
  staticGeometry: TaggedGeometry | null,
  groundZ: number | null = 0,
): ReferenceWorld {
  return {
    staticBvh: staticGeometry && staticGeometry.materials.length ? meshBvh(staticGeometry, 4) : null,
    templates: buildAgentTemplates().map((t) => meshBvh(t, 2)),
    groundZ,
  };
}

/** The rays of a sweep: per column the origin and motion weight, per ray a unit direction; blocked = into the ego. */
export interface SweepRays {
  columns: number;
  beams: number;
  /** Per column: x, y, z of the origin, w (−1 … 1, where in the sweep it fires). */
  column: Float64Array;
  /** Per beam: its laser's height above the column's origin, where its rays start. */
  apexM: Float64Array;
  /** Per ray (col · beams + beam): dx, dy, dz. */
  dir: Float64Array;
  blocked: Uint8Array;
}

/** The rays renderColumns fires for `scene` (same origins, directions and self-occlusion). */
export function sweepRays(cfg: LidarConfig, scene: SweepScene): SweepRays {
  const nb = cfg.elevationsDeg.length;
  const na = cfg.azimuthSteps;
  const period = sweepPeriodS(cfg);
  const half = period / 2;
  const column = new Float64Array(4 * na);
  const dir = new Float64Array(3 * na * nb);
  const blocked = new Uint8Array(na * nb);
  const key = new Float64Array(4);
  const body = cfg.egoBody;
  const apexM = beamApexHeights(cfg);
  for (let col = 0; col < na; col++) {
    const tOff = ((col + 0.5) / na) * period;
    const w = cfg.motion ? (tOff - half) / half : 0;
    lerpKey(scene.sensor, 0, w, key);
    column.set([key[0], key[1], key[2], w], 4 * col);
    const az = Math.PI - (2 * Math.PI * (col + 0.5)) / na;
    const worldAz = wrapAngleLow(key[3] + az);
    const ca = Math.cos(worldAz);
    const sa = Math.sin(worldAz);
    let bodyReach = 0;
    if (body) {
      const cs = Math.cos(az);
      const sn = Math.sin(az);
      const rx = cs > 1e-9 ? body.xMaxM / cs : cs < -1e-9 ? body.xMinM / cs : Infinity;
      const ry = Math.abs(sn) > 1e-9 ? body.halfWidthM / Math.abs(sn) : Infinity;
      bodyReach = Math.min(rx, ry);
    }
    for (let b = 0; b < nb; b++) {
      const el = (cfg.elevationsDeg[b] * Math.PI) / 180;
      const ce = Math.cos(el);
      const k = col * nb + b;
      dir[3 * k] = ce * ca;
      dir[3 * k + 1] = ce * sa;
      dir[3 * k + 2] = Math.sin(el);
      if (body && dir[3 * k + 2] < 0 && (apexM[b] - body.topM) * ce < -dir[3 * k + 2] * bodyReach)
        blocked[k] = 1;
    }
  }
  return { columns: na, beams: nb, column, apexM, dir, blocked };
}

/** Per ray: distance to the nearest hit (Infinity: none within maxRangeM) and what it hit. */
export interface ReferenceHits {
  t: Float64Array;
  /** 0 none, 1 ground, 2 static mesh, 3 agent. */
  kind: Uint8Array;
  agent: Int32Array;
}

/**
 * Nearest hit of every unblocked ray with raycastFirst: the static BVH, then each agent's template BVH with the
 * ray in the agent's frame at the column's time, for the agents whose world bounding box the ray meets.
 */
export function referenceCast(
  ref: ReferenceWorld,
  rays: SweepRays,
  scene: SweepScene,
  maxRangeM: number,
): ReferenceHits {
  const n = rays.columns * rays.beams;
  const out: ReferenceHits = {
    t: new Float64Array(n).fill(Infinity),
    kind: new Uint8Array(n),
    agent: new Int32Array(n).fill(-1),
  };
  const na = agentCountOf(scene);
  const ray = new Ray();
  const local = new Ray();
  const key = new Float64Array(4);
  const pose = new Float64Array(5 * na);
  const boxes = Array.from({ length: na }, () => new Box3());
  const size = scene.agentSize;
  for (let col = 0; col < rays.columns; col++) {
    const ox = rays.column[4 * col];
    const oy = rays.column[4 * col + 1];
    const oz0 = rays.column[4 * col + 2];
    const w = rays.column[4 * col + 3];
    for (let i = 0; i < na; i++) {
      lerpKey(scene.agentKeys, 12 * i, w, key);
      pose.set([key[0], key[1], key[2], Math.cos(key[3]), Math.sin(key[3])], 5 * i);
      // World bounding box of the agent at this column's time (three's Mesh.raycast tests a bound first too).
      const hx =
        0.5 * (Math.abs(pose[5 * i + 3]) * size[3 * i] + Math.abs(pose[5 * i + 4]) * size[3 * i + 1]);
      const hy =
        0.5 * (Math.abs(pose[5 * i + 4]) * size[3 * i] + Math.abs(pose[5 * i + 3]) * size[3 * i + 1]);
      boxes[i].min.set(key[0] - hx, key[1] - hy, key[2]);
      boxes[i].max.set(key[0] + hx, key[1] + hy, key[2] + size[3 * i + 2]);
    }
    for (let b = 0; b < rays.beams; b++) {
      const k = col * rays.beams + b;
      if (rays.blocked[k]) continue;
      const dx = rays.dir[3 * k];
      const dy = rays.dir[3 * k + 1];
      const dz = rays.dir[3 * k + 2];
      const oz = oz0 + rays.apexM[b];
      let best = maxRangeM;
      let kind = 0;
      let agent = -1;
      if (ref.groundZ !== null && dz < 0) {
        const tg = (ref.groundZ - oz) / dz;
        if (tg > 0 && tg < best) {
          best = tg;
          kind = 1;
        }
      }
      ray.origin.set(ox, oy, oz);
      ray.direction.set(dx, dy, dz);
      if (ref.staticBvh) {
        const hit = ref.staticBvh.raycastFirst(ray, DoubleSide, 0, best);
        if (hit && hit.distance < best) {
          best = hit.distance;
          kind = 2;
        }
      }
      for (let i = 0; i < na; i++) {
        if (!ray.intersectsBox(boxes[i])) continue;
        // World → unit-box template frame: translate, rotate by −yaw, scale by 1 / mesh size.
        const p = 5 * i;
        const il = 1 / Math.max(0.01, size[3 * i] - 2 * MESH_INSET_M);
        const iw = 1 / Math.max(0.01, size[3 * i + 1] - 2 * MESH_INSET_M);
        const ih = 1 / Math.max(0.01, size[3 * i + 2] - MESH_INSET_M);
        const c = pose[p + 3];
        const s = pose[p + 4];
        const rx = ox - pose[p];
        const ry = oy - pose[p + 1];
        local.origin.set((c * rx + s * ry) * il, (-s * rx + c * ry) * iw, (oz - pose[p + 2]) * ih);
        local.direction.set((c * dx + s * dy) * il, (-s * dx + c * dy) * iw, dz * ih);
        const len = local.direction.length();
        local.direction.multiplyScalar(1 / len);
        // Local distances are in scaled units: t_world = t_local / len.
        const hit = ref.templates[scene.agentTemplate[i]].raycastFirst(local, DoubleSide, 0, best * len);
        if (hit) {
          const tw = hit.distance / len;
          if (tw < best && tw > 1e-6) {
            best = tw;
            kind = 3;
            agent = i;
          }
        }
      }
      if (kind !== 0) {
        out.t[k] = best;
        out.kind[k] = kind;
        out.agent[k] = agent;
      }
    }
  }
  return out;
}
