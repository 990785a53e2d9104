// The values the pickle reader builds: Python's plain data (tuples and sets told apart from lists, dicts
// as Maps), numpy arrays, and the whitelisted globals and dtypes met while an array is rebuilt.
import type { NdArray } from './numpyArray.ts';

export class PyTuple {
  constructor(readonly items: PyValue[]) {}
}

export class PySet {
  constructor(readonly items: PyValue[]) {}
}

/** A Python dict; keys are primitives (tuple keys are turned into their JSON text). */
export type PyDict = Map<PyKey, PyValue>;
export type PyKey = string | number | boolean | null;

export type PyValue =
  | null
  | boolean
  | number
  | string
  | Uint8Array
  | PyValue[]
  | PyTuple
  | PySet
  | PyDict
  | NdArray
  | PyGlobal
  | NumpyDtype;

/** A whitelisted global, pushed by GLOBAL / STACK_GLOBAL and only usable where the whitelist allows. */
export class PyGlobal {
  constructor(
    readonly module: string,
    readonly name: string,
  ) {}
}

/** numpy.dtype(...) under construction: the type code, then the byte order from BUILD. */
export class NumpyDtype {
  constructor(
    public code: string,
    public order = '=',
  ) {}
  /** The array-interface string ('<f4', '|b1', …); native order is taken as little-endian. */
  get str(): string {
    const single = this.code === 'b1' || this.code === 'u1' || this.code === 'i1' || this.code === 'O';
    const order = single ? '|' : this.order === '>' ? '>' : '<';
    return order + this.code;
  }
}
