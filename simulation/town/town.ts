// The procedural town, end to end and deterministic for a seed: road network → lanes → junction corners,
// walking network and map → static world → simulated traffic → a Scenario the simulator can load.
import type { RoadMap, Scenario } from '../scenario.ts';
import { type JunctionCorner, junctionCorners } from './junctions.ts';
import { type TownLane, buildLaneGraph } from './laneGraph.ts';
import { buildRoadMap } from './mapFeatures.ts';
import { type PedestrianGraph, buildPedestrianGraph } from './pedestrianGraph.ts';
import { Rng } from '../../core/rng.ts';
import { type RoadNetwork, generateRoadNetwork } from './roadNetwork.ts';
import { type StaticWorld, placeStaticWorld } from './staticWorld.ts';
import { type TownConfig, townConfig } from './townConfig.ts';
import { type TrafficResult, simulateTraffic } from './traffic.ts';

export interface Town {
  config: TownConfig;
  network: RoadNetwork;
  lanes: TownLane[];
  corners: JunctionCorner[];
  walking: PedestrianGraph;
  map: RoadMap;
  staticWorld: StaticWorld;
  traffic: TrafficResult;
  scenario: Scenario;
}

/** Build a town and simulate `numSteps` recorded steps of its traffic (after the configured warm-up). */
export function generateTown(over: Partial<TownConfig>, numSteps: number): Town {
  const config = townConfig(over);
  if (!Number.isInteger(numSteps) || numSteps < 1)
    throw new Error(`town: numSteps must be ≥ 1, got ${numSteps}`);
  const rng = new Rng(config.seed, 'mulberry32');
  const network = generateRoadNetwork(config, rng.fork('network'));
  const lanes = buildLaneGraph(network, config);
  const corners = network.nodes.flatMap((n) => junctionCorners(network, n, config));
  const walking = buildPedestrianGraph(network, corners, config);
  const map = buildRoadMap(network, lanes, corners, config);
  const staticWorld = placeStaticWorld(network, config, rng.fork('static'));
  const traffic = simulateTraffic(config, lanes, walking, staticWorld.parked, numSteps, rng.fork('traffic'));
  const n = traffic.tracks.ids.length;
  const controlled = new Uint8Array(n);
  controlled[traffic.egoIndex] = 1;
  const goalX = new Float32Array(n).fill(NaN);
  const goalY = new Float32Array(n).fill(NaN);
  const lastLane = lanes[traffic.egoRoute[traffic.egoRoute.length - 1]];
  goalX[traffic.egoIndex] = lastLane.xy[lastLane.xy.length - 2];
  goalY[traffic.egoIndex] = lastLane.xy[lastLane.xy.length - 1];
  const routes: number[][] = Array.from({ length: n }, () => []);
  routes[traffic.egoIndex] = traffic.egoRoute;
  const scenario: Scenario = {
    id: `synthetic-town-${config.seed}`,
    dtS: config.dtS,
    numSteps,
    currentStep: Math.min(10, numSteps - 1),
    map,
    agents: traffic.tracks,
    egoIndex: traffic.egoIndex,
    controlled,
    goalX,
    goalY,
    routes,
    source: 'synthetic',
  };
  return { config, network, lanes, corners, walking, map, staticWorld, traffic, scenario };
}
