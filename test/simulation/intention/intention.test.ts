// The junction-intention stage: logged fork choices are the branches the tracks drove; sampled routes follow
// the fork probabilities, once per rollout, and IDM drives them; the head trains, exports, resumes.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { Rng } from '../../../core/rng.ts';
import { IdmPolicy } from '../../../simulation/agents/idmAgent.ts';
import { scoreChoices, uniformChoice } from '../../../simulation/intention/baselines.ts';
import { MAX_BRANCHES } from '../../../simulation/intention/branchFeatures.ts';
import { forkChoices } from '../../../simulation/intention/forkChoices.ts';
import { type ForkProbabilities, mapForks } from '../../../simulation/intention/forkProbabilities.ts';
import { forkSet } from '../../../simulation/intention/forkSet.ts';
import { IntentionHead } from '../../../simulation/intention/intentionModel.ts';
import { withSampledIntentions } from '../../../simulation/intention/sampleIntentions.ts';
import { trainIntention } from '../../../simulation/intention/trainIntention.ts';
import { lanePointAt, mapIndex, nearestLane } from '../../../simulation/map/mapIndex.ts';
import { rolloutScenarios } from '../../../simulation/rollout.ts';
import type { Scenario } from '../../../simulation/scenario.ts';
import { controlAllPresent } from '../../../simulation/training/evaluate.ts';
import { withLogRoutes } from '../../../simulation/training/logExpert.ts';
import { generateTown } from '../../../simulation/town/town.ts';

const towns = controlAllPresent([1, 2, 3, 4, 5, 6].map((seed) => generateTown({ seed }, 91).scenario));

/** Probabilities putting all mass on branch `k` of every fork (the last branch where there are fewer). */
function always(s: Scenario, k: number): ForkProbabilities {
  const m = mapIndex(s.map);
  return new Map(
    mapForks(m).map((li) => {
      const p = new Float32Array(m.successors[li].length);
      p[Math.min(k, p.length - 1)] = 1;
      return [li, p];
    }),
  );
}

describe('fork choices', () => {
  it('are branches the logged track drove through, 8 m in', () => {
    let n = 0;
    for (const s of towns) {
      const m = mapIndex(s.map);
      for (const c of forkChoices(s)) {
        const lane = c.branches[c.chosen];
        const pt = { x: 0, y: 0, heading: 0 };
        lanePointAt(m, lane, Math.min(8, m.laneLength[lane] - 0.5), pt);
        let closest = Infinity;
        for (let t = 0; t < s.numSteps; t++) {
          const k = c.row * s.numSteps + t;
          if (s.agents.valid[k])
            closest = Math.min(closest, Math.hypot(s.agents.x[k] - pt.x, s.agents.y[k] - pt.y));
        }
        expect(closest).toBeLessThan(1.5);
        n++;
      }
    }
    expect(n).toBeGreaterThan(20);
  });

  it("agree with the log routes DAgger's expert follows: one branch per fork, the one driven", () => {
    let n = 0;
    for (const s of towns) {
      const m = mapIndex(s.map);
      const logged = withLogRoutes(s);
      for (const c of forkChoices(s)) {
        const onRoute = Array.from(c.branches).filter((b) => logged.routes[c.row].includes(m.laneIds[b]));
        expect(onRoute).toEqual([c.branches[c.chosen]]);
        n++;
      }
    }
    expect(n).toBeGreaterThan(20);
  });

  it('make a set scored against a uniform choice at its mean log branch count', () => {
    const set = forkSet(towns);
    const score = scoreChoices(set, uniformChoice(set));
    let want = 0;
    for (let i = 0; i < set.count; i++) want += Math.log(set.branches[i]);
    expect(score.nll).toBeCloseTo(want / set.count, 6);
    expect(set.real.every((r) => r === 0)).toBe(true);
  });
});

