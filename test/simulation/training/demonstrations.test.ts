import { describe, expect, it } from 'vitest';
import { bicycleStep } from '../../../simulation/dynamics/bicycle.ts';
import { ActionBins, DEFAULT_ACTION_BINS } from '../../../simulation/training/actionBins.ts';
import { infeasibleShare, inverseDemonstrations } from '../../../simulation/training/demonstrations.ts';
import type { AgentTracks } from '../../../simulation/scenario.ts';
import { allocateAgentTracks } from '../../../simulation/scenario.ts';

/**
 * One agent driving a smooth S-curve with varying speed, logged from continuous (unbinned) bicycle
 * actions: no bin matches any step exactly, so the replay error is the bins' resolution alone.
 */
function curvyTrack(T: number, dt: number): AgentTracks {
  const tr = allocateAgentTracks(1, T);
  const x = Float64Array.of(0);
  const y = Float64Array.of(0);
  const yaw = Float64Array.of(0);
  const v = Float64Array.of(8);
  for (let t = 0; t < T; t++) {
    tr.x[t] = x[0];
    tr.y[t] = y[0];
    tr.yaw[t] = yaw[0];
    tr.vx[t] = v[0] * Math.cos(yaw[0]);
    tr.vy[t] = v[0] * Math.sin(yaw[0]);
    tr.valid[t] = 1;
    bicycleStep(0, x, y, yaw, v, 1.7 * Math.cos(t * 0.05), 0.03 * Math.sin(t * 0.04), dt);
  }
  return tr;
}

/** Replay the recovered actions open loop from the first logged state; position error at each step. */
function replayErrors(tr: AgentTracks, T: number, dt: number, bins: ActionBins): number[] {
  const d = inverseDemonstrations(tr, T, dt, bins);
  expect(d.action.every((a) => a >= 0)).toBe(true);
  const x = Float64Array.of(tr.x[0]);
  const y = Float64Array.of(tr.y[0]);
  const yaw = Float64Array.of(tr.yaw[0]);
  const v = Float64Array.of(Math.hypot(tr.vx[0], tr.vy[0]));
  const errs: number[] = [];
  for (let t = 0; t < T - 1; t++) {
    const a = d.action[t];
    bicycleStep(0, x, y, yaw, v, bins.accelOf(a), bins.curvatureOf(a), dt, {
      maxAccelMps2: 99,
      maxCurvaturePerM: 99,
    });
    errs.push(Math.hypot(x[0] - tr.x[t + 1], y[0] - tr.y[t + 1]));
  }
  return errs;
}

describe('inverse-dynamics demonstrations', () => {
  const T = 91;
  const dt = 0.1;

  it('replaying the recovered binned actions reproduces the log within the bins’ resolution', () => {
    const bins = new ActionBins();
    const errs = replayErrors(curvyTrack(T, dt), T, dt, bins);
    // Resolution: half the widest acceleration gap over one step (½·Δa/2·dt²) plus half the curvature gap
    // near the used curvatures (≤ 0.03 1/m here: gap 0.008) over one step's ~1.1 m arc (½·Δκ/2·d²), with
    // the feedback re-aiming each step, the error stays at that order, it does not accumulate over 9 s.
    const accelGap = Math.max(
      ...DEFAULT_ACTION_BINS.accelMps2.slice(1).map((a, i) => a - DEFAULT_ACTION_BINS.accelMps2[i]),
    );
    const perStep = 0.5 * (accelGap / 2) * dt * dt + 0.5 * (0.012 / 2) * 1.1 ** 2 + (accelGap / 2) * dt * dt;
    expect(Math.max(...errs)).toBeLessThan(3 * perStep);
    expect(errs[errs.length - 1]).toBeLessThan(3 * perStep);
  });

  it('coarser curvature bins replay worse (the error is the bins’ resolution, not luck)', () => {
    const fine = replayErrors(curvyTrack(T, dt), T, dt, new ActionBins());
    const coarse = replayErrors(
      curvyTrack(T, dt),
      T,
      dt,
      new ActionBins({
        accelMps2: DEFAULT_ACTION_BINS.accelMps2,
        curvaturePerM: [-0.3, -0.05, 0, 0.05, 0.3],
      }),
    );
    const mean = (e: number[]) => e.reduce((a, b) => a + b, 0) / e.length;
    expect(mean(coarse)).toBeGreaterThan(2 * mean(fine));
  });

  it('flags a step no bin can follow (a 3 m sideways jump) and keeps the others', () => {
    const tr = curvyTrack(T, dt);
    for (let t = 50; t < T; t++) tr.y[t] += 3;
    const d = inverseDemonstrations(tr, T, dt);
    expect(d.infeasible[49]).toBe(1);
    expect(d.action[49]).toBe(-1);
    expect(infeasibleShare(d)).toBeCloseTo(1 / (T - 1), 6);
    // After the jump the replay re-synchronises to the log and follows it again.
    expect(d.action[60]).toBeGreaterThanOrEqual(0);
    expect(d.errorM[60]).toBeLessThan(0.1);
  });
});
