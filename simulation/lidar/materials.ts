// Surface materials of the simulated world and their LiDAR reflectivity at 905 nm (diffuse, 0–1): asphalt and
// dark paint reflect little, lane paint and road signs a lot. Mesh vertices carry a material id (0–255).

export const MAT = {
  asphalt: 0,
  lanePaint: 1,
  concrete: 2,
  grass: 3,
  soil: 4,
  facadePlaster: 5,
  facadeBrick: 6,
  facadeDark: 7,
  facadeStone: 8,
  roof: 9,
  windowGlass: 10,
  metal: 11,
  signFace: 12,
  bark: 13,
  foliage: 14,
  wallConcrete: 15,
  hedge: 16,
  tyre: 17,
  carGlass: 18,
  bumper: 19,
  lamp: 20,
  skin: 21,
  /** Car paint variants 22–29, clothing variants 30–37. */
  paint0: 22,
  cloth0: 30,
  plate: 38,
  bikeFrame: 39,
  /** Placeholders in agent templates, replaced per agent by its paint / clothing variant. */
  agentPaint: 254,
  agentCloth: 253,
} as const;

export const PAINT_VARIANTS = 8;

const TABLE = new Float32Array(256).fill(0.2);
TABLE[MAT.asphalt] = 0.12;
TABLE[MAT.lanePaint] = 0.6;
TABLE[MAT.concrete] = 0.3;
TABLE[MAT.grass] = 0.4;
TABLE[MAT.soil] = 0.22;
TABLE[MAT.facadePlaster] = 0.5;
TABLE[MAT.facadeBrick] = 0.3;
TABLE[MAT.facadeDark] = 0.15;
TABLE[MAT.facadeStone] = 0.38;
TABLE[MAT.roof] = 0.18;
TABLE[MAT.windowGlass] = 0.04;
TABLE[MAT.metal] = 0.35;
TABLE[MAT.signFace] = 0.95;
TABLE[MAT.bark] = 0.25;
TABLE[MAT.foliage] = 0.45;
TABLE[MAT.wallConcrete] = 0.32;
TABLE[MAT.hedge] = 0.42;
TABLE[MAT.tyre] = 0.04;
TABLE[MAT.carGlass] = 0.05;
TABLE[MAT.bumper] = 0.1;
TABLE[MAT.lamp] = 0.5;
TABLE[MAT.skin] = 0.35;
// Car paints: white, silver, black, red, blue, grey, dark green, yellow.
[0.7, 0.55, 0.06, 0.3, 0.18, 0.35, 0.15, 0.6].forEach((r, k) => (TABLE[MAT.paint0 + k] = r));
// Clothing: light to dark.
[0.5, 0.35, 0.12, 0.25, 0.6, 0.2, 0.4, 0.08].forEach((r, k) => (TABLE[MAT.cloth0 + k] = r));
TABLE[MAT.plate] = 0.85;
TABLE[MAT.bikeFrame] = 0.3;

/** Reflectivity by material id (copy: callers may not change the table). */
export function reflectivityTable(): Float32Array {
  return TABLE.slice();
}
