// Every per-step feature of the Sim Agents metric for the scored agents of one scene (the log or one
// rollout): kinematics, nearest-object distance, time to collision, road-edge distance, red lights.
import type { Scenario } from '../../scenario.ts';
import { InteractionFrame } from './interactionFrame.ts';
import { kinematicFeatures } from './kinematics.ts';
import { EXTREMELY_LARGE_DISTANCE, nearestObjectDistances } from './nearestObject.ts';
import { boxRoadEdgeDistances, type RoadEdgeIndex } from './roadEdge.ts';
import { MAXIMUM_TIME_TO_COLLISION_S, timesToCollision } from './timeToCollision.ts';
import { type LightIndex, redLightViolations } from './trafficLight.ts';

/** Per-step feature arrays of E scored agents × T future steps for one or more scenes (index (scene·E + e)·T + t). */
export interface FeatureArrays {
  linearSpeed: Float32Array;
  linearAcceleration: Float32Array;
  angularSpeed: Float32Array;
  angularAcceleration: Float32Array;
  distanceToNearestObject: Float32Array;
  timeToCollision: Float32Array;
  distanceToRoadEdge: Float32Array;
  redLight: Uint8Array;
}

export function allocateFeatures(n: number): FeatureArrays {
  return {
    linearSpeed: new Float32Array(n),
    linearAcceleration: new Float32Array(n),
    angularSpeed: new Float32Array(n),
    angularAcceleration: new Float32Array(n),
    distanceToNearestObject: new Float32Array(n),
    timeToCollision: new Float32Array(n),
    distanceToRoadEdge: new Float32Array(n),
    redLight: new Uint8Array(n),
  };
}

/** What one scene's features need besides its trajectories: the agents, the map indexes, settings. */
export interface SceneContext {
  scenario: Scenario;
  /** Rows of the simulated agents (A) and, among them, the local indices of the scored ones (E). */
  agentRows: Int32Array;
  scored: Int32Array;
  isVehicle: Uint8Array;
  roadEdges: RoadEdgeIndex;
  lights: LightIndex;
  cornerRoundingFactor: number;
  /**
   * Nearest-object search radius: farther agents are not measured (the histogram's maxVal, where every
   * larger value lands in the same bin; see nearestObjectDistance). Infinity: no cap.
   */
  nearestObjectCapM: number;
  frame: InteractionFrame;
}

/**
 * Features of one scene whose full trajectories (history and future, numSteps each) are in
 * x/y/z/yaw/valid at a·numSteps + k for simulated agent a; written at (scene·E + e)·T + t.
 */
export function sceneFeatures(
  ctx: SceneContext,
  x: Float64Array,
  y: Float64Array,
  z: Float64Array,
  yaw: Float64Array,
  valid: Uint8Array,
  out: FeatureArrays,
  scene: number,
): void {
  const s = ctx.scenario;
  const F = s.numSteps;
  const H = s.currentStep + 1;
  const T = F - H;
  const E = ctx.scored.length;
  const dt = s.dtS;
  const base = scene * E * T;
  for (let e = 0; e < E; e++) {
    const a = ctx.scored[e];
    kinematicFeatures(
      x,
      y,
      z,
      yaw,
      a * F,
      F,
      H,
      T,
      dt,
      out.linearSpeed,
      out.linearAcceleration,
      out.angularSpeed,
      out.angularAcceleration,
      base + e * T,
    );
  }
  const f = ctx.frame;
  const hasEdges = ctx.roadEdges.sx.length > 0;
  const hasLights = ctx.lights.lights.length > 0;
  const { scored, isVehicle } = ctx;
  const heights = s.agents.height;
  const bottomZ = hasEdges && ctx.roadEdges.hasZ ? new Float64Array(f.n) : null;
  for (let t = 0; t < T; t++) {
    const k = H + t;
    f.load(x, y, yaw, valid, F, k, dt);
    // Bottom of each box (centre z − height / 2): the height the road-edge search compares.
    if (bottomZ) for (let a = 0; a < f.n; a++) bottomZ[a] = z[a * F + k] - heights[ctx.agentRows[a]] / 2;
    const o = base + t;
    nearestObjectDistances(
      f,
      scored,
      ctx.cornerRoundingFactor,
      ctx.nearestObjectCapM,
      out.distanceToNearestObject,
      o,
      T,
    );
    timesToCollision(f, scored, isVehicle, out.timeToCollision, o, T);
    if (hasEdges)
      boxRoadEdgeDistances(
        ctx.roadEdges,
        f.x,
        f.y,
        f.cos,
        f.sin,
        f.length,
        f.width,
        f.valid,
        -EXTREMELY_LARGE_DISTANCE,
        scored,
        out.distanceToRoadEdge,
        o,
        T,
        bottomZ,
      );
    else for (let e = 0; e < E; e++) out.distanceToRoadEdge[o + e * T] = NaN;
    if (hasLights) redLightViolations(ctx.lights, k, x, y, F, scored, isVehicle, valid, out.redLight, o, T);
    else for (let e = 0; e < E; e++) out.redLight[o + e * T] = 0;
    for (let e = 0; e < E; e++) {
      if (f.valid[scored[e]]) continue;
      // Only the log has invalid steps, and those are masked out of every score.
      out.distanceToNearestObject[o + e * T] = EXTREMELY_LARGE_DISTANCE;
      out.timeToCollision[o + e * T] = MAXIMUM_TIME_TO_COLLISION_S;
    }
  }
}
