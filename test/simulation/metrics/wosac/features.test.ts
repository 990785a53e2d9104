// WOSAC features against hand-computed cases: central-difference kinematics (3-D speed, wrapped
// headings), rounded-box distances, time to collision (leader ahead, none when oncoming), road-edge sign.
import { describe, expect, it } from 'vitest';
import { rectSignedDistance, roundedBoxDistance } from '../../../../simulation/metrics/wosac/boxDistance.ts';
import { InteractionFrame } from '../../../../simulation/metrics/wosac/interactionFrame.ts';
import { kinematicFeatures, kinematicValidity } from '../../../../simulation/metrics/wosac/kinematics.ts';
import { nearestObjectDistance } from '../../../../simulation/metrics/wosac/nearestObject.ts';
import {
  buildRoadEdgeIndex,
  signedDistanceToRoadEdge,
} from '../../../../simulation/metrics/wosac/roadEdge.ts';
import { timeToCollision } from '../../../../simulation/metrics/wosac/timeToCollision.ts';
import { buildLightIndex, runsRedLight } from '../../../../simulation/metrics/wosac/trafficLight.ts';
import { emptyMap, LIGHT } from '../../../../simulation/scenario.ts';

function kin(x: number[], y: number[], z: number[], yaw: number[], dt = 0.1) {
  const n = x.length;
  const out = [0, 1, 2, 3].map(() => new Float32Array(n));
  kinematicFeatures(x, y, z, yaw, 0, n, 0, n, dt, out[0], out[1], out[2], out[3], 0);
  return { speed: out[0], accel: out[1], angSpeed: out[2], angAccel: out[3] };
}

describe('WOSAC kinematics', () => {
  it('speed is the 3-D central difference, acceleration the central difference of speed', () => {
    const k = [0, 1, 2, 3, 4, 5, 6];
    // x = 0.1 k²: speed(k) = (x(k+1) − x(k−1)) / 0.2 = 2k, acceleration = 20 m/s².
    const r = kin(
      k.map((i) => 0.1 * i * i),
      k.map(() => 0),
      k.map(() => 0),
      k.map(() => 0),
    );
    for (const i of [1, 2, 3, 4, 5]) expect(r.speed[i]).toBeCloseTo(2 * i, 4);
    for (const i of [2, 3, 4]) expect(r.accel[i]).toBeCloseTo(20, 3);
    expect(Number.isNaN(r.speed[0]) && Number.isNaN(r.speed[6])).toBe(true);
    expect(Number.isNaN(r.accel[1]) && Number.isNaN(r.accel[5])).toBe(true);
    // Climbing 0.4 m per 0.3 m: the speed counts z (|(0.6, 0.8)| / 0.2 = 5 m/s).
    const c = kin(
      k.map((i) => 0.3 * i),
      k.map(() => 0),
      k.map((i) => 0.4 * i),
      k.map(() => 0),
    );
    expect(c.speed[3]).toBeCloseTo(5, 4);
  });

  it('angular speed wraps across ±π; angular acceleration is the difference of wrapped steps', () => {
    const k = [0, 1, 2, 3, 4, 5, 6];
    const wrap = (a: number) => Math.atan2(Math.sin(a), Math.cos(a));
    const r = kin(
      k.map(() => 0),
      k.map(() => 0),
      k.map(() => 0),
      k.map((i) => wrap(Math.PI - 0.1 + 0.05 * i)),
    );
    for (const i of [1, 2, 3, 4, 5]) expect(r.angSpeed[i]).toBeCloseTo(0.5, 4);
    for (const i of [2, 3, 4]) expect(r.angAccel[i]).toBeCloseTo(0, 3);
    // yaw = 0.01 k²: per-step change 0.02 k, angular acceleration 0.02 / 0.01 s² = 2 rad/s².
    const q = kin(
      k.map(() => 0),
      k.map(() => 0),
      k.map(() => 0),
      k.map((i) => 0.01 * i * i),
    );
    expect(q.angSpeed[3]).toBeCloseTo(0.6, 4);
    expect(q.angAccel[3]).toBeCloseTo(2, 3);
  });

  it('validity: speeds need both neighbours, accelerations both neighbouring speeds, ends never', () => {
    const v = Uint8Array.of(1, 1, 1, 0, 1, 1, 1);
    const sp = new Uint8Array(7);
    const ac = new Uint8Array(7);
    kinematicValidity(v, sp, ac);
    expect(Array.from(sp)).toEqual([0, 1, 0, 1, 0, 1, 0]);
    expect(Array.from(ac)).toEqual([0, 0, 1, 0, 1, 0, 0]);
  });
});

