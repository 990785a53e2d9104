// Gradients of convolution, pooling and nearest upsampling lowered to ops onnxruntime runs fast:
// im2col as one depthwise Conv, weight gradients as batched MatMuls, input gradients as (transposed) Convs.
import type { Node, Tensor } from './graph.ts';
import {
  constValues,
  fail,
  intAttr,
  intsAttr,
  mT,
  staticDim,
  staticSpatial,
  stringAttr,
} from './gradHelpers.ts';
import * as o from './ops/index.ts';
import type { Dim } from './shape.ts';

/** Kernel, strides, dilations, pads ([begin…, end…]) and groups of a Conv/ConvTranspose node, ONNX defaults filled in. */
export interface ConvGeometry {
  kernel: number[];
  strides: number[];
  dilations: number[];
  pads: number[];
  groups: number;
}

export function convGeo(n: Node): ConvGeometry {
  const kernel = intsAttr(n, 'kernel_shape');
  const nsp = kernel.length;
  return {
    kernel,
    strides: intsAttr(n, 'strides').length ? intsAttr(n, 'strides') : new Array(nsp).fill(1),
    dilations: intsAttr(n, 'dilations').length ? intsAttr(n, 'dilations') : new Array(nsp).fill(1),
    pads: intsAttr(n, 'pads').length ? intsAttr(n, 'pads') : new Array(2 * nsp).fill(0),
    groups: intAttr(n, 'group', 1),
  };
}

/** Bias gradient of a (transposed) convolution: dy summed over the batch and every spatial axis. */
export function convBiasGrad(dy: Tensor, geo: ConvGeometry): Tensor {
  const nsp = geo.kernel.length;
  return o.reduceSum(dy, [0, ...Array.from({ length: nsp }, (_, j) => j + 2)]);
}

/**
 * Input gradient of a convolution: a plain Conv with the flipped kernel where that applies (stride 1),
 * else the transposed convolution, with output padding restoring x's size.
 */
export function convInputGrad(n: Node, x: Tensor, dy: Tensor, w: Tensor, geo: ConvGeometry): Tensor {
  const nsp = geo.kernel.length;
  const inSp = staticSpatial(n, x);
  const outSp = staticSpatial(n, dy);
  const byConv = convInputGradByConv(dy, w, geo, inSp, outSp);
  if (byConv) return byConv;
  const outPad = inSp.map(
    (d, j) =>
      d -
      ((outSp[j] - 1) * geo.strides[j] +
        geo.dilations[j] * (geo.kernel[j] - 1) +
        1 -
        geo.pads[j] -
        geo.pads[j + nsp]),
  );
  return o.convTranspose(dy, w, null, {
    stride: geo.strides,
    padding: geo.pads,
    dilation: geo.dilations,
    groups: geo.groups,
    outputPadding: outPad,
  });
}

/**
 * For stride 1, the input gradient is a plain convolution of dy with the spatially flipped,
 * in/out-swapped kernel — onnxruntime's forward Conv is about twice as fast as its ConvTranspose.
 * Returns null where that does not apply (strides > 1, or pads larger than the kernel reach).
 */
function convInputGradByConv(
  dy: Tensor,
  w: Tensor,
  geo: ConvGeometry,
  inSp: readonly number[],
  outSp: readonly number[],
): Tensor | null {
  if (geo.strides.some((s) => s !== 1)) return null;
  const reach = geo.kernel.map((k, j) => (k - 1) * geo.dilations[j]);
  const padB = reach.map((r, j) => r - geo.pads[j]);
  const padE = inSp.map((d, j) => d - outSp[j] + geo.pads[j]);
  if ([...padB, ...padE].some((p) => p < 0)) return null;
  const G = geo.groups;
  const [K, Cg] = w.shape as number[];
  // [K, C/G, k…] → [G, K/G, C/G, k…] → [G, C/G, K/G, k…] → [C, K/G, k…], then flip every spatial axis.
  let wt = o.reshape(w, [G, K / G, Cg, ...geo.kernel]);
  wt = o.transpose(wt, [0, 2, 1, ...geo.kernel.map((_, j) => j + 3)]);
  wt = o.reshape(wt, [G * Cg, K / G, ...geo.kernel]);
  const axes = geo.kernel.map((_, j) => j + 2);
  const flipped = o.slice(
    wt,
    axes.map(() => -1),
    axes.map(() => -Number.MAX_SAFE_INTEGER),
    axes,
    axes.map(() => -1),
  );
  return o.conv(dy, flipped, null, { dilation: geo.dilations, padding: [...padB, ...padE], groups: G });
}

