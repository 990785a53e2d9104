// LiDAR benchmarks on the default town (HDL-64E, 64 × 2048): rays/s on one core, ms per sweep on all cores, and
// cost growth with 10× and 100× as many moving agents or static objects (BVH + front-to-back culling: sub-linear).
import { BoxGeometry, Vector3 } from 'three';
import { coreCount } from '../../core/workers.ts';
import { TEMPLATE, templateFor } from '../../simulation/lidar/agentMeshes.ts';
import { lidarConfig } from '../../simulation/lidar/beams.ts';
import { buildLidarWorld, type GroundMap, type LidarWorld } from '../../simulation/lidar/lidarWorld.ts';
import { MAT } from '../../simulation/lidar/materials.ts';
import {
  type TaggedGeometry,
  mergeTagged,
  place,
  tag,
  transformTagged,
} from '../../simulation/lidar/meshKit.ts';
import { allocateSweepPoints, createSweepRenderer, renderColumns } from '../../simulation/lidar/sweep.ts';
import { createSweepPool } from '../../simulation/lidar/sweepPool.ts';
import { buildReferenceWorld, referenceCast, sweepRays } from '../../simulation/lidar/referenceCast.ts';
import { type SweepScene, sweepSceneFromTracks } from '../../simulation/lidar/sweepScene.ts';
import { townGroundRaster } from '../../simulation/town/groundRaster.ts';
import { Rng } from '../../core/rng.ts';
import { type Town, generateTown } from '../../simulation/town/town.ts';
import { townStaticGeometry } from '../../simulation/town/townMeshes.ts';
import { type Benchmark } from './benchmark.ts';
import { median } from '../../core/stats.ts';

/** Settings: the town and frame rendered, repetitions, and the object-count factors of the scaling runs. */
export const LIDAR_BENCH = {
  seed: 1,
  steps: 30,
  frame: 15,
  warmup: 2,
  reps: 7,
  /** Sweeps cast the plain way (three-mesh-bvh raycastFirst), interleaved with the fast ones: the anchor. */
  plainReps: 3,
  poolSweeps: 8,
  factors: [1, 10, 100],
};

interface Setup {
  town: Town;
  staticGeometry: TaggedGeometry;
  ground: GroundMap;
  world: LidarWorld;
  scene: (step: number) => SweepScene;
}

let cached: Setup | null = null;

function setup(): Setup {
  if (cached) return cached;
  const town = generateTown({ seed: LIDAR_BENCH.seed }, LIDAR_BENCH.steps);
  const staticGeometry = townStaticGeometry(town);
  const ground = townGroundRaster(town);
  const world = buildLidarWorld(staticGeometry, ground, 0);
  const tr = town.traffic.tracks;
  const n = tr.ids.length;
  const templates = Array.from({ length: n }, (_, a) =>
    templateFor(town.traffic.classes[a], tr.length[a], tr.height[a]),
  );
  const rows = Array.from({ length: n }, (_, a) => a).filter(
    (a) => a !== town.traffic.egoIndex && town.traffic.roles[a] !== 'parked',
  );
  const cfg = lidarConfig('hdl64');
  const scene = (step: number) =>
    sweepSceneFromTracks(tr, {
      step,
      numSteps: LIDAR_BENCH.steps,
      dtS: town.config.dtS,
      sweepPeriodS: 1 / cfg.rateHz,
      egoRow: town.traffic.egoIndex,
      mountHeightM: cfg.mountHeightM,
      rows,
      templates,
      paint: town.traffic.paint,
      motion: true,
    });
  cached = { town, staticGeometry, ground, world, scene };
  return cached;
}

/** CPU and wall milliseconds of each of `reps` single-thread sweeps (after warm-up). */
function timeSweeps(world: LidarWorld, scene: SweepScene, reps: number, warmup: number) {
  const cfg = lidarConfig('hdl64');
  const r = createSweepRenderer(world, cfg);
  const out = allocateSweepPoints(cfg.azimuthSteps * cfg.elevationsDeg.length);
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let k = 0; k < warmup + reps; k++) {
    out.count = 0;
    const c0 = process.cpuUsage();
    const w0 = process.hrtime.bigint();
    renderColumns(r, scene, k, 0, cfg.azimuthSteps, out);
    const c = process.cpuUsage(c0);
    if (k >= warmup) {
      cpu.push((c.user + c.system) / 1000);
      wall.push(Number(process.hrtime.bigint() - w0) / 1e6);
    }
  }
  return { cpu, wall, rays: cfg.azimuthSteps * cfg.elevationsDeg.length, points: out.count };
}

