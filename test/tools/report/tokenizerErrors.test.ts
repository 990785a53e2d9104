import { describe, expect, it } from 'vitest';
import { TokenizerErrorTally } from '../../../tools/report/tokenizerErrors.ts';

const cloud = (xs: number[]) => ({
  x: Float32Array.from(xs),
  y: new Float32Array(xs.length),
  z: new Float32Array(xs.length),
});

describe('tokenizer error split', () => {
  it('counts rays short and long of their return and splits the Chamfer by direction', () => {
    const t = new TokenizerErrorTally();
    // Truth at x = 10 and 20; the decoded cloud has one point on 10 and one 3 m short of 20, at 17.
    t.add({ input: cloud([10, 20]), decoded: cloud([10, 17]), depthSigned: Float32Array.of(0, -3) });
    // A second frame: one ray rendered 6 m long, the decoded point 6 m from the only true point.
    t.add({ input: cloud([5]), decoded: cloud([11]), depthSigned: Float32Array.of(6) });
    const s = t.split();
    expect(s.frames).toBe(2);
    expect(s.rays).toBe(3);
    expect(s.shortBy1m).toBeCloseTo(1 / 3);
    expect(s.shortBy5m).toBe(0);
    expect(s.longBy1m).toBeCloseTo(1 / 3);
    expect(s.longBy5m).toBeCloseTo(1 / 3);
    // Frame 1: decoded → true (0 + 9) / 2, true → decoded (0 + 9) / 2; frame 2: 36 both ways.
    expect(s.decodedToTrueM2).toBeCloseTo((4.5 + 36) / 2);
    expect(s.trueToDecodedM2).toBeCloseTo((4.5 + 36) / 2);
    // The worst 1 % of a frame's decoded points is its worst point: all of decoded → true in both frames.
    expect(s.worstPercentShare).toBeCloseTo(1);
    // Depth L1 over the 3 rays, and the part from the ray 6 m long (none is more than 5 m short).
    expect(s.depthL1MeanM).toBeCloseTo(3);
    expect(s.depthL1FromLongBy5mM).toBeCloseTo(2);
    expect(s.depthL1FromShortBy5mM).toBe(0);
  });

  it('tells the two directions apart: a stray decoded point counts only from the decoded side', () => {
    const t = new TokenizerErrorTally();
    t.add({ input: cloud([10]), decoded: cloud([10, 30]), depthSigned: Float32Array.of(0, 20) });
    const s = t.split();
    expect(s.decodedToTrueM2).toBeCloseTo(200);
    expect(s.trueToDecodedM2).toBeCloseTo(0);
  });

  it('attributes the depth L1 of rays rendered far short to the short side', () => {
    const t = new TokenizerErrorTally();
    t.add({ input: cloud([20, 20]), decoded: cloud([8, 20]), depthSigned: Float32Array.of(-12, 0) });
    const s = t.split();
    expect(s.depthL1MeanM).toBeCloseTo(6);
    expect(s.depthL1FromShortBy5mM).toBeCloseTo(6);
    expect(s.depthL1FromLongBy5mM).toBe(0);
  });
});
