// The WOSAC metric's speed-ups change no result: the per-cell candidate table and the ring search
// against a full scan, the agent sweeps against brute force, and the nearest-object cap against no cap.
import { describe, expect, it } from 'vitest';
import { realData } from '../../../../core/paths.ts';
import { wosacConfig } from '../../../../simulation/metrics/wosac/config.ts';
import { InteractionFrame } from '../../../../simulation/metrics/wosac/interactionFrame.ts';
import {
  EXTREMELY_LARGE_DISTANCE,
  nearestObjectDistance,
} from '../../../../simulation/metrics/wosac/nearestObject.ts';
import {
  boxRoadEdgeDistances,
  buildRoadEdgeIndex,
  signedDistanceToRoadEdge,
} from '../../../../simulation/metrics/wosac/roadEdge.ts';
import {
  allocateScenarioRollouts,
  logReplayRollouts,
  type ScenarioRollouts,
} from '../../../../simulation/metrics/wosac/rollouts.ts';
import { nearestObjectCap, scoreScenarioRollouts } from '../../../../simulation/metrics/wosac/score.ts';
import { SegmentGrid } from '../../../../simulation/metrics/wosac/segmentGrid.ts';
import {
  MAXIMUM_TIME_TO_COLLISION_S,
  timesToCollision,
} from '../../../../simulation/metrics/wosac/timeToCollision.ts';
import type { Scenario } from '../../../../simulation/scenario.ts';
import { loadScenarios } from '../../../../simulation/scenarioSources.ts';
import { describeWithSharedData, itWithSharedData } from '../../../sharedData.ts';
import { straightRoadScenario } from '../../fixtures.ts';

/** A small deterministic generator in [0, 1). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** Curvy polylines of short segments (as WOMD's road edges and lanes), as segment arrays. */
function wigglySegments(rand: () => number) {
  const sx: number[] = [];
  const sy: number[] = [];
  const dx: number[] = [];
  const dy: number[] = [];
  for (let p = 0; p < 12; p++) {
    let x = rand() * 200;
    let y = rand() * 200;
    let h = rand() * 2 * Math.PI;
    for (let k = 0; k < 80; k++) {
      const len = 0.3 + rand() * 1.5;
      h += (rand() - 0.5) * 0.3;
      const nx = x + Math.cos(h) * len;
      const ny = y + Math.sin(h) * len;
      sx.push(x);
      sy.push(y);
      dx.push(nx - x);
      dy.push(ny - y);
      x = nx;
      y = ny;
    }
  }
  const f = (a: number[]) => Float64Array.from(a);
  return { sx: f(sx), sy: f(sy), dx: f(dx), dy: f(dy) };
}

describe('WOSAC nearest segment: candidate table and ring search', () => {
  it('equal a full scan (distance and lowest index), plain and mirrored, inside and outside the table', () => {
    const rand = rng(7);
    const { sx, sy, dx, dy } = wigglySegments(rand);
    for (const mirrored of [false, true]) {
      const grid = new SegmentGrid(sx, sy, dx, dy, mirrored, 10, 2);
      for (let q = 0; q < 3000; q++) {
        // Points over the map, near it, and far outside the table's margin.
        const px = -150 + rand() * 500;
        const py = -150 + rand() * 500;
        let best = Infinity;
        let bestG = -1;
        for (let g = 0; g < sx.length; g++) {
          const d = grid.segmentDistance(g, px, py);
          if (d < best) {
            best = d;
            bestG = g;
          }
        }
        expect(grid.nearest(px, py)).toBe(bestG);
        expect(grid.dist).toBe(best);
      }
    }
  });

  it('a non-finite point finds no segment (NaN) instead of searching rings for ever', () => {
    const ix = buildRoadEdgeIndex([{ id: 1, xy: Float32Array.of(0, 0, 10, 0) }]);
    expect(signedDistanceToRoadEdge(ix, NaN, 1)).toBeNaN();
    expect(signedDistanceToRoadEdge(ix, 5, Infinity)).toBeNaN();
  });

  it('a tie between two segments goes to the lower index', () => {
    // Two segments ending at the same vertex; beyond it both are equally far.
    const grid = new SegmentGrid(
      Float64Array.of(10, 0),
      Float64Array.of(0, 0),
      Float64Array.of(-10, 10),
      Float64Array.of(0, 0),
      false,
      10,
      2,
    );
    // Segment 1 runs 0 → 10 and segment 0 runs 10 → 0: every point is equally far from both.
    expect(grid.nearest(13, 4)).toBe(0);
    expect(grid.dist).toBe(5);
  });

  it('the box road-edge distance is the most off-road corner, each corner as signedDistanceToRoadEdge', () => {
    const rand = rng(11);
    const edges = Array.from({ length: 10 }, () => {
      const pts: number[] = [];
      let x = rand() * 150;
      let y = rand() * 150;
      let h = rand() * 2 * Math.PI;
      for (let k = 0; k < 60; k++) {
        pts.push(x, y);
        h += (rand() - 0.5) * 0.4;
        x += Math.cos(h) * (0.5 + rand());
        y += Math.sin(h) * (0.5 + rand());
      }
      return { id: 0, xy: Float32Array.from(pts) };
    });
    const ix = buildRoadEdgeIndex(edges);
    const n = 400;
    const xs = Float64Array.from({ length: n }, () => -60 + rand() * 270);
    const ys = Float64Array.from({ length: n }, () => -60 + rand() * 270);
    const yaw = Float64Array.from({ length: n }, () => rand() * 2 * Math.PI);
    const cos = yaw.map(Math.cos);
    const sin = yaw.map(Math.sin);
    const len = Float64Array.from({ length: n }, () => 1 + rand() * 5);
    const wid = Float64Array.from({ length: n }, () => 0.5 + rand() * 2);
    const valid = Uint8Array.from({ length: n }, (_, i) => (i % 9 === 4 ? 0 : 1));
    const out = new Float64Array(n);
    const agents = Int32Array.from({ length: n }, (_, i) => i);
    boxRoadEdgeDistances(ix, xs, ys, cos, sin, len, wid, valid, -123, agents, out, 0, 1);
    for (let a = 0; a < n; a++) {
      if (!valid[a]) {
        expect(out[a]).toBe(-123);
        continue;
      }
      let most = -Infinity;
      for (const [sl, sw] of [
        [1, 1],
        [-1, 1],
        [1, -1],
        [-1, -1],
      ]) {
        const px = xs[a] + (sl * cos[a] * len[a]) / 2 + (sw * -sin[a] * wid[a]) / 2;
        const py = ys[a] + (sl * sin[a] * len[a]) / 2 + (sw * cos[a] * wid[a]) / 2;
        most = Math.max(most, signedDistanceToRoadEdge(ix, px, py));
      }
      expect(out[a]).toBeCloseTo(most, 9);
    }
  });
});

