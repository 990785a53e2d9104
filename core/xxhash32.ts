// xxHash32 (Yann Collet's non-cryptographic hash): the checksum of LZ4 frames (descriptor, blocks, content).
// Follows the xxHash specification (XXH32), seed 0 unless given.

const readU32 = (b: Uint8Array, i: number) =>
  (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0;

const P1 = 2654435761;
const P2 = 2246822519;
const P3 = 3266489917;
const P4 = 668265263;
const P5 = 374761393;
const rotl = (x: number, r: number) => (x << r) | (x >>> (32 - r));

/** xxHash32 (seed 0) of `b[start, end)`. */
export function xxhash32(b: Uint8Array, start = 0, end = b.length, seed = 0): number {
  let i = start;
  let h: number;
  if (end - start >= 16) {
    let v1 = (seed + P1 + P2) | 0;
    let v2 = (seed + P2) | 0;
    let v3 = seed | 0;
    let v4 = (seed - P1) | 0;
    const limit = end - 16;
    while (i <= limit) {
      v1 = Math.imul(rotl((v1 + Math.imul(readU32(b, i), P2)) | 0, 13), P1);
      v2 = Math.imul(rotl((v2 + Math.imul(readU32(b, i + 4), P2)) | 0, 13), P1);
      v3 = Math.imul(rotl((v3 + Math.imul(readU32(b, i + 8), P2)) | 0, 13), P1);
      v4 = Math.imul(rotl((v4 + Math.imul(readU32(b, i + 12), P2)) | 0, 13), P1);
      i += 16;
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0;
  } else {
    h = (seed + P5) | 0;
  }
  h = (h + (end - start)) | 0;
  while (i + 4 <= end) {
    h = Math.imul(rotl((h + Math.imul(readU32(b, i), P3)) | 0, 17), P4);
    i += 4;
  }
  while (i < end) {
    h = Math.imul(rotl((h + Math.imul(b[i], P5)) | 0, 11), P1);
    i++;
  }
  h = Math.imul(h ^ (h >>> 15), P2);
  h = Math.imul(h ^ (h >>> 13), P3);
  return (h ^ (h >>> 16)) >>> 0;
}
