// Shared set-up of the intersection kinds: the four-way junction, signals that hold north–south green
// and east–west red for the whole scenario, timing helpers for meeting at a conflict point, and the
// two-car crossing that the red-light-runner and unprotected-left kinds share.
import { LIGHT } from '../../scenario.ts';
import { type Arm, ARMS, crossIntersection, type Intersection } from '../roads.ts';
import { CAR, egoCar, FRAME, type LongtailDraft } from '../kind.ts';
import { buildScenario, laneChain, type Path, pathPose, speedProfile } from '../scenarioBuilder.ts';

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

/** Two cars crossing a signalled junction: the ego's and the other car's movement, speeds and timing. */
export interface CrossingPair {
  kind: string;
  ego: { from: Arm; to: Arm; speedMps: number };
  other: { from: Arm; to: Arm; speedMps: number };
  /** Speed limit of the junction's lanes. */
  speedLimitMps: number;
  /** The ego's distance to the conflict point at the current step. */
  distanceM: number;
  /** When the other car reaches the conflict point, relative to the ego (s; negative: first). */
  offsetS: number;
}

/** The scenario of a crossing pair at constant speeds, the ego controlled; both meet at `offsetS`. */
export function crossingPairDraft(id: string, c: CrossingPair): Omit<LongtailDraft, 'params'> {
  const x = signalledIntersection(c.speedLimitMps);
  const ego = turn(x, c.ego.from, c.ego.to);
  const other = turn(x, c.other.from, c.other.to);
  const meet = conflict(ego.path, other.path);
  const s0 = meet.sa - c.distanceM;
  const tMeet = c.distanceM / c.ego.speedMps + c.offsetS;
  const o0 = meet.sb - c.other.speedMps * tMeet;
  const op = speedProfile(c.other.speedMps, []);
  const scenario = buildScenario({ id, source: `longtail:${c.kind}`, map: x.map, ...FRAME }, [
    egoCar(ego.path, ego.lanes, s0, c.ego.speedMps),
    { id: 1, type: 'vehicle', ...CAR, pose: (t) => pathPose(other.path, o0 + op(t).s) },
  ]);
  return { scenario, route: ego.path, s0, v0: c.ego.speedMps };
}
