// An open-addressing hash table from integer voxel coordinates (ix, iy, iz) to an int32 value, over typed
// arrays (linear probing, Teschner et al. 2003 spatial hash): the voxel lookups of odometry's hot loops.

const EMPTY = -1;

export class Int3Table {
  private keys: Int32Array;
  private values: Int32Array;
  private mask: number;
  private used = 0;

  constructor(expected = 1024) {
    let cap = 16;
    while (cap < expected * 2) cap *= 2;
    this.keys = new Int32Array(cap * 3);
    this.values = new Int32Array(cap).fill(EMPTY);
    this.mask = cap - 1;
  }

  get size(): number {
    return this.used;
  }

  private static hash(ix: number, iy: number, iz: number): number {
    return (Math.imul(ix, 73856093) ^ Math.imul(iy, 19349663) ^ Math.imul(iz, 83492791)) >>> 0;
  }

  /** The value stored for the voxel, or −1. */
  get(ix: number, iy: number, iz: number): number {
    const keys = this.keys;
    const values = this.values;
    let s = Int3Table.hash(ix, iy, iz) & this.mask;
    for (;;) {
      const v = values[s];
      if (v === EMPTY) return EMPTY;
      const k = 3 * s;
      if (keys[k] === ix && keys[k + 1] === iy && keys[k + 2] === iz) return v;
      s = (s + 1) & this.mask;
    }
  }

  /** The stored value if present, else store `value` (≥ 0) and return −1. */
  getOrInsert(ix: number, iy: number, iz: number, value: number): number {
    if (2 * (this.used + 1) > this.values.length) this.grow();
    const keys = this.keys;
    const values = this.values;
    let s = Int3Table.hash(ix, iy, iz) & this.mask;
    for (;;) {
      const v = values[s];
      const k = 3 * s;
      if (v === EMPTY) {
        keys[k] = ix;
        keys[k + 1] = iy;
        keys[k + 2] = iz;
        values[s] = value;
        this.used++;
        return EMPTY;
      }
      if (keys[k] === ix && keys[k + 1] === iy && keys[k + 2] === iz) return v;
      s = (s + 1) & this.mask;
    }
  }

  /** Forget every entry, keeping the allocation. */
  clear(): void {
    this.values.fill(EMPTY);
    this.used = 0;
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldValues = this.values;
    const cap = oldValues.length * 2;
    this.keys = new Int32Array(cap * 3);
    this.values = new Int32Array(cap).fill(EMPTY);
    this.mask = cap - 1;
    this.used = 0;
    for (let s = 0; s < oldValues.length; s++) {
      if (oldValues[s] !== EMPTY)
        this.getOrInsert(oldKeys[3 * s], oldKeys[3 * s + 1], oldKeys[3 * s + 2], oldValues[s]);
    }
  }
}
