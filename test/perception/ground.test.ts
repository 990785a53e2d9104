// Ground removal: on generated sweeps whose ground is known exactly (flat, a 10% slope, a 15 cm curb) and on
// the real KITTI and AV2 sweeps, judged against the sensor height and AV2's labelled cuboids.
import { describe, expect, it } from 'vitest';
import { realData } from '../../core/paths.ts';
import { itWithSharedData } from '../sharedData.ts';
import { pointInBox } from '../../core/geometry/box.ts';
import { LogReader } from '../../datasets/logstore.ts';
import { importLog } from '../../datasets/import.ts';
import { azimuthSector, azimuthSectorTable } from '../../core/geometry/azimuthSectors.ts';
import { DEFAULT_GROUND_CONFIG, groundHeightAt, segmentGround } from '../../perception/ground.ts';
import { castSweep, type SceneSpec } from './scene.ts';
import { tmpDir } from './tmp.ts';

const cars = [
  { cx: 9, cy: 3, cz: 0.8, length: 4.5, width: 1.8, height: 1.6, yaw: 0.3 },
  { cx: -14, cy: -5, cz: 0.8, length: 4.2, width: 1.9, height: 1.5, yaw: 1.2 },
  { cx: 4, cy: -12, cz: 0.9, length: 0.6, width: 0.6, height: 1.8, yaw: 0 },
  { cx: 22, cy: 9, cz: 0.8, length: 4.4, width: 1.8, height: 1.6, yaw: -0.4 },
];

function scene(terrain: (x: number, y: number) => number): SceneSpec {
  // Boxes stand on the terrain.
  const boxes = cars.map((b) => ({ ...b, cz: b.cz + terrain(b.cx, b.cy) }));
  return {
    sensorZ: 1.8 + terrain(0, 0),
    rings: 32,
    azimuthSteps: 720,
    minElevationDeg: -24.9,
    maxElevationDeg: 2,
    maxRangeM: 60,
    terrain,
    boxes,
    noiseM: 0.02,
  };
}

/**
 * Share of true ground points found, and share of object points taken (those more than `marginM` above
 * their box's bottom: on tilted ground an upright box's uphill edge sits below its centre's bottom).
 */
function judge(spec: SceneSpec, marginM = 0.2) {
  const s = castSweep(spec);
  const g = segmentGround(s);
  let groundTrue = 0;
  let groundFound = 0;
  let objectPts = 0;
  let objectTaken = 0;
  for (let i = 0; i < s.x.length; i++) {
    const onGround = Math.abs(s.z[i] - spec.terrain(s.x[i], s.y[i])) < 0.05;
    if (onGround) {
      groundTrue++;
      groundFound += g.isGround[i];
    } else if (
      spec.boxes.some((b) => pointInBox(b, s.x[i], s.y[i], s.z[i]) && s.z[i] > b.cz - b.height / 2 + marginM)
    ) {
      objectPts++;
      objectTaken += g.isGround[i];
    }
  }
  return { recall: groundFound / groundTrue, objectLoss: objectTaken / objectPts, objectPts, g, s };
}

