// The fast LiDAR paths against the plain ones: one column-packet traversal = one castRay per beam on a town's
// static BVH, and a whole sweep of a town with its traffic = plain three-mesh-bvh raycastFirst on the same rays.
import { describe, expect, it } from 'vitest';
import { templateFor } from '../../simulation/lidar/agentMeshes.ts';
import { HDL64_KITTI_APEX_M, lidarConfig } from '../../simulation/lidar/beams.ts';
import { castColumn, createColumnPacket, setColumnDirections } from '../../simulation/lidar/columnPacket.ts';
import { buildLidarWorld } from '../../simulation/lidar/lidarWorld.ts';
import { castRay, createCaster } from '../../simulation/lidar/packedBvh.ts';
import { rayGaussianKeyed, rayStreamKey, rayUniformKeyed } from '../../simulation/lidar/rayHash.ts';
import { buildReferenceWorld, referenceCast, sweepRays } from '../../simulation/lidar/referenceCast.ts';
import { createSweepRenderer, renderSweep } from '../../simulation/lidar/sweep.ts';
import { sweepSceneFromTracks } from '../../simulation/lidar/sweepScene.ts';
import { townGroundRaster } from '../../simulation/town/groundRaster.ts';
import { generateTown } from '../../simulation/town/town.ts';
import { townStaticGeometry } from '../../simulation/town/townMeshes.ts';
import { Rng, fmix32 } from '../../core/rng.ts';

const STEPS = 20;
const town = generateTown({ seed: 4 }, STEPS);
const staticGeometry = townStaticGeometry(town);
const world = buildLidarWorld(staticGeometry, townGroundRaster(town), 0);

function sceneAt(step: number, mountHeightM: number) {
  const tr = town.traffic.tracks;
  const n = tr.ids.length;
  const templates = Array.from({ length: n }, (_, a) =>
    templateFor(town.traffic.classes[a], tr.length[a], tr.height[a]),
  );
  const rows = Array.from({ length: n }, (_, a) => a).filter(
    (a) => a !== town.traffic.egoIndex && town.traffic.roles[a] !== 'parked',
  );
  return sweepSceneFromTracks(tr, {
    step,
    numSteps: STEPS,
    dtS: town.config.dtS,
    sweepPeriodS: 0.1,
    egoRow: town.traffic.egoIndex,
    mountHeightM,
    rows,
    templates,
    paint: town.traffic.paint,
    motion: true,
  });
}

describe('column packet', () => {
  it('finds, beam for beam, the hit castRay finds on a town', () => {
    const cfg = lidarConfig('os128');
    const elev = Float64Array.from(cfg.elevationsDeg, (d) => (d * Math.PI) / 180);
    const packet = createColumnPacket(elev);
    const caster = createCaster(world.staticBvh!);
    const rng = new Rng(3, 'mulberry32');
    const scene = sceneAt(10, cfg.mountHeightM);
    let hits = 0;
    for (let trial = 0; trial < 300; trial++) {
      // Origins around the ego's position and at odd heights, azimuths anywhere (axis-aligned ones included).
      const ox = scene.sensor[4] + rng.uniform(-40, 40);
      const oy = scene.sensor[5] + rng.uniform(-40, 40);
      const oz = rng.uniform(0.3, 8);
      const az = trial < 4 ? (trial * Math.PI) / 2 : rng.uniform(-Math.PI, Math.PI);
      const ca = Math.cos(az);
      const sa = Math.sin(az);
      setColumnDirections(packet, ca, sa);
      const tMax = new Float64Array(elev.length);
      for (let b = 0; b < elev.length; b++) tMax[b] = b % 7 === 3 ? rng.uniform(0, 30) : 120;
      packet.best.set(tMax);
      packet.tri.fill(-1);
      castColumn(caster, packet, ox, oy, oz, ca, sa, 0, elev.length - 1);
      for (let b = 0; b < elev.length; b++) {
        const hit = castRay(caster, ox, oy, oz, packet.dx[b], packet.dy[b], packet.sinEl[b], tMax[b]);
        expect(packet.tri[b] >= 0).toBe(hit);
        if (hit) {
          hits++;
          expect(packet.best[b]).toBe(caster.t);
        } else expect(packet.best[b]).toBe(tMax[b]);
      }
    }
    expect(hits).toBeGreaterThan(5000);
  });
});

