// One spinning-LiDAR revolution by ray casting (ground plane, static BVH, bearing-binned agents front to back) with
// return threshold, dropout, range noise and intensity; points in the sensor frame at mid-sweep (KITTI convention).
import { MESH_INSET_M } from './agentMeshes.ts';
import { type LidarConfig, beamApexHeights, sweepPeriodS } from './beams.ts';
import { groundMaterialAt, type LidarWorld } from './lidarWorld.ts';
import { MAT } from './materials.ts';
import { type ColumnPacket, castColumn, createColumnPacket, setColumnDirections } from './columnPacket.ts';
import { type BvhCaster, createCaster } from './packedBvh.ts';
import { rayGaussianKeyed, rayStreamKey, rayUniformKeyed } from './rayHash.ts';
import { type SweepScene, agentCountOf } from './sweepScene.ts';
import { wrapAngleLow } from '../../core/geometry/pose.ts';

/** Points of (part of) a sweep, struct-of-arrays, `count` valid entries. */
export interface SweepPoints {
  x: Float32Array;
  y: Float32Array;
  z: Float32Array;
  intensity: Float32Array;
  ring: Uint16Array;
  tOffset: Float32Array;
  /** Scene agent index (position in the SweepScene) the ray hit, −1 for the static world and the ground. */
  agent: Int32Array;
  count: number;
}

export function allocateSweepPoints(capacity: number): SweepPoints {
  return {
    x: new Float32Array(capacity),
    y: new Float32Array(capacity),
    z: new Float32Array(capacity),
    intensity: new Float32Array(capacity),
    ring: new Uint16Array(capacity),
    tOffset: new Float32Array(capacity),
    agent: new Int32Array(capacity),
    count: 0,
  };
}

export interface SweepRenderer {
  world: LidarWorld;
  cfg: LidarConfig;
  staticCaster: BvhCaster | null;
  templateCasters: BvhCaster[];
  cosEl: Float64Array;
  sinEl: Float64Array;
  elevRad: Float64Array;
  /** The static world is cast a column at a time (all beams of one azimuth in one traversal)… */
  packet: ColumnPacket;
  /** …and so is each agent, in its template's frame, continuing from the static hits (shared best). */
  agentPacket: ColumnPacket;
  /** Per beam of the current column: the agent hit (−1 none) and its template triangle. */
  hitAgent: Int32Array;
  agentTri: Int32Array;
  /** Per beam: its fixed range offset (cfg.rangeBiasM), added to every return of the beam. */
  beamBiasM: Float64Array;
  /** Per beam: its laser's height above the points' origin (cfg.beamApexM); the rays start there. */
  apexM: Float64Array;
  /** Runs of consecutive beams at one apex, as [lo, hi] pairs: a column packet is cast once per run. */
  apexRuns: Int32Array;
  /** Rays cast so far (for benchmarks). */
  raysCast: number;
}

/** Each beam's fixed range offset: a normal draw per beam on its own stream of the noise seed, frame-independent. */
export function beamRangeBias(cfg: LidarConfig): Float64Array {
  const nb = cfg.elevationsDeg.length;
  const bias = new Float64Array(nb);
  if (!(cfg.rangeBiasM > 0)) return bias;
  const k4 = rayStreamKey(cfg.noiseSeed, 0, 4);
  const k5 = rayStreamKey(cfg.noiseSeed, 0, 5);
  for (let b = 0; b < nb; b++) bias[b] = cfg.rangeBiasM * rayGaussianKeyed(k4, k5, b);
  return bias;
}

export function createSweepRenderer(world: LidarWorld, cfg: LidarConfig): SweepRenderer {
  const nb = cfg.elevationsDeg.length;
  const elevRad = Float64Array.from(cfg.elevationsDeg, (d) => (d * Math.PI) / 180);
  for (let b = 1; b < nb; b++) {
    if (!(elevRad[b] < elevRad[b - 1]))
      throw new Error('LiDAR beam elevations must be listed top beam first, strictly decreasing');
  }
  const packet = createColumnPacket(elevRad);
  const apexM = beamApexHeights(cfg);
  return {
    world,
    cfg,
    staticCaster: world.staticBvh ? createCaster(world.staticBvh) : null,
    templateCasters: world.templates.map(createCaster),
    cosEl: elevRad.map(Math.cos),
    sinEl: elevRad.map(Math.sin),
    elevRad,
    packet,
    agentPacket: createColumnPacket(elevRad, packet),
    hitAgent: new Int32Array(nb),
    agentTri: new Int32Array(nb),
    beamBiasM: beamRangeBias(cfg),
    apexM,
    apexRuns: apexRunsOf(apexM),
    raysCast: 0,
  };
}

