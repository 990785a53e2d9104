import { describe, expect, it } from 'vitest';
import { dualAscent } from '../../../simulation/training/dualAscent.ts';
import { gae } from '../../../simulation/training/gae.ts';

describe('GAE on a hand-made trajectory', () => {
  it('matches the advantages computed by hand (γ = 0.9, λ = 0.5), with a gap ending the episode', () => {
    // One agent, 4 steps: acts at steps 0, 1, (gap at 2), 3.
    const rewards = Float32Array.of(1, 0, 0, 2);
    const values = Float32Array.of(0.5, 1, 0, 0.25);
    const valid = Uint8Array.of(1, 1, 0, 1);
    const { advantages, returns } = gae(rewards, values, valid, 4, 1, { gamma: 0.9, lambda: 0.5 });
    // Step 3: last step, no bootstrap: δ = 2 − 0.25 = 1.75.
    // Step 1: next step invalid → δ = 0 + 0 − 1 = −1, A = −1.
    // Step 0: δ = 1 + 0.9·1 − 0.5 = 1.4, A = 1.4 + 0.45·(−1) = 0.95.
    expect(Array.from(advantages)).toEqual([0.95, -1, 0, 1.75].map((v) => Math.fround(v)));
    expect(returns[0]).toBeCloseTo(1.45, 6);
    expect(returns[3]).toBeCloseTo(2, 6);
    expect(returns[2]).toBe(0);
  });

  it('handles several agents step-major and uses the bootstrap value of a cut-off episode', () => {
    const T = 2;
    const n = 2;
    const rewards = Float32Array.of(1, 0, 1, 0);
    const values = new Float32Array(4);
    const valid = Uint8Array.of(1, 1, 1, 1);
    const { advantages } = gae(rewards, values, valid, T, n, { gamma: 1, lambda: 1 }, Float32Array.of(10, 0));
    // Agent 0: rewards 1, 1 then bootstrap 10 → A0 = 12, A1 = 11. Agent 1: all zero.
    expect(Array.from(advantages)).toEqual([12, 0, 11, 0]);
  });
});

describe('RTR dual ascent on λ', () => {
  const cfg = { targetRate: 0.05, stepSize: 10, maxLambda: 5 };
  it('rises when infractions exceed the target and falls when below', () => {
    expect(dualAscent(1, 0.2, cfg)).toBeCloseTo(2.5, 9);
    expect(dualAscent(1, 0.0, cfg)).toBeCloseTo(0.5, 9);
    expect(dualAscent(1, 0.05, cfg)).toBe(1);
  });
  it('stays within [0, maxLambda]', () => {
    expect(dualAscent(0.1, 0, cfg)).toBe(0);
    expect(dualAscent(4.9, 1, cfg)).toBe(5);
  });
});
