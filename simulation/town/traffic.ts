// Town traffic at 10 Hz: vehicles and cyclists follow lanes with IDM, change lanes (MOBIL-like), yield at junctions;
// pedestrians walk sidewalks and cross; a move that would overlap another agent is refused, so none ever overlap.
import { pointAtArcLength, projectOntoPolyline } from '../../core/geometry/polyline.ts';
import { wrapAngle } from '../../core/geometry/pose.ts';
import { type IdmConfig, idmAcceleration, idmConfig, idmStep } from '../agents/idm.ts';
import { type AgentTracks, allocateAgentTracks } from '../scenario.ts';
import { type AgentClass, type AgentSize, agentTypeOf, sampleAgentSize } from './agentSizes.ts';
import type { TownLane } from './laneGraph.ts';
import { type Rect2, rectsOverlap } from './obb.ts';
import type { PedestrianGraph } from './pedestrianGraph.ts';
import { smoothFrameAt } from './polylineFrame.ts';
import type { Rng } from '../rng.ts';
import type { ParkedCar } from './staticWorld.ts';
import type { TownConfig } from './townConfig.ts';

export type AgentRole = 'ego' | 'vehicle' | 'cyclist' | 'pedestrian' | 'parked';

export interface TrafficResult {
  tracks: AgentTracks;
  classes: AgentClass[];
  roles: AgentRole[];
  /** Paint / clothing variant per agent (picks its reflectivity). */
  paint: Uint8Array;
  egoIndex: number;
  /** Lanes the ego drove during the recorded steps and the ones it planned next. */
  egoRoute: number[];
  /** Agents whose move was refused at some step because it would have overlapped another (diagnostics). */
  refusedMoves: number;
  /** Behaviour counts over the recorded steps: lane changes begun, vehicle-steps held at a stop line by
   *  junction traffic, and pedestrians who stepped onto a crosswalk. */
  laneChanges: number;
  junctionHolds: number;
  crossings: number;
  /** Junction connectors whose reservation count disagrees with the vehicles holding them at the end (should be 0). */
  leakedReservations: number;
}

interface Vehicle {
  agent: number;
  lane: number;
  s: number;
  v: number;
  plan: number[];
  /** Lane-change offset at its start, time since its start. */
  lcFrom: number;
  lcT: number;
  /** Constant sideways offset from the lane centre (cyclists ride to the right). */
  bias: number;
  idm: IdmConfig;
  reserved: number;
  /** A pending (not yet granted) request for a connector and the step it was first made (first come, first served). */
  requestLane: number;
  requestStep: number;
  /** Arc length on the lane after a connector at which the reservation is released (rear clear of the junction). */
  releaseAtS: number;
  releaseLane: number;
  cooldownS: number;
  canChangeLane: boolean;
  rng: Rng;
  history: number[];
}

interface Pedestrian {
  agent: number;
  edge: number;
  s: number;
  dir: number;
  speed: number;
  keepRightM: number;
  waiting: boolean;
  waitS: number;
  blockedS: number;
  rng: Rng;
}

const LOOKAHEAD_MIN_M = 35;
const SAMPLE_STEP_M = 1;

