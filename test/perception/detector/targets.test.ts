// Centre-heatmap targets and their decoding: boxes encoded on the output grid and decoded back (heatmap
// peaks → regressions → rotated NMS) come back as the same boxes; the label range masks the loss.
import { describe, expect, it } from 'vitest';
import type { Box3 } from '../../../core/geometry/box.ts';
import { bevIou } from '../../../core/geometry/iou.ts';
import { boxAt } from '../../../core/arrow/records.ts';
import { centredGrid } from '../../../perception/detector/bevGrid.ts';
import { decodeBoxes, DEFAULT_DECODE_CONFIG } from '../../../perception/detector/decode.ts';
import {
  DEFAULT_TARGET_CONFIG,
  encodeTargets,
  gaussianRadius,
  outputGrid,
  REG_CHANNEL_COUNT,
} from '../../../perception/detector/targets.ts';

const boxes: Box3[] = [
  { cx: 12.3, cy: 4.1, cz: 0.9, length: 4.6, width: 1.9, height: 1.6, yaw: 0.4 },
  { cx: -7.77, cy: -15.2, cz: 1.1, length: 4.1, width: 1.8, height: 1.5, yaw: -2.5 },
  { cx: 3.05, cy: -3.9, cz: 0.85, length: 0.7, width: 0.6, height: 1.7, yaw: 1.3 },
  { cx: -20.4, cy: 18.9, cz: 1.6, length: 9.5, width: 2.5, height: 3.2, yaw: 3.0 },
];

/** Heat logits that are high exactly where the target heatmap is 1, lower around, very low elsewhere. */
function logitsFrom(heat: Float32Array): Float32Array {
  return heat.map((h) => (h >= 1 ? 6 : -8 + 10 * h));
}

describe('target encoding and decoding', () => {
  const grid = centredGrid(25.6, 0.2);
  const out = outputGrid(grid, 4);
  const groundZ = -1.7;

  it('round trip: decoding the targets recovers every box', () => {
    const lifted = boxes.map((b) => ({ ...b, cz: b.cz + groundZ }));
    const t = encodeTargets(lifted, out, groundZ);
    expect(t.count).toBe(boxes.length);
    const dec = decodeBoxes(logitsFrom(t.heat), t.reg, out, groundZ, 7, {
      ...DEFAULT_DECODE_CONFIG,
      scoreThreshold: 0.5,
    });
    expect(dec.cx.length).toBe(boxes.length);
    for (const b of lifted) {
      const best = Math.max(...Array.from({ length: dec.cx.length }, (_, i) => bevIou(b, boxAt(dec, i))));
      expect(best).toBeGreaterThan(0.999);
      const i = Array.from({ length: dec.cx.length }, (_, k) => k).find(
        (k) => bevIou(b, boxAt(dec, k)) > 0.999,
      )!;
      expect(dec.cz[i]).toBeCloseTo(b.cz, 4);
      expect(dec.height[i]).toBeCloseTo(b.height, 4);
      expect(dec.frameIndex[i]).toBe(7);
    }
  });

  it('draws a Gaussian peaked at the centre cell and leaves far cells at 0', () => {
    const t = encodeTargets([boxes[0]], out, 0);
    const c = Math.floor((boxes[0].cx - out.xMinM) / out.cellM);
    const r = Math.floor((boxes[0].cy - out.yMinM) / out.cellM);
    const k = r * out.cols + c;
    expect(t.heat[k]).toBe(1);
    expect(t.centre[k]).toBe(1);
    expect(t.heat[k + 1]).toBeGreaterThan(0.1);
    expect(t.heat[k + 1]).toBeLessThan(1);
    expect(t.heat[k + 10]).toBe(0);
    // Regressions only at the centre: sin/cos of the doubled yaw.
    const n = out.rows * out.cols;
    expect(t.reg[6 * n + k]).toBeCloseTo(Math.sin(2 * boxes[0].yaw), 6);
    expect(t.reg[7 * n + k]).toBeCloseTo(Math.cos(2 * boxes[0].yaw), 6);
    expect(t.reg.length).toBe(REG_CHANNEL_COUNT * n);
  });

  it('ignores labels and cells beyond the label range', () => {
    const cfg = { ...DEFAULT_TARGET_CONFIG, labelRangeM: 10 };
    const t = encodeTargets(boxes, out, 0, cfg);
    // Only the pedestrian at 5 m is within 10 m.
    expect(t.count).toBe(1);
    let masked = 0;
    for (let r = 0; r < out.rows; r++) {
      for (let c = 0; c < out.cols; c++) {
        const x = out.xMinM + (c + 0.5) * out.cellM;
        const y = out.yMinM + (r + 0.5) * out.cellM;
        expect(t.mask[r * out.cols + c]).toBe(Math.hypot(x, y) <= 10 ? 1 : 0);
        masked += t.mask[r * out.cols + c];
      }
    }
    expect(masked).toBeGreaterThan(400);
    // A moved ego moves the mask; a scaled frame scales its radius.
    const moved = encodeTargets(boxes, out, 0, cfg, { x: 12, y: 4, rangeScale: 1 });
    expect(moved.count).toBe(1);
    expect(moved.centre.reduce((s, v) => s + v, 0)).toBe(1);
  });

  it('gaussianRadius keeps IoU ≥ the overlap when a box moves by it', () => {
    for (const [l, w] of [
      [5.6, 2.3],
      [1, 1],
      [12, 3],
    ]) {
      const r = gaussianRadius(l, w, 0.1);
      expect(r).toBeGreaterThan(0);
      const a = { cx: 0, cy: 0, cz: 0, length: l, width: w, height: 1, yaw: 0 };
      // Shift diagonally by r (the "both corners move the same way" case).
      expect(bevIou(a, { ...a, cx: r, cy: r })).toBeGreaterThanOrEqual(0.1 - 1e-9);
      // A shift far beyond it breaks the overlap.
      expect(bevIou(a, { ...a, cx: 3 * r + l, cy: 3 * r + w })).toBeLessThan(0.1);
    }
  });
});
