// Shared set-up of the intersection kinds: the four-way junction, signals that hold north–south green
// and east–west red for the whole scenario, and timing helpers for meeting at a conflict point.
import { LIGHT } from '../../scenario.ts';
import { type Arm, ARMS, crossIntersection, type Intersection } from '../roads.ts';
import { FRAME } from '../kind.ts';
import { laneChain, type Path, pathPose } from '../scenarioBuilder.ts';

export function signalledIntersection(speedLimitMps: number): Intersection {
  const x = crossIntersection({ armLengthM: 120, laneWidthM: 3.6, speedLimitMps, stopM: 9 });
  for (const from of ARMS) {
    const green = from === 'north' || from === 'south';
    for (const to of ARMS) {
      if (from === to) continue;
      const id = x.connector(from, to);
      const lane = x.map.lanes.find((l) => l.id === id)!;
      x.map.trafficLights.push({
        laneId: id,
        stopX: lane.xy[0],
        stopY: lane.xy[1],
        states: new Uint8Array(FRAME.numSteps).fill(green ? LIGHT.green : LIGHT.red),
      });
    }
  }
  return x;
}

/** The route from arm `from` through the junction to arm `to`, as lane ids and a path. */
export function turn(x: Intersection, from: Arm, to: Arm): { lanes: number[]; path: Path } {
  const lanes = [x.incoming[from], x.connector(from, to), x.outgoing[to]];
  return { lanes, path: laneChain(x.map, lanes) };
}

/** Arc lengths along a and b where the two paths come closest (their conflict point). */
export function conflict(a: Path, b: Path): { sa: number; sb: number } {
  let best = Infinity;
  let sa = 0;
  let sb = 0;
  for (let u = 0; u <= a.length; u += 0.25) {
    const p = pathPose(a, u);
    for (let v = 0; v <= b.length; v += 0.25) {
      const q = pathPose(b, v);
      const d = (p.x - q.x) ** 2 + (p.y - q.y) ** 2;
      if (d < best) {
        best = d;
        sa = u;
        sb = v;
      }
    }
  }
  return { sa, sb };
}