describe('fast sweep vs plain raycastFirst', () => {
  // Beams from the origin (steps 5 and 14), and from two blocks of lasers above it as on KITTI's HDL-64E (step 14).
  it.each([
    [null, [5, 14]],
    [HDL64_KITTI_APEX_M, [14]],
  ])(
    'returns the same nearest hit for every ray of a town sweep with moving agents (apex %#)',
    (apex, steps) => {
      const cfg = lidarConfig('hdl64', {
        azimuthSteps: 512,
        rangeNoiseM: 0,
        dropoutProb: 0,
        minReturn: 0,
        minRangeM: 0,
        beamApexM: apex && [...apex],
      });
      for (const step of steps) {
        const scene = sceneAt(step, cfg.mountHeightM);
        const pts = renderSweep(createSweepRenderer(world, cfg), scene, step);
        const rays = sweepRays(cfg, scene);
        const ref = referenceCast(buildReferenceWorld(staticGeometry, 0), rays, scene, cfg.maxRangeM);
        let refHits = 0;
        for (const k of ref.kind) if (k) refHits++;
        expect(pts.count).toBe(refHits);
        const [fx, fy, fz, fyaw] = [scene.sensor[4], scene.sensor[5], scene.sensor[6], scene.sensor[7]];
        const period = 0.1;
        let agentHits = 0;
        let far = 0;
        for (let i = 0; i < pts.count; i++) {
          const col = Math.round((pts.tOffset[i] / period) * cfg.azimuthSteps - 0.5);
          const ray = col * rays.beams + pts.ring[i];
          expect(ref.kind[ray]).not.toBe(0);
          // Sensor frame at the frame pose → world, then the distance from this column's origin.
          const c = Math.cos(fyaw);
          const s = Math.sin(fyaw);
          const wx = fx + c * pts.x[i] - s * pts.y[i];
          const wy = fy + s * pts.x[i] + c * pts.y[i];
          const wz = fz + pts.z[i];
          const o = 4 * col;
          const oz = rays.column[o + 2] + rays.apexM[pts.ring[i]];
          const range = Math.hypot(wx - rays.column[o], wy - rays.column[o + 1], wz - oz);
          if (Math.abs(range - ref.t[ray]) > 2e-3) far++;
          expect(pts.agent[i]).toBe(ref.kind[ray] === 3 ? ref.agent[ray] : -1);
          if (pts.agent[i] >= 0) agentHits++;
        }
        expect(far).toBe(0);
        expect(agentHits).toBeGreaterThan(100);
      }
    },
  );
});

describe('ray noise keys', () => {
  it('keyed hashes give the numbers of the original per-ray formula (frames stay byte-identical)', () => {
    // The formula as it was before the keys were hoisted out of the ray loop.
    const original = (seed: number, frame: number, ray: number, stream: number) =>
      fmix32(fmix32(fmix32((seed ^ 0x9e3779b9) + stream * 0x632be5ab) ^ frame) + ray) / 4294967296;
    for (const [seed, frame] of [
      [1, 0],
      [7, 123456],
      [0xffffffff, 3],
    ]) {
      for (let stream = 0; stream < 4; stream++) {
        const key = rayStreamKey(seed, frame, stream);
        for (const ray of [0, 1, 131071, 4e6])
          expect(rayUniformKeyed(key, ray)).toBe(original(seed, frame, ray, stream));
      }
      const k2 = rayStreamKey(seed, frame, 2);
      const k3 = rayStreamKey(seed, frame, 3);
      for (const ray of [0, 5, 99999]) {
        const u = Math.max(1e-12, original(seed, frame, ray, 2));
        const v = original(seed, frame, ray, 3);
        expect(rayGaussianKeyed(k2, k3, ray)).toBe(Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v));
      }
    }
  });
});
