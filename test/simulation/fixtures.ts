// Small hand-made scenarios for the simulation tests: a straight two-lane road with a traffic light,
// crosswalk, stop line and road edges, and agents driving along it at constant speed.
import { allocateAgentTracks, emptyMap, LIGHT, type Scenario } from '../../simulation/scenario.ts';

export interface StraightRoadOptions {
  numAgents?: number;
  numSteps?: number;
  speedMps?: number;
  /** Longitudinal spacing between agents on the same lane, metres. */
  spacingM?: number;
}

/** A 200 m straight road along +x: lanes 1 (y = 0) and 2 (y = 3.5, left of 1), edges at y = −1.75, 5.25. */
export function straightRoadScenario(opts: StraightRoadOptions = {}): Scenario {
  const n = opts.numAgents ?? 3;
  const T = opts.numSteps ?? 21;
  const v = opts.speedMps ?? 10;
  const gap = opts.spacingM ?? 20;
  const dt = 0.1;
  const map = emptyMap();
  map.lanes.push(
    {
      id: 1,
      xy: Float32Array.of(0, 0, 100, 0, 200, 0),
      widthM: 3.5,
      speedLimitMps: 15,
      successors: [],
      predecessors: [],
      leftNeighbors: [2],
      rightNeighbors: [],
      inIntersection: false,
    },
    {
      id: 2,
      xy: Float32Array.of(0, 3.5, 100, 3.5, 200, 3.5),
      widthM: 3.5,
      speedLimitMps: 15,
      successors: [],
      predecessors: [],
      leftNeighbors: [],
      rightNeighbors: [1],
      inIntersection: false,
    },
  );
  map.roadEdges.push(
    { id: 10, xy: Float32Array.of(0, -1.75, 200, -1.75) },
    { id: 11, xy: Float32Array.of(0, 5.25, 200, 5.25) },
  );
  map.drivableAreas.push({ id: 12, xy: Float32Array.of(0, -1.75, 200, -1.75, 200, 5.25, 0, 5.25) });
  map.crosswalks.push({ id: 20, xy: Float32Array.of(150, -1.75, 154, -1.75, 154, 5.25, 150, 5.25) });
  map.stopLines.push({ id: 30, laneId: 1, xy: Float32Array.of(148, -1.75, 148, 1.75) });
  const states = new Uint8Array(T).fill(LIGHT.green);
  states.fill(LIGHT.red, Math.floor(T / 2));
  map.trafficLights.push({ laneId: 1, stopX: 148, stopY: 0, states });
  const a = allocateAgentTracks(n, T);
  for (let i = 0; i < n; i++) {
    a.ids[i] = 100 + i;
    a.types[i] = i === n - 1 && n > 2 ? 'cyclist' : 'vehicle';
    a.length[i] = 4.5;
    a.width[i] = 2;
    a.height[i] = 1.6;
    for (let t = 0; t < T; t++) {
      const k = i * T + t;
      a.x[k] = 10 + gap * i + v * dt * t;
      a.y[k] = 0;
      a.z[k] = 0.8;
      a.yaw[k] = 0;
      a.vx[k] = v;
      a.vy[k] = 0;
      a.valid[k] = 1;
    }
  }
  return {
    id: 'straight-road',
    dtS: dt,
    numSteps: T,
    currentStep: Math.min(10, T - 1),
    map,
    agents: a,
    egoIndex: 0,
    controlled: Uint8Array.from({ length: n }, (_, i) => (i === 0 ? 1 : 0)),
    goalX: Float32Array.from({ length: n }, (_, i) => (i === 0 ? 190 : NaN)),
    goalY: Float32Array.from({ length: n }, (_, i) => (i === 0 ? 0 : NaN)),
    routes: Array.from({ length: n }, (_, i) => (i === 0 ? [1] : [])),
    source: 'test',
  };
}