describe('sampled intentions', () => {
  const s = towns[1];
  const m = mapIndex(s.map);

  it('route every goal-less driven vehicle along the probabilities, the same for the same seed', () => {
    const a = withSampledIntentions(s, always(s, 0), new Rng(1));
    let routed = 0;
    a.routes.forEach((route, row) => {
      if (route === s.routes[row]) return;
      routed++;
      expect(Number.isFinite(s.goalX[row])).toBe(false);
      for (let i = 0; i + 1 < route.length; i++) {
        const li = m.laneIndexOf.get(route[i])!;
        const next = m.laneIndexOf.get(route[i + 1])!;
        expect(m.successors[li][0]).toBe(next);
      }
    });
    expect(routed).toBeGreaterThan(5);
    expect(a.routes[s.egoIndex]).toBe(s.routes[s.egoIndex]);
    const u = new Map([...always(s, 0)].map(([li, p]) => [li, p.map(() => 1 / p.length)]));
    expect(withSampledIntentions(s, u, new Rng(7)).routes).toEqual(
      withSampledIntentions(s, u, new Rng(7)).routes,
    );
    // Uniform forks: over many draws each branch of a two-way fork is taken about half the time.
    let first = 0;
    let forks = 0;
    for (let seed = 0; seed < 40; seed++)
      for (const route of withSampledIntentions(s, u, new Rng(seed)).routes)
        for (let i = 0; i + 1 < route.length; i++) {
          const succ = m.successors[m.laneIndexOf.get(route[i])!];
          if (succ.length !== 2) continue;
          forks++;
          if (m.laneIndexOf.get(route[i + 1]) === succ[0]) first++;
        }
    expect(forks).toBeGreaterThan(200);
    expect(Math.abs(first / forks - 0.5)).toBeLessThan(4 * Math.sqrt(0.25 / forks));
  });

  it('are drawn per rollout and IDM drives them: agents end on (or beside) the lanes of their own rollout', () => {
    const probs = [always(s, 0), always(s, 1)];
    const routed = probs.map((p) => withSampledIntentions(s, p, new Rng(1)));
    const res = rolloutScenarios([s], () => new IdmPolicy(), {
      rollouts: 2,
      keepAllTracks: true,
      scenarioFor: (_s, _si, n) => routed[n],
    })[0];
    const hit = { lane: -1, s: 0, lateral: 0, heading: 0, segment: 0 };
    let checked = 0;
    let kept = 0;
    let differ = 0;
    const last = s.numSteps - 1;
    for (let row = 0; row < s.agents.ids.length; row++) {
      const ends = [0, 1].map((n) => {
        const tr = res.allTracks![n];
        const k = row * s.numSteps + last;
        if (!tr.valid[k] || !nearestLane(m, tr.x[k], tr.y[k], tr.yaw[k], hit, 2)) return -1;
        return m.laneIds[hit.lane];
      });
      if (ends.some((e) => e < 0) || routed[0].routes[row] === s.routes[row]) continue;
      if (ends[0] !== ends[1]) differ++;
      // On the route, or beside it after a lane change (IDM's, when held back).
      for (const n of [0, 1]) {
        const lanes = routed[n].routes[row].map((id) => m.laneIndexOf.get(id)!);
        const e = m.laneIndexOf.get(ends[n])!;
        const beside = lanes.some((li) => m.leftNeighbor[li] === e || m.rightNeighbor[li] === e);
        if (lanes.includes(e) || beside) kept++;
        checked++;
      }
    }
    // IDM re-acquires the nearest lane when it loses its own, which may leave the route at a fork.
    expect(checked).toBeGreaterThan(5);
    expect(kept / checked).toBeGreaterThan(0.85);
    expect(differ).toBeGreaterThan(0);
  });
});

describe('trainIntention', () => {
  it('trains, exports a head whose onnxruntime probabilities match, and resumes from its checkpoint', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'intention-'));
    try {
      const input = {
        train: towns.slice(0, 4),
        validation: towns.slice(4, 5),
        test: [{ name: 'town 6', scenarios: towns.slice(5) }],
        out,
        data: { command: 'test' },
      };
      const a = await trainIntention(input, { epochs: 3, checkpointEvery: 1 });
      expect(a.curve.map((c) => c.epoch)).toEqual([1, 2, 3]);
      const meta = JSON.parse(fs.readFileSync(path.join(out, 'intention.json'), 'utf8'));
      expect(meta.heldOut[0].name).toBe('town 6');
      expect(meta.heldOut[0].uniform.forks).toBeGreaterThan(0);
      const b = await trainIntention(input, { epochs: 5, checkpointEvery: 1 });
      expect(b.curve.slice(0, 3)).toEqual(a.curve);
      expect(b.curve).toHaveLength(5);
      // The exported head gives probabilities that sum to 1 over each fork's branches only.
      const head = await IntentionHead.fromBytes(fs.readFileSync(path.join(out, 'intention.onnx')));
      const set = forkSet(towns.slice(5));
      const p = await head.probabilities(set.x, set.branches, set.count);
      await head.dispose();
      for (let i = 0; i < set.count; i++) {
        let sum = 0;
        for (let k = 0; k < MAX_BRANCHES; k++) {
          if (k >= set.branches[i]) expect(p[i * MAX_BRANCHES + k]).toBe(0);
          sum += p[i * MAX_BRANCHES + k];
        }
        expect(sum).toBeCloseTo(1, 5);
      }
      expect(scoreChoices(set, p).nll).toBeCloseTo(b.heldOut[0].model.nll, 4);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  }, 120_000);
});
