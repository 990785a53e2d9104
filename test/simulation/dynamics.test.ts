// The kinematic bicycle: constant speed and curvature trace the closed-form circle, actions clip to the
// Waymax limits without reversing, and inverse dynamics / delta actions recover a rollout and replay a log.
import { describe, expect, it } from 'vitest';
import { bicycleInverse, bicycleStep, DEFAULT_BICYCLE_LIMITS } from '../../simulation/dynamics/bicycle.ts';
import { deltaStep } from '../../simulation/dynamics/delta.ts';
import { inverseBicycle, inverseDelta } from '../../simulation/dynamics/inverse.ts';
import { allocateAgentTracks } from '../../simulation/scenario.ts';

describe('kinematic bicycle', () => {
  it('traces the closed-form circle at constant speed and curvature', () => {
    const v = 8;
    const kappa = 0.05; // radius 20 m
    const dt = 0.1;
    const x = Float64Array.of(0);
    const y = Float64Array.of(0);
    const yaw = Float64Array.of(0.3);
    const speed = Float64Array.of(v);
    const r = 1 / kappa;
    // Circle centre: to the left of the start heading.
    const cx = -Math.sin(0.3) * r;
    const cy = Math.cos(0.3) * r;
    for (let k = 1; k <= 200; k++) {
      bicycleStep(0, x, y, yaw, speed, 0, kappa, dt);
      const theta = 0.3 + kappa * v * dt * k;
      expect(x[0]).toBeCloseTo(cx + Math.sin(theta) * r, 9);
      expect(y[0]).toBeCloseTo(cy - Math.cos(theta) * r, 9);
      expect(Math.hypot(x[0] - cx, y[0] - cy)).toBeCloseTo(r, 9);
    }
    expect(speed[0]).toBe(v);
  });

  it('clips actions to the Waymax limits and never reverses', () => {
    const x = Float64Array.of(0);
    const y = Float64Array.of(0);
    const yaw = Float64Array.of(0);
    const speed = Float64Array.of(1);
    bicycleStep(0, x, y, yaw, speed, -100, 5, 0.1);
    expect(speed[0]).toBe(Math.max(0, 1 - DEFAULT_BICYCLE_LIMITS.maxAccelMps2 * 0.1));
    // Distance travelled 0.1·(1 + 0.4)/2 = 0.07 m; heading turned by at most 0.3 · 0.07.
    expect(yaw[0]).toBeCloseTo(0.3 * 0.07, 12);
    speed[0] = 0.2;
    bicycleStep(0, x, y, yaw, speed, -6, 0, 0.1);
    expect(speed[0]).toBe(0);
  });

  it('inverse dynamics recovers the actions of a rollout', () => {
    const T = 60;
    const dt = 0.1;
    const tracks = allocateAgentTracks(1, T);
    const x = Float64Array.of(3);
    const y = Float64Array.of(-2);
    const yaw = Float64Array.of(1);
    const speed = Float64Array.of(5);
    const applied: [number, number][] = [];
    for (let t = 0; t < T; t++) {
      tracks.x[t] = x[0];
      tracks.y[t] = y[0];
      tracks.yaw[t] = yaw[0];
      tracks.vx[t] = speed[0] * Math.cos(yaw[0]);
      tracks.vy[t] = speed[0] * Math.sin(yaw[0]);
      tracks.valid[t] = 1;
      // A varied but feasible action sequence that keeps the speed positive.
      const a = 2 * Math.sin(t / 5);
      const k = 0.2 * Math.cos(t / 7);
      applied.push([a, k]);
      bicycleStep(0, x, y, yaw, speed, a, k, dt);
    }
    const inv = inverseBicycle(tracks, T, dt);
    for (let t = 0; t < T - 1; t++) {
      expect(inv.valid[t]).toBe(1);
      expect(inv.actions[2 * t]).toBeCloseTo(applied[t][0], 4);
      expect(inv.actions[2 * t + 1]).toBeCloseTo(applied[t][1], 4);
    }
    // Single-step inverse in double precision is exact.
    expect(bicycleInverse(0.1, 4, 0.1 + 0.2 * 0.41, 4.2, 0.1)[1]).toBeCloseTo(0.2, 10);
  });

  it('delta actions from a log replay it', () => {
    const T = 5;
    const tracks = allocateAgentTracks(1, T);
    for (let t = 0; t < T; t++) {
      tracks.x[t] = t * t;
      tracks.y[t] = -t;
      tracks.yaw[t] = 0.1 * t;
      tracks.valid[t] = 1;
    }
    tracks.valid[3] = 0;
    const inv = inverseDelta(tracks, T);
    expect(Array.from(inv.valid)).toEqual([1, 1, 0, 0]);
    const s = [
      new Float64Array(1),
      new Float64Array(1),
      new Float64Array(1),
      new Float64Array(1),
      new Float64Array(1),
      new Float64Array(1),
    ];
    for (let t = 0; t < 2; t++)
      deltaStep(
        0,
        s[0],
        s[1],
        s[2],
        s[3],
        s[4],
        s[5],
        inv.actions[3 * t],
        inv.actions[3 * t + 1],
        inv.actions[3 * t + 2],
        0.1,
      );
    expect([s[0][0], s[1][0], s[2][0]]).toEqual([4, -2, expect.closeTo(0.2, 6)]);
    expect(s[3][0]).toBeCloseTo(30, 6); // vx = 3 m / 0.1 s
  });
});