describe('WOSAC box distance', () => {
  it('rectangles: gap along an axis, corner-to-corner, penetration', () => {
    // 4 × 2 boxes; B 10 m ahead: gap 6 m. B at (10, 10): corners (2, 1) and (8, 9), 10 m apart.
    expect(rectSignedDistance(0, 0, 1, 0, 2, 1, 10, 0, 1, 0, 2, 1)).toBeCloseTo(6, 9);
    expect(rectSignedDistance(0, 0, 1, 0, 2, 1, 10, 10, 1, 0, 2, 1)).toBeCloseTo(10, 9);
    expect(rectSignedDistance(0, 0, 1, 0, 2, 1, 3, 0, 1, 0, 2, 1)).toBeCloseTo(-1, 9);
  });

  it('rounded corners (factor 0.7): same along the axes, farther across a corner', () => {
    // Shrink = min(4, 2) · 0.7 / 2 = 0.7: cores 2.6 × 0.6, then 1.4 m subtracted.
    expect(roundedBoxDistance(0, 0, 0, 4, 2, 10, 0, 0, 4, 2, 0.7)).toBeCloseTo(6, 9);
    expect(roundedBoxDistance(0, 0, 0, 4, 2, 3, 0, 0, 4, 2, 0.7)).toBeCloseTo(-1, 9);
    // Corners (1.3, 0.3) and (8.7, 9.7) of the cores: √(7.4² + 9.4²) − 1.4.
    expect(roundedBoxDistance(0, 0, 0, 4, 2, 10, 10, 0, 4, 2, 0.7)).toBeCloseTo(
      Math.hypot(7.4, 9.4) - 1.4,
      9,
    );
    // B turned 90° at (5, 0): its side is 1 m from its centre, so the gap is 5 − 2 − 1 = 2 m.
    expect(roundedBoxDistance(0, 0, 0, 4, 2, 5, 0, Math.PI / 2, 4, 2, 0.7)).toBeCloseTo(2, 9);
  });

  it('nearest object: the closest valid other box, the sweep agrees with brute force', () => {
    const n = 40;
    const L = Float64Array.from({ length: n }, (_, i) => 3 + (i % 3));
    const W = Float64Array.from({ length: n }, (_, i) => 1.5 + (i % 2) * 0.5);
    const f = new InteractionFrame(L, W);
    const x = Float64Array.from({ length: n * 3 }, (_, j) => ((Math.floor(j / 3) * 7919) % 97) + j * 0.01);
    const y = Float64Array.from({ length: n * 3 }, (_, j) => ((Math.floor(j / 3) * 104729) % 23) * 1.3);
    const yaw = Float64Array.from({ length: n * 3 }, (_, j) => Math.floor(j / 3) * 0.7);
    const valid = Uint8Array.from({ length: n * 3 }, (_, j) => (Math.floor(j / 3) % 7 === 3 ? 0 : 1));
    f.load(x, y, yaw, valid, 3, 1, 0.1);
    for (let i = 0; i < n; i++) {
      let brute = 1e10;
      for (let j = 0; j < n; j++)
        if (j !== i && valid[j * 3 + 1])
          brute = Math.min(
            brute,
            roundedBoxDistance(
              f.x[i],
              f.y[i],
              f.yaw[i],
              L[i],
              W[i],
              f.x[j],
              f.y[j],
              f.yaw[j],
              L[j],
              W[j],
              0.7,
            ),
          );
      expect(nearestObjectDistance(f, i, 0.7)).toBeCloseTo(brute, 9);
    }
  });
});