/**
 * im2col as one depthwise convolution with one-hot kernels: output channel c·∏k + j copies input
 * channel c shifted by kernel offset j, giving [N, C·∏k, ∏O] (channel-major, like weights [*, C, k…]).
 * onnxruntime runs this as a single strided pass, several times faster than ∏k Slice ops + Concat.
 * `padBegin` pads the start; the end is padded as far as the last of `out` windows reaches.
 */
function im2col(
  x: Tensor,
  kernel: readonly number[],
  strides: readonly number[],
  dilations: readonly number[],
  padBegin: readonly number[],
  out: readonly number[],
): Tensor {
  const g = x.graph;
  const inSp = x.shape.slice(2) as number[];
  const C = x.shape[1] as number;
  const kk = kernel.reduce((a, b) => a * b, 1);
  const O = out.reduce((a, b) => a * b, 1);
  if (kk === 1 && strides.every((s) => s === 1) && padBegin.every((p) => p === 0) && sameDims(inSp, out)) {
    return o.reshape(x, [0, C, O]);
  }
  const padEnd = inSp.map((d, j) =>
    Math.max(0, (out[j] - 1) * strides[j] + (kernel[j] - 1) * dilations[j] + 1 - d - padBegin[j]),
  );
  const eye = new Array<number>(C * kk * kk).fill(0);
  for (let c = 0; c < C; c++) for (let j = 0; j < kk; j++) eye[(c * kk + j) * kk + j] = 1;
  const w = g.constant(eye, [C * kk, 1, ...kernel], x.dtype);
  let cols = o.conv(x, w, null, {
    stride: strides,
    dilation: dilations,
    padding: [...padBegin, ...padEnd],
    groups: C,
  });
  const got = cols.shape.slice(2) as number[];
  if (!sameDims(got, out)) {
    cols = o.slice(
      cols,
      out.map(() => 0),
      out,
      out.map((_, j) => j + 2),
    );
  }
  return o.reshape(cols, [0, C * kk, O]);
}

function sameDims(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((v, i) => v === b[i]);
}

/**
 * Σ over batch and positions of a ⊗ cols: a [N, G, M, P], cols [N, G, Q, P] → [G, M, Q]. Measured
 * with MLAS here: the narrow operand as the left factor is fastest unless it has under 64 rows.
 */
function patchProduct(a: Tensor, cols: Tensor): Tensor {
  const M = a.shape[2] as number;
  const Q = cols.shape[2] as number;
  if (Math.min(M, Q) < 64 && M < Q) return o.reduceSum(o.matmul(cols, mT(a)), [0]).transpose([0, 2, 1]);
  return o.reduceSum(o.matmul(a, mT(cols)), [0]);
}

/** Weight gradient of a (grouped) convolution as im2col + batched MatMul, summed over the batch. */
export function convWeightGrad(
  n: Node,
  input: Tensor,
  outGrad: Tensor,
  geo: ConvGeometry,
  wShape: readonly Dim[],
): Tensor {
  const G = geo.groups;
  const nsp = geo.kernel.length;
  const out = staticSpatial(n, outGrad);
  const kk = geo.kernel.reduce((a, b) => a * b, 1);
  const C = staticDim(n, input.shape[1], 'channel count');
  const K = staticDim(n, outGrad.shape[1], 'channel count');
  const split = nsp === 2 && geo.strides.every((s) => s === 1) && geo.kernel.every((k) => k > 1);
  if (split && C * geo.kernel[1] + K * geo.kernel[0] < C * kk)
    return convWeightGradRowsCols(input, outGrad, geo, C, K, out);
  const cols = im2col(input, geo.kernel, geo.strides, geo.dilations, geo.pads.slice(0, nsp), out); // [N, C·kk, O]
  const O = out.reduce((a, b) => a * b, 1);
  const colsG = o.reshape(cols, [0, G, (C / G) * kk, O]);
  const dyG = o.reshape(outGrad, [0, G, K / G, O]);
  return o.reshape(patchProduct(dyG, colsG), wShape as number[]); // [G, K/G, C/G·kk] → [K, C/G, k…]
}