/** [lo, hi] pairs of the runs of equal apex height (one run [0, nb − 1] for a sensor whose beams share the origin). */
export function apexRunsOf(apexM: Float64Array): Int32Array {
  const runs: number[] = [];
  let lo = 0;
  for (let b = 1; b <= apexM.length; b++) {
    if (b === apexM.length || apexM[b] !== apexM[lo]) {
      runs.push(lo, b - 1);
      lo = b;
    }
  }
  return Int32Array.from(runs);
}

const BINS = 720;
const TWO_PI = 2 * Math.PI;

/** Pose (x, y, z, yaw) at w ∈ [−1, 1] between a track's three keyframes (start, middle, end of the sweep). */
export function lerpKey(keys: Float64Array, base: number, w: number, out: Float64Array): void {
  // keys at base + 0 (τ = −T/2), +4 (τ = 0), +8 (τ = +T/2); w ∈ [−1, 1] relative to the middle key.
  const a = base + 4;
  const b = w < 0 ? base : base + 8;
  const f = Math.abs(w);
  out[0] = keys[a] + f * (keys[b] - keys[a]);
  out[1] = keys[a + 1] + f * (keys[b + 1] - keys[a + 1]);
  out[2] = keys[a + 2] + f * (keys[b + 2] - keys[a + 2]);
  let dyaw = keys[b + 3] - keys[a + 3];
  dyaw -= TWO_PI * Math.round(dyaw / TWO_PI);
  out[3] = keys[a + 3] + f * dyaw;
}

/** Per-frame culling of agents: bearing bins (CSR lists) and the beam range each agent can be hit by. */
interface AgentCulling {
  binStart: Int32Array;
  binList: Int32Array;
  beamLo: Int32Array;
  beamHi: Int32Array;
  /** Ground distance from the sensor below which the agent cannot be hit (bins are sorted by it). */
  nearM: Float64Array;
}

