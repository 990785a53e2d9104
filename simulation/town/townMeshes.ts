// The town's static world as three.js geometry with materials: sidewalks, buildings with roofs and windows,
// walls, hedges, trees, bushes, lamp and sign poles, parked cars (templates at their sizes), for one BVH.
import {
  BoxGeometry,
  ConeGeometry,
  CylinderGeometry,
  IcosahedronGeometry,
  Matrix4,
  PlaneGeometry,
} from 'three';
import { buildAgentTemplates, meshSize, templateFor } from '../lidar/agentMeshes.ts';
import { MAT } from '../lidar/materials.ts';
import {
  type TaggedGeometry,
  mergeTagged,
  place,
  polygonSlab,
  sideProfilePrism,
  stripSlab,
  tag,
  transformTagged,
} from '../lidar/meshKit.ts';
import { offsetPolyline } from './roadNetwork.ts';
import type { StaticObject } from './staticWorld.ts';
import type { Town } from './town.ts';

const FACADES = [MAT.facadePlaster, MAT.facadeBrick, MAT.facadeDark, MAT.facadeStone];

function buildingMesh(o: StaticObject): TaggedGeometry[] {
  const parts: TaggedGeometry[] = [];
  const pose = place(o.x, o.y, o.z, o.yaw);
  const facade = FACADES[o.variant % FACADES.length];
  parts.push(
    tag(
      new BoxGeometry(o.length, o.width, o.height),
      facade,
      pose.clone().multiply(place(0, 0, o.height / 2)),
    ),
  );
  if (o.param > 0) {
    // Gable roof along the building's length: triangular profile across the width.
    const roof = sideProfilePrism(
      [
        [-o.width / 2, 0],
        [o.width / 2, 0],
        [0, o.param],
      ],
      -o.length / 2,
      o.length / 2,
      MAT.roof,
    );
    parts.push(transformTagged(roof, pose.clone().multiply(place(0, 0, o.height, Math.PI / 2))));
  }
  // Window panes on both long facades, one row per 3 m storey, 2 cm proud of the wall.
  const floors = Math.max(1, Math.floor((o.height - 0.5) / 3));
  const cols = Math.max(1, Math.floor((o.length - 1) / 3));
  for (const side of [1, -1]) {
    for (let f = 0; f < floors; f++) {
      for (let c = 0; c < cols; c++) {
        const x = -o.length / 2 + (o.length / cols) * (c + 0.5);
        const z = 3 * f + 1.7;
        if (z + 0.7 > o.height) continue;
        const m = pose
          .clone()
          .multiply(place(x, side * (o.width / 2 + 0.02), z, 0, 0, (side * Math.PI) / 2 + Math.PI));
        parts.push(tag(new PlaneGeometry(1.2, 1.4), MAT.windowGlass, m));
      }
    }
  }
  return parts;
}

function treeMesh(o: StaticObject): TaggedGeometry[] {
  const crownBase = o.param;
  const crownH = Math.max(1, o.height - crownBase);
  const trunkR = Math.min(0.25, 0.06 + 0.012 * o.height);
  const parts: TaggedGeometry[] = [
    tag(
      new CylinderGeometry(trunkR * 0.8, trunkR, crownBase + crownH * 0.3, 7),
      MAT.bark,
      place(o.x, o.y, o.z + (crownBase + crownH * 0.3) / 2, 0, 0, Math.PI / 2),
    ),
  ];
  if (o.variant === 2) {
    // Conifer: a cone.
    parts.push(
      tag(
        new ConeGeometry(0.5, 1, 9),
        MAT.foliage,
        place(o.x, o.y, o.z + crownBase + crownH / 2, o.yaw, 0, Math.PI / 2).multiply(
          new Matrix4().makeScale(o.length, crownH, o.width),
        ),
      ),
    );
  } else {
    parts.push(
      tag(
        new IcosahedronGeometry(0.5, 1),
        MAT.foliage,
        place(o.x, o.y, o.z + crownBase + crownH / 2, o.yaw).multiply(
          new Matrix4().makeScale(o.length, o.width, crownH),
        ),
      ),
    );
  }
  return parts;
}

