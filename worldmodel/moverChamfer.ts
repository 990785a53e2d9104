// Chamfer on the points of moving objects alone (labelled logs): a forecaster that predicts a static world
// leaves the movers where they were, which the whole-sweep Chamfer hides among static points.
import type { Boxes } from '../core/arrow/records.ts';
import { transformPoint, type Pose } from '../core/geometry/pose.ts';
import { nearestSquaredDistances } from './chamfer.ts';
import { transformed } from './forecastProtocol.ts';
import type { SensorPoints } from './voxelize.ts';

/** A track moving at least this far between t0 and the target frame counts as a mover. */
export const MOVER_MIN_DISPLACEMENT_M = 0.5;
/** Boxes grow by this on every side when points are tested against them (labels are tight). */
export const MOVER_BOX_MARGIN_M = 0.3;

interface Box {
  cx: number;
  cy: number;
  cz: number;
  hl: number;
  hw: number;
  hh: number;
  c: number;
  s: number;
}

function boxesOfFrame(b: Boxes, frame: number): Map<number, { box: Box; row: number }> {
  const out = new Map<number, { box: Box; row: number }>();
  for (let i = 0; i < b.frameIndex.length; i++) {
    if (b.frameIndex[i] !== frame || b.trackId[i] < 0) continue;
    const m = MOVER_BOX_MARGIN_M;
    out.set(b.trackId[i], {
      row: i,
      box: {
        cx: b.cx[i],
        cy: b.cy[i],
        cz: b.cz[i],
        hl: b.length[i] / 2 + m,
        hw: b.width[i] / 2 + m,
        hh: b.height[i] / 2 + m,
        c: Math.cos(b.yaw[i]),
        s: Math.sin(b.yaw[i]),
      },
    });
  }
  return out;
}

function inside(boxes: readonly Box[], x: number, y: number, z: number): boolean {
  for (const b of boxes) {
    const dx = x - b.cx;
    const dy = y - b.cy;
    const lx = b.c * dx + b.s * dy;
    const ly = -b.s * dx + b.c * dy;
    if (Math.abs(lx) <= b.hl && Math.abs(ly) <= b.hw && Math.abs(z - b.cz) <= b.hh) return true;
  }
  return false;
}

function select(p: SensorPoints, keep: (i: number) => boolean): SensorPoints {
  const idx: number[] = [];
  for (let i = 0; i < p.x.length; i++) if (keep(i)) idx.push(i);
  return {
    x: Float32Array.from(idx, (i) => p.x[i]),
    y: Float32Array.from(idx, (i) => p.y[i]),
    z: Float32Array.from(idx, (i) => p.z[i]),
  };
}

/**
 * ½ (mean over true mover points of the squared distance to the nearest predicted point + mean over
 * predicted points inside a mover's box at t0 or at the target of the squared distance to the nearest true
 * point), all in the t0 frame. NaN when the target frame has no mover point.
 */
export function moverChamfer(
  labels: Boxes,
  poses: Float64Array,
  start: number,
  target: number,
  predT0: SensorPoints,
  truthT0: SensorPoints,
  allTruthT0: SensorPoints,
  targetFromT0: Pose,
): number {
  const a = boxesOfFrame(labels, start);
  const b = boxesOfFrame(labels, target);
  const world = (f: number, bx: Box) =>
    transformPoint(poses.subarray(16 * f, 16 * f + 16), bx.cx, bx.cy, bx.cz);
  const movingT0: Box[] = [];
  const movingTarget: Box[] = [];
  for (const [id, tb] of b) {
    const sb = a.get(id);
    if (!sb) continue;
    const p = world(start, sb.box);
    const q = world(target, tb.box);
    if (Math.hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]) < MOVER_MIN_DISPLACEMENT_M) continue;
    movingT0.push(sb.box);
    movingTarget.push(tb.box);
  }
  if (movingTarget.length === 0) return NaN;
  const truthT = transformed(truthT0, targetFromT0);
  const predT = transformed(predT0, targetFromT0);
  const trueMovers = select(truthT0, (i) => inside(movingTarget, truthT.x[i], truthT.y[i], truthT.z[i]));
  if (trueMovers.x.length === 0) return NaN;
  const predMovers = select(
    predT0,
    (i) =>
      inside(movingTarget, predT.x[i], predT.y[i], predT.z[i]) ||
      inside(movingT0, predT0.x[i], predT0.y[i], predT0.z[i]),
  );
  const mean = (d: Float64Array) => d.reduce((s, v) => s + v, 0) / Math.max(1, d.length);
  const there = predT0.x.length ? mean(nearestSquaredDistances(trueMovers, predT0)) : NaN;
  const back = predMovers.x.length ? mean(nearestSquaredDistances(predMovers, allTruthT0)) : 0;
  return 0.5 * (there + back);
}
