// Structural checks of a Scenario (array lengths, indices, map references) before the simulator trusts
// it; problems become an InputError naming the file. Non-finite coordinates of valid states are
// invalidated and counted, not fatal (the house rule for NaN points).
import { InputError } from '../core/errors.ts';
import type { AgentType, Scenario } from './scenario.ts';

export const AGENT_TYPES: readonly AgentType[] = ['vehicle', 'pedestrian', 'cyclist', 'other'];

export interface ValidationReport {
  /** Valid states whose pose or velocity was not finite; they were marked invalid. */
  invalidatedStates: number;
}

export interface ValidateOptions {
  /** Refuse a scenario in which no agent is ever valid (default true). */
  requireValidAgent?: boolean;
  /** Mark valid states with non-finite values invalid (default true); otherwise only count them. */
  repair?: boolean;
}

/** Throws InputError(where, problem) on the first structural problem; repairs non-finite valid states. */
export function validateScenario(s: Scenario, where: string, opts: ValidateOptions = {}): ValidationReport {
  const requireValidAgent = opts.requireValidAgent ?? true;
  const repair = opts.repair ?? true;
  const fail = (problem: string): never => {
    throw new InputError(where, `scenario '${s.id}': ${problem}`);
  };
  if (typeof s.id !== 'string') fail('id is not a string');
  if (!Number.isInteger(s.numSteps) || s.numSteps < 1)
    fail(`num_steps ${s.numSteps} is not a positive integer`);
  if (!(s.dtS > 0) || !Number.isFinite(s.dtS)) fail(`dt_s ${s.dtS} is not a positive number`);
  if (!Number.isInteger(s.currentStep) || s.currentStep < 0 || s.currentStep >= s.numSteps)
    fail(`current_step ${s.currentStep} is outside [0, ${s.numSteps})`);
  const a = s.agents;
  const n = a.ids.length;
  const perAgent: [string, { length: number }][] = [
    ['types', a.types],
    ['length', a.length],
    ['width', a.width],
    ['height', a.height],
    ['controlled', s.controlled],
    ['goalX', s.goalX],
    ['goalY', s.goalY],
    ['routes', s.routes],
  ];
  for (const [name, arr] of perAgent)
    if (arr.length !== n) fail(`${name} has ${arr.length} entries, expected ${n}`);
  const nt = n * s.numSteps;
  const perState: [string, { length: number }][] = [
    ['x', a.x],
    ['y', a.y],
    ['z', a.z],
    ['yaw', a.yaw],
    ['vx', a.vx],
    ['vy', a.vy],
    ['valid', a.valid],
  ];
  for (const [name, arr] of perState)
    if (arr.length !== nt)
      fail(`${name} has ${arr.length} states, expected ${n} agents × ${s.numSteps} steps`);
  const seen = new Set<number>();
  for (let i = 0; i < n; i++) {
    if (seen.has(a.ids[i])) fail(`agent id ${a.ids[i]} appears twice`);
    seen.add(a.ids[i]);
    if (!AGENT_TYPES.includes(a.types[i])) fail(`agent ${a.ids[i]} has unknown type '${a.types[i]}'`);
    if (!(a.length[i] > 0 && a.width[i] > 0) || !Number.isFinite(a.length[i] + a.width[i] + a.height[i]))
      fail(`agent ${a.ids[i]} has a non-positive or non-finite size`);
  }
  if (!Number.isInteger(s.egoIndex) || s.egoIndex < -1 || s.egoIndex >= n)
    fail(`ego_index ${s.egoIndex} is outside [-1, ${n})`);
  for (const r of s.tracksToPredict ?? [])
    if (!Number.isInteger(r) || r < 0 || r >= n) fail(`tracks_to_predict row ${r} is outside [0, ${n})`);
  let invalidated = 0;
  let anyValid = false;
  for (let k = 0; k < nt; k++) {
    if (!a.valid[k]) continue;
    if (!Number.isFinite(a.x[k] + a.y[k] + a.z[k] + a.yaw[k] + a.vx[k] + a.vy[k])) {
      if (repair) a.valid[k] = 0;
      invalidated++;
    } else anyValid = true;
  }
  if (requireValidAgent && !anyValid) fail('no agent is valid at any step (nothing to simulate)');
  const m = s.map;
  const laneIds = new Set<number>();
  for (const lane of m.lanes) {
    if (laneIds.has(lane.id)) fail(`lane id ${lane.id} appears twice`);
    laneIds.add(lane.id);
    // One-point lanes exist in WOMD; they are kept (projection handles them).
    if (lane.xy.length < 2 || lane.xy.length % 2)
      fail(`lane ${lane.id} polyline is malformed (${lane.xy.length} values)`);
  }
  const checkRefs = (lane: number, kind: string, refs: number[]) => {
    for (const r of refs) if (!laneIds.has(r)) fail(`lane ${lane} ${kind} refers to missing lane ${r}`);
  };
  for (const lane of m.lanes) {
    checkRefs(lane.id, 'successor', lane.successors);
    checkRefs(lane.id, 'predecessor', lane.predecessors);
    checkRefs(lane.id, 'left neighbour', lane.leftNeighbors);
    checkRefs(lane.id, 'right neighbour', lane.rightNeighbors);
  }
  for (const [kind, feats] of [
    ['road edge', m.roadEdges],
    ['drivable area', m.drivableAreas],
    ['crosswalk', m.crosswalks],
    ['sidewalk', m.sidewalks],
    ['stop line', m.stopLines],
  ] as const) {
    for (const f of feats)
      if (f.xy.length < 2 || f.xy.length % 2) fail(`${kind} ${f.id} polyline is malformed`);
  }
  for (const light of m.trafficLights) {
    if (light.states.length !== s.numSteps)
      fail(`traffic light on lane ${light.laneId} has ${light.states.length} states, expected ${s.numSteps}`);
  }
  for (let i = 0; i < n; i++) checkRoute(s.routes[i], laneIds, (p) => fail(`agent ${a.ids[i]} route ${p}`));
  return { invalidatedStates: invalidated };
}

function checkRoute(route: number[], laneIds: Set<number>, fail: (p: string) => never): void {
  for (const r of route) if (!laneIds.has(r)) fail(`refers to missing lane ${r}`);
}