function staticObjectMesh(o: StaticObject): TaggedGeometry[] {
  switch (o.kind) {
    case 'building':
      return buildingMesh(o);
    case 'wall':
      return [
        tag(
          new BoxGeometry(o.length, o.width, o.height),
          MAT.wallConcrete,
          place(o.x, o.y, o.z + o.height / 2, o.yaw),
        ),
      ];
    case 'hedge':
      return [
        tag(
          new BoxGeometry(o.length, o.width, o.height),
          MAT.hedge,
          place(o.x, o.y, o.z + o.height / 2, o.yaw),
        ),
      ];
    case 'bush':
      return [
        tag(
          new IcosahedronGeometry(0.5, 1),
          MAT.hedge,
          place(o.x, o.y, o.z + o.height / 2, o.yaw).multiply(
            new Matrix4().makeScale(o.length, o.width, o.height),
          ),
        ),
      ];
    case 'tree':
      return treeMesh(o);
    case 'streetLight': {
      const pole = tag(
        new CylinderGeometry(0.07, 0.1, o.height, 7),
        MAT.metal,
        place(o.x, o.y, o.z + o.height / 2, 0, 0, Math.PI / 2),
      );
      // The arm reaches over the road (yaw points at it), with the lamp head at its end.
      const arm = tag(
        new BoxGeometry(o.param, 0.08, 0.08),
        MAT.metal,
        place(o.x, o.y, o.z + o.height, o.yaw).multiply(place(o.param / 2, 0, 0)),
      );
      const head = tag(
        new BoxGeometry(0.5, 0.25, 0.15),
        MAT.lamp,
        place(o.x, o.y, o.z + o.height - 0.1, o.yaw).multiply(place(o.param, 0, 0)),
      );
      return [pole, arm, head];
    }
    case 'signPole': {
      const pole = tag(
        new CylinderGeometry(0.04, 0.04, o.height, 6),
        MAT.metal,
        place(o.x, o.y, o.z + o.height / 2, 0, 0, Math.PI / 2),
      );
      const plate =
        o.variant === 0
          ? tag(
              new CylinderGeometry(0.32, 0.32, 0.03, 10),
              MAT.signFace,
              place(o.x, o.y, o.z + o.height - 0.35, o.yaw, 0, 0).multiply(place(0, 0, 0, Math.PI / 2)),
            )
          : tag(new BoxGeometry(0.03, 0.6, 0.6), MAT.signFace, place(o.x, o.y, o.z + o.height - 0.35, o.yaw));
      return [pole, plate];
    }
  }
}

/** All static geometry of the town, world frame (z up, ground at z = 0). */
export function townStaticGeometry(town: Town): TaggedGeometry {
  const parts: TaggedGeometry[] = [];
  const curb = town.config.curbHeightM;
  const sw = town.config.sidewalkWidthM;
  for (const road of town.network.roads) {
    const l = road.halfWidthLeftM;
    const r = road.halfWidthRightM;
    parts.push(
      stripSlab(offsetPolyline(road.ref, l), offsetPolyline(road.ref, l + sw), 0, curb, MAT.concrete),
    );
    parts.push(
      stripSlab(offsetPolyline(road.ref, -r), offsetPolyline(road.ref, -(r + sw)), 0, curb, MAT.concrete),
    );
  }
  for (const c of town.corners) parts.push(polygonSlab(c.patch, 0, curb, MAT.concrete));
  for (const o of town.staticWorld.objects) parts.push(...staticObjectMesh(o));
  const templates = buildAgentTemplates();
  const tr = town.traffic.tracks;
  const n = tr.ids.length;
  for (let a = 0; a < n; a++) {
    if (town.traffic.roles[a] !== 'parked') continue;
    const k = a * town.scenario.numSteps;
    const tpl = templates[templateFor(town.traffic.classes[a], tr.length[a], tr.height[a])];
    const m = place(tr.x[k], tr.y[k], tr.z[k] - tr.height[a] / 2, tr.yaw[k]).multiply(
      new Matrix4().makeScale(...meshSize(tr.length[a], tr.width[a], tr.height[a])),
    );
    const placed = transformTagged(tpl, m);
    const paint = town.traffic.paint[a] & 7;
    const materials = placed.materials.map((mat) =>
      mat === MAT.agentPaint ? MAT.paint0 + paint : mat === MAT.agentCloth ? MAT.cloth0 + paint : mat,
    );
    parts.push({ positions: placed.positions, materials });
  }
  return mergeTagged(parts);
}
