// Junction reservations: a vehicle near its stop line asks for its next connector and gets it when no conflicting
// connector is held or asked for before it (side roads yield to the priority road; then first come, first served).
import type { TownLane } from '../laneGraph.ts';
import type { JunctionConfig } from './trafficConfig.ts';
import type { JunctionState, VehicleState } from './trafficState.ts';

/**
 * Vehicle k (not holding `next` yet) asks for connector `next` at `step`, toStop metres before its stop line.
 * Returns true when it is granted (it then holds `next`, and any earlier connector is let go), false when it
 * must hold at the line.
 */
export function requestConnector(
  j: JunctionState,
  vehicles: VehicleState,
  lanes: TownLane[],
  k: number,
  next: number,
  toStop: number,
  step: number,
  cfg: JunctionConfig,
): boolean {
  if (j.requestLane[k] !== next) {
    j.requestLane[k] = next;
    j.requestStep[k] = step;
  }
  const conflicts = lanes[next].conflicts;
  let blocked = conflicts.some((c) => j.held[c] > 0);
  const iAmMajor = lanes[next].major;
  for (let o = 0; o < vehicles.count; o++) {
    if (blocked) break;
    const otherLane = j.requestLane[o];
    if (o === k || otherLane < 0 || !conflicts.includes(otherLane)) continue;
    const otherMajor = lanes[otherLane].major;
    if (otherMajor !== iAmMajor) {
      blocked = otherMajor;
      continue;
    }
    if (
      j.requestStep[o] < j.requestStep[k] ||
      (j.requestStep[o] === j.requestStep[k] && vehicles.agent[o] < vehicles.agent[k])
    ) {
      blocked = true;
    }
  }
  // One already past its line enters anyway: stopping there would block the junction for everyone.
  if (blocked && toStop >= -cfg.overrunM) return false;
  if (j.reserved[k] >= 0) j.held[j.reserved[k]]--;
  j.reserved[k] = next;
  j.held[next]++;
  j.requestLane[k] = -1;
  return true;
}

/** Vehicle k (length lengthM) has entered `lane`: on a road lane after its connector, it lets go once clear. */
export function enteredLane(
  j: JunctionState,
  lanes: TownLane[],
  k: number,
  lane: number,
  lengthM: number,
  cfg: JunctionConfig,
): void {
  if (lanes[lane].kind === 'road' && j.reserved[k] >= 0) {
    j.releaseLane[k] = lane;
    j.releaseAtS[k] = lengthM / 2 + cfg.releaseMarginM;
  }
}

/** Let go of vehicle k's connector once its rear has cleared the junction (it is at s on `lane`). */
export function releaseWhenClear(j: JunctionState, k: number, lane: number, s: number): void {
  if (j.reserved[k] >= 0 && j.releaseLane[k] === lane && s >= j.releaseAtS[k]) {
    j.held[j.reserved[k]]--;
    j.reserved[k] = -1;
    j.releaseLane[k] = -1;
  }
}

/** Connectors whose hold count disagrees with the vehicles holding them (should be 0: none leaked). */
export function countLeakedReservations(j: JunctionState, vehicles: VehicleState, v: Float64Array): number {
  const held = new Int32Array(j.held.length);
  for (let k = 0; k < vehicles.count; k++) if (j.reserved[k] >= 0) held[j.reserved[k]]++;
  let leaks = 0;
  for (let l = 0; l < held.length; l++) if (held[l] !== j.held[l]) leaks++;
  if (process.env.TOWN_DEBUG) {
    for (let k = 0; k < vehicles.count; k++) {
      if (j.reserved[k] >= 0)
        console.error(
          'holder',
          vehicles.agent[k],
          'lane',
          vehicles.lane[k],
          's',
          vehicles.s[k].toFixed(1),
          'v',
          v[vehicles.agent[k]].toFixed(2),
          'res',
          j.reserved[k],
          'relLane',
          j.releaseLane[k],
        );
    }
  }
  return leaks;
}