export function simulateTraffic(
  cfg: TownConfig,
  lanes: TownLane[],
  ped: PedestrianGraph,
  parked: ParkedCar[],
  numSteps: number,
  rng: Rng,
): TrafficResult {
  const dt = cfg.dtS;
  const classes: AgentClass[] = [];
  const roles: AgentRole[] = [];
  const sizes: AgentSize[] = [];
  const paintList: number[] = [];
  // Current state of every agent (world frame, box centre at ground level; z added on recording).
  const X: number[] = [];
  const Y: number[] = [];
  const YAW: number[] = [];
  const V: number[] = [];
  const Z: number[] = [];
  const vehicles: Vehicle[] = [];
  const peds: Pedestrian[] = [];
  const reservations = new Int32Array(lanes.length);
  let stepNow = 0;
  let refusedMoves = 0;
  let laneChanges = 0;
  let junctionHolds = 0;
  let crossings = 0;
  const rSpawn = rng.fork('spawn');

  const rectOf = (i: number, x = X[i], y = Y[i], yaw = YAW[i]): Rect2 => ({
    x,
    y,
    yaw,
    length: sizes[i].length,
    width: sizes[i].width,
  });
  const overlapsAny = (i: number, r: Rect2, margin: number): boolean => {
    for (let j = 0; j < X.length; j++) {
      if (j === i) continue;
      if (rectsOverlap(r, rectOf(j), margin)) return true;
    }
    return false;
  };
  const addAgent = (cls: AgentClass, role: AgentRole, size: AgentSize, x: number, y: number, yaw: number) => {
    classes.push(cls);
    roles.push(role);
    sizes.push(size);
    paintList.push(rSpawn.int(0, 7));
    X.push(x);
    Y.push(y);
    YAW.push(yaw);
    V.push(0);
    Z.push(0);
    return X.length - 1;
  };

  // ---- lane geometry helpers ----
  const poseOnLane = (lane: number, s: number, offset: number): [number, number, number] => {
    const l = lanes[lane];
    const [x, y, h] = smoothFrameAt(l.xy, l.cum, l.headings, s);
    return [x - Math.sin(h) * offset, y + Math.cos(h) * offset, h];
  };
  const roadLanes = lanes.filter((l) => l.kind === 'road');

  const extendPlan = (veh: Vehicle, needM: number) => {
    let have = lanes[veh.lane].lengthM - veh.s;
    for (const l of veh.plan) have += lanes[l].lengthM;
    while (have < needM) {
      const last = veh.plan.length ? veh.plan[veh.plan.length - 1] : veh.lane;
      const succ = lanes[last].successors;
      if (!succ.length) break;
      const next = succ.length === 1 ? succ[0] : veh.rng.pick(succ);
      veh.plan.push(next);
      have += lanes[next].lengthM;
    }
  };

  // ---- spawning ----
  for (const p of parked) addAgent(p.cls, 'parked', p.size, p.x, p.y, p.yaw);

  const spawnVehicle = (cls: AgentClass, role: AgentRole): boolean => {
    const size = sampleAgentSize(cls, rSpawn);
    for (let attempt = 0; attempt < 60; attempt++) {
      const lane = rSpawn.pick(roadLanes);
      if (role === 'cyclist' && lane.right.length) continue;
      const room = lane.stopS - 8 - size.length;
      if (room < 6) continue;
      const s = rSpawn.uniform(5 + size.length / 2, lane.stopS - 8 - size.length / 2);
      const bias = role === 'cyclist' ? -(lane.widthM / 2 - size.width / 2 - 0.35) : 0;
      const [x, y, yaw] = poseOnLane(lane.id, s, bias);
      const i = X.length;
      sizes.push(size);
      const free = !overlapsAny(i, { x, y, yaw, length: size.length + 4, width: size.width }, 0.5);
      sizes.pop();
      if (!free) continue;
      const agent = addAgent(cls, role, size, x, y, yaw);
      const vrng = rng.fork(`vehicle:${agent}`);
      const desired =
        role === 'cyclist'
          ? vrng.normalClipped(5, 1, 3, 7.5)
          : lane.speedLimitMps * vrng.normalClipped(1, 0.1, 0.75, 1.2);
      const veh: Vehicle = {
        agent,
        lane: lane.id,
        s,
        v: desired * 0.6,
        plan: [],
        lcFrom: 0,
        lcT: 1e9,
        bias,
        idm: idmConfig({
          desiredSpeedMps: desired,
          timeHeadwayS: role === 'cyclist' ? 1.0 : vrng.normalClipped(1.4, 0.2, 1.0, 2.0),
          maxAccelMps2:
            cls === 'truck' ? 0.7 : role === 'cyclist' ? 0.8 : vrng.normalClipped(1.2, 0.2, 0.8, 1.8),
          comfortDecelMps2: 1.8,
          minGapM: role === 'cyclist' ? 1.5 : 2.0,
        }),
        reserved: -1,
        requestLane: -1,
        requestStep: 0,
        releaseAtS: 0,
        releaseLane: -1,
        cooldownS: vrng.uniform(0, 5),
        canChangeLane: role === 'vehicle' && cls !== 'truck',
        rng: vrng,
        history: [lane.id],
      };
      V[agent] = veh.v;
      vehicles.push(veh);
      return true;
    }
    return false;
  };
  // Every car drives alike; afterwards the one that covered the most ground becomes the ego (a recording car
  // that mostly drives, like KITTI's), so the ego is never a special case of the traffic model.
  for (let k = 0; k < Math.max(1, cfg.cars); k++) spawnVehicle('car', 'vehicle');
  if (!vehicles.length) throw new Error('town: no room to place any car');
  for (let k = 0; k < cfg.vans; k++) spawnVehicle('van', 'vehicle');
  for (let k = 0; k < cfg.trucks; k++) spawnVehicle('truck', 'vehicle');
  for (let k = 0; k < cfg.cyclists; k++) spawnVehicle('cyclist', 'cyclist');
  const walkable = ped.edges.filter((e) => e.kind !== 'crosswalk' && e.lengthM > 2);
  for (let k = 0; k < cfg.pedestrians && walkable.length; k++) {
    const size = sampleAgentSize('pedestrian', rSpawn);
    for (let attempt = 0; attempt < 40; attempt++) {
      const e = rSpawn.pick(walkable);
      const p: Pedestrian = {
        agent: -1,
        edge: e.id,
        s: rSpawn.uniform(0.5, e.lengthM - 0.5),
        dir: rSpawn.chance(0.5) ? 1 : -1,
        speed: size.height < 1.45 ? rSpawn.uniform(0.9, 1.4) : rSpawn.normalClipped(1.35, 0.2, 0.8, 1.9),
        keepRightM: rSpawn.uniform(0.45, 0.9),
        waiting: false,
        waitS: 0,
        blockedS: 0,
        rng: rng.fork(`pedestrian:${k}`),
      };
      const [x, y, yaw] = pedPose(p);
      const i = X.length;
      sizes.push(size);
      const free = !overlapsAny(i, { x, y, yaw, length: size.length, width: size.width }, 0.3);
      sizes.pop();
      if (!free) continue;
      p.agent = addAgent('pedestrian', 'pedestrian', size, x, y, yaw);
      V[p.agent] = p.speed;
      peds.push(p);
      break;
    }
  }

  function pedPose(p: Pedestrian): [number, number, number] {
    const e = ped.edges[p.edge];
    const [qx, qy, h] = smoothFrameAt(e.xy, e.cum, e.headings, p.s);
    const heading = p.dir > 0 ? h : h + Math.PI;
    // Keep right of the walking direction.
    const rx = Math.sin(heading);
    const ry = -Math.cos(heading);
    return [qx + rx * p.keepRightM, qy + ry * p.keepRightM, wrapAngle(heading)];
  }
  const pedGroundZ = (p: Pedestrian): number => {
    const e = ped.edges[p.edge];
    if (e.kind === 'crosswalk' && p.s > e.roadS0 && p.s < e.roadS1) return 0;
    return cfg.curbHeightM;
  };
  for (const p of peds) Z[p.agent] = pedGroundZ(p);

  // ---- per-step scratch for path samples ----
  const maxSamples = 256;
  const sx = new Float64Array(maxSamples);
  const sy = new Float64Array(maxSamples);
  const sh = new Float64Array(maxSamples);
  const sd = new Float64Array(maxSamples);
  const svMax = new Float64Array(maxSamples);

  /** Path samples from the vehicle's centre forward; returns the count. */
  const samplePath = (veh: Vehicle, lengthM: number): number => {
    let n = 0;
    let lane = veh.lane;
    let s = veh.s;
    let k = -1;
    let travelled = 0;
    while (n < maxSamples && travelled <= lengthM) {
      const l = lanes[lane];
      if (s > l.lengthM) {
        k++;
        if (k >= veh.plan.length) break;
        s -= l.lengthM;
        lane = veh.plan[k];
        continue;
      }
      const p = pointAtArcLength(l.xy, s, l.cum);
      sx[n] = p.x;
      sy[n] = p.y;
      sh[n] = p.heading;
      sd[n] = travelled;
      svMax[n] = l.vMax[Math.min(p.segment, l.vMax.length - 1)];
      n++;
      s += SAMPLE_STEP_M;
      travelled += SAMPLE_STEP_M;
    }
    return n;
  };

  /** Nearest obstacle along the sampled path: [gap to my front bumper, closing speed]; gap Infinity when free. */
  const leaderOnPath = (veh: Vehicle, n: number, lateralSelf: number): [number, number] => {
    const i = veh.agent;
    const myHalfL = sizes[i].length / 2;
    const myHalfW = sizes[i].width / 2;
    const reach = sd[n - 1] + 8;
    let bestGap = Infinity;
    let bestClosing = 0;
    for (let j = 0; j < X.length; j++) {
      if (j === i) continue;
      const dx0 = X[j] - X[i];
      const dy0 = Y[j] - Y[i];
      if (dx0 * dx0 + dy0 * dy0 > reach * reach) continue;
      let kBest = 0;
      let dBest = Infinity;
      for (let k = 0; k < n; k++) {
        const d = (X[j] - sx[k]) ** 2 + (Y[j] - sy[k]) ** 2;
        if (d < dBest) {
          dBest = d;
          kBest = k;
        }
      }
      const c = Math.cos(sh[kBest]);
      const s = Math.sin(sh[kBest]);
      const ex = X[j] - sx[kBest];
      const ey = Y[j] - sy[kBest];
      const along = c * ex + s * ey;
      const lat = -s * ex + c * ey;
      const rel = YAW[j] - sh[kBest];
      const hl = sizes[j].length / 2;
      const hw = sizes[j].width / 2;
      const extAlong = Math.abs(Math.cos(rel)) * hl + Math.abs(Math.sin(rel)) * hw;
      const extLat = Math.abs(Math.sin(rel)) * hl + Math.abs(Math.cos(rel)) * hw;
      const corridor = myHalfW + extLat + 0.4;
      if (Math.min(Math.abs(lat - veh.bias), Math.abs(lat - lateralSelf)) >= corridor) continue;
      const centreAhead = sd[kBest] + along;
      if (centreAhead <= 0) continue;
      const gap = centreAhead - extAlong - myHalfL;
      if (gap < bestGap) {
        bestGap = gap;
        bestClosing = V[i] - V[j] * Math.cos(rel);
      }
    }
    return [bestGap, bestClosing];
  };

  const laneChangeOffset = (veh: Vehicle): number => {
    if (veh.lcT >= cfg.laneChangeS) return 0;
    return (veh.lcFrom * (1 + Math.cos((Math.PI * veh.lcT) / cfg.laneChangeS))) / 2;
  };

  const targetLaneIsSafe = (veh: Vehicle, target: number): { ok: boolean; s: number; lat: number } => {
    const l = lanes[target];
    const me = projectOntoPolyline(l.xy, X[veh.agent], Y[veh.agent], l.cum);
    if (me.s < 8 || me.s > l.stopS - 30) return { ok: false, s: me.s, lat: me.lateral };
    for (let j = 0; j < X.length; j++) {
      if (j === veh.agent) continue;
      const dx = X[j] - X[veh.agent];
      const dy = Y[j] - Y[veh.agent];
      if (dx * dx + dy * dy > 60 * 60) continue;
      const p = projectOntoPolyline(l.xy, X[j], Y[j], l.cum);
      if (Math.abs(p.lateral) > l.widthM / 2 + sizes[j].width / 2 + 0.3) continue;
      const ahead = p.s - me.s;
      const need = sizes[veh.agent].length / 2 + sizes[j].length / 2;
      if (ahead > -(need + 6 + 1.2 * V[j]) && ahead < need + 6 + 1.0 * V[veh.agent]) {
        return { ok: false, s: me.s, lat: me.lateral };
      }
    }
    return { ok: true, s: me.s, lat: me.lateral };
  };

  const stepVehicle = (veh: Vehicle) => {
    const i = veh.agent;
    const L = sizes[i].length;
    const lookahead = Math.max(LOOKAHEAD_MIN_M, V[i] * 4 + 20);
    extendPlan(veh, lookahead + 10);
    const lateralSelf = laneChangeOffset(veh) + veh.bias;
    const n = samplePath(veh, lookahead);
    // Desired speed: own free speed, capped by every curve ahead reachable with comfortable braking.
    let v0 = veh.idm.desiredSpeedMps;
    const b = veh.idm.comfortDecelMps2;
    for (let k = 0; k < n; k++) {
      const dist = Math.max(0, sd[k] - L / 2);
      const allowed = Math.sqrt(svMax[k] * svMax[k] + 2 * b * dist);
      if (allowed < v0) v0 = allowed;
    }
    const cfgNow =
      v0 === veh.idm.desiredSpeedMps ? veh.idm : { ...veh.idm, desiredSpeedMps: Math.max(v0, 0.5) };
    const [gap, closing] = leaderOnPath(veh, n, lateralSelf);
    let a = idmAcceleration(cfgNow, V[i], gap, closing);
    // Junction: reserve the next connector before the stop line, or stop there.
    const lane = lanes[veh.lane];
    const next = veh.plan[0];
    if (lane.kind === 'road' && lane.stopS < lane.lengthM && next !== undefined && veh.reserved !== next) {
      const toStop = lane.stopS - (veh.s + L / 2);
      // Ask for the junction about two seconds out: late enough not to hold it idle, early enough to stop
      // firmly (3 m/s²) when refused.
      const decide = (V[i] * V[i]) / (2 * 3) + 3;
      if (toStop < decide) {
        if (veh.requestLane !== next) {
          veh.requestLane = next;
          veh.requestStep = stepNow;
        }
        const conflicts = lanes[next].conflicts;
        let blocked = conflicts.some((c) => reservations[c] > 0);
        // Side-road traffic yields to anyone waiting on the priority road; within a class, first come first served.
        const iAmMajor = lanes[next].major;
        for (const other of vehicles) {
          if (blocked) break;
          if (other === veh || other.requestLane < 0 || !conflicts.includes(other.requestLane)) continue;
          const otherMajor = lanes[other.requestLane].major;
          if (otherMajor !== iAmMajor) {
            blocked = otherMajor;
            continue;
          }
          if (
            other.requestStep < veh.requestStep ||
            (other.requestStep === veh.requestStep && other.agent < veh.agent)
          ) {
            blocked = true;
          }
        }
        if (!blocked || toStop < -0.5) {
          if (veh.reserved >= 0) reservations[veh.reserved]--;
          veh.reserved = next;
          reservations[next]++;
          veh.requestLane = -1;
        } else {
          a = Math.min(a, idmAcceleration(cfgNow, V[i], Math.max(0.01, toStop), V[i]));
          if (stepNow >= 0) junctionHolds++;
        }
      }
    }
    // Lane change: a MOBIL-like incentive (stuck behind someone slower) or now and then for variety.
    let newLane = veh.lane;
    let newS = veh.s;
    let newLcFrom = veh.lcFrom;
    let newLcT = veh.lcT + dt;
    let newPlan = veh.plan;
    veh.cooldownS -= dt;
    if (
      veh.canChangeLane &&
      lane.kind === 'road' &&
      veh.cooldownS <= 0 &&
      veh.lcT >= cfg.laneChangeS &&
      veh.reserved < 0 &&
      (lane.left.length || lane.right.length)
    ) {
      const freeA = idmAcceleration(veh.idm, V[i], Infinity);
      const stuck = gap < 40 && a < freeA - 0.8 && closing > -0.5;
      const whim = veh.rng.chance(cfg.laneChangeRatePerS * dt);
      if (stuck || whim) {
        const targets = [...lane.left, ...lane.right];
        const target = targets.length === 1 ? targets[0] : veh.rng.pick(targets);
        const t = targetLaneIsSafe(veh, target);
        if (t.ok) {
          newLane = target;
          newS = t.s;
          newLcFrom = t.lat;
          newLcT = 0;
          newPlan = [];
          veh.cooldownS = veh.rng.uniform(6, 12);
        } else {
          // Not safe now: look again in a second.
          veh.cooldownS = 1;
        }
      }
    }
    const [v1, ds] = idmStep(V[i], a, dt);
    // Advance along the (possibly new) lane and plan.
    let s = newS + ds;
    let laneNow = newLane;
    const plan = newPlan === veh.plan ? [...veh.plan] : [];
    const entered: number[] = [];
    while (s > lanes[laneNow].lengthM) {
      if (!plan.length) {
        const succ = lanes[laneNow].successors;
        if (!succ.length) {
          s = lanes[laneNow].lengthM;
          break;
        }
        plan.push(succ.length === 1 ? succ[0] : veh.rng.pick(succ));
      }
      s -= lanes[laneNow].lengthM;
      laneNow = plan.shift()!;
      entered.push(laneNow);
    }
    const lcT = newLcT;
    const offset =
      (lcT >= cfg.laneChangeS ? 0 : (newLcFrom * (1 + Math.cos((Math.PI * lcT) / cfg.laneChangeS))) / 2) +
      veh.bias;
    const [x, y, heading] = poseOnLane(laneNow, s, offset);
    // Heading follows the sideways motion of a lane change.
    const dOffset =
      lcT >= cfg.laneChangeS
        ? 0
        : ((-newLcFrom * Math.PI) / (2 * cfg.laneChangeS)) * Math.sin((Math.PI * lcT) / cfg.laneChangeS);
    const yaw = wrapAngle(heading + Math.atan2(dOffset, Math.max(v1, 1)));
    if (overlapsAny(i, rectOf(i, x, y, yaw), 0.05)) {
      refusedMoves++;
      V[i] = 0;
      return;
    }
    // Commit.
    X[i] = x;
    Y[i] = y;
    YAW[i] = yaw;
    V[i] = v1;
    veh.lane = laneNow;
    veh.s = s;
    veh.plan = plan;
    if (newLcT === 0 && stepNow >= 0) laneChanges++;
    veh.lcFrom = newLcFrom;
    veh.lcT = lcT;
    for (const l of entered) {
      veh.history.push(l);
      if (lanes[l].kind === 'road' && veh.reserved >= 0) {
        veh.releaseLane = l;
        veh.releaseAtS = L / 2 + 0.5;
      }
    }
    if (newLane !== veh.history[veh.history.length - 1] && entered.length === 0) veh.history.push(newLane);
    if (veh.reserved >= 0 && veh.releaseLane === veh.lane && veh.s >= veh.releaseAtS) {
      reservations[veh.reserved]--;
      veh.reserved = -1;
      veh.releaseLane = -1;
    }
  };

  const crossingClear = (edgeId: number): boolean => {
    const e = ped.edges[edgeId];
    const ax = e.xy[0];
    const ay = e.xy[1];
    const bx = e.xy[e.xy.length - 2];
    const by = e.xy[e.xy.length - 1];
    const abx = bx - ax;
    const aby = by - ay;
    const len2 = abx * abx + aby * aby;
    for (const veh of vehicles) {
      const j = veh.agent;
      const u = Math.min(1, Math.max(0, ((X[j] - ax) * abx + (Y[j] - ay) * aby) / len2));
      const d = Math.hypot(X[j] - (ax + u * abx), Y[j] - (ay + u * aby));
      if (d < sizes[j].length / 2 + 4 + 2.5 * V[j]) return false;
    }
    return true;
  };

  const chooseNextEdge = (p: Pedestrian, vertex: number): { edge: number; waiting: boolean } => {
    const options = ped.vertices[vertex].edges.filter((e) => e !== p.edge);
    const crossings = options.filter((e) => ped.edges[e].kind === 'crosswalk');
    const walks = options.filter((e) => ped.edges[e].kind !== 'crosswalk');
    if (crossings.length && p.rng.chance(cfg.crossingChance))
      return { edge: p.rng.pick(crossings), waiting: true };
    if (walks.length) return { edge: p.rng.pick(walks), waiting: false };
    if (crossings.length) return { edge: p.rng.pick(crossings), waiting: true };
    return { edge: p.edge, waiting: false };
  };

  const stepPedestrian = (p: Pedestrian) => {
    const i = p.agent;
    if (p.waiting) {
      p.waitS += dt;
      V[i] = 0;
      if (crossingClear(p.edge)) {
        p.waiting = false;
        p.waitS = 0;
        if (stepNow >= 0) crossings++;
      } else if (p.waitS > 20) {
        // Give up and walk on along the sidewalk.
        const e = ped.edges[p.edge];
        const vertex = p.dir > 0 ? e.v0 : e.v1;
        const options = ped.vertices[vertex].edges.filter((k) => ped.edges[k].kind !== 'crosswalk');
        if (options.length) {
          const k = p.rng.pick(options);
          p.edge = k;
          const ne = ped.edges[k];
          p.dir = ne.v0 === vertex ? 1 : -1;
          p.s = p.dir > 0 ? 0 : ne.lengthM;
        }
        p.waiting = false;
        p.waitS = 0;
      }
      return;
    }
    // Personal space: stop behind anyone just ahead; turn back when blocked for long.
    const c = Math.cos(YAW[i]);
    const s = Math.sin(YAW[i]);
    let blocked = false;
    for (let j = 0; j < X.length; j++) {
      if (j === i) continue;
      const dx = X[j] - X[i];
      const dy = Y[j] - Y[i];
      if (dx * dx + dy * dy > 16) continue;
      const along = c * dx + s * dy;
      const lat = -s * dx + c * dy;
      const reach = sizes[i].length / 2 + Math.max(sizes[j].length, sizes[j].width) / 2 + 0.5;
      if (
        along > 0 &&
        along < reach &&
        Math.abs(lat) < sizes[i].width / 2 + Math.max(sizes[j].length, sizes[j].width) / 2 + 0.1
      ) {
        blocked = true;
        break;
      }
    }
    if (blocked) {
      p.blockedS += dt;
      V[i] = 0;
      if (p.blockedS > 3) {
        p.dir = -p.dir;
        p.blockedS = 0;
      }
      return;
    }
    const old = { edge: p.edge, s: p.s, dir: p.dir, waiting: p.waiting };
    p.s += p.dir * p.speed * dt;
    let e = ped.edges[p.edge];
    for (let guard = 0; guard < 4 && (p.s < 0 || p.s > e.lengthM); guard++) {
      const over = p.s < 0 ? -p.s : p.s - e.lengthM;
      const vertex = p.s < 0 ? e.v0 : e.v1;
      const next = chooseNextEdge(p, vertex);
      const ne = ped.edges[next.edge];
      if (next.edge === p.edge) p.dir = -p.dir;
      else p.dir = ne.v0 === vertex ? 1 : -1;
      p.edge = next.edge;
      e = ne;
      if (next.waiting) {
        p.s = p.dir > 0 ? 0 : e.lengthM;
        p.waiting = true;
        p.waitS = 0;
        break;
      }
      p.s = p.dir > 0 ? over : e.lengthM - over;
    }
    const [x, y, yaw] = pedPose(p);
    if (overlapsAny(i, rectOf(i, x, y, yaw), 0.05)) {
      refusedMoves++;
      p.edge = old.edge;
      p.s = old.s;
      p.dir = old.dir;
      p.waiting = old.waiting;
      p.blockedS += dt;
      V[i] = 0;
      if (p.blockedS > 3) {
        p.dir = -p.dir;
        p.blockedS = 0;
      }
      return;
    }
    p.blockedS = 0;
    X[i] = x;
    Y[i] = y;
    YAW[i] = yaw;
    V[i] = p.waiting ? 0 : p.speed;
    Z[i] = pedGroundZ(p);
  };

  const countLeaks = (): number => {
    const held = new Int32Array(lanes.length);
    for (const veh of vehicles) if (veh.reserved >= 0) held[veh.reserved]++;
    let leaks = 0;
    for (let l = 0; l < lanes.length; l++) if (held[l] !== reservations[l]) leaks++;
    if (process.env.TOWN_DEBUG) {
      for (const veh of vehicles) {
        if (veh.reserved >= 0)
          console.error(
            'holder',
            veh.agent,
            'lane',
            veh.lane,
            's',
            veh.s.toFixed(1),
            'v',
            V[veh.agent].toFixed(2),
            'res',
            veh.reserved,
            'relLane',
            veh.releaseLane,
          );
      }
    }
    return leaks;
  };

  // ---- run ----
  const warmup = Math.round(cfg.warmupS / dt);
  const numAgents = X.length;
  const raw = allocateAgentTracks(numAgents, numSteps);
  const historyStart = new Int32Array(vehicles.length);
  const travelled = new Float64Array(numAgents);
  stepNow = -warmup;
  for (let step = -warmup; step < numSteps; step++) {
    stepNow = step;
    if (step >= 0) {
      if (step === 0) vehicles.forEach((veh, k) => (historyStart[k] = veh.history.length - 1));
      for (let i = 0; i < numAgents; i++) {
        const k = i * numSteps + step;
        raw.x[k] = X[i];
        raw.y[k] = Y[i];
        raw.z[k] = Z[i] + sizes[i].height / 2;
        raw.yaw[k] = YAW[i];
        raw.vx[k] = V[i] * Math.cos(YAW[i]);
        raw.vy[k] = V[i] * Math.sin(YAW[i]);
        raw.valid[k] = 1;
        if (step > 0) travelled[i] += Math.hypot(X[i] - raw.x[k - 1], Y[i] - raw.y[k - 1]);
      }
      if (step === numSteps - 1) break;
    }
    for (const veh of vehicles) stepVehicle(veh);
    for (const p of peds) stepPedestrian(p);
  }
  let egoVehicle = 0;
  vehicles.forEach((veh, k) => {
    if (classes[veh.agent] === 'car' && travelled[veh.agent] > travelled[vehicles[egoVehicle].agent] + 1e-9) {
      egoVehicle = k;
    }
  });
  const egoVeh = vehicles[egoVehicle];
  roles[egoVeh.agent] = 'ego';
  // Rows of the tracks: the ego first, then moving vehicles, cyclists, pedestrians, parked cars.
  const rank: Record<AgentRole, number> = { ego: 0, vehicle: 1, cyclist: 2, pedestrian: 3, parked: 4 };
  const order = Array.from({ length: numAgents }, (_, i) => i).sort(
    (a, b) => rank[roles[a]] - rank[roles[b]] || a - b,
  );
  const tracks = allocateAgentTracks(numAgents, numSteps);
  for (let r = 0; r < numAgents; r++) {
    const i = order[r];
    tracks.ids[r] = r;
    tracks.types[r] = agentTypeOf(classes[i]);
    tracks.length[r] = sizes[i].length;
    tracks.width[r] = sizes[i].width;
    tracks.height[r] = sizes[i].height;
    const from = i * numSteps;
    const to = r * numSteps;
    for (const key of ['x', 'y', 'z', 'yaw', 'vx', 'vy', 'valid'] as const) {
      tracks[key].set(raw[key].subarray(from, from + numSteps), to);
    }
  }
  return {
    tracks,
    classes: order.map((i) => classes[i]),
    roles: order.map((i) => roles[i]),
    paint: Uint8Array.from(order.map((i) => paintList[i])),
    egoIndex: order.indexOf(egoVeh.agent),
    egoRoute: [...egoVeh.history.slice(historyStart[egoVehicle]), ...egoVeh.plan],
    refusedMoves,
    laneChanges,
    junctionHolds,
    crossings,
    leakedReservations: countLeaks(),
  };
}
