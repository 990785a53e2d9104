// Vehicles and cyclists of the town: placed on free road lanes with their own IDM driver, then stepped along their
// lanes: curve-limited IDM behind the leader, a stop at the line until the junction is theirs, lane changes.
import { wrapAngle } from '../../../core/geometry/pose.ts';
import { idmAcceleration, idmConfig, idmStep } from '../../agents/idm.ts';
import { brakingDistance, idmStopAcceleration } from '../../agents/idmStop.ts';
import type { Rng } from '../../rng.ts';
import { type AgentClass, sampleAgentSize } from '../agentSizes.ts';
import type { TownLane } from '../laneGraph.ts';
import { enteredLane, releaseWhenClear, requestConnector } from './junctionReservations.ts';
import { laneChangeOffset, laneChangeRate, tryLaneChange } from './laneChange.ts';
import { leaderOnPath } from './leader.ts';
import { type PathSamples, extendPlan, pickSuccessor, poseOnLane, samplePath } from './lanePath.ts';
import type { ClippedNormal } from './trafficConfig.ts';
import {
  type AgentRole,
  type TrafficState,
  type TrafficWorld,
  addAgent,
  overlapsAny,
  rectOf,
} from './trafficState.ts';

const draw = (rng: Rng, d: ClippedNormal) => rng.normalClipped(d.mean, d.sd, d.min, d.max);

/**
 * Place one vehicle of class cls on a random road lane where it overlaps no one (cyclists only on a lane with no
 * lane to its right); returns false when no place was found. rSpawn draws places and sizes, rng forks its driver.
 */
export function spawnVehicle(
  state: TrafficState,
  world: TrafficWorld,
  roadLanes: TownLane[],
  cls: AgentClass,
  role: AgentRole,
  rSpawn: Rng,
  rng: Rng,
): boolean {
  const cfg = world.cfg.spawn;
  const { agents, vehicles } = state;
  const size = sampleAgentSize(cls, rSpawn);
  for (let attempt = 0; attempt < cfg.attempts; attempt++) {
    const lane = rSpawn.pick(roadLanes);
    if (role === 'cyclist' && lane.right.length) continue;
    const room = lane.stopS - cfg.stopLineMarginM - size.length;
    if (room < cfg.minRoomM) continue;
    const s = rSpawn.uniform(
      cfg.laneStartMarginM + size.length / 2,
      lane.stopS - cfg.stopLineMarginM - size.length / 2,
    );
    const bias = role === 'cyclist' ? -(lane.widthM / 2 - size.width / 2 - cfg.cyclistEdgeM) : 0;
    const [x, y, yaw] = poseOnLane(world.lanes, lane.id, s, bias);
    const ahead = { x, y, yaw, length: size.length + cfg.clearAheadM, width: size.width };
    if (overlapsAny(agents, agents.count, ahead, cfg.clearanceM)) continue;
    const agent = addAgent(agents, cls, role, size, rSpawn.int(0, 7), x, y, yaw);
    const vrng = rng.fork(`vehicle:${agent}`);
    const desired =
      role === 'cyclist'
        ? draw(vrng, cfg.cyclistSpeedMps)
        : lane.speedLimitMps * draw(vrng, cfg.speedLimitShare);
    const k = vehicles.count++;
    vehicles.agent[k] = agent;
    vehicles.lane[k] = lane.id;
    vehicles.s[k] = s;
    vehicles.lcFrom[k] = 0;
    vehicles.lcT[k] = 1e9;
    vehicles.bias[k] = bias;
    vehicles.idm.push(
      idmConfig({
        desiredSpeedMps: desired,
        timeHeadwayS: role === 'cyclist' ? cfg.cyclistTimeHeadwayS : draw(vrng, cfg.timeHeadwayS),
        maxAccelMps2:
          cls === 'truck'
            ? cfg.truckMaxAccelMps2
            : role === 'cyclist'
              ? cfg.cyclistMaxAccelMps2
              : draw(vrng, cfg.maxAccelMps2),
        comfortDecelMps2: cfg.comfortDecelMps2,
        minGapM: role === 'cyclist' ? cfg.cyclistMinGapM : cfg.minGapM,
      }),
    );
    vehicles.cooldownS[k] = vrng.uniform(0, cfg.initialCooldownMaxS);
    vehicles.canChangeLane[k] = role === 'vehicle' && cls !== 'truck' ? 1 : 0;
    vehicles.rng.push(vrng);
    vehicles.plan.push([]);
    vehicles.history.push([lane.id]);
    agents.v[agent] = desired * cfg.initialSpeedShare;
    return true;
  }
  return false;
}

/** Desired speed capped by every curve ahead that is reachable with comfortable braking (from the path samples). */
function curveLimitedSpeed(
  desired: number,
  decel: number,
  path: PathSamples,
  n: number,
  lengthM: number,
): number {
  let v0 = desired;
  for (let k = 0; k < n; k++) {
    const dist = Math.max(0, path.dist[k] - lengthM / 2);
    const allowed = Math.sqrt(path.vMax[k] * path.vMax[k] + 2 * decel * dist);
    if (allowed < v0) v0 = allowed;
  }
  return v0;
}

