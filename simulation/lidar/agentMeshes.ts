// Low-poly three.js road users (sedan, hatchback, SUV, van, truck, cyclist, pedestrian), each fitted to the unit
// box, so scaled to an agent's length × width × height (less a 2 cm inset) it fills the agent's label box.
import { BoxGeometry, CylinderGeometry, IcosahedronGeometry } from 'three';
import { MAT } from './materials.ts';
import { type TaggedGeometry, fitToUnitBox, mergeTagged, place, sideProfilePrism, tag } from './meshKit.ts';

export const TEMPLATE = {
  sedan: 0,
  hatchback: 1,
  suv: 2,
  van: 3,
  truck: 4,
  cyclist: 5,
  pedestrian: 6,
  box: 7,
} as const;

export type TemplateId = (typeof TEMPLATE)[keyof typeof TEMPLATE];

export const TEMPLATE_COUNT = 8;

/**
 * Gap between a road user's mesh and its label box on every side but the bottom (metres). Returns from the mesh
 * surface then lie strictly inside the box instead of on its faces, where float rounding would put about half of
 * them outside; 2 cm keeps the box tight (KITTI's hand-drawn boxes are looser).
 */
export const MESH_INSET_M = 0.02;

/** Size the mesh is scaled to for a label box of length × width × height. */
export function meshSize(length: number, width: number, height: number): [number, number, number] {
  return [
    Math.max(0.01, length - 2 * MESH_INSET_M),
    Math.max(0.01, width - 2 * MESH_INSET_M),
    Math.max(0.01, height - MESH_INSET_M),
  ];
}

function box(
  sx: number,
  sy: number,
  sz: number,
  x: number,
  y: number,
  z: number,
  material: number,
  yaw = 0,
  pitch = 0,
  roll = 0,
): TaggedGeometry {
  return tag(new BoxGeometry(sx, sy, sz), material, place(x, y, z, yaw, pitch, roll));
}

/** Wheel: a short cylinder with its axis across the vehicle (three.js cylinders run along y already). */
function wheel(x: number, y: number, radius: number, width: number): TaggedGeometry {
  return tag(new CylinderGeometry(radius, radius, width, 10), MAT.tyre, place(x, y, radius));
}

function wheels(xs: number[], halfWidth: number, radius: number, width: number): TaggedGeometry[] {
  return xs.flatMap((x) => [
    wheel(x, halfWidth - width / 2, radius, width),
    wheel(x, -(halfWidth - width / 2), radius, width),
  ]);
}

interface CarShape {
  halfLength: number;
  halfWidth: number;
  body: [number, number][];
  glass: [number, number][];
  roof: [number, number][];
  wheelX: number;
  wheelR: number;
}

function car(shape: CarShape): TaggedGeometry {
  const w = shape.halfWidth;
  return fitToUnitBox(
    mergeTagged([
      sideProfilePrism(shape.body, -w, w, MAT.agentPaint),
      sideProfilePrism(shape.glass, -w * 0.84, w * 0.84, MAT.carGlass),
      sideProfilePrism(shape.roof, -w * 0.8, w * 0.8, MAT.agentPaint),
      box(0.05, 0.5, 0.12, shape.halfLength - 0.02, 0, 0.45, MAT.plate),
      ...wheels([shape.wheelX, -shape.wheelX], w, shape.wheelR, 0.22),
    ]),
  );
}

function sedan(): TaggedGeometry {
  return car({
    halfLength: 2.25,
    halfWidth: 0.9,
    body: [
      [-2.25, 0.3],
      [2.25, 0.3],
      [2.25, 0.62],
      [2.1, 0.78],
      [0.9, 0.88],
      [-1.2, 0.92],
      [-2.05, 0.9],
      [-2.25, 0.75],
    ],
    glass: [
      [-1.35, 0.9],
      [0.95, 0.88],
      [0.15, 1.37],
      [-0.9, 1.39],
    ],
    roof: [
      [-0.95, 1.36],
      [0.2, 1.36],
      [0.12, 1.45],
      [-0.9, 1.45],
    ],
    wheelX: 1.4,
    wheelR: 0.32,
  });
}