/** A random frame: n agents in a lengthM × 40 m band, mostly along x, some turned, some invalid. */
function randomFrame(rand: () => number, n: number, lengthM = 150) {
  const L = Float64Array.from({ length: n }, () => 3.5 + rand() * 2);
  const W = Float64Array.from({ length: n }, () => 1.6 + rand() * 0.6);
  const f = new InteractionFrame(L, W);
  const x = new Float64Array(3 * n);
  const y = new Float64Array(3 * n);
  const yaw = new Float64Array(3 * n);
  const valid = new Uint8Array(3 * n);
  for (let a = 0; a < n; a++) {
    const px = rand() * lengthM;
    const py = rand() * 40;
    const h = rand() < 0.7 ? (rand() - 0.5) * 0.6 : (rand() - 0.5) * 2 * Math.PI;
    const v = rand() * 15;
    for (let k = 0; k < 3; k++) {
      x[3 * a + k] = px + Math.cos(h) * v * 0.1 * (k - 1);
      y[3 * a + k] = py + Math.sin(h) * v * 0.1 * (k - 1);
      yaw[3 * a + k] = h;
      valid[3 * a + k] = rand() < 0.9 ? 1 : 0;
    }
  }
  f.load(x, y, yaw, valid, 3, 1, 0.1);
  return f;
}

/** Time to collision by its definition over every agent: no sweep, no early exits. */
function bruteTtc(f: InteractionFrame, i: number): number {
  let bestGap = Infinity;
  let bestJ = -1;
  for (let j = 0; j < f.n; j++) {
    if (j === i || !f.valid[j]) continue;
    const yawDiff = Math.abs(f.yaw[j] - f.yaw[i]);
    if (!(yawDiff <= (75 * Math.PI) / 180)) continue;
    const c = Math.abs(Math.cos(yawDiff));
    const s = Math.abs(Math.sin(yawDiff));
    const ddx = f.x[j] - f.x[i];
    const ddy = f.y[j] - f.y[i];
    const relX = ddx * f.cos[i] + ddy * f.sin[i];
    const relY = -ddx * f.sin[i] + ddy * f.cos[i];
    const gap = relX - f.length[i] / 2 - ((f.length[j] / 2) * c + (f.width[j] / 2) * s);
    const lat = Math.abs(relY) - f.width[i] / 2 - ((f.length[j] / 2) * s + (f.width[j] / 2) * c);
    if (!(gap > 0) || !(lat < 0)) continue;
    if (!(lat < -0.5 || yawDiff <= (10 * Math.PI) / 180)) continue;
    if (gap < bestGap) {
      bestGap = gap;
      bestJ = j;
    }
  }
  if (bestJ < 0) return MAXIMUM_TIME_TO_COLLISION_S;
  const rel = f.speed[i] - f.speed[bestJ];
  return rel > 0 ? Math.min(bestGap / rel, MAXIMUM_TIME_TO_COLLISION_S) : MAXIMUM_TIME_TO_COLLISION_S;
}

