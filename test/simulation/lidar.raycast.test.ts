// LiDAR geometry: BVH traversal = brute force, analytic hit distances, beam elevations, self-occlusion, moving
// sensor and agents, and range noise, dropout and intensity as configured.
import { BoxGeometry } from 'three';
import { describe, expect, it } from 'vitest';
import { MESH_INSET_M, TEMPLATE } from '../../simulation/lidar/agentMeshes.ts';
import { HDL64_KITTI_APEX_M, type LidarConfig, lidarConfig } from '../../simulation/lidar/beams.ts';
import { buildLidarWorld } from '../../simulation/lidar/lidarWorld.ts';
import { MAT } from '../../simulation/lidar/materials.ts';
import { type TaggedGeometry, boundsOf, place, tag } from '../../simulation/lidar/meshKit.ts';
import { buildPackedBvh, castRay, createCaster } from '../../simulation/lidar/packedBvh.ts';
import { createSweepRenderer, renderSweep } from '../../simulation/lidar/sweep.ts';
import type { SweepScene } from '../../simulation/lidar/sweepScene.ts';
import { buildAgentTemplates } from '../../simulation/lidar/agentMeshes.ts';
import { Rng } from '../../core/rng.ts';

/** Brute-force nearest hit over all triangles (independent of the BVH). */
function bruteForce(t: TaggedGeometry, o: number[], d: number[], tMax: number): number {
  let best = Infinity;
  const p = t.positions;
  for (let k = 0; k < p.length; k += 9) {
    const e1 = [p[k + 3] - p[k], p[k + 4] - p[k + 1], p[k + 5] - p[k + 2]];
    const e2 = [p[k + 6] - p[k], p[k + 7] - p[k + 1], p[k + 8] - p[k + 2]];
    // Solve o + t d = a + u e1 + v e2 by Cramer's rule.
    const m = [
      [e1[0], e2[0], -d[0]],
      [e1[1], e2[1], -d[1]],
      [e1[2], e2[2], -d[2]],
    ];
    const rhs = [o[0] - p[k], o[1] - p[k + 1], o[2] - p[k + 2]];
    const det3 = (a: number[][]) =>
      a[0][0] * (a[1][1] * a[2][2] - a[1][2] * a[2][1]) -
      a[0][1] * (a[1][0] * a[2][2] - a[1][2] * a[2][0]) +
      a[0][2] * (a[1][0] * a[2][1] - a[1][1] * a[2][0]);
    const D = det3(m);
    if (Math.abs(D) < 1e-12) continue;
    const col = (c: number) => m.map((row, r) => row.map((v, j) => (j === c ? rhs[r] : v)));
    const u = det3(col(0)) / D;
    const v = det3(col(1)) / D;
    const tt = det3(col(2)) / D;
    if (u >= 0 && v >= 0 && u + v <= 1 && tt > 1e-6 && tt < tMax && tt < best) best = tt;
  }
  return best;
}

const cfgElevation = (ring: number) => lidarConfig('hdl64').elevationsDeg[ring];

const staticSensor = (z = 1.73): Float64Array => Float64Array.of(0, 0, z, 0, 0, 0, z, 0, 0, 0, z, 0);

function emptyScene(sensor = staticSensor()): SweepScene {
  return {
    sensor,
    agentKeys: new Float64Array(0),
    agentSize: new Float32Array(0),
    agentTemplate: new Uint8Array(0),
    agentPaint: new Uint8Array(0),
    agentRow: new Int32Array(0),
  };
}

const exact = (model: 'hdl64' | 'vlp32' | 'os128', over: Partial<LidarConfig> = {}) =>
  lidarConfig(model, {
    rangeNoiseM: 0,
    dropoutProb: 0,
    minReturn: 0,
    motion: false,
    azimuthSteps: 360,
    egoBody: null,
    ...over,
  });