/** The frame's agents plus `extra` random road users scattered within 100 m of the sensor. */
function crowdScene(base: SweepScene, extra: number, seed: number): SweepScene {
  const rng = new Rng(seed, 'mulberry32');
  const n0 = base.agentTemplate.length;
  const n = n0 + extra;
  const keys = new Float64Array(12 * n);
  keys.set(base.agentKeys);
  const size = new Float32Array(3 * n);
  size.set(base.agentSize);
  const tpl = new Uint8Array(n);
  tpl.set(base.agentTemplate);
  const paint = new Uint8Array(n);
  paint.set(base.agentPaint);
  const [sx, sy] = [base.sensor[4], base.sensor[5]];
  const kinds = [TEMPLATE.sedan, TEMPLATE.suv, TEMPLATE.pedestrian, TEMPLATE.cyclist, TEMPLATE.van];
  const dims: Record<number, [number, number, number]> = {
    [TEMPLATE.sedan]: [4.2, 1.75, 1.5],
    [TEMPLATE.suv]: [4.6, 1.85, 1.75],
    [TEMPLATE.pedestrian]: [0.6, 0.6, 1.75],
    [TEMPLATE.cyclist]: [1.8, 0.6, 1.75],
    [TEMPLATE.van]: [5.2, 1.95, 2.2],
  };
  for (let i = n0; i < n; i++) {
    const r = rng.uniform(4, 100);
    const a = rng.uniform(-Math.PI, Math.PI);
    const x = sx + r * Math.cos(a);
    const y = sy + r * Math.sin(a);
    const yaw = rng.uniform(-Math.PI, Math.PI);
    const v = rng.uniform(0, 10);
    for (let j = 0; j < 3; j++) {
      const dt = (j - 1) * 0.05;
      keys.set([x + dt * v * Math.cos(yaw), y + dt * v * Math.sin(yaw), 0, yaw], 12 * i + 4 * j);
    }
    const t = rng.pick(kinds);
    tpl[i] = t;
    size.set(dims[t], 3 * i);
    paint[i] = rng.int(0, 7);
  }
  return {
    sensor: base.sensor,
    agentKeys: keys,
    agentSize: size,
    agentTemplate: tpl,
    agentPaint: paint,
    agentRow: new Int32Array(n),
  };
}

/** The town's static geometry plus `extra` random boxes (posts, kiosks, sheds) scattered over the town. */
function clutteredGeometry(
  s: Setup,
  extra: number,
  seed: number,
  clearX: number,
  clearY: number,
): TaggedGeometry {
  const rng = new Rng(seed, 'mulberry32');
  const nodes = s.town.network.nodes;
  const x0 = Math.min(...nodes.map((n) => n.x)) - 40;
  const x1 = Math.max(...nodes.map((n) => n.x)) + 40;
  const y0 = Math.min(...nodes.map((n) => n.y)) - 40;
  const y1 = Math.max(...nodes.map((n) => n.y)) + 40;
  const parts: TaggedGeometry[] = [s.staticGeometry];
  const unit = tag(new BoxGeometry(1, 1, 1), MAT.wallConcrete);
  for (let k = 0; k < extra; k++) {
    const sx = rng.uniform(0.3, 3);
    const sy = rng.uniform(0.3, 3);
    const sz = rng.uniform(1, 6);
    const x = rng.uniform(x0, x1);
    const y = rng.uniform(y0, y1);
    // Keep clear of the sensor: a box around it would hide the whole sweep.
    if (Math.hypot(x - clearX, y - clearY) < 6) continue;
    const m = place(x, y, sz / 2, rng.uniform(0, Math.PI)).scale(new Vector3(sx, sy, sz));
    parts.push(transformTagged(unit, m));
  }
  return mergeTagged(parts);
}