/** A frame of agents at step 1 of 3-step straight trajectories: (x, y, yaw, speed m/s). */
function movingFrame(agents: [number, number, number, number][], L = 4.5, W = 2): InteractionFrame {
  const n = agents.length;
  const f = new InteractionFrame(new Float64Array(n).fill(L), new Float64Array(n).fill(W));
  const x = new Float64Array(3 * n);
  const y = new Float64Array(3 * n);
  const yaw = new Float64Array(3 * n);
  agents.forEach(([px, py, h, v], a) => {
    for (let k = 0; k < 3; k++) {
      x[3 * a + k] = px + Math.cos(h) * v * 0.1 * (k - 1);
      y[3 * a + k] = py + Math.sin(h) * v * 0.1 * (k - 1);
      yaw[3 * a + k] = h;
    }
  });
  f.load(x, y, yaw, new Uint8Array(3 * n).fill(1), 3, 1, 0.1);
  return f;
}

describe('WOSAC time to collision', () => {
  it('leader straight ahead: gap / closing speed', () => {
    // Gap 20 − 2.25 − 2.25 = 15.5 m, closing at 10 − 5 m/s: 3.1 s.
    expect(
      timeToCollision(
        movingFrame([
          [0, 0, 0, 10],
          [20, 0, 0, 5],
        ]),
        0,
      ),
    ).toBeCloseTo(3.1, 6);
    // The nearer of two leaders counts; a faster leader means no collision (5 s).
    expect(
      timeToCollision(
        movingFrame([
          [0, 0, 0, 10],
          [40, 0, 0, 0],
          [20, 0, 0, 5],
        ]),
        0,
      ),
    ).toBeCloseTo(3.1, 6);
    expect(
      timeToCollision(
        movingFrame([
          [0, 0, 0, 10],
          [20, 0, 0, 12],
        ]),
        0,
      ),
    ).toBe(5);
    // Capped at 5 s when far.
    expect(
      timeToCollision(
        movingFrame([
          [0, 0, 0, 10],
          [80, 0, 0, 0],
        ]),
        0,
      ),
    ).toBe(5);
  });

  it('no leader: oncoming, beside, behind, or small overlap at a skewed heading', () => {
    expect(
      timeToCollision(
        movingFrame([
          [0, 0, 0, 10],
          [20, 0, Math.PI, 10],
        ]),
        0,
      ),
    ).toBe(5);
    expect(
      timeToCollision(
        movingFrame([
          [0, 0, 0, 10],
          [20, 4, 0, 0],
        ]),
        0,
      ),
    ).toBe(5);
    expect(
      timeToCollision(
        movingFrame([
          [0, 0, 0, 10],
          [-20, 0, 0, 0],
        ]),
        0,
      ),
    ).toBe(5);
    // Lateral overlap 0.3 m (< 0.5 m) at 20° (> 10°): not followed.
    const skew = (20 * Math.PI) / 180;
    const latOff = 2.25 * Math.sin(skew) + 1 * Math.cos(skew);
    expect(
      timeToCollision(
        movingFrame([
          [0, 0, 0, 10],
          [20, 1 + latOff - 0.3, skew, 0],
        ]),
        0,
      ),
    ).toBe(5);
    expect(
      timeToCollision(
        movingFrame([
          [0, 0, 0, 10],
          [20, 1 + latOff - 0.8, skew, 0],
        ]),
        0,
      ),
    ).toBeLessThan(5);
  });
});