function cullAgents(r: SweepRenderer, scene: SweepScene): AgentCulling {
  const n = agentCountOf(scene);
  const s = scene.sensor;
  const ex = s[4];
  const ey = s[5];
  const ez = s[6];
  const egoMove = Math.max(Math.hypot(s[0] - ex, s[1] - ey), Math.hypot(s[8] - ex, s[9] - ey));
  const counts = new Int32Array(BINS + 1);
  const ranges: [number, number][][] = [];
  const beamLo = new Int32Array(n);
  const beamHi = new Int32Array(n);
  const nearM = new Float64Array(n);
  const nb = r.elevRad.length;
  const binW = TWO_PI / BINS;
  const margin = (0.5 * Math.PI) / 180;
  let apexLo = Infinity;
  let apexHi = -Infinity;
  for (const h of r.apexM) {
    apexLo = Math.min(apexLo, h);
    apexHi = Math.max(apexHi, h);
  }
  for (let i = 0; i < n; i++) {
    const k = 12 * i;
    const cx = scene.agentKeys[k + 4];
    const cy = scene.agentKeys[k + 5];
    const zb = scene.agentKeys[k + 6];
    const move = Math.max(
      Math.hypot(scene.agentKeys[k] - cx, scene.agentKeys[k + 1] - cy),
      Math.hypot(scene.agentKeys[k + 8] - cx, scene.agentKeys[k + 9] - cy),
    );
    const rad = 0.5 * Math.hypot(scene.agentSize[3 * i], scene.agentSize[3 * i + 1]) + move + egoMove;
    const dist = Math.hypot(cx - ex, cy - ey);
    nearM[i] = Math.max(0, dist - rad);
    const list: [number, number][] = [];
    if (dist <= rad + 0.5) {
      list.push([0, BINS - 1]);
      beamLo[i] = 0;
      beamHi[i] = nb - 1;
    } else {
      const phi = Math.atan2(cy - ey, cx - ex);
      const alpha = Math.asin(Math.min(1, rad / dist)) + binW;
      const b0 = Math.floor((phi - alpha + Math.PI) / binW);
      const b1 = Math.floor((phi + alpha + Math.PI) / binW);
      if (b1 - b0 >= BINS - 1) list.push([0, BINS - 1]);
      else {
        const w0 = ((b0 % BINS) + BINS) % BINS;
        const w1 = ((b1 % BINS) + BINS) % BINS;
        if (w0 <= w1) list.push([w0, w1]);
        else list.push([w0, BINS - 1], [0, w1]);
      }
      // Elevation interval of the agent's box seen from the sensor.
      const dNear = Math.max(0.1, dist - rad);
      const dFar = dist + rad;
      // From the highest laser the box's bottom looks lowest, from the lowest its top looks highest.
      const lo = zb - ez - apexHi;
      const hi = zb + scene.agentSize[3 * i + 2] - ez - apexLo;
      const elHi = Math.atan2(hi, hi > 0 ? dNear : dFar) + margin;
      const elLo = Math.atan2(lo, lo < 0 ? dNear : dFar) - margin;
      let bl = 0;
      while (bl < nb && r.elevRad[bl] > elHi) bl++;
      let bh = nb - 1;
      while (bh >= 0 && r.elevRad[bh] < elLo) bh--;
      beamLo[i] = bl;
      beamHi[i] = bh;
      if (bl > bh) list.length = 0;
    }
    ranges.push(list);
    for (const [a, b] of list) for (let bin = a; bin <= b; bin++) counts[bin + 1]++;
  }
  for (let b = 0; b < BINS; b++) counts[b + 1] += counts[b];
  const binList = new Int32Array(counts[BINS]);
  const fill = counts.slice(0, BINS);
  for (let i = 0; i < n; i++)
    for (const [a, b] of ranges[i]) for (let bin = a; bin <= b; bin++) binList[fill[bin]++] = i;
  // Nearest first within each bin, so a ray can stop at the first agent that starts beyond its current hit
  // (front-to-back, like a top-level BVH): far agents hidden behind near ones cost nothing.
  for (let bin = 0; bin < BINS; bin++) {
    const part = binList.subarray(counts[bin], counts[bin + 1]);
    if (part.length > 1) part.sort((p, q) => nearM[p] - nearM[q] || p - q);
  }
  return { binStart: counts, binList, beamLo, beamHi, nearM };
}

const keyScratch = new Float64Array(4);

/**
 * Render columns [col0, col1) of frame `frameIndex` and append the returns to `out` (which must have room for
 * (col1 − col0) × beams points). Deterministic: noise depends only on the config seed, frame and ray index.
 */
