// Gradients of slicing and gathering: the output gradient put back where the op read it, by Pad
// (with zeros interleaved for strided slices) or a scatter-add (repeated indices accumulate).
import type { GradContext } from './autodiff.ts';
import { constValues, fail, staticDim } from './gradHelpers.ts';
import type { Tensor } from './graph.ts';
import * as o from './ops/index.ts';
import { fmtShape, isStaticShape, type Dim } from './shape.ts';

/** Gradient of Gather along `axis`: dy scatter-added into zeros of data's shape at the gathered indices. */
export function gatherGrad(data: Tensor, idx: Tensor, axis: number, dy: Tensor): Tensor {
  // A flat table (a grid read at millions of ray samples): the flat updates added straight at the flat
  // indices, int32 or int64 as given — the same adds in the same order as the general path below, without
  // its index cast and expand of every entry.
  if (axis === 0 && data.rank === 1) {
    return o.scatterElements(o.zerosLike(data), o.reshape(idx, [-1]), o.reshape(dy, [-1]), 0, 'add');
  }
  const idx64 = o.unsqueeze(o.cast(idx, 'int64'), -1);
  if (axis === 0) return o.scatterND(o.zerosLike(data), idx64, dy, 'add');
  // Move the gathered axis to the front, scatter, move it back.
  const r = data.rank;
  const ni = idx.rank;
  const permD = [axis, ...Array.from({ length: r }, (_, i) => i).filter((i) => i !== axis)];
  const permDy = [
    ...Array.from({ length: ni }, (_, i) => axis + i),
    ...Array.from({ length: axis }, (_, i) => i),
    ...Array.from({ length: r - axis - 1 }, (_, i) => axis + ni + i),
  ];
  const zeros = o.zerosLike(o.transpose(data, permD));
  const scattered = o.scatterND(zeros, idx64, o.transpose(dy, permDy), 'add');
  const inv = new Array<number>(r);
  permD.forEach((p, i) => (inv[p] = i));
  return o.transpose(scattered, inv);
}

/** Gradient of Slice: the output gradient placed back at the sliced positions, zeros elsewhere. */
export function sliceGrad(c: GradContext): Tensor {
  const n = c.node;
  const x = c.x[0]!;
  let d = c.dy[0]!;
  const starts = constValues(n, c.x[1], 'starts');
  const axes = c.x[3]
    ? constValues(n, c.x[3], 'axes').map((a) => (a < 0 ? a + x.rank : a))
    : starts.map((_, i) => i);
  const steps = c.x[4] ? constValues(n, c.x[4], 'steps') : starts.map(() => 1);
  const pads = new Array(2 * x.rank).fill(0);
  axes.forEach((a, k) => {
    const D = staticDim(n, x.shape[a], `size on sliced axis ${a}`);
    const L = staticDim(n, d.shape[a], `size on sliced axis ${a}`);
    if (L === 0) return;
    let step = steps[k];
    let s = starts[k] < 0 ? starts[k] + D : starts[k];
    s = step > 0 ? Math.min(Math.max(s, 0), D) : Math.min(Math.max(s, -1), D - 1);
    if (step < 0) {
      // Reverse so the positions increase: first picked position is s − (L−1)|step|.
      d = o.slice(d, [-1], [-Number.MAX_SAFE_INTEGER], [a], [-1]);
      step = -step;
      s = s - (L - 1) * step;
    }
    if (step > 1) {
      // Interleave step−1 zeros after each element: [.., L, 1, ..] → pad → [.., L·step, ..].
      const u = o.unsqueeze(d, a + 1);
      const p = new Array(2 * u.rank).fill(0);
      p[u.rank + a + 1] = step - 1;
      const shape: Dim[] = d.shape.map((v, i) => (i < a ? 0 : i === a ? L * step : v));
      d = o.reshape(o.pad(u, p), shape);
    }
    pads[a] = s;
    pads[a + x.rank] = D - s - L * step;
  });
  const res = pads.some((p) => p !== 0) ? o.pad(d, pads) : d;
  if (!isStaticShape(res.shape) || !isStaticShape(x.shape)) return o.reshapeLike(res, x);
  if (res.shape.some((v, i) => v !== x.shape[i])) fail(n, `internal: ${fmtShape(res.shape)} vs ${x}`);
  return res;
}
