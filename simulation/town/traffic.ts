// Town traffic at 10 Hz: vehicles and cyclists follow lanes with IDM, change lanes (MOBIL-like), yield at junctions;
// pedestrians walk sidewalks and cross; a move that would overlap another agent is refused, so none ever overlap.
import type { Rng } from '../rng.ts';
import type { AgentTracks } from '../scenario.ts';
import { allocateAgentTracks } from '../scenario.ts';
import type { AgentClass } from './agentSizes.ts';
import type { TownLane } from './laneGraph.ts';
import type { PedestrianGraph } from './pedestrianGraph.ts';
import type { ParkedCar } from './staticWorld.ts';
import type { TownConfig } from './townConfig.ts';
import { countLeakedReservations } from './traffic/junctionReservations.ts';
import { allocatePathSamples } from './traffic/lanePath.ts';
import { spawnPedestrians, stepPedestrian } from './traffic/pedestrians.ts';
import { recordStep, reorderTracks, rowOrder } from './traffic/recording.ts';
import { DEFAULT_TRAFFIC, type TrafficConfig } from './traffic/trafficConfig.ts';
import {
  type AgentRole,
  type TrafficState,
  type TrafficWorld,
  addAgent,
  allocateAgents,
  allocateJunctions,
  allocatePedestrians,
  allocateVehicles,
} from './traffic/trafficState.ts';
import { spawnVehicle, stepVehicle } from './traffic/vehicles.ts';

export type { AgentRole } from './traffic/trafficState.ts';

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

// The parts live in traffic/ around one TrafficState (struct-of-arrays) and one TrafficConfig; this module spawns,
// runs the warm-up and the recorded steps, and picks the ego.

/** Parked cars, then cars (at least one), vans, trucks, cyclists and pedestrians, each where it overlaps no one. */
function spawnTraffic(world: TrafficWorld, parked: ParkedCar[], rng: Rng): TrafficState {
  const { town, lanes } = world;
  const numVehicles = Math.max(1, town.cars) + town.vans + town.trucks + town.cyclists;
  const state: TrafficState = {
    agents: allocateAgents(parked.length + numVehicles + town.pedestrians),
    vehicles: allocateVehicles(numVehicles),
    pedestrians: allocatePedestrians(town.pedestrians),
    junctions: allocateJunctions(lanes.length, numVehicles),
    counters: { refusedMoves: 0, laneChanges: 0, junctionHolds: 0, crossings: 0 },
    step: 0,
  };
  const rSpawn = rng.fork('spawn');
  for (const p of parked) addAgent(state.agents, p.cls, 'parked', p.size, rSpawn.int(0, 7), p.x, p.y, p.yaw);
  const roadLanes = lanes.filter((l) => l.kind === 'road');
  const spawn = (cls: AgentClass, role: AgentRole) =>
    spawnVehicle(state, world, roadLanes, cls, role, rSpawn, rng);
  // Every car drives alike; afterwards the one that covered the most ground (or another quantile:
  // town.egoTravelQuantile) becomes the ego, so the ego is never a special case of the traffic model.
  for (let k = 0; k < Math.max(1, town.cars); k++) spawn('car', 'vehicle');
  if (!state.vehicles.count) throw new Error('town: no room to place any car');
  for (let k = 0; k < town.vans; k++) spawn('van', 'vehicle');
  for (let k = 0; k < town.trucks; k++) spawn('truck', 'vehicle');
  for (let k = 0; k < town.cyclists; k++) spawn('cyclist', 'cyclist');
  spawnPedestrians(state, world, rSpawn, rng);
  return state;
}

/**
 * The vehicle (index into `agentOf`) whose car covered the ground at quantile q among the cars (1: the most;
 * ties to the earliest spawned). Vehicle 0 is always a car.
 */
export function pickEgo(
  agentOf: Int32Array | readonly number[],
  classes: readonly string[],
  travelled: Float64Array,
  q: number,
): number {
  if (q >= 1) {
    // The most travelled, as it always was chosen (so default towns keep their ego bit for bit).
    let ego = 0;
    for (let k = 0; k < agentOf.length; k++)
      if (classes[agentOf[k]] === 'car' && travelled[agentOf[k]] > travelled[agentOf[ego]] + 1e-9) ego = k;
    return ego;
  }
  const cars: number[] = [];
  for (let k = 0; k < agentOf.length; k++) if (classes[agentOf[k]] === 'car') cars.push(k);
  // By ground covered, least first; the earliest spawned first on a tie.
  cars.sort((a, b) => travelled[agentOf[a]] - travelled[agentOf[b]] || a - b);
  return cars[Math.round(Math.max(0, q) * (cars.length - 1))];
}

export function simulateTraffic(
  town: TownConfig,
  lanes: TownLane[],
  walking: PedestrianGraph,
  parked: ParkedCar[],
  numSteps: number,
  rng: Rng,
  cfg: TrafficConfig = DEFAULT_TRAFFIC,
): TrafficResult {
  const world: TrafficWorld = { town, cfg, lanes, walking };
  const state = spawnTraffic(world, parked, rng);
  const { agents, vehicles, pedestrians } = state;
  const path = allocatePathSamples(cfg.follow.maxSamples);
  const warmup = Math.round(town.warmupS / town.dtS);
  const raw = allocateAgentTracks(agents.count, numSteps);
  const historyStart = new Int32Array(vehicles.count);
  const travelled = new Float64Array(agents.count);
  for (let step = -warmup; step < numSteps; step++) {
    state.step = step;
    if (step >= 0) {
      if (step === 0)
        for (let k = 0; k < vehicles.count; k++) historyStart[k] = vehicles.history[k].length - 1;
      recordStep(raw, agents, numSteps, step, travelled);
      if (step === numSteps - 1) break;
    }
    for (let k = 0; k < vehicles.count; k++) stepVehicle(state, world, path, k);
    for (let p = 0; p < pedestrians.count; p++) stepPedestrian(state, world, p);
  }
  const ego = pickEgo(
    vehicles.agent.subarray(0, vehicles.count),
    agents.classes,
    travelled,
    town.egoTravelQuantile,
  );
  const egoAgent = vehicles.agent[ego];
  agents.roles[egoAgent] = 'ego';
  const order = rowOrder(agents.roles);
  return {
    tracks: reorderTracks(raw, agents, order, numSteps),
    classes: order.map((i) => agents.classes[i]),
    roles: order.map((i) => agents.roles[i]),
    paint: Uint8Array.from(order.map((i) => agents.paint[i])),
    egoIndex: order.indexOf(egoAgent),
    egoRoute: [...vehicles.history[ego].slice(historyStart[ego]), ...vehicles.plan[ego]],
    ...state.counters,
    leakedReservations: countLeakedReservations(state.junctions, vehicles, agents.v),
  };
}