function hatchback(): TaggedGeometry {
  return car({
    halfLength: 1.95,
    halfWidth: 0.85,
    body: [
      [-1.95, 0.3],
      [1.95, 0.3],
      [1.95, 0.6],
      [1.8, 0.8],
      [0.7, 0.9],
      [-1.9, 0.95],
      [-1.95, 0.8],
    ],
    glass: [
      [-1.88, 0.93],
      [0.75, 0.9],
      [0.0, 1.41],
      [-1.75, 1.42],
    ],
    roof: [
      [-1.8, 1.4],
      [-0.05, 1.4],
      [-0.1, 1.5],
      [-1.75, 1.5],
    ],
    wheelX: 1.25,
    wheelR: 0.3,
  });
}

function suv(): TaggedGeometry {
  return car({
    halfLength: 2.3,
    halfWidth: 0.92,
    body: [
      [-2.3, 0.4],
      [2.3, 0.4],
      [2.3, 0.85],
      [2.1, 1.0],
      [1.0, 1.08],
      [-2.25, 1.1],
      [-2.3, 0.9],
    ],
    glass: [
      [-2.22, 1.08],
      [1.05, 1.06],
      [0.35, 1.62],
      [-2.1, 1.64],
    ],
    roof: [
      [-2.15, 1.62],
      [0.3, 1.62],
      [0.25, 1.75],
      [-2.1, 1.75],
    ],
    wheelX: 1.45,
    wheelR: 0.38,
  });
}

function van(): TaggedGeometry {
  const w = 0.97;
  return fitToUnitBox(
    mergeTagged([
      sideProfilePrism(
        [
          [-2.6, 0.3],
          [2.6, 0.3],
          [2.6, 0.75],
          [2.3, 1.05],
          [1.7, 1.25],
          [1.2, 2.1],
          [1.1, 2.2],
          [-2.6, 2.2],
        ],
        -w,
        w,
        MAT.agentPaint,
      ),
      // Windscreen just proud of the body's sloped face.
      box(0.04, 1.6, 0.9, 1.476, 0, 1.69, MAT.carGlass, 0, Math.atan2(-0.5, 0.85)),
      box(0.05, 0.5, 0.12, 2.6, 0, 0.45, MAT.plate),
      ...wheels([1.75, -1.75], w, 0.35, 0.24),
    ]),
  );
}

function truck(): TaggedGeometry {
  const w = 1.25;
  return fitToUnitBox(
    mergeTagged([
      sideProfilePrism(
        [
          [2.75, 0.5],
          [4.75, 0.5],
          [4.75, 1.6],
          [4.6, 2.9],
          [2.75, 3.0],
        ],
        -w,
        w,
        MAT.agentPaint,
      ),
      box(0.04, 2.1, 1.1, 4.705, 0, 2.25, MAT.carGlass, 0, Math.atan2(-0.15, 1.3)),
      box(7.35, 2 * w, 2.4, -1.075, 0, 2.1, MAT.metal),
      box(9.0, 1.0, 0.4, 0, 0, 0.7, MAT.metal),
      ...wheels([3.7, -2.4, -3.5], w, 0.5, 0.3),
    ]),
  );
}