/** Advance vehicle k by one step; a move that would overlap another agent is refused (it stops instead). */
export function stepVehicle(state: TrafficState, world: TrafficWorld, path: PathSamples, k: number): void {
  const { agents, vehicles, junctions, counters } = state;
  const { lanes, town } = world;
  const follow = world.cfg.follow;
  const dt = town.dtS;
  const i = vehicles.agent[k];
  const rng = vehicles.rng[k];
  const idm = vehicles.idm[k];
  const L = agents.length[i];
  const v = agents.v[i];
  const lookahead = Math.max(follow.lookaheadMinM, v * follow.lookaheadGainS + follow.lookaheadBaseM);
  extendPlan(lanes, vehicles.plan[k], vehicles.lane[k], vehicles.s[k], rng, lookahead + follow.planMarginM);
  const lateralSelf =
    laneChangeOffset(vehicles.lcFrom[k], vehicles.lcT[k], town.laneChangeS) + vehicles.bias[k];
  const n = samplePath(
    lanes,
    path,
    vehicles.lane[k],
    vehicles.s[k],
    vehicles.plan[k],
    lookahead,
    follow.sampleStepM,
  );
  const v0 = curveLimitedSpeed(idm.desiredSpeedMps, idm.comfortDecelMps2, path, n, L);
  const cfgNow =
    v0 === idm.desiredSpeedMps ? idm : { ...idm, desiredSpeedMps: Math.max(v0, follow.minDesiredSpeedMps) };
  const [gap, closing] = leaderOnPath(
    agents,
    i,
    path,
    n,
    vehicles.bias[k],
    lateralSelf,
    follow.leaderReachMarginM,
    follow.corridorMarginM,
  );
  let a = idmAcceleration(cfgNow, v, gap, closing);
  // Junction: reserve the next connector before the stop line, or stop there.
  const lane = lanes[vehicles.lane[k]];
  const next = vehicles.plan[k][0];
  if (
    lane.kind === 'road' &&
    lane.stopS < lane.lengthM &&
    next !== undefined &&
    junctions.reserved[k] !== next
  ) {
    const jc = world.cfg.junction;
    const toStop = lane.stopS - (vehicles.s[k] + L / 2);
    if (toStop < brakingDistance(v, jc.decisionDecelMps2) + jc.decisionMarginM) {
      if (!requestConnector(junctions, vehicles, lanes, k, next, toStop, state.step, jc)) {
        a = Math.min(a, idmStopAcceleration(cfgNow, v, toStop));
        if (state.step >= 0) counters.junctionHolds++;
      }
    }
  }
  // Lane change: a MOBIL-like incentive (stuck behind someone slower) or now and then for variety.
  vehicles.cooldownS[k] -= dt;
  const change =
    vehicles.canChangeLane[k] &&
    lane.kind === 'road' &&
    vehicles.cooldownS[k] <= 0 &&
    vehicles.lcT[k] >= town.laneChangeS &&
    junctions.reserved[k] < 0 &&
    (lane.left.length || lane.right.length)
      ? tryLaneChange(state, world, k, gap, closing, a)
      : null;
  const [v1, ds] = idmStep(v, a, dt);
  // Advance along the (possibly new) lane and plan.
  let s = (change ? change.s : vehicles.s[k]) + ds;
  let laneNow = change ? change.lane : vehicles.lane[k];
  const plan = change ? [] : [...vehicles.plan[k]];
  const entered: number[] = [];
  while (s > lanes[laneNow].lengthM) {
    if (!plan.length) {
      const succ = pickSuccessor(lanes, laneNow, rng);
      if (succ === undefined) {
        s = lanes[laneNow].lengthM;
        break;
      }
      plan.push(succ);
    }
    s -= lanes[laneNow].lengthM;
    laneNow = plan.shift()!;
    entered.push(laneNow);
  }
  const lcFrom = change ? change.lateral : vehicles.lcFrom[k];
  const lcT = change ? 0 : vehicles.lcT[k] + dt;
  const offset = laneChangeOffset(lcFrom, lcT, town.laneChangeS) + vehicles.bias[k];
  const [x, y, heading] = poseOnLane(lanes, laneNow, s, offset);
  // Heading follows the sideways motion of a lane change.
  const yaw = wrapAngle(heading + Math.atan2(laneChangeRate(lcFrom, lcT, town.laneChangeS), Math.max(v1, 1)));
  if (overlapsAny(agents, i, rectOf(agents, i, x, y, yaw), follow.moveClearanceM)) {
    counters.refusedMoves++;
    agents.v[i] = 0;
    return;
  }
  // Commit.
  agents.x[i] = x;
  agents.y[i] = y;
  agents.yaw[i] = yaw;
  agents.v[i] = v1;
  vehicles.lane[k] = laneNow;
  vehicles.s[k] = s;
  vehicles.plan[k] = plan;
  if (change && state.step >= 0) counters.laneChanges++;
  vehicles.lcFrom[k] = lcFrom;
  vehicles.lcT[k] = lcT;
  const history = vehicles.history[k];
  for (const l of entered) {
    history.push(l);
    enteredLane(junctions, lanes, k, l, L, world.cfg.junction);
  }
  if (change && change.lane !== history[history.length - 1] && entered.length === 0)
    history.push(change.lane);
  releaseWhenClear(junctions, k, vehicles.lane[k], vehicles.s[k]);
}