describe('ground removal', () => {
  it('removes flat ground and keeps the objects standing on it', () => {
    const r = judge(scene(() => 0));
    expect(r.objectPts).toBeGreaterThan(200);
    expect(r.recall).toBeGreaterThan(0.98);
    expect(r.objectLoss).toBeLessThan(0.01);
    expect(r.g.model.levelZ).toBeCloseTo(0, 1);
  });

  it('follows a hill that starts 8 m ahead and steps over a 15 cm curb', () => {
    const terrain = (x: number, y: number) => 0.1 * Math.max(0, x - 8) + (y > 6 ? 0.15 : 0);
    const r = judge(scene(terrain));
    expect(r.recall).toBeGreaterThan(0.97);
    expect(r.objectLoss).toBeLessThan(0.02);
    // The fitted ground height tracks the terrain up the hill, behind the car and on the curb.
    for (const [x, y] of [
      [25, 0],
      [-20, 0],
      [10, 10],
      [0, -15],
    ]) {
      expect(Math.abs(groundHeightAt(r.g.model, x, y) - terrain(x, y))).toBeLessThan(0.15);
    }
    // A height threshold above the road under the car (what a single level assumes) misses the hill.
    let levelFound = 0;
    let truth = 0;
    for (let i = 0; i < r.s.x.length; i++) {
      if (Math.abs(r.s.z[i] - terrain(r.s.x[i], r.s.y[i])) < 0.05) {
        truth++;
        if (r.s.z[i] <= 0.15) levelFound++;
      }
    }
    expect(levelFound / truth).toBeLessThan(0.8);
  });

  it('works with the sensor tilted against the ground (a 10% grade under the whole scene)', () => {
    const terrain = (x: number, y: number) => 0.1 * x + 0.03 * y;
    // Box corners lie up to 0.25 m above or below the terrain under the box centre.
    const r = judge(scene(terrain), 0.45);
    expect(r.recall).toBeGreaterThan(0.97);
    expect(r.objectLoss).toBeLessThan(0.02);
    expect(r.g.model.plane[0]).toBeCloseTo(0.1, 1);
  });

  it('skips and counts NaN points, and copes with empty and tiny sweeps', () => {
    const s = castSweep(scene(() => 0));
    s.x[10] = NaN;
    s.z[20] = Infinity;
    const g = segmentGround(s);
    expect(g.invalidCount).toBe(2);
    expect(g.isGround[10]).toBe(0);
    expect(g.isGround[20]).toBe(0);
    expect(Number.isNaN(g.heightAboveGround[10])).toBe(true);
    const empty = segmentGround({ x: new Float32Array(0), y: new Float32Array(0), z: new Float32Array(0) });
    expect(empty.groundCount).toBe(0);
    const tiny = segmentGround({
      x: Float32Array.of(5, 6),
      y: Float32Array.of(0, 1),
      z: Float32Array.of(-1.7, 0.5),
    });
    expect(Array.from(tiny.isGround)).toEqual([1, 0]);
  });

  it('puts each point of a scan in its own azimuth segment, also a hair either side of a boundary', () => {
    // segmentGround finds a point's segment from the previous point's and its neighbours' (a scan line
    // sweeps through them); here the ground steps 0.2 m between segments, so a point given a neighbouring
    // segment's line would be 0.2 m off the height groundHeightAt (a plain table lookup) gives it.
    const S = DEFAULT_GROUND_CONFIG.segments;
    const table = azimuthSectorTable(S);
    const xs: number[] = [];
    const ys: number[] = [];
    const zs: number[] = [];
    const push = (rangeM: number, angle: number) => {
      const x = Math.fround(rangeM * Math.cos(angle));
      const y = Math.fround(rangeM * Math.sin(angle));
      const s = azimuthSector(table, x, y, Math.sqrt(x * x + y * y));
      xs.push(x);
      ys.push(y);
      zs.push(-1.8 + (s % 2) * 0.2);
    };
    // Rings swept one way and the other, 2,000 steps a turn, with points 1e-6 rad either side of every
    // segment boundary in scan order.
    for (const [rangeM, dir] of [
      [6, 1],
      [9, -1],
      [14, 1],
      [20, -1],
    ]) {
      for (let k = 0; k < 2000; k++) {
        const a = dir * ((k / 2000) * 2 * Math.PI - Math.PI);
        push(rangeM, a);
        const s = Math.floor(((a + Math.PI) / (2 * Math.PI)) * S);
        const boundary = ((dir > 0 ? s + 1 : s) / S) * 2 * Math.PI - Math.PI;
        push(rangeM, boundary - 1e-6);
        push(rangeM, boundary + 1e-6);
      }
    }
    const pts = { x: Float32Array.from(xs), y: Float32Array.from(ys), z: Float32Array.from(zs) };
    const g = segmentGround(pts);
    let off = 0;
    for (let i = 0; i < xs.length; i++) {
      const want = pts.z[i] - groundHeightAt(g.model, pts.x[i], pts.y[i]);
      if (!(Math.abs(g.heightAboveGround[i] - want) < 0.01)) off++;
    }
    expect(off).toBe(0);
    // The steps are in the lines (so a wrong segment would show): every point is ground, and the lines of
    // two neighbouring segments are 0.2 m apart.
    expect(g.groundCount).toBe(xs.length);
    const mid = (s: number) => ((s + 0.5) / S) * 2 * Math.PI - Math.PI;
    const at = (s: number) => groundHeightAt(g.model, 10 * Math.cos(mid(s)), 10 * Math.sin(mid(s)));
    expect(at(11) - at(10)).toBeCloseTo(0.2, 2);
  });

  itWithSharedData(
    'on the real KITTI 0048 and AV2 sweeps: finds the ground at the sensor height and keeps labelled objects',
    async () => {
      const dir = tmpDir();
      await importLog(realData('kitti-0048', '0000000000.pcd'), 'pcd', `${dir}/kitti`, {});
      await importLog(realData('av2-7fab2350'), 'av2', `${dir}/av2`, {});
      const kitti = await LogReader.open(`${dir}/kitti`);
      const kf = await kitti.readFrame(0);
      await kitti.close();
      const kg = segmentGround(kf.points);
      // KITTI's HDL-64E is mounted 1.73 m above the road.
      expect(kg.model.levelZ).toBeGreaterThan(-1.93);
      expect(kg.model.levelZ).toBeLessThan(-1.53);
      const kShare = kg.groundCount / kf.points.x.length;
      expect(kShare).toBeGreaterThan(0.3);
      expect(kShare).toBeLessThan(0.7);

      const av2 = await LogReader.open(`${dir}/av2`);
      const af = await av2.readFrame(0);
      const labels = av2.readBoxes('labels')!;
      await av2.close();
      const ag = segmentGround(af.points);
      // Points inside labelled cuboids, above their lowest 0.3 m, are objects: nearly none may be ground.
      let inside = 0;
      let taken = 0;
      for (let k = 0; k < labels.cx.length; k++) {
        if (labels.frameIndex[k] !== 0) continue;
        const b = {
          cx: labels.cx[k],
          cy: labels.cy[k],
          cz: labels.cz[k],
          length: labels.length[k],
          width: labels.width[k],
          height: labels.height[k],
          yaw: labels.yaw[k],
        };
        for (let i = 0; i < af.points.x.length; i++) {
          const z = af.points.z[i];
          if (z > b.cz - b.height / 2 + 0.3 && pointInBox(b, af.points.x[i], af.points.y[i], z)) {
            inside++;
            taken += ag.isGround[i];
          }
        }
      }
      expect(inside).toBeGreaterThan(1000);
      expect(taken / inside).toBeLessThan(0.02);
      // Near the car (5–20 m) most returns within 10 cm of the fitted level are road surface and removed.
      let near = 0;
      let nearGround = 0;
      for (let i = 0; i < af.points.x.length; i++) {
        const r = Math.hypot(af.points.x[i], af.points.y[i]);
        if (r > 5 && r < 20 && Math.abs(af.points.z[i] - ag.model.levelZ) < 0.1) {
          near++;
          nearGround += ag.isGround[i];
        }
      }
      expect(nearGround / near).toBeGreaterThan(0.9);
      console.log(
        `ground share: KITTI 0048 frame 0 ${(100 * kShare).toFixed(1)}%, AV2 sweep 0 ${((100 * ag.groundCount) / af.points.x.length).toFixed(1)}%`,
      );
    },
  );
});