describe('WOSAC road-edge distance', () => {
  it('negative on the port (road) side of an edge, positive on the starboard side', () => {
    const ix = buildRoadEdgeIndex([{ id: 1, xy: Float32Array.of(0, 0, 10, 0) }]);
    expect(signedDistanceToRoadEdge(ix, 5, 2)).toBeCloseTo(-2, 9);
    expect(signedDistanceToRoadEdge(ix, 5, -3)).toBeCloseTo(3, 9);
    // Reversing the polyline flips the sign.
    const rev = buildRoadEdgeIndex([{ id: 1, xy: Float32Array.of(10, 0, 0, 0) }]);
    expect(signedDistanceToRoadEdge(rev, 5, 2)).toBeCloseTo(2, 9);
  });

  it('at a convex corner the off-road side wins, at a concave one the on-road side', () => {
    // Left turn (counter-clockwise): road inside x < 10, y > 0.
    const ix = buildRoadEdgeIndex([{ id: 1, xy: Float32Array.of(0, 0, 10, 0, 10, 10) }]);
    expect(signedDistanceToRoadEdge(ix, 12, -2)).toBeCloseTo(Math.hypot(2, 2), 9);
    expect(signedDistanceToRoadEdge(ix, 9, 1)).toBeCloseTo(-1, 9);
    // Right turn (clockwise): the road wraps around the corner; beyond the vertex is still road.
    const cc = buildRoadEdgeIndex([{ id: 1, xy: Float32Array.of(0, 0, 10, 0, 10, -10) }]);
    expect(signedDistanceToRoadEdge(cc, 12, 2)).toBeCloseTo(-Math.hypot(2, 2), 9);
  });

  it('the nearest of many edges, found through the grid, equals a full scan', () => {
    const edges = Array.from({ length: 30 }, (_, i) => ({
      id: i,
      xy: Float32Array.of(i * 13, (i * 7) % 40, i * 13 + 9, ((i * 7) % 40) + 4, i * 13 + 15, (i * 7) % 40),
    }));
    const all = buildRoadEdgeIndex(edges);
    for (let q = 0; q < 200; q++) {
      const px = ((q * 37) % 500) - 50;
      const py = ((q * 53) % 120) - 40;
      let best = Infinity;
      for (let g = 0; g < all.sx.length; g++) {
        const len2 = all.dx[g] ** 2 + all.dy[g] ** 2;
        const t = Math.min(
          1,
          Math.max(0, ((px - all.sx[g]) * all.dx[g] + (py - all.sy[g]) * all.dy[g]) / len2),
        );
        best = Math.min(best, Math.hypot(px - all.sx[g] - t * all.dx[g], py - all.sy[g] - t * all.dy[g]));
      }
      expect(Math.abs(signedDistanceToRoadEdge(all, px, py))).toBeCloseTo(best, 9);
    }
  });
});

describe('WOSAC red light', () => {
  it('counts crossing the stop point on the light lane while red, not while green or on another lane', () => {
    const map = emptyMap();
    const lane = (id: number, y: number) => ({
      id,
      xy: Float32Array.of(0, y, 0.5, y, 50, y, 50.5, y, 100, y),
      widthM: 3.5,
      speedLimitMps: 15,
      successors: [],
      predecessors: [],
      leftNeighbors: [],
      rightNeighbors: [],
      inIntersection: false,
    });
    map.lanes.push(lane(1, 0), lane(2, 10));
    map.trafficLights.push({
      laneId: 1,
      stopX: 50.2,
      stopY: 0,
      states: Uint8Array.of(LIGHT.red, LIGHT.green),
    });
    for (const official of [true, false]) {
      const ix = buildLightIndex(map, official);
      expect(runsRedLight(ix, 0, 50.1, 0, 50.3, 0)).toBe(true);
      expect(runsRedLight(ix, 0, 50.3, 0, 50.4, 0)).toBe(false); // already past
      expect(runsRedLight(ix, 1, 50.1, 0, 50.3, 0)).toBe(false); // green
      expect(runsRedLight(ix, 0, 50.1, 10, 50.3, 10)).toBe(false); // the other lane
    }
  });
});