describe('BVH ray casting', () => {
  it('finds the same nearest hit as brute force on a random triangle soup', () => {
    const rng = new Rng(5, 'mulberry32');
    const n = 1500;
    const positions = new Float32Array(9 * n);
    for (let k = 0; k < n; k++) {
      const c = [rng.uniform(-25, 25), rng.uniform(-25, 25), rng.uniform(-5, 15)];
      for (let v = 0; v < 3; v++)
        for (let a = 0; a < 3; a++) positions[9 * k + 3 * v + a] = c[a] + rng.uniform(-2, 2);
    }
    const soup: TaggedGeometry = { positions, materials: new Uint8Array(n) };
    const caster = createCaster(buildPackedBvh(soup));
    let hits = 0;
    for (let r = 0; r < 300; r++) {
      const o = [rng.uniform(-30, 30), rng.uniform(-30, 30), rng.uniform(-5, 15)];
      const az = rng.uniform(-Math.PI, Math.PI);
      const el = rng.uniform(-0.5, 0.5);
      const d = [Math.cos(el) * Math.cos(az), Math.cos(el) * Math.sin(az), Math.sin(el)];
      const tMax = rng.chance(0.3) ? rng.uniform(5, 40) : 200;
      const expected = bruteForce(soup, o, d, tMax);
      const hit = castRay(caster, o[0], o[1], o[2], d[0], d[1], d[2], tMax);
      expect(hit).toBe(expected < Infinity);
      if (hit) {
        hits++;
        expect(caster.t).toBeCloseTo(expected, 4);
      }
    }
    expect(hits).toBeGreaterThan(100);
  });

  it('hits a box at the analytic distance from any angle onto its face', () => {
    // A 2 m cube centred 10 m ahead: its near face is the plane x = 9.
    const cube = tag(new BoxGeometry(2, 2, 2), MAT.concrete, place(10, 0, 0));
    const caster = createCaster(buildPackedBvh(cube));
    for (const angle of [0, 0.05, -0.08, 0.1]) {
      const d = [Math.cos(angle), Math.sin(angle), 0];
      expect(castRay(caster, 0, 0, 0, d[0], d[1], d[2], 100)).toBe(true);
      expect(caster.t).toBeCloseTo(9 / Math.cos(angle), 5);
    }
    // Too short a ray, or one passing beside the box, misses.
    expect(castRay(caster, 0, 0, 0, 1, 0, 0, 8.9)).toBe(false);
    expect(castRay(caster, 0, 0, 0, Math.cos(0.2), Math.sin(0.2), 0, 100)).toBe(false);
  });

  it('fits every road-user template exactly into the unit box (so labels fit the meshes)', () => {
    for (const t of buildAgentTemplates()) {
      const b = boundsOf(t);
      expect(b.map((v) => Math.round(v * 1e5) / 1e5)).toEqual([-0.5, -0.5, 0, 0.5, 0.5, 1]);
    }
  });
});

