// Pedestrians of the town: placed on sidewalks, walking the pedestrian graph keeping right, waiting at crosswalks
// for a gap in traffic (or giving up), stopping behind whoever is just ahead and turning back when blocked for long.
import { wrapAngle } from '../../../core/geometry/pose.ts';
import type { Rng } from '../../rng.ts';
import { sampleAgentSize } from '../agentSizes.ts';
import { smoothFrameAt } from '../polylineFrame.ts';
import {
  type PedestrianState,
  type TrafficState,
  type TrafficWorld,
  addAgent,
  overlapsAny,
  rectOf,
} from './trafficState.ts';

/** Pose of pedestrian p on its edge: keepRightM to the right of the walking direction. */
function pedestrianPose(world: TrafficWorld, peds: PedestrianState, p: number): [number, number, number] {
  const e = world.walking.edges[peds.edge[p]];
  const [qx, qy, h] = smoothFrameAt(e.xy, e.cum, e.headings, peds.s[p]);
  const heading = peds.dir[p] > 0 ? h : h + Math.PI;
  const rx = Math.sin(heading);
  const ry = -Math.cos(heading);
  return [qx + rx * peds.keepRightM[p], qy + ry * peds.keepRightM[p], wrapAngle(heading)];
}

/** Ground height under pedestrian p: the road inside a crosswalk's carriageway, else the curb. */
function pedestrianGroundZ(world: TrafficWorld, peds: PedestrianState, p: number): number {
  const e = world.walking.edges[peds.edge[p]];
  if (e.kind === 'crosswalk' && peds.s[p] > e.roadS0 && peds.s[p] < e.roadS1) return 0;
  return world.town.curbHeightM;
}

/** Place every configured pedestrian on a random sidewalk edge where it overlaps no one (up to `attempts` tries). */
export function spawnPedestrians(state: TrafficState, world: TrafficWorld, rSpawn: Rng, rng: Rng): void {
  const cfg = world.cfg.pedestrian;
  const { agents, pedestrians: peds } = state;
  const walkable = world.walking.edges.filter((e) => e.kind !== 'crosswalk' && e.lengthM > cfg.minEdgeM);
  for (let n = 0; n < world.town.pedestrians && walkable.length; n++) {
    const size = sampleAgentSize('pedestrian', rSpawn);
    for (let attempt = 0; attempt < cfg.attempts; attempt++) {
      const e = rSpawn.pick(walkable);
      // Written into the next free slot; it only counts once placed.
      const p = peds.count;
      peds.edge[p] = e.id;
      peds.s[p] = rSpawn.uniform(cfg.edgeEndMarginM, e.lengthM - cfg.edgeEndMarginM);
      peds.dir[p] = rSpawn.chance(0.5) ? 1 : -1;
      peds.speed[p] =
        size.height < cfg.childHeightM
          ? rSpawn.uniform(cfg.childSpeedMinMps, cfg.childSpeedMaxMps)
          : rSpawn.normalClipped(
              cfg.adultSpeedMps.mean,
              cfg.adultSpeedMps.sd,
              cfg.adultSpeedMps.min,
              cfg.adultSpeedMps.max,
            );
      peds.keepRightM[p] = rSpawn.uniform(cfg.keepRightMinM, cfg.keepRightMaxM);
      peds.waiting[p] = 0;
      peds.waitS[p] = 0;
      peds.blockedS[p] = 0;
      const prng = rng.fork(`pedestrian:${n}`);
      const [x, y, yaw] = pedestrianPose(world, peds, p);
      if (
        overlapsAny(
          agents,
          agents.count,
          { x, y, yaw, length: size.length, width: size.width },
          cfg.clearanceM,
        )
      )
        continue;
      const agent = addAgent(agents, 'pedestrian', 'pedestrian', size, rSpawn.int(0, 7), x, y, yaw);
      peds.agent[p] = agent;
      peds.rng.push(prng);
      peds.count++;
      agents.v[agent] = peds.speed[p];
      break;
    }
  }
  for (let p = 0; p < peds.count; p++) agents.z[peds.agent[p]] = pedestrianGroundZ(world, peds, p);
}

