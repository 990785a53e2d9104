// Static shapes with symbolic dimensions: a dimension is a number, a named symbol ('batch') or an
// unknown ('?12'); numpy/ONNX broadcasting rules and the shape errors that name the failing op.

/** A dimension: a size, a named symbol like 'batch', or an unknown written '?<n>'. */
export type Dim = number | string;
export type Shape = readonly Dim[];

/** Thrown while building a graph when an op gets inputs of the wrong shape or type. */
export class ShapeError extends Error {
  override name = 'ShapeError';
}

let unknownCounter = 0;

/** A fresh unknown dimension (its size is decided at run time). */
export function unknownDim(): string {
  return `?${++unknownCounter}`;
}

export function isUnknown(d: Dim): boolean {
  return typeof d === 'string' && d.startsWith('?');
}

export function isStaticShape(s: Shape): s is readonly number[] {
  return s.every((d) => typeof d === 'number');
}

export function fmtShape(s: Shape): string {
  return `[${s.join(',')}]`;
}

/** Number of elements, or null when some dimension is symbolic. */
export function numel(s: Shape): number | null {
  let n = 1;
  for (const d of s) {
    if (typeof d !== 'number') return null;
    n *= d;
  }
  return n;
}

/** Could two dimensions be equal at run time? (Unknowns match anything; two named symbols only themselves.) */
export function dimsCompatible(a: Dim, b: Dim): boolean {
  if (a === b) return true;
  if (isUnknown(a) || isUnknown(b)) return true;
  if (typeof a === 'string' || typeof b === 'string') return true; // a symbol may take any size
  return false;
}

/** Normalise a possibly negative axis for a tensor of `rank`; throws naming the op. */
export function normAxis(op: string, axis: number, rank: number): number {
  const a = axis < 0 ? axis + rank : axis;
  if (!Number.isInteger(a) || a < 0 || a >= rank) {
    throw new ShapeError(`${op}: axis ${axis} is out of range for rank ${rank}`);
  }
  return a;
}

/** Multidirectional (numpy) broadcasting of several shapes; throws naming the op. */
export function broadcastShapes(op: string, shapes: Shape[]): Dim[] {
  const rank = Math.max(...shapes.map((s) => s.length));
  const out: Dim[] = [];
  for (let i = 0; i < rank; i++) {
    let d: Dim = 1;
    for (const s of shapes) {
      const k = i - (rank - s.length);
      if (k < 0) continue;
      const e = s[k];
      if (e === 1) continue;
      if (d === 1) d = e;
      else if (d !== e) {
        if (typeof d === 'number' && typeof e === 'number') {
          throw new ShapeError(`${op}: shapes ${shapes.map(fmtShape).join(' and ')} do not broadcast`);
        }
        // A number beats a symbol (the symbol must be 1 or that number); two symbols stay unknown.
        if (typeof e === 'number') d = e;
        else if (typeof d !== 'number') d = isUnknown(d) ? e : isUnknown(e) ? d : unknownDim();
      }
    }
    out.push(d);
  }
  return out;
}

/** Product of the dims when all are static (or all but one are 1), else a fresh unknown. */
export function productDim(dims: readonly Dim[]): Dim {
  const rest = dims.filter((d) => d !== 1);
  if (rest.length === 1) return rest[0];
  const n = numel(dims);
  return n === null ? unknownDim() : n;
}

export function sameShape(a: Shape, b: Shape): boolean {
  return a.length === b.length && a.every((d, i) => d === b[i]);
}
