// Hashed sparse voxel grid: packed integer voxel coordinates → dense ids by open addressing, the index
// behind linear-time clustering (cluster.ts, dbscan.ts); a key packs 12 bits each of x and y and 8 of z.
/** Offsets of the packed coordinates: |ix|, |iy| < VOXEL_XY_OFF − 1 and |iz| < VOXEL_Z_OFF − 1 fit a key. */
export const VOXEL_XY_OFF = 2048;
export const VOXEL_Z_OFF = 128;

export function packVoxelKey(ix: number, iy: number, iz: number): number {
  return (ix + VOXEL_XY_OFF) | ((iy + VOXEL_XY_OFF) << 12) | ((iz + VOXEL_Z_OFF) << 24) | 0;
}

/** Open-addressing hash from packed voxel key to a dense voxel id; doubles when half full. */
export class VoxelTable {
  private keys: Int32Array;
  private ids: Int32Array;
  private mask: number;
  size = 0;

  constructor(capacity = 4096) {
    this.keys = new Int32Array(capacity);
    this.ids = new Int32Array(capacity).fill(-1);
    this.mask = capacity - 1;
  }

  private slot(key: number): number {
    return (Math.imul(key, 0x9e3779b1) >>> 11) & this.mask;
  }

  /** Id of the key, inserting it (with the next id) if new. */
  insert(key: number): number {
    let h = this.slot(key);
    for (;;) {
      const id = this.ids[h];
      if (id < 0) {
        this.keys[h] = key;
        this.ids[h] = this.size;
        if (2 * ++this.size > this.keys.length) this.grow();
        return this.size - 1;
      }
      if (this.keys[h] === key) return id;
      h = (h + 1) & this.mask;
    }
  }

  /** Id of the key, or −1. */
  find(key: number): number {
    let h = this.slot(key);
    for (;;) {
      const id = this.ids[h];
      if (id < 0 || this.keys[h] === key) return id;
      h = (h + 1) & this.mask;
    }
  }

  private grow(): void {
    const oldKeys = this.keys;
    const oldIds = this.ids;
    this.keys = new Int32Array(2 * oldKeys.length);
    this.ids = new Int32Array(2 * oldKeys.length).fill(-1);
    this.mask = this.keys.length - 1;
    for (let i = 0; i < oldKeys.length; i++) {
      if (oldIds[i] < 0) continue;
      let h = this.slot(oldKeys[i]);
      while (this.ids[h] >= 0) h = (h + 1) & this.mask;
      this.keys[h] = oldKeys[i];
      this.ids[h] = oldIds[i];
    }
  }
}