function cyclist(): TaggedGeometry {
  const parts: TaggedGeometry[] = [];
  // Bicycle: two thin wheels, a frame of tubes, handlebar (sets the width), saddle.
  for (const x of [0.53, -0.53])
    parts.push(tag(new CylinderGeometry(0.34, 0.34, 0.04, 14), MAT.tyre, place(x, 0, 0.34)));
  parts.push(box(0.62, 0.04, 0.04, 0.05, 0, 0.62, MAT.bikeFrame, 0, 0.35));
  parts.push(box(0.6, 0.04, 0.04, 0.02, 0, 0.78, MAT.bikeFrame));
  parts.push(box(0.04, 0.04, 0.5, -0.22, 0, 0.62, MAT.bikeFrame, 0, -0.25));
  parts.push(box(0.04, 0.04, 0.45, 0.45, 0, 0.75, MAT.bikeFrame, 0, -0.3));
  parts.push(box(0.06, 0.6, 0.04, 0.4, 0, 1.0, MAT.bikeFrame));
  parts.push(box(0.22, 0.12, 0.05, -0.25, 0, 0.88, MAT.bumper));
  // Rider leaning forward: legs to the pedals, torso, arms to the bars, head.
  parts.push(box(0.13, 0.13, 0.55, -0.12, 0.12, 0.62, MAT.agentCloth, 0, 0.35));
  parts.push(box(0.13, 0.13, 0.55, 0.0, -0.12, 0.68, MAT.agentCloth, 0, -0.2));
  parts.push(box(0.24, 0.36, 0.6, -0.08, 0, 1.22, MAT.agentCloth, 0, 0.55));
  parts.push(box(0.08, 0.08, 0.5, 0.22, 0.2, 1.2, MAT.agentCloth, 0, 1.0));
  parts.push(box(0.08, 0.08, 0.5, 0.22, -0.2, 1.2, MAT.agentCloth, 0, 1.0));
  parts.push(tag(new IcosahedronGeometry(0.115, 1), MAT.skin, place(0.13, 0, 1.62)));
  return fitToUnitBox(mergeTagged(parts));
}

function pedestrian(): TaggedGeometry {
  const parts: TaggedGeometry[] = [];
  // Mid-stride legs, torso, swinging arms, neck and head.
  parts.push(box(0.14, 0.15, 0.86, 0.1, 0.1, 0.43, MAT.agentCloth, 0, -0.3));
  parts.push(box(0.14, 0.15, 0.86, -0.1, -0.1, 0.43, MAT.agentCloth, 0, 0.3));
  parts.push(box(0.26, 0.4, 0.62, 0, 0, 1.15, MAT.agentCloth));
  parts.push(box(0.1, 0.1, 0.6, 0.08, 0.25, 1.1, MAT.agentCloth, 0, 0.3));
  parts.push(box(0.1, 0.1, 0.6, -0.08, -0.25, 1.1, MAT.agentCloth, 0, -0.3));
  parts.push(box(0.08, 0.08, 0.1, 0, 0, 1.5, MAT.skin));
  parts.push(tag(new IcosahedronGeometry(0.12, 1), MAT.skin, place(0, 0, 1.64)));
  return fitToUnitBox(mergeTagged(parts));
}

function plainBox(): TaggedGeometry {
  return fitToUnitBox(box(1, 1, 1, 0, 0, 0.5, MAT.agentPaint));
}

/** All templates, indexed by TemplateId. */
export function buildAgentTemplates(): TaggedGeometry[] {
  return [sedan(), hatchback(), suv(), van(), truck(), cyclist(), pedestrian(), plainBox()];
}

/** Template of a label class (car/van/truck/cyclist/pedestrian) or a scenario type (vehicle/…), by size. */
export function templateFor(kind: string, length: number, height: number): TemplateId {
  switch (kind) {
    case 'pedestrian':
      return TEMPLATE.pedestrian;
    case 'cyclist':
      return TEMPLATE.cyclist;
    case 'truck':
      return TEMPLATE.truck;
    case 'van':
      return TEMPLATE.van;
    case 'car':
    case 'vehicle':
      if (length > 7) return TEMPLATE.truck;
      if (height > 1.9) return TEMPLATE.van;
      if (height > 1.62) return TEMPLATE.suv;
      return length < 4.0 ? TEMPLATE.hatchback : TEMPLATE.sedan;
    default:
      return TEMPLATE.box;
  }
}
