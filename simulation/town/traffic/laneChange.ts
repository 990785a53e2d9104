// Lane changes of town vehicles: when to try one (stuck behind someone slower, or now and then), whether the target
// lane has room, and the smooth sideways offset (half a cosine over the change) with the heading it adds.
import { projectOntoPolyline } from '../../../core/geometry/polyline.ts';
import { idmAcceleration } from '../../agents/idm.ts';
import type { LaneChangeConfig } from './trafficConfig.ts';
import type { AgentState, TrafficState, TrafficWorld } from './trafficState.ts';

/** A lane change begun: the target lane, the arc length on it and the sideways offset to close from. */
export interface LaneChangeStart {
  lane: number;
  s: number;
  lateral: number;
}

/** Offset from the target lane's centre t seconds into a change of durationS that began `from` metres off it. */
export function laneChangeOffset(from: number, t: number, durationS: number): number {
  if (t >= durationS) return 0;
  return (from * (1 + Math.cos((Math.PI * t) / durationS))) / 2;
}

/** d(offset)/dt at the same moment, m/s: the heading follows this sideways motion. */
export function laneChangeRate(from: number, t: number, durationS: number): number {
  if (t >= durationS) return 0;
  return ((-from * Math.PI) / (2 * durationS)) * Math.sin((Math.PI * t) / durationS);
}

/** Where agent i would join `target`, and whether no one is within the required gap behind or ahead there. */
function targetLaneIsSafe(
  a: AgentState,
  world: TrafficWorld,
  i: number,
  target: number,
  cfg: LaneChangeConfig,
): { ok: boolean; s: number; lat: number } {
  const l = world.lanes[target];
  const me = projectOntoPolyline(l.xy, a.x[i], a.y[i], l.cum);
  if (me.s < cfg.minLaneS || me.s > l.stopS - cfg.stopLineMarginM)
    return { ok: false, s: me.s, lat: me.lateral };
  for (let j = 0; j < a.count; j++) {
    if (j === i) continue;
    const dx = a.x[j] - a.x[i];
    const dy = a.y[j] - a.y[i];
    if (dx * dx + dy * dy > cfg.searchRadiusM * cfg.searchRadiusM) continue;
    const p = projectOntoPolyline(l.xy, a.x[j], a.y[j], l.cum);
    if (Math.abs(p.lateral) > l.widthM / 2 + a.width[j] / 2 + cfg.laneMarginM) continue;
    const ahead = p.s - me.s;
    const need = a.length[i] / 2 + a.length[j] / 2;
    if (
      ahead > -(need + cfg.gapMarginM + cfg.rearHeadwayS * a.v[j]) &&
      ahead < need + cfg.gapMarginM + cfg.frontHeadwayS * a.v[i]
    ) {
      return { ok: false, s: me.s, lat: me.lateral };
    }
  }
  return { ok: true, s: me.s, lat: me.lateral };
}

/**
 * Vehicle k, free to change (cooldown over, not mid change, holding no junction, on a road lane with a neighbour),
 * following at acceleration `accel` a leader `gap` metres ahead closing at `closing`: begins a change when stuck
 * or on a whim and the target has room. Sets the next cooldown; returns the change begun, or null.
 */
export function tryLaneChange(
  state: TrafficState,
  world: TrafficWorld,
  k: number,
  gap: number,
  closing: number,
  accel: number,
): LaneChangeStart | null {
  const { vehicles } = state;
  const cfg = world.cfg.laneChange;
  const i = vehicles.agent[k];
  const rng = vehicles.rng[k];
  const lane = world.lanes[vehicles.lane[k]];
  const freeA = idmAcceleration(vehicles.idm[k], state.agents.v[i], Infinity);
  const stuck =
    gap < cfg.stuckGapM && accel < freeA - cfg.stuckAccelLossMps2 && closing > -cfg.stuckOpeningMps;
  const whim = rng.chance(world.town.laneChangeRatePerS * world.town.dtS);
  if (!stuck && !whim) return null;
  const targets = [...lane.left, ...lane.right];
  const target = targets.length === 1 ? targets[0] : rng.pick(targets);
  const t = targetLaneIsSafe(state.agents, world, i, target, cfg);
  if (!t.ok) {
    // Not safe now: look again in a moment.
    vehicles.cooldownS[k] = cfg.retryS;
    return null;
  }
  vehicles.cooldownS[k] = rng.uniform(cfg.cooldownMinS, cfg.cooldownMaxS);
  return { lane: target, s: t.s, lateral: t.lat };
}
