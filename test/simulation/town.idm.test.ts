// The IDM law: free-road acceleration towards the desired speed, braking behind a slow leader, and a
// follower that settles at the equilibrium gap s* without collision.
import { describe, expect, it } from 'vitest';
import { DEFAULT_IDM, idmAcceleration, idmConfig, idmStep } from '../../simulation/agents/idm.ts';

describe('idm', () => {
  it('accelerates at a_max from standstill on a free road and stops accelerating at v0', () => {
    expect(idmAcceleration(DEFAULT_IDM, 0, Infinity)).toBeCloseTo(DEFAULT_IDM.maxAccelMps2, 9);
    expect(idmAcceleration(DEFAULT_IDM, DEFAULT_IDM.desiredSpeedMps, Infinity)).toBeCloseTo(0, 9);
    expect(idmAcceleration(DEFAULT_IDM, DEFAULT_IDM.desiredSpeedMps * 1.2, Infinity)).toBeLessThan(0);
  });

  it('brakes when closing in on a leader and never returns below the braking floor', () => {
    const a = idmAcceleration(DEFAULT_IDM, 10, 5, 10);
    expect(a).toBeLessThan(-DEFAULT_IDM.comfortDecelMps2);
    expect(a).toBeGreaterThanOrEqual(DEFAULT_IDM.maxBrakeMps2);
  });

  it('a follower behind a stopped car comes to rest without touching it', () => {
    const cfg = idmConfig({ desiredSpeedMps: 12 });
    let v = 12;
    let gap = 80;
    let minGap = gap;
    for (let t = 0; t < 600; t++) {
      const a = idmAcceleration(cfg, v, gap, v);
      const [v2, ds] = idmStep(v, a, 0.1);
      v = v2;
      gap -= ds;
      minGap = Math.min(minGap, gap);
    }
    expect(v).toBeLessThan(0.05);
    expect(minGap).toBeGreaterThan(0);
    expect(gap).toBeLessThan(cfg.minGapM + 1);
  });

  it('a follower behind a steady leader converges to the equilibrium gap s0 + vT', () => {
    const cfg = idmConfig({ desiredSpeedMps: 20 });
    const vLead = 10;
    let v = 0;
    let gap = 30;
    for (let t = 0; t < 3000; t++) {
      const a = idmAcceleration(cfg, v, gap, v - vLead);
      const [v2, ds] = idmStep(v, a, 0.1);
      gap += vLead * 0.1 - ds;
      v = v2;
    }
    expect(v).toBeCloseTo(vLead, 2);
    // Equilibrium of IDM: s = s* / sqrt(1 − (v/v0)^δ).
    const sEq =
      (cfg.minGapM + vLead * cfg.timeHeadwayS) / Math.sqrt(1 - Math.pow(vLead / 20, cfg.accelExponent));
    expect(gap).toBeCloseTo(sEq, 1);
  });
});