/**
 * Weight gradient of a stride-1 2-D convolution with the kernel's row offsets taken on dy and its
 * column offsets on x: dW[k, c, i, j] = Σ_t,w dy[k, t − i·dH, w] · x[c, t − pT, w − pL + j·dW].
 * The two im2cols hold C·kW + K·kH channel copies instead of C·kH·kW (6 instead of 9 per channel for
 * a 3×3 layer with as many inputs as outputs), and the same single MatMul makes every (i, j) pair; on
 * these memory-bound machines the im2col traffic, not the MatMul, is what the plain form spends its
 * extra time on.
 */
function convWeightGradRowsCols(
  x: Tensor,
  dy: Tensor,
  geo: ConvGeometry,
  C: number,
  K: number,
  out: readonly number[],
): Tensor {
  const G = geo.groups;
  const [kH, kW] = geo.kernel;
  const [dH, dW] = geo.dilations;
  const rows = out[0] + (kH - 1) * dH; // every row t = h + i·dH some (output row, kernel row) pair reads
  const P = rows * out[1];
  // xCols[n, c·kW + j, t, w] = x[n, c, t − pT, w − pL + j·dW]
  const xCols = im2col(x, [1, kW], [1, 1], [1, dW], [geo.pads[0], geo.pads[1]], [rows, out[1]]);
  // dyRows[n, k·kH + r, t, w] = dy[n, k, t − (kH − 1 − r)·dH, w]: kernel row i = kH − 1 − r
  const dyRows = im2col(dy, [kH, 1], [1, 1], [dH, 1], [(kH - 1) * dH, 0], [rows, out[1]]);
  const prod = patchProduct(
    o.reshape(dyRows, [0, G, (K / G) * kH, P]),
    o.reshape(xCols, [0, G, (C / G) * kW, P]),
  );
  // [G, K/G·kH, C/G·kW] → [K, kH, C/G, kW] → rows back in kernel order → [K, C/G, kH, kW]
  let dw = o.reshape(prod, [K, kH, C / G, kW]);
  dw = o.slice(dw, [-1], [-Number.MAX_SAFE_INTEGER], [1], [-1]);
  return o.transpose(dw, [0, 2, 1, 3]);
}

/** Weight gradient of a transposed convolution: dW[c, k, i] = Σ x[n, c, p] · dy[n, k, p·s − pad + i·d]. */
export function convTransposeWeightGrad(
  n: Node,
  x: Tensor,
  dy: Tensor,
  geo: ConvGeometry,
  wShape: readonly Dim[],
): Tensor {
  // im2col of dy over x's positions.
  const nsp = geo.kernel.length;
  const inSp = staticSpatial(n, x);
  const G = geo.groups;
  const C = staticDim(n, x.shape[1], 'channel count');
  const K = staticDim(n, dy.shape[1], 'channel count');
  const kk = geo.kernel.reduce((a, v) => a * v, 1);
  const P = inSp.reduce((a, v) => a * v, 1);
  // Positions the output crop (end pads) removed get zero gradient: im2col pads them back with zeros.
  const cols = im2col(dy, geo.kernel, geo.strides, geo.dilations, geo.pads.slice(0, nsp), inSp); // [N, K·kk, P]
  const colsG = o.reshape(cols, [0, G, (K / G) * kk, P]);
  const xG = o.reshape(x, [0, G, C / G, P]);
  return o.reshape(patchProduct(xG, colsG), wShape as number[]);
}