export const benchmarks: Benchmark[] = [
  {
    names: ['lidar_rays'],
    async run(emit) {
      const s = setup();
      const t = timeSweeps(s.world, s.scene(LIDAR_BENCH.frame), LIDAR_BENCH.reps, LIDAR_BENCH.warmup);
      const cpuMs = median(t.cpu);
      const wallMs = median(t.wall);
      // The anchor in the same run: the same rays, nearest hits by plain raycastFirst (static mesh, then each
      // agent whose world box the ray meets), fast sweeps timed between them so both see the same load.
      const scene = s.scene(LIDAR_BENCH.frame);
      const cfg = lidarConfig('hdl64');
      const ref = buildReferenceWorld(s.staticGeometry, 0);
      const rays = sweepRays(cfg, scene);
      const plain: number[] = [];
      const fast: number[] = [];
      for (let k = 0; k < LIDAR_BENCH.plainReps; k++) {
        const c0 = process.cpuUsage();
        referenceCast(ref, rays, scene, cfg.maxRangeM);
        const c = process.cpuUsage(c0);
        plain.push((c.user + c.system) / 1000);
        fast.push(...timeSweeps(s.world, scene, 5, 1).cpu);
      }
      const plainMs = median(plain);
      const fastMs = median(fast);
      emit({
        name: 'lidar_rays',
        speedup_vs_plain_raycastFirst: +(plainMs / fastMs).toFixed(2),
        plain_raycastFirst_ms_per_sweep: +plainMs.toFixed(1),
        fast_ms_per_sweep_beside_plain: +fastMs.toFixed(1),
        rays_per_s_per_core: Math.round(t.rays / (cpuMs / 1000)),
        wall_rays_per_s: Math.round(t.rays / (wallMs / 1000)),
        ms_per_sweep_one_core: +cpuMs.toFixed(1),
        ms_per_sweep_one_core_wall: +wallMs.toFixed(1),
        rays_per_sweep: t.rays,
        points_per_sweep: t.points,
        static_triangles: s.staticGeometry.materials.length,
        moving_agents: s.scene(LIDAR_BENCH.frame).agentTemplate.length,
        sensor: 'hdl64 64x2048',
        timing:
          'median of process CPU time (rays_per_s_per_core) and wall time, one thread; speedup: median plain ' +
          'sweep / median of the fast sweeps between them (5 after each, after one to re-warm the caches), CPU time (the fast sweep also does noise, dropout, intensity)',
      });
    },
  },
  {
    names: ['lidar_sweep'],
    async run(emit) {
      const s = setup();
      const cfg = lidarConfig('hdl64');
      const workers = coreCount();
      const pool = createSweepPool(s.world, cfg, workers);
      try {
        for (let k = 0; k < LIDAR_BENCH.warmup; k++) await pool.render(s.scene(k), k);
        const ms: number[] = [];
        for (let k = 0; k < LIDAR_BENCH.poolSweeps; k++) {
          const scene = s.scene(k % LIDAR_BENCH.steps);
          const t0 = process.hrtime.bigint();
          await pool.render(scene, k);
          ms.push(Number(process.hrtime.bigint() - t0) / 1e6);
        }
        // Throughput with several sweeps in flight (how `drivekit synth` runs).
        const t0 = process.hrtime.bigint();
        await Promise.all(
          Array.from({ length: LIDAR_BENCH.poolSweeps }, (_, k) =>
            pool.render(s.scene(k % LIDAR_BENCH.steps), 100 + k),
          ),
        );
        const pipelined = Number(process.hrtime.bigint() - t0) / 1e6 / LIDAR_BENCH.poolSweeps;
        emit({
          name: 'lidar_sweep',
          ms_per_sweep_median: +median(ms).toFixed(1),
          ms_per_sweep_pipelined: +pipelined.toFixed(1),
          workers,
          beams: cfg.elevationsDeg.length,
          azimuth_steps: cfg.azimuthSteps,
          sweeps: LIDAR_BENCH.poolSweeps,
        });
      } finally {
        await pool.close();
      }
    },
  },
  {
    names: ['lidar_scaling'],
    async run(emit) {
      const s = setup();
      const base = s.scene(LIDAR_BENCH.frame);
      const agents0 = base.agentTemplate.length;
      let ref = 0;
      for (const f of LIDAR_BENCH.factors) {
        const scene = crowdScene(base, (f - 1) * agents0, 100 + f);
        const t = timeSweeps(s.world, scene, 5, 1);
        // The fastest of five runs: least disturbed by other load, so the ratios compare like with like.
        const ms = Math.min(...t.cpu);
        if (f === 1) ref = ms;
        emit({
          name: 'lidar_scaling',
          kind: 'moving_agents',
          factor: f,
          objects: scene.agentTemplate.length,
          ms_per_sweep: +ms.toFixed(1),
          relative_cost: +(ms / ref).toFixed(2),
          points_per_sweep: t.points,
          timing: 'fastest of 5 single-thread sweeps, CPU time',
        });
      }
      const objects0 = s.town.staticWorld.objects.length + s.town.staticWorld.parked.length;
      for (const f of LIDAR_BENCH.factors) {
        const geo =
          f === 1
            ? s.staticGeometry
            : clutteredGeometry(s, (f - 1) * objects0, 200 + f, base.sensor[4], base.sensor[5]);
        const b0 = process.hrtime.bigint();
        const world = f === 1 ? s.world : buildLidarWorld(geo, s.ground, 0);
        const buildMs = Number(process.hrtime.bigint() - b0) / 1e6;
        const t = timeSweeps(world, base, 5, 1);
        const ms = Math.min(...t.cpu);
        if (f === 1) ref = ms;
        emit({
          name: 'lidar_scaling',
          kind: 'static_objects',
          factor: f,
          objects: f * objects0,
          triangles: geo.materials.length,
          bvh_build_ms: +buildMs.toFixed(0),
          ms_per_sweep: +ms.toFixed(1),
          relative_cost: +(ms / ref).toFixed(2),
          points_per_sweep: t.points,
        });
      }
    },
  },
];
