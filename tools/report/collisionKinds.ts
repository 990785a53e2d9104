// What the moving vehicles collide with and how: per first collision of each moving vehicle, the partner's
// class, the geometry (rear-end, hit from behind, side by side, head-on, crossing) and where (junction,
// in lane, between lanes) — to find the cause of the rate.
// Run: node --import tsx tools/report/collisionKinds.ts --towns 211-213 [--rollouts N] [--agent NAME|model.onnx]
// [--list] (one line per collision: scenario, rollout, step, the two agents' rows and speeds)
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { InputError } from '../../core/errors.ts';
import { agentByName } from '../../simulation/agents/registry.ts';
import { type LaneHit, mapIndex, nearestLane } from '../../simulation/map/mapIndex.ts';
import { boxesOverlap } from '../../simulation/metrics/collision.ts';
import { evaluatedAgents } from '../../simulation/metrics/scenarioMetrics.ts';
import type { AgentTracks } from '../../simulation/scenario.ts';
import { rolloutScenarios } from '../../simulation/rollout.ts';
import type { Scenario } from '../../simulation/scenario.ts';
import { scenariosFromSpec } from '../../simulation/training/scenarioSpec.ts';
import { AGENT_CLASSES, agentClass } from './agentClassTable.ts';

/** Geometry of a collision seen from the moving vehicle a: where the partner is and how it is headed. */
export type CollisionGeometry = 'rear-end' | 'hit from behind' | 'side by side' | 'head-on' | 'crossing';

/** Partners within this heading difference count as going the same way, rad (30°). */
const SAME_WAY_RAD = Math.PI / 6;

export function collisionGeometry(
  ax: number,
  ay: number,
  ayaw: number,
  bx: number,
  by: number,
  byaw: number,
): CollisionGeometry {
  const d = Math.abs(Math.atan2(Math.sin(byaw - ayaw), Math.cos(byaw - ayaw)));
  if (d > Math.PI - SAME_WAY_RAD) return 'head-on';
  if (d > SAME_WAY_RAD) return 'crossing';
  // Same way: the partner's offset along my heading tells ahead from behind.
  const along = (bx - ax) * Math.cos(ayaw) + (by - ay) * Math.sin(ayaw);
  const across = -(bx - ax) * Math.sin(ayaw) + (by - ay) * Math.cos(ayaw);
  if (Math.abs(across) > Math.abs(along)) return 'side by side';
  return along > 0 ? 'rear-end' : 'hit from behind';
}

/** One moving vehicle's first collision, for a listing. */
export interface CollisionRecord {
  scenario: string;
  /** Steps after the current step. */
  step: number;
  /** Rows of the moving vehicle and its partner in the scenario. */
  agent: number;
  partner: number;
  kind: string;
  /** Speeds at the collision, m/s, from the last step's displacement. */
  speedMps: number;
  partnerSpeedMps: number;
  /** Logged speed of the moving vehicle at that step (NaN where the log has none). */
  loggedSpeedMps: number;
}

/**
 * Counts of `partner class / geometry` over the first collision of every moving vehicle, and the step;
 * with `records`, each collision is also listed there.
 */
export function collisionKinds(
  s: Scenario,
  sim: AgentTracks,
  counts: Map<string, number>,
  steps: number[],
  records?: CollisionRecord[],
): number {
  const a = s.agents;
  const T = s.numSteps;
  const evaluated = evaluatedAgents(s);
  const m = mapIndex(s.map);
  let movers = 0;
  for (let i = 0; i < a.ids.length; i++) {
    if (!evaluated[i] || agentClass(s, i) !== 0) continue;
    movers++;
    found: for (let t = s.currentStep + 1; t < T; t++) {
      const k = i * T + t;
      if (!sim.valid[k]) continue;
      for (let j = 0; j < a.ids.length; j++) {
        const q = j * T + t;
        if (j === i || !sim.valid[q]) continue;
        if (
          !boxesOverlap(
            sim.x[k],
            sim.y[k],
            sim.yaw[k],
            a.length[i],
            a.width[i],
            sim.x[q],
            sim.y[q],
            sim.yaw[q],
            a.length[j],
            a.width[j],
          )
        )
          continue;
        const c = agentClass(s, j);
        const who = c < 0 ? 'other' : AGENT_CLASSES[c];
        const geo = collisionGeometry(sim.x[k], sim.y[k], sim.yaw[k], sim.x[q], sim.y[q], sim.yaw[q]);
        const hit: LaneHit = { lane: -1, s: 0, lateral: 0, heading: 0, segment: 0 };
        const where = !nearestLane(m, sim.x[k], sim.y[k], sim.yaw[k], hit, 4)
          ? 'off lane'
          : m.laneInIntersection[hit.lane]
            ? 'junction'
            : Math.abs(hit.lateral) > 1
              ? 'between lanes'
              : 'in lane';
        const key = `${who} / ${geo} / ${where}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        steps.push(t - s.currentStep);
        if (records) {
          const speed = (o: number) =>
            sim.valid[o - 1] ? Math.hypot(sim.x[o] - sim.x[o - 1], sim.y[o] - sim.y[o - 1]) / s.dtS : NaN;
          records.push({
            scenario: s.id,
            step: t - s.currentStep,
            agent: i,
            partner: j,
            kind: key,
            speedMps: speed(k),
            partnerSpeedMps: speed(q),
            loggedSpeedMps: a.valid[k] ? Math.hypot(a.vx[k], a.vy[k]) : NaN,
          });
        }
        break found;
      }
    }
  }
  return movers;
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const arg = (name: string) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? process.argv[i + 1] : undefined;
  };
  const scenarios = scenariosFromSpec(`town:${arg('--towns') ?? '211-213'}`, '--towns');
  const N = Number(arg('--rollouts') ?? 4);
  const agent = arg('--agent') ?? 'models/agent.onnx';
  const make = agentByName(agent);
  if (!make) throw new InputError('--agent', `unknown agent '${agent}'`);
  const res = rolloutScenarios(scenarios, () => make({ seed: 0 }), {
    rollouts: N,
    metricRollouts: N,
    keepAllTracks: true,
  });
  const counts = new Map<string, number>();
  const steps: number[] = [];
  const records: CollisionRecord[] | undefined = process.argv.includes('--list') ? [] : undefined;
  let movers = 0;
  for (const r of res)
    (r.allTracks ?? [r.tracks]).forEach((tr, rollout) => {
      const before = records?.length ?? 0;
      movers += collisionKinds(r.scenario, tr, counts, steps, records);
      if (records)
        for (const c of records.slice(before))
          process.stdout.write(
            `${c.scenario} rollout ${rollout} step ${c.step}: agent ${c.agent} (${c.speedMps.toFixed(1)} m/s, ` +
              `log ${c.loggedSpeedMps.toFixed(1)}) × agent ${c.partner} (${c.partnerSpeedMps.toFixed(1)} m/s), ${c.kind}\n`,
          );
    });
  const total = [...counts.values()].reduce((x, y) => x + y, 0);
  process.stdout.write(
    JSON.stringify({
      agent,
      movingVehicles: movers,
      collided: total,
      rate: total / Math.max(movers, 1),
      kinds: Object.fromEntries([...counts].sort((x, y) => y[1] - x[1])),
      firstStepHistogram: [0, 10, 20, 40, 80].map((lo, i, e) => [
        lo,
        steps.filter((v) => v >= lo && v < (e[i + 1] ?? 1e9)).length,
      ]),
    }) + '\n',
  );
}