/** Is every vehicle far enough from the crosswalk edgeId (its half length + margin + headway·speed)? */
function crossingClear(state: TrafficState, world: TrafficWorld, edgeId: number): boolean {
  const cfg = world.cfg.pedestrian;
  const { agents, vehicles } = state;
  const e = world.walking.edges[edgeId];
  const ax = e.xy[0];
  const ay = e.xy[1];
  const bx = e.xy[e.xy.length - 2];
  const by = e.xy[e.xy.length - 1];
  const abx = bx - ax;
  const aby = by - ay;
  const len2 = abx * abx + aby * aby;
  for (let k = 0; k < vehicles.count; k++) {
    const j = vehicles.agent[k];
    const u = Math.min(1, Math.max(0, ((agents.x[j] - ax) * abx + (agents.y[j] - ay) * aby) / len2));
    const d = Math.hypot(agents.x[j] - (ax + u * abx), agents.y[j] - (ay + u * aby));
    if (d < agents.length[j] / 2 + cfg.crossingMarginM + cfg.crossingHeadwayS * agents.v[j]) return false;
  }
  return true;
}

/** The edge pedestrian p takes at `vertex`: a crosswalk by chance (then it waits), else a sidewalk, else back. */
function chooseNextEdge(
  world: TrafficWorld,
  peds: PedestrianState,
  p: number,
  vertex: number,
): { edge: number; waiting: boolean } {
  const { edges, vertices } = world.walking;
  const rng = peds.rng[p];
  const options = vertices[vertex].edges.filter((e) => e !== peds.edge[p]);
  const crossings = options.filter((e) => edges[e].kind === 'crosswalk');
  const walks = options.filter((e) => edges[e].kind !== 'crosswalk');
  if (crossings.length && rng.chance(world.town.crossingChance))
    return { edge: rng.pick(crossings), waiting: true };
  if (walks.length) return { edge: rng.pick(walks), waiting: false };
  if (crossings.length) return { edge: rng.pick(crossings), waiting: true };
  return { edge: peds.edge[p], waiting: false };
}

/** Pedestrian p waiting at a crosswalk: crosses once it is clear, gives up and walks on after giveUpWaitS. */
function waitAtCrossing(state: TrafficState, world: TrafficWorld, p: number): void {
  const { pedestrians: peds } = state;
  const { edges, vertices } = world.walking;
  peds.waitS[p] += world.town.dtS;
  state.agents.v[peds.agent[p]] = 0;
  if (crossingClear(state, world, peds.edge[p])) {
    peds.waiting[p] = 0;
    peds.waitS[p] = 0;
    if (state.step >= 0) state.counters.crossings++;
  } else if (peds.waitS[p] > world.cfg.pedestrian.giveUpWaitS) {
    // Give up and walk on along the sidewalk.
    const e = edges[peds.edge[p]];
    const vertex = peds.dir[p] > 0 ? e.v0 : e.v1;
    const options = vertices[vertex].edges.filter((k) => edges[k].kind !== 'crosswalk');
    if (options.length) {
      const k = peds.rng[p].pick(options);
      peds.edge[p] = k;
      const ne = edges[k];
      peds.dir[p] = ne.v0 === vertex ? 1 : -1;
      peds.s[p] = peds.dir[p] > 0 ? 0 : ne.lengthM;
    }
    peds.waiting[p] = 0;
    peds.waitS[p] = 0;
  }
}