describe('LiDAR sweep', () => {
  it('sends each beam at its model elevation and hits flat ground at 1.73 m below the sensor', () => {
    for (const model of ['hdl64', 'vlp32', 'os128'] as const) {
      const cfg = exact(model);
      const world = buildLidarWorld(null, null, 0);
      const pts = renderSweep(createSweepRenderer(world, cfg), emptyScene(), 0);
      // Every beam that reaches the ground within the maximum range returns once per column.
      const reach = cfg.elevationsDeg.filter(
        (e) => e < 0 && 1.73 / Math.sin((-e * Math.PI) / 180) <= cfg.maxRangeM,
      );
      expect(pts.count).toBe(reach.length * cfg.azimuthSteps);
      for (let i = 0; i < pts.count; i++) {
        const el = (cfg.elevationsDeg[pts.ring[i]] * Math.PI) / 180;
        expect(pts.z[i]).toBeCloseTo(-1.73, 4);
        expect(Math.hypot(pts.x[i], pts.y[i], pts.z[i])).toBeCloseTo(1.73 / Math.sin(-el), 3);
        expect(pts.tOffset[i]).toBeGreaterThanOrEqual(0);
        expect(pts.tOffset[i]).toBeLessThan(0.1);
      }
    }
    const hdl = lidarConfig('hdl64').elevationsDeg;
    expect(hdl.length).toBe(64);
    expect(hdl[0]).toBeCloseTo(2, 5);
    expect(hdl[63]).toBeCloseTo(-24.9, 5);
    expect(lidarConfig('vlp32').elevationsDeg.length).toBe(32);
    expect(lidarConfig('os128').elevationsDeg.length).toBe(128);
  });

  it("fires each beam from its laser's apex above the origin, as KITTI's HDL-64E does", () => {
    const world = buildLidarWorld(null, null, 0);
    const cfg = exact('hdl64', { beamApexM: [...HDL64_KITTI_APEX_M] });
    const pts = renderSweep(createSweepRenderer(world, cfg), emptyScene(), 0);
    const base = renderSweep(createSweepRenderer(world, exact('hdl64')), emptyScene(), 0);
    expect(pts.count).toBe(base.count);
    for (let i = 0; i < pts.count; i++) {
      const b = pts.ring[i];
      const tanEl = Math.tan((cfg.elevationsDeg[b] * Math.PI) / 180);
      // Still on the ground 1.73 m below the origin, but farther out: the ray starts apex metres higher.
      expect(pts.z[i]).toBeCloseTo(-1.73, 4);
      expect(Math.hypot(pts.x[i], pts.y[i])).toBeCloseTo((1.73 + HDL64_KITTI_APEX_M[b]) / -tanEl, 3);
    }
    // Seen from the origin the upper block's ground ring sits shallower than its laser fires.
    const apparent = Math.atan2(pts.z[0], Math.hypot(pts.x[0], pts.y[0]));
    expect(apparent).toBeGreaterThan((cfg.elevationsDeg[pts.ring[0]] * Math.PI) / 180 + 1e-3);
    expect(() => createSweepRenderer(world, exact('hdl64', { beamApexM: [0.1, 0.2] }))).toThrow(
      /64 finite heights/,
    );
  });

  it("hides the returns blocked by the recording car's own body, behind and in front but not to the sides", () => {
    const world = buildLidarWorld(null, null, 0);
    const body = lidarConfig('hdl64').egoBody!;
    const pts = renderSweep(createSweepRenderer(world, exact('hdl64', { egoBody: body })), emptyScene(), 0);
    let lowestBehind = Infinity;
    let lowestSide = Infinity;
    for (let i = 0; i < pts.count; i++) {
      const el = cfgElevation(pts.ring[i]);
      const az = Math.atan2(pts.y[i], pts.x[i]);
      if (Math.abs(az) > Math.PI - 0.05) lowestBehind = Math.min(lowestBehind, el);
      if (Math.abs(Math.abs(az) - Math.PI / 2) < 0.05) lowestSide = Math.min(lowestSide, el);
    }
    // Straight behind, a beam survives only if it clears the body's top at its rear edge.
    const limitBehind = (-Math.atan2(-body.topM, -body.xMinM) * 180) / Math.PI;
    expect(lowestBehind).toBeGreaterThanOrEqual(limitBehind);
    expect(lowestBehind).toBeLessThan(limitBehind + 1);
    // To the sides every beam reaches the ground (the body is narrower than the lowest beam's reach at its top).
    expect(lowestSide).toBeCloseTo(-24.9, 5);
  });

  it('sees a wall at its distance, also while the sensor drives towards it (points in the mid-sweep frame)', () => {
    // Wall: front face at x = 19.5, 100 m wide, 10 m tall.
    const wall = tag(new BoxGeometry(1, 100, 10), MAT.wallConcrete, place(20, 0, 5));
    const world = buildLidarWorld(wall, null, 0);
    for (const moving of [false, true]) {
      // 10 m/s along +x: at τ = ∓0.05 s the sensor is 0.5 m behind / ahead of its mid-sweep pose.
      const sensor = moving
        ? Float64Array.of(-0.5, 0, 1.73, 0, 0, 0, 1.73, 0, 0.5, 0, 1.73, 0)
        : staticSensor();
      const pts = renderSweep(
        createSweepRenderer(world, exact('hdl64', { motion: moving })),
        emptyScene(sensor),
        0,
      );
      let onWall = 0;
      for (let i = 0; i < pts.count; i++) {
        if (pts.z[i] < -1.7) continue;
        onWall++;
        expect(pts.x[i]).toBeCloseTo(19.5, 3);
      }
      expect(onWall).toBeGreaterThan(1000);
    }
  });

  it('renders an agent inside its box, on the analytic face, and smears a moving one only with motion on', () => {
    const world = buildLidarWorld(null, null, 0);
    const agentAt = (vx: number): SweepScene => ({
      sensor: staticSensor(),
      // A 4 × 2 × 1.5 m box template standing on the ground 10 m ahead (keys at τ = −T/2, 0, +T/2).
      agentKeys: Float64Array.of(10 - 0.05 * vx, 0, 0, 0, 10, 0, 0, 0, 10 + 0.05 * vx, 0, 0, 0),
      agentSize: Float32Array.of(4, 2, 1.5),
      agentTemplate: Uint8Array.of(TEMPLATE.box),
      agentPaint: Uint8Array.of(0),
      agentRow: Int32Array.of(0),
    });
    const frozen = renderSweep(
      createSweepRenderer(world, exact('hdl64', { azimuthSteps: 2048 })),
      agentAt(0),
      0,
    );
    let hits = 0;
    for (let i = 0; i < frozen.count; i++) {
      if (frozen.agent[i] !== 0) continue;
      hits++;
      const [x, y, z] = [frozen.x[i], frozen.y[i], frozen.z[i] + 1.73];
      // Strictly inside the 4 × 2 × 1.5 m box, by the mesh inset.
      expect(x).toBeGreaterThan(8 + MESH_INSET_M - 1e-3);
      expect(x).toBeLessThan(12 - MESH_INSET_M + 1e-3);
      expect(Math.abs(y)).toBeLessThan(1 - MESH_INSET_M + 1e-3);
      expect(z).toBeLessThan(1.5 - MESH_INSET_M + 1e-3);
      // Seen from the front, returns lie on the mesh's front face or on its top.
      expect(Math.abs(x - (8 + MESH_INSET_M)) < 1e-3 || Math.abs(z - (1.5 - MESH_INSET_M)) < 1e-3).toBe(true);
    }
    expect(hits).toBeGreaterThan(50);
    // Moving sideways-on at 20 m/s along x: with motion on, points land outside the mid-sweep box.
    const outside = (motion: boolean) => {
      const p = renderSweep(
        createSweepRenderer(world, exact('hdl64', { azimuthSteps: 2048, motion })),
        agentAt(20),
        0,
      );
      let n = 0;
      for (let i = 0; i < p.count; i++)
        if (p.agent[i] === 0 && (p.x[i] < 8 - 1e-3 || p.x[i] > 12 + 1e-3)) n++;
      return n;
    };
    expect(outside(false)).toBe(0);
    expect(outside(true)).toBeGreaterThan(0);
  });

  it('adds range noise with the configured spread, drops the configured share, and is deterministic', () => {
    const world = buildLidarWorld(null, null, 0);
    const base = renderSweep(createSweepRenderer(world, exact('hdl64')), emptyScene(), 3);
    const noisy = renderSweep(
      createSweepRenderer(world, exact('hdl64', { rangeNoiseM: 0.05 })),
      emptyScene(),
      3,
    );
    expect(noisy.count).toBe(base.count);
    let sum = 0;
    let sum2 = 0;
    for (let i = 0; i < noisy.count; i++) {
      const e = Math.hypot(noisy.x[i], noisy.y[i], noisy.z[i]) - Math.hypot(base.x[i], base.y[i], base.z[i]);
      sum += e;
      sum2 += e * e;
    }
    const mean = sum / noisy.count;
    const sd = Math.sqrt(sum2 / noisy.count - mean * mean);
    expect(Math.abs(mean)).toBeLessThan(0.005);
    expect(sd).toBeGreaterThan(0.045);
    expect(sd).toBeLessThan(0.055);
    const dropped = renderSweep(
      createSweepRenderer(world, exact('hdl64', { dropoutProb: 0.3 })),
      emptyScene(),
      3,
    );
    const kept = dropped.count / base.count;
    const sigma = Math.sqrt((0.3 * 0.7) / base.count);
    expect(Math.abs(kept - 0.7)).toBeLessThan(5 * sigma);
    const again = renderSweep(
      createSweepRenderer(world, exact('hdl64', { dropoutProb: 0.3 })),
      emptyScene(),
      3,
    );
    expect(Array.from(again.x.subarray(0, again.count))).toEqual(
      Array.from(dropped.x.subarray(0, dropped.count)),
    );
  });

  it('offsets each beam by its own fixed range bias, the same in every sweep, beside the per-return noise', () => {
    const world = buildLidarWorld(null, null, 0);
    const base = renderSweep(createSweepRenderer(world, exact('hdl64')), emptyScene(), 3);
    const biasedCfg = exact('hdl64', { rangeBiasM: 0.05 });
    const perBeam = (frame: number, cfg: LidarConfig) => {
      const p = renderSweep(createSweepRenderer(world, cfg), emptyScene(), frame);
      expect(p.count).toBe(base.count);
      // Every return of a beam is off by the same amount; collect it per ring.
      const off = new Map<number, number[]>();
      for (let i = 0; i < p.count; i++) {
        const e = Math.hypot(p.x[i], p.y[i], p.z[i]) - Math.hypot(base.x[i], base.y[i], base.z[i]);
        const list = off.get(p.ring[i]) ?? [];
        list.push(e);
        off.set(p.ring[i], list);
      }
      return off;
    };
    const a = perBeam(3, biasedCfg);
    const b = perBeam(4, biasedCfg);
    const offsets: number[] = [];
    for (const [ring, list] of a) {
      const spread = Math.max(...list) - Math.min(...list);
      expect(spread).toBeLessThan(1e-4); // float32 points
      expect(Math.abs(b.get(ring)![0] - list[0])).toBeLessThan(1e-4);
      offsets.push(list[0]);
    }
    // 64 beams' offsets: a spread near the configured σ, not all alike.
    const mean = offsets.reduce((s, v) => s + v, 0) / offsets.length;
    const sd = Math.sqrt(offsets.reduce((s, v) => s + (v - mean) ** 2, 0) / offsets.length);
    expect(sd).toBeGreaterThan(0.03);
    expect(sd).toBeLessThan(0.07);
    // Another noise seed draws other offsets.
    const c = perBeam(3, { ...biasedCfg, noiseSeed: 2 });
    let differ = 0;
    for (const [ring, list] of a) if (Math.abs(c.get(ring)![0] - list[0]) > 1e-3) differ++;
    expect(differ).toBeGreaterThan(a.size / 2);
  });

  it('makes intensity follow reflectivity and incidence, and drops weak far returns', () => {
    const world = buildLidarWorld(null, null, 0);
    const pts = renderSweep(createSweepRenderer(world, exact('hdl64')), emptyScene(), 0);
    // On flat asphalt, steeper (lower) beams see higher intensity than grazing ones.
    const meanByRing = new Map<number, number[]>();
    for (let i = 0; i < pts.count; i++) {
      const list = meanByRing.get(pts.ring[i]) ?? [];
      list.push(pts.intensity[i]);
      meanByRing.set(pts.ring[i], list);
    }
    const mean = (r: number) => meanByRing.get(r)!.reduce((a, b) => a + b, 0) / meanByRing.get(r)!.length;
    expect(mean(63)).toBeGreaterThan(mean(20) + 0.01);
    // A return threshold removes far grazing ground first.
    const weak = renderSweep(
      createSweepRenderer(world, exact('hdl64', { minReturn: 1.5e-4 })),
      emptyScene(),
      0,
    );
    expect(weak.count).toBeLessThan(pts.count);
    let farthest = 0;
    for (let i = 0; i < weak.count; i++) farthest = Math.max(farthest, Math.hypot(weak.x[i], weak.y[i]));
    let farthestAll = 0;
    for (let i = 0; i < pts.count; i++) farthestAll = Math.max(farthestAll, Math.hypot(pts.x[i], pts.y[i]));
    expect(farthest).toBeLessThan(farthestAll);
  });
});
