// LZ4 compression into the frame format (independent 4 MiB blocks, no checksums beyond the descriptor's):
// what MCAP's `lz4` chunk compression holds. Follows the LZ4 Block and Frame Format Descriptions (1.6.x).
import { xxhash32 } from './xxhash32.ts';

const MIN_MATCH = 4;
/** The block format's end rules: the last 5 bytes are literals, the last match starts 12 bytes before the end. */
const LAST_LITERALS = 5;
const MF_LIMIT = 12;
const MAX_OFFSET = 65535;
const HASH_LOG = 16;
const BLOCK_BYTES = 4 << 20;
/** Misses before the search step grows by one byte (LZ4's skip strength): incompressible data passes fast. */
const SKIP_STRENGTH = 6;

const read32 = (b: Uint8Array, i: number) => b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);

/** Bytes that always hold the compressed form of `n` input bytes (the format's worst case). */
const bound = (n: number) => n + Math.ceil(n / 255) + 16;

function writeLength(dst: Uint8Array, dp: number, n: number): number {
  while (n >= 255) {
    dst[dp++] = 255;
    n -= 255;
  }
  dst[dp++] = n;
  return dp;
}

/** One sequence: literals `src[lit, lit + litLen)`, then a match of `matchLen` at `offset` (0: none, the last). */
function writeSequence(
  src: Uint8Array,
  lit: number,
  litLen: number,
  offset: number,
  matchLen: number,
  dst: Uint8Array,
  dp: number,
): number {
  const ml = matchLen - MIN_MATCH;
  const token = dp++;
  dst[token] = (Math.min(litLen, 15) << 4) | (offset ? Math.min(ml, 15) : 0);
  if (litLen >= 15) dp = writeLength(dst, dp, litLen - 15);
  // Short runs (most of them on float data) by hand: a subarray per sequence costs more than the copy.
  if (litLen < 64) for (let k = 0; k < litLen; k++) dst[dp + k] = src[lit + k];
  else dst.set(src.subarray(lit, lit + litLen), dp);
  dp += litLen;
  if (!offset) return dp;
  dst[dp++] = offset & 0xff;
  dst[dp++] = offset >>> 8;
  if (ml >= 15) dp = writeLength(dst, dp, ml - 15);
  return dp;
}

/** Compress `src[start, end)` as one independent block into `dst` at `dp`; returns the end of the output. */
function compressBlock(
  src: Uint8Array,
  start: number,
  end: number,
  table: Int32Array,
  dst: Uint8Array,
  dp: number,
) {
  table.fill(-1);
  let anchor = start;
  let ip = start;
  const matchLimit = end - LAST_LITERALS;
  const mfLimit = end - MF_LIMIT;
  let misses = 0;
  while (ip < mfLimit) {
    const seq = read32(src, ip);
    const h = Math.imul(seq, 2654435761) >>> (32 - HASH_LOG);
    let ref = table[h];
    table[h] = ip;
    if (ref < start || ip - ref > MAX_OFFSET || read32(src, ref) !== seq) {
      ip += 1 + (misses++ >> SKIP_STRENGTH);
      continue;
    }
    misses = 0;
    // Grow the match backwards over pending literals, then forwards up to the last-literals margin.
    while (ip > anchor && ref > start && src[ip - 1] === src[ref - 1]) {
      ip--;
      ref--;
    }
    let len = MIN_MATCH;
    while (ip + len < matchLimit && src[ip + len] === src[ref + len]) len++;
    dp = writeSequence(src, anchor, ip - anchor, ip - ref, len, dst, dp);
    ip += len;
    anchor = ip;
  }
  return writeSequence(src, anchor, end - anchor, 0, 0, dst, dp);
}

/** `src` as one LZ4 frame (version 01, independent blocks of at most 4 MiB; a block that does not shrink is stored). */
export function lz4FrameCompress(src: Uint8Array): Uint8Array {
  const blocks = Math.max(1, Math.ceil(src.length / BLOCK_BYTES));
  const out = new Uint8Array(7 + blocks * 4 + bound(src.length) + blocks * 16 + 4);
  const view = new DataView(out.buffer);
  view.setUint32(0, 0x184d2204, true);
  out[4] = 0x60; // FLG: version 01, block independence
  out[5] = 0x70; // BD: block maximum size 4 MiB
  out[6] = (xxhash32(out, 4, 6) >>> 8) & 0xff;
  let dp = 7;
  const table = new Int32Array(1 << HASH_LOG);
  for (let start = 0; start < src.length; start += BLOCK_BYTES) {
    const end = Math.min(src.length, start + BLOCK_BYTES);
    const head = dp;
    const after = compressBlock(src, start, end, table, out, head + 4);
    const size = after - head - 4;
    if (size < end - start) {
      view.setUint32(head, size, true);
      dp = after;
    } else {
      view.setUint32(head, (end - start) | 0x80000000, true);
      out.set(src.subarray(start, end), head + 4);
      dp = head + 4 + (end - start);
    }
  }
  view.setUint32(dp, 0, true); // EndMark
  return out.slice(0, dp + 4);
}