/** Max pooling: recompute with indices (flat positions in x), then scatter-add the gradient there. */
export function maxPoolGrad(n: Node, x: Tensor, y: readonly Tensor[], dy: Tensor): Tensor {
  if (intAttr(n, 'ceil_mode', 0) !== 0 || intsAttr(n, 'dilations').some((d) => d !== 1)) {
    fail(n, 'gradient needs ceil_mode 0 and no dilation');
  }
  const indices =
    y.length > 1
      ? y[1]
      : o.maxPoolWithIndices(x, intsAttr(n, 'kernel_shape'), {
          stride: intsAttr(n, 'strides'),
          padding: intsAttr(n, 'pads'),
        })[1];
  const flatX = o.reshape(x, [-1]);
  const scattered = o.scatterElements(
    o.zerosLike(flatX),
    o.reshape(indices, [-1]),
    o.reshape(dy, [-1]),
    0,
    'add',
  );
  return o.reshapeLike(scattered, x);
}

/** Average pooling: a depthwise transposed convolution of dy with a constant 1/∏k (or 1/count) kernel. */
export function averagePoolGrad(n: Node, x: Tensor, dy0: Tensor): Tensor {
  if (intAttr(n, 'ceil_mode', 0) !== 0) fail(n, 'gradient needs ceil_mode 0');
  const kernel = intsAttr(n, 'kernel_shape');
  const nsp = kernel.length;
  const strides = intsAttr(n, 'strides').length ? intsAttr(n, 'strides') : new Array(nsp).fill(1);
  const pads = intsAttr(n, 'pads').length ? intsAttr(n, 'pads') : new Array(2 * nsp).fill(0);
  const C = staticDim(n, x.shape[1], 'channel count');
  const inSp = staticSpatial(n, x);
  const outSp = staticSpatial(n, dy0);
  const g = x.graph;
  const kk = kernel.reduce((a, b) => a * b, 1);
  let dy = dy0;
  let scale = 1 / kk;
  if (intAttr(n, 'count_include_pad', 0) === 0 && pads.some((p) => p > 0)) {
    // Divisors vary near the border: count the real elements under each window.
    const ones = g.constant(new Array(inSp.reduce((a, b) => a * b, 1)).fill(1), [1, 1, ...inSp], x.dtype);
    const k1 = g.constant(new Array(kk).fill(1), [1, 1, ...kernel], x.dtype);
    dy = o.div(dy, o.conv(ones, k1, null, { stride: strides, padding: pads }));
    scale = 1;
  }
  const w = g.constant(new Array(C * kk).fill(scale), [C, 1, ...kernel], x.dtype);
  const outPad = inSp.map((d, j) => d - ((outSp[j] - 1) * strides[j] + kernel[j] - pads[j] - pads[j + nsp]));
  return o.convTranspose(dy, w, null, { stride: strides, padding: pads, groups: C, outputPadding: outPad });
}

/** Nearest upsampling by integer factors: each input pixel was copied to an f1×f2… block, so sum the block. */
export function resizeGrad(n: Node, x: Tensor, scalesInput: Tensor | null, dy: Tensor): Tensor {
  if (
    stringAttr(n, 'mode', 'nearest') !== 'nearest' ||
    stringAttr(n, 'coordinate_transformation_mode', '') !== 'asymmetric'
  ) {
    fail(n, 'only nearest/asymmetric upsampling by integer factors has a gradient');
  }
  const scales = constValues(n, scalesInput, 'scales');
  const inSp = staticSpatial(n, x);
  const f = scales.slice(2).map((s) => Math.round(s));
  if (f.some((v, j) => v !== scales[j + 2])) fail(n, 'scales must be integers');
  const split: Dim[] = [0, 0];
  inSp.forEach((d, j) => split.push(d, f[j]));
  const blocks = o.reshape(dy, split);
  const axes = inSp.map((_, j) => 3 + 2 * j);
  return o.reduceSum(blocks, axes);
}