/** Is anyone just ahead of agent i, within its personal space? */
function personalSpaceBlocked(state: TrafficState, world: TrafficWorld, i: number): boolean {
  const cfg = world.cfg.pedestrian;
  const a = state.agents;
  const c = Math.cos(a.yaw[i]);
  const s = Math.sin(a.yaw[i]);
  for (let j = 0; j < a.count; j++) {
    if (j === i) continue;
    const dx = a.x[j] - a.x[i];
    const dy = a.y[j] - a.y[i];
    if (dx * dx + dy * dy > cfg.personalRadiusM * cfg.personalRadiusM) continue;
    const along = c * dx + s * dy;
    const lat = -s * dx + c * dy;
    const reach = a.length[i] / 2 + Math.max(a.length[j], a.width[j]) / 2 + cfg.personalReachM;
    if (
      along > 0 &&
      along < reach &&
      Math.abs(lat) < a.width[i] / 2 + Math.max(a.length[j], a.width[j]) / 2 + cfg.personalLateralM
    )
      return true;
  }
  return false;
}

/** Pedestrian p stands still this step, blocked; after turnBackS of that it turns round. */
function holdBlocked(state: TrafficState, world: TrafficWorld, p: number): void {
  const peds = state.pedestrians;
  peds.blockedS[p] += world.town.dtS;
  state.agents.v[peds.agent[p]] = 0;
  if (peds.blockedS[p] > world.cfg.pedestrian.turnBackS) {
    peds.dir[p] = -peds.dir[p];
    peds.blockedS[p] = 0;
  }
}

/** Advance pedestrian p by one step; a move that would overlap another agent is refused (it waits instead). */
export function stepPedestrian(state: TrafficState, world: TrafficWorld, p: number): void {
  const { agents, pedestrians: peds } = state;
  const cfg = world.cfg.pedestrian;
  const edges = world.walking.edges;
  const i = peds.agent[p];
  if (peds.waiting[p]) {
    waitAtCrossing(state, world, p);
    return;
  }
  // Personal space: stop behind anyone just ahead; turn back when blocked for long.
  if (personalSpaceBlocked(state, world, i)) {
    holdBlocked(state, world, p);
    return;
  }
  const oldEdge = peds.edge[p];
  const oldS = peds.s[p];
  const oldDir = peds.dir[p];
  const oldWaiting = peds.waiting[p];
  peds.s[p] += peds.dir[p] * peds.speed[p] * world.town.dtS;
  let e = edges[peds.edge[p]];
  for (let guard = 0; guard < cfg.maxHopsPerStep && (peds.s[p] < 0 || peds.s[p] > e.lengthM); guard++) {
    const over = peds.s[p] < 0 ? -peds.s[p] : peds.s[p] - e.lengthM;
    const vertex = peds.s[p] < 0 ? e.v0 : e.v1;
    const next = chooseNextEdge(world, peds, p, vertex);
    const ne = edges[next.edge];
    if (next.edge === peds.edge[p]) peds.dir[p] = -peds.dir[p];
    else peds.dir[p] = ne.v0 === vertex ? 1 : -1;
    peds.edge[p] = next.edge;
    e = ne;
    if (next.waiting) {
      peds.s[p] = peds.dir[p] > 0 ? 0 : e.lengthM;
      peds.waiting[p] = 1;
      peds.waitS[p] = 0;
      break;
    }
    peds.s[p] = peds.dir[p] > 0 ? over : e.lengthM - over;
  }
  const [x, y, yaw] = pedestrianPose(world, peds, p);
  if (overlapsAny(agents, i, rectOf(agents, i, x, y, yaw), world.cfg.follow.moveClearanceM)) {
    state.counters.refusedMoves++;
    peds.edge[p] = oldEdge;
    peds.s[p] = oldS;
    peds.dir[p] = oldDir;
    peds.waiting[p] = oldWaiting;
    holdBlocked(state, world, p);
    return;
  }
  peds.blockedS[p] = 0;
  agents.x[i] = x;
  agents.y[i] = y;
  agents.yaw[i] = yaw;
  agents.v[i] = peds.waiting[p] ? 0 : peds.speed[p];
  agents.z[i] = pedestrianGroundZ(world, peds, p);
}
