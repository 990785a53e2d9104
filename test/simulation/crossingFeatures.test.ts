// Crossing conflicts in the observation (crossingFeatures.ts): who crosses the route ahead, where and when,
// earliest first; leaders in the lane, standing agents and crossings beyond the horizon are not conflicts.
import { describe, expect, it } from 'vitest';
import {
  CROSSING_FEATURES,
  crossingFeatures,
  DEFAULT_CROSSING,
  routePolyline,
} from '../../simulation/crossingFeatures.ts';
import { TYPE_CODE } from '../../simulation/env.ts';
import { DEFAULT_OBSERVATION, observationOffsets } from '../../simulation/observation.ts';
import { createPolicyNet, parameterCount } from '../../simulation/training/policyNet.ts';

/** Agent 0 at the origin with a straight route 50 m along +x; the others as given (x, y, vx, vy, type). */
function scene(others: [number, number, number, number, number][]) {
  const n = others.length + 1;
  const env = {
    x: new Float64Array(n),
    y: new Float64Array(n),
    vx: new Float64Array(n),
    vy: new Float64Array(n),
    live: new Uint8Array(n).fill(1),
    typeCode: new Uint8Array(n),
  };
  others.forEach(([x, y, vx, vy, type], i) => {
    env.x[i + 1] = x;
    env.y[i + 1] = y;
    env.vx[i + 1] = vx;
    env.vy[i + 1] = vy;
    env.typeCode[i + 1] = type;
  });
  const route = routePolyline(3);
  route.x.set([0, 25, 50]);
  route.s.set([0, 25, 50]);
  route.count = 3;
  const ids = Int32Array.from({ length: n }, (_, i) => i);
  return { env, route, ids };
}

function features(others: [number, number, number, number, number][], slots = 3): Float32Array {
  const { env, route, ids } = scene(others);
  const out = new Float32Array(slots * CROSSING_FEATURES);
  crossingFeatures(env as never, 0, route, ids, ids.length, slots, out, 0);
  return out;
}

describe('crossing conflicts', () => {
  it('gives where a crossing car meets the route, when, how far and from which side', () => {
    const out = features([[20, -20, 0, 5, TYPE_CODE.vehicle]]);
    expect(Array.from(out.subarray(0, CROSSING_FEATURES))).toEqual([
      1,
      expect.closeTo(20, 5),
      expect.closeTo(4, 5),
      expect.closeTo(20, 4),
      5,
      expect.closeTo(0, 6),
      expect.closeTo(1, 6),
      0,
    ]);
    expect(out[CROSSING_FEATURES]).toBe(0);
  });

  it('leaves out a leader in the lane, a standing car on the route and a crossing beyond the horizon', () => {
    const beyond = 5 * DEFAULT_CROSSING.horizonS + 5;
    const out = features([
      [10, 0, 5, 0, TYPE_CODE.vehicle],
      [30, 0, 0, 0, TYPE_CODE.vehicle],
      [20, -beyond, 0, 5, TYPE_CODE.vehicle],
    ]);
    expect(out.every((v) => v === 0)).toBe(true);
  });

  it('sorts by arrival time, keeps the earliest when slots run out, and flags walkers', () => {
    const others: [number, number, number, number, number][] = [
      [40, 20, 0, -5, TYPE_CODE.vehicle], // 4 s, from the left
      [10, -3, 0, 1.5, TYPE_CODE.pedestrian], // 2 s
      [30, -30, 0, 10, TYPE_CODE.vehicle], // 3 s
    ];
    const out = features(others);
    expect([out[2], out[2 + CROSSING_FEATURES], out[2 + 2 * CROSSING_FEATURES]]).toEqual([
      expect.closeTo(2, 5),
      expect.closeTo(3, 5),
      expect.closeTo(4, 5),
    ]);
    expect(out[7]).toBe(1);
    expect(out[1]).toBeCloseTo(10, 5);
    expect(out[2 * CROSSING_FEATURES + 6]).toBeCloseTo(-1, 6);
    const one = features(others, 1);
    expect(one[2]).toBeCloseTo(2, 5);
    expect(one[7]).toBe(1);
  });

  it('extends the observation and the policy network only when slots are asked for', () => {
    const plain = observationOffsets(DEFAULT_OBSERVATION);
    const withSlots = observationOffsets({ ...DEFAULT_OBSERVATION, crossings: 3 });
    expect(withSlots.crossings).toBe(plain.size);
    expect(withSlots.size).toBe(plain.size + 3 * CROSSING_FEATURES);
    const a = createPolicyNet([13, 25], DEFAULT_OBSERVATION);
    const b = createPolicyNet([13, 25], { ...DEFAULT_OBSERVATION, crossings: 3 });
    expect(parameterCount(b)).toBeGreaterThan(parameterCount(a));
  });
});