describe('WOSAC agent sweeps against brute force', () => {
  it('time to collision: the ahead-first sweep with early rejections equals the definition', () => {
    const rand = rng(3);
    let withLeader = 0;
    for (let trial = 0; trial < 20; trial++) {
      const f = randomFrame(rand, 80);
      const agents = Int32Array.from({ length: f.n }, (_, i) => i);
      const out = new Float64Array(f.n);
      timesToCollision(f, agents, null, out, 0, 1);
      for (let i = 0; i < f.n; i++) {
        const want = bruteTtc(f, i);
        expect(out[i]).toBeCloseTo(want, 12);
        if (want < MAXIMUM_TIME_TO_COLLISION_S) withLeader++;
      }
    }
    expect(withLeader).toBeGreaterThan(50); // the frames do exercise leaders
  });

  it('nearest object: capped at maxVal, exact below the cap and beyond it wherever the truth is', () => {
    const rand = rng(5);
    const cap = nearestObjectCap(wosacConfig());
    expect(cap).toBe(40);
    let beyond = 0;
    for (let trial = 0; trial < 20; trial++) {
      // Sparse frames, so that many nearest objects are farther than the cap.
      const f = randomFrame(rand, 8, 300);
      for (let i = 0; i < f.n; i++) {
        const full = nearestObjectDistance(f, i, 0.7);
        const capped = nearestObjectDistance(f, i, 0.7, cap);
        if (full < cap) expect(capped).toBe(full);
        else {
          expect(capped).toBe(EXTREMELY_LARGE_DISTANCE);
          beyond++;
        }
      }
    }
    expect(beyond).toBeGreaterThan(5);
  });
});

/** Rollouts of the log with a seeded random walk added: distances drift across the cap. */
function jittered(s: Scenario, n: number, seed: number, stepM: number): ScenarioRollouts {
  const rand = rng(seed);
  const base = logReplayRollouts(s, 1);
  const r = allocateScenarioRollouts(s, n);
  const A = r.agentRows.length;
  const T = r.numFutureSteps;
  for (let k = 0; k < n; k++)
    for (let a = 0; a < A; a++) {
      let ox = 0;
      let oy = 0;
      for (let t = 0; t < T; t++) {
        ox += (rand() - 0.5) * stepM;
        oy += (rand() - 0.5) * stepM * 0.3;
        const src = a * T + t;
        const dst = (k * A + a) * T + t;
        r.x[dst] = base.x[src] + ox;
        r.y[dst] = base.y[src] + oy;
        r.z[dst] = base.z[src];
        r.yaw[dst] = base.yaw[src] + (rand() - 0.5) * 0.1;
      }
    }
  return r;
}

describe('WOSAC nearest-object cap', () => {
  it('scores with the cap equal the scores without it, where distances straddle the cap', () => {
    // Cars 45 m apart (40.5 m bumper to bumper) drifting by a random walk.
    const s = straightRoadScenario({ numAgents: 5, numSteps: 41, spacingM: 45 });
    s.controlled.fill(1);
    s.map.roadEdges = [
      { id: 10, xy: Float32Array.of(0, -1.75, 400, -1.75) },
      { id: 11, xy: Float32Array.of(400, 5.25, 0, 5.25) },
    ];
    for (const [seed, stepM] of [
      [1, 2],
      [2, 6],
    ]) {
      const r = jittered(s, 8, seed, stepM);
      const capped = scoreScenarioRollouts(s, r);
      const full = scoreScenarioRollouts(s, r, wosacConfig(), Infinity);
      expect(capped).toEqual(full);
    }
    // The cap matters here: at the current step the nearest object is just beyond it.
    const f = new InteractionFrame(s.agents.length, s.agents.width);
    f.load(s.agents.x, s.agents.y, s.agents.yaw, s.agents.valid, s.numSteps, s.currentStep, s.dtS);
    expect(nearestObjectDistance(f, 0, 0.7)).toBeGreaterThan(40);
    expect(nearestObjectDistance(f, 0, 0.7)).toBeLessThan(41);
  });
});

describeWithSharedData('WOSAC nearest-object cap on the real WOMD scenario', () => {
  itWithSharedData(
    'capped and uncapped scores are identical (replay and jittered rollouts, all agents scored)',
    () => {
      const [{ scenario: s }] = loadScenarios(realData('womd', 'motion_data_one_scenario.tfrecord'));
      const all = wosacConfig({ scoreAllAgents: true });
      for (const r of [logReplayRollouts(s, 2), jittered(s, 4, 9, 1)])
        expect(scoreScenarioRollouts(s, r, all)).toEqual(scoreScenarioRollouts(s, r, all, Infinity));
    },
    60_000,
  );
});