export function renderColumns(
  r: SweepRenderer,
  scene: SweepScene,
  frameIndex: number,
  col0: number,
  col1: number,
  out: SweepPoints,
): void {
  const cfg = r.cfg;
  const world = r.world;
  const nb = r.elevRad.length;
  const na = cfg.azimuthSteps;
  const period = sweepPeriodS(cfg);
  const halfPeriod = period / 2;
  const refl = world.reflectivity;
  const groundZ = world.groundZ;
  const ground = world.ground;
  const staticCaster = r.staticCaster;
  const staticMats = world.staticBvh?.materials;
  const staticTris = world.staticBvh?.tris;
  const tplCasters = r.templateCasters;
  const cosEl = r.cosEl;
  const sinEl = r.sinEl;
  const packet = r.packet;
  const colBest = packet.best;
  const colTri = packet.tri;
  const apk = r.agentPacket;
  const aDx = apk.dx;
  const aDy = apk.dy;
  const aDz = apk.dz;
  const aHs = apk.hs;
  const aSlope = apk.slope;
  const aTri = apk.tri;
  const colAgent = r.hitAgent;
  const colAgentTri = r.agentTri;
  const maxRange = cfg.maxRangeM;
  const minRange = cfg.minRangeM;
  const minReturn = cfg.minReturn;
  const dropout = cfg.dropoutProb;
  const sigma = cfg.rangeNoiseM;
  const beamBias = r.beamBiasM;
  const apexM = r.apexM;
  const apexRuns = r.apexRuns;
  const seed = cfg.noiseSeed;
  const body = cfg.egoBody;
  // The frame's noise streams (dropout, intensity jitter, range noise), keyed once: each ray adds one hash.
  const key0 = rayStreamKey(seed, frameIndex, 0);
  const key1 = rayStreamKey(seed, frameIndex, 1);
  const key2 = rayStreamKey(seed, frameIndex, 2);
  const key3 = rayStreamKey(seed, frameIndex, 3);
  const cull = cullAgents(r, scene);
  const nearM = cull.nearM;
  // Per-agent pose at the current column (filled on first use) and inverse mesh size.
  const na_ = agentCountOf(scene);
  const stamp = new Int32Array(na_).fill(-1);
  const aPx = new Float64Array(na_);
  const aPy = new Float64Array(na_);
  const aPz = new Float64Array(na_);
  const aCos = new Float64Array(na_);
  const aSin = new Float64Array(na_);
  const aInvL = new Float64Array(na_);
  const aInvW = new Float64Array(na_);
  const aInvH = new Float64Array(na_);
  for (let i = 0; i < na_; i++) {
    // The mesh sits MESH_INSET_M inside the agent's box (see agentMeshes.ts).
    aInvL[i] = 1 / Math.max(0.01, scene.agentSize[3 * i] - 2 * MESH_INSET_M);
    aInvW[i] = 1 / Math.max(0.01, scene.agentSize[3 * i + 1] - 2 * MESH_INSET_M);
    aInvH[i] = 1 / Math.max(0.01, scene.agentSize[3 * i + 2] - MESH_INSET_M);
  }
  const keys = scene.agentKeys;
  const s = scene.sensor;
  // Frame pose (τ = 0): points are expressed in this sensor frame.
  const fx = s[4];
  const fy = s[5];
  const fz = s[6];
  const fc = Math.cos(s[7]);
  const fs = Math.sin(s[7]);
  const ox_ = out.x;
  const oy_ = out.y;
  const oz_ = out.z;
  const oi_ = out.intensity;
  const or_ = out.ring;
  const ot_ = out.tOffset;
  const oa_ = out.agent;
  let count = out.count;
  let rays = 0;
  for (let col = col0; col < col1; col++) {
    const tOff = ((col + 0.5) / na) * period;
    // Where in the sweep this column fires, −1 … 1 around the frame time (0 when the world is frozen).
    const w = cfg.motion ? (tOff - halfPeriod) / halfPeriod : 0;
    lerpKey(s, 0, w, keyScratch);
    const ox = keyScratch[0];
    const oy = keyScratch[1];
    const oz = keyScratch[2];
    const yaw = keyScratch[3];
    // Sensor-frame azimuth: starts behind (π) and turns clockwise seen from above.
    const az = Math.PI - (TWO_PI * (col + 0.5)) / na;
    let worldAz = yaw + az;
    worldAz = wrapAngleLow(worldAz);
    const ca = Math.cos(worldAz);
    const sa = Math.sin(worldAz);
    // Self-occlusion: horizontal distance from the sensor to the edge of the ego body along this azimuth; a
    // downward ray is blocked when it drops below the body's top before that distance.
    let bodyReach = 0;
    if (body) {
      const cs = Math.cos(az);
      const sn = Math.sin(az);
      const rx = cs > 1e-9 ? body.xMaxM / cs : cs < -1e-9 ? body.xMinM / cs : Infinity;
      const ry = Math.abs(sn) > 1e-9 ? body.halfWidthM / Math.abs(sn) : Infinity;
      bodyReach = Math.min(rx, ry);
    }
    // Candidate agents of this bearing, at this column's time.
    const bin = Math.min(BINS - 1, Math.floor(((worldAz + Math.PI) / TWO_PI) * BINS));
    const q0 = cull.binStart[bin];
    const q1 = cull.binStart[bin + 1];
    // Ground first (its t bounds the static cast), then the static world for the whole column at once.
    setColumnDirections(packet, ca, sa);
    for (let b = 0; b < nb; b++) {
      const dz = sinEl[b];
      let tMax = maxRange;
      // Into the ego's own body (top at body.topM < 0 below the origin): no return, nothing to cast.
      if (body && dz < 0 && (apexM[b] - body.topM) * cosEl[b] < -dz * bodyReach) tMax = 0;
      else if (groundZ !== null && dz < 0) {
        const tg = (groundZ - oz - apexM[b]) / dz;
        if (tg > 0 && tg < tMax) tMax = tg;
      }
      colBest[b] = tMax;
      colTri[b] = -1;
    }
    if (staticCaster !== null) {
      for (let k = 0; k < apexRuns.length; k += 2)
        castColumn(
          staticCaster,
          packet,
          ox,
          oy,
          oz + apexM[apexRuns[k]],
          ca,
          sa,
          apexRuns[k],
          apexRuns[k + 1],
        );
    }
    // Agents of this bearing, nearest first, each cast for the beams it can still improve on.
    for (let b = 0; b < nb; b++) colAgent[b] = -1;
    for (let q = q0; q < q1; q++) {
      const i = cull.binList[q];
      // The bin is sorted by ground distance, a lower bound of the hit distance along a ray.
      const nm = nearM[i];
      let lo = cull.beamLo[i];
      let hi = cull.beamHi[i];
      while (lo <= hi && nm > colBest[lo]) lo++;
      while (hi >= lo && nm > colBest[hi]) hi--;
      if (lo > hi) continue;
      if (stamp[i] !== col) {
        // First use of this agent in this column: its pose at the column's time (lazily, so agents hidden
        // behind nearer hits cost nothing).
        stamp[i] = col;
        lerpKey(keys, 12 * i, w, keyScratch);
        aPx[i] = keyScratch[0];
        aPy[i] = keyScratch[1];
        aPz[i] = keyScratch[2];
        aCos[i] = Math.cos(keyScratch[3]);
        aSin[i] = Math.sin(keyScratch[3]);
      }
      // The rays in the template's unit-box frame: translate, rotate by −yaw, scale by 1/size. They stay in
      // one vertical half-plane, so the column packet applies.
      const rx = ox - aPx[i];
      const ry = oy - aPy[i];
      const cc = aCos[i];
      const sc = aSin[i];
      const il = aInvL[i];
      const iw = aInvW[i];
      const ih = aInvH[i];
      const lox = (cc * rx + sc * ry) * il;
      const loy = (-sc * rx + cc * ry) * iw;
      for (let b = lo; b <= hi; b++) {
        const dx = packet.dx[b];
        const dy = packet.dy[b];
        const ldx = (cc * dx + sc * dy) * il;
        const ldy = (-sc * dx + cc * dy) * iw;
        const ldz = sinEl[b] * ih;
        const h = Math.sqrt(ldx * ldx + ldy * ldy);
        aDx[b] = ldx;
        aDy[b] = ldy;
        aDz[b] = ldz;
        aHs[b] = h;
        aSlope[b] = ldz / h;
        aTri[b] = -1;
      }
      const tpl = tplCasters[scene.agentTemplate[i]];
      const ua = aDx[lo] / aHs[lo];
      const ub = aDy[lo] / aHs[lo];
      for (let k = 0; k < apexRuns.length; k += 2) {
        const rl = Math.max(lo, apexRuns[k]);
        const rh = Math.min(hi, apexRuns[k + 1]);
        if (rl <= rh) castColumn(tpl, apk, lox, loy, (oz + apexM[rl] - aPz[i]) * ih, ua, ub, rl, rh);
      }
      for (let b = lo; b <= hi; b++) {
        if (aTri[b] >= 0) {
          colAgent[b] = i;
          colAgentTri[b] = aTri[b];
        }
      }
    }
    for (let b = 0; b < nb; b++) {
      rays++;
      const dx = packet.dx[b];
      const dy = packet.dy[b];
      const dz = sinEl[b];
      if (body && dz < 0 && (apexM[b] - body.topM) * cosEl[b] < -dz * bodyReach) continue;
      const oza = oz + apexM[b];
      let tMax = colBest[b];
      let kind = 0;
      let tri = -1;
      const hitAgent = colAgent[b];
      if (hitAgent >= 0) {
        tri = colAgentTri[b];
        kind = 3;
      } else if (colTri[b] >= 0) {
        tri = colTri[b];
        kind = 2;
      } else if (groundZ !== null && dz < 0) {
        const tg = (groundZ - oza) / dz;
        if (tg > 0 && tg < maxRange) kind = 1;
        else tMax = maxRange;
      }
      if (kind === 0 || tMax < minRange) continue;
      // Material and incidence.
      let mat: number;
      let cosInc: number;
      if (kind === 1) {
        mat = ground ? groundMaterialAt(ground, ox + tMax * dx, oy + tMax * dy) : MAT.asphalt;
        cosInc = -dz;
      } else if (kind === 2) {
        mat = staticMats![tri];
        const o = 9 * tri;
        const t = staticTris!;
        const nx = t[o + 4] * t[o + 8] - t[o + 5] * t[o + 7];
        const ny = t[o + 5] * t[o + 6] - t[o + 3] * t[o + 8];
        const nz = t[o + 3] * t[o + 7] - t[o + 4] * t[o + 6];
        cosInc = Math.abs(nx * dx + ny * dy + nz * dz) / (Math.sqrt(nx * nx + ny * ny + nz * nz) || 1);
      } else {
        const i = hitAgent;
        const tpl = world.templates[scene.agentTemplate[i]];
        mat = tpl.materials[tri];
        if (mat === MAT.agentPaint) mat = MAT.paint0 + scene.agentPaint[i];
        else if (mat === MAT.agentCloth) mat = MAT.cloth0 + scene.agentPaint[i];
        const o = 9 * tri;
        const t = tpl.tris;
        // Local normal → world: inverse-transpose of the scale, then the yaw rotation.
        const lnx = (t[o + 4] * t[o + 8] - t[o + 5] * t[o + 7]) * aInvL[i];
        const lny = (t[o + 5] * t[o + 6] - t[o + 3] * t[o + 8]) * aInvW[i];
        const lnz = (t[o + 3] * t[o + 7] - t[o + 4] * t[o + 6]) * aInvH[i];
        const wnx = aCos[i] * lnx - aSin[i] * lny;
        const wny = aSin[i] * lnx + aCos[i] * lny;
        cosInc =
          Math.abs(wnx * dx + wny * dy + lnz * dz) / (Math.sqrt(lnx * lnx + lny * lny + lnz * lnz) || 1);
      }
      const rho = refl[mat];
      const scale = 10 / tMax;
      if (rho * cosInc * scale * scale < minReturn) continue;
      const rayId = col * nb + b;
      if (dropout > 0 && rayUniformKeyed(key0, rayId) < dropout) continue;
      // With no bias the offset is +0, which leaves tMax's bits as they were.
      const biased = tMax + beamBias[b];
      const range = sigma > 0 ? biased + sigma * rayGaussianKeyed(key2, key3, rayId) : biased;
      if (range < minRange || range > maxRange) continue;
      // World point, then into the frame's sensor frame.
      const px = ox + range * dx - fx;
      const py = oy + range * dy - fy;
      ox_[count] = fc * px + fs * py;
      oy_[count] = -fs * px + fc * py;
      oz_[count] = oza + range * dz - fz;
      const inten = rho * (0.35 + 0.65 * cosInc) + 0.02 * (rayUniformKeyed(key1, rayId) - 0.5);
      oi_[count] = inten < 0 ? 0 : inten > 1 ? 1 : inten;
      or_[count] = b;
      ot_[count] = tOff;
      oa_[count] = kind === 3 ? hitAgent : -1;
      count++;
    }
  }
  out.count = count;
  r.raysCast += rays;
}

/** A whole revolution. */
export function renderSweep(r: SweepRenderer, scene: SweepScene, frameIndex: number): SweepPoints {
  const out = allocateSweepPoints(r.cfg.azimuthSteps * r.elevRad.length);
  renderColumns(r, scene, frameIndex, 0, r.cfg.azimuthSteps, out);
  return out;
}
