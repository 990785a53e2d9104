// LZ4 decompression: the block format and the frame format (LZ4 Frame Format Description 1.6.x),
// as used by Arrow IPC's LZ4_FRAME buffer compression (Argoverse 2 feather files). Checksums
// (xxHash32) are verified when the frame carries them.

import { xxhash32 } from '../../core/xxhash32.ts';

export { xxhash32 };

export class Lz4Error extends Error {
  override name = 'Lz4Error';
}

/** A byte buffer that grows by doubling, so blocks can reference earlier blocks' output. */
interface Output {
  buf: Uint8Array;
  len: number;
}

function reserve(out: Output, extra: number): void {
  const need = out.len + extra;
  if (need <= out.buf.length) return;
  let cap = Math.max(out.buf.length * 2, 1024);
  while (cap < need) cap *= 2;
  const next = new Uint8Array(cap);
  next.set(out.buf.subarray(0, out.len));
  out.buf = next;
}

/**
 * Decode one LZ4 block (`src[start, end)`) onto the end of `out`. Matches may reach back into
 * earlier output (linked blocks) up to 64 KiB. `maxOut` bounds the block's decoded size.
 */
function decodeBlockInto(src: Uint8Array, start: number, end: number, out: Output, maxOut: number): void {
  let ip = start;
  const blockStart = out.len;
  reserve(out, Math.min(maxOut, (end - start) * 4 + 64));
  while (ip < end) {
    const token = src[ip++];
    let litLen = token >>> 4;
    if (litLen === 15) {
      let b: number;
      do {
        if (ip >= end) throw new Lz4Error('literal length runs past the end of the block');
        b = src[ip++];
        litLen += b;
      } while (b === 255);
    }
    if (ip + litLen > end) throw new Lz4Error('literals run past the end of the block');
    if (out.len - blockStart + litLen > maxOut)
      throw new Lz4Error(`block decodes to more than ${maxOut} bytes`);
    reserve(out, litLen);
    out.buf.set(src.subarray(ip, ip + litLen), out.len);
    out.len += litLen;
    ip += litLen;
    if (ip >= end) break; // the last sequence has literals only
    if (ip + 2 > end) throw new Lz4Error('match offset runs past the end of the block');
    const offset = src[ip] | (src[ip + 1] << 8);
    ip += 2;
    if (offset === 0 || offset > out.len) throw new Lz4Error(`invalid match offset ${offset}`);
    let matchLen = token & 15;
    if (matchLen === 15) {
      let b: number;
      do {
        if (ip >= end) throw new Lz4Error('match length runs past the end of the block');
        b = src[ip++];
        matchLen += b;
      } while (b === 255);
    }
    matchLen += 4;
    if (out.len - blockStart + matchLen > maxOut)
      throw new Lz4Error(`block decodes to more than ${maxOut} bytes`);
    reserve(out, matchLen);
    const buf = out.buf;
    let op = out.len;
    let ref = op - offset;
    if (offset >= matchLen) {
      buf.copyWithin(op, ref, ref + matchLen);
      op += matchLen;
    } else {
      // Overlapping copy (a repeated pattern): byte by byte.
      for (let k = 0; k < matchLen; k++) buf[op++] = buf[ref++];
    }
    out.len = op;
  }
}

/** Decompress a raw LZ4 block whose decoded size is at most `maxOut` bytes. */
export function lz4BlockDecompress(src: Uint8Array, maxOut: number): Uint8Array {
  const out: Output = { buf: new Uint8Array(Math.max(16, Math.min(maxOut, src.length * 4))), len: 0 };
  decodeBlockInto(src, 0, src.length, out, maxOut);
  return out.buf.slice(0, out.len);
}

const FRAME_MAGIC = 0x184d2204;
const BLOCK_MAX_BYTES = [0, 0, 0, 0, 64 << 10, 256 << 10, 1 << 20, 4 << 20];

const readU32 = (b: Uint8Array, i: number) =>
  (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24)) >>> 0;

/** Decompress one or more concatenated LZ4 frames (skippable frames are skipped). */
export function lz4FrameDecompress(src: Uint8Array): Uint8Array {
  const out: Output = { buf: new Uint8Array(Math.max(1024, src.length * 3)), len: 0 };
  let ip = 0;
  while (ip < src.length) {
    if (ip + 4 > src.length) throw new Lz4Error('truncated frame magic');
    const magic = readU32(src, ip);
    if ((magic & 0xfffffff0) === 0x184d2a50) {
      if (ip + 8 > src.length) throw new Lz4Error('truncated skippable frame');
      ip += 8 + readU32(src, ip + 4);
      continue;
    }
    if (magic !== FRAME_MAGIC) throw new Lz4Error(`bad frame magic 0x${magic.toString(16)}`);
    ip = decodeFrame(src, ip + 4, out);
  }
  return out.buf.slice(0, out.len);
}

function decodeFrame(src: Uint8Array, start: number, out: Output): number {
  let ip = start;
  if (ip + 3 > src.length) throw new Lz4Error('truncated frame descriptor');
  const flg = src[ip];
  const bd = src[ip + 1];
  if (flg >> 6 !== 1) throw new Lz4Error(`unsupported frame version ${flg >> 6}`);
  const blockChecksum = (flg & 0x10) !== 0;
  const hasContentSize = (flg & 0x08) !== 0;
  const contentChecksum = (flg & 0x04) !== 0;
  const hasDictId = (flg & 0x01) !== 0;
  const blockMax = BLOCK_MAX_BYTES[(bd >> 4) & 7];
  if (!blockMax) throw new Lz4Error(`invalid block maximum size code ${(bd >> 4) & 7}`);
  const descEnd = ip + 2 + (hasContentSize ? 8 : 0) + (hasDictId ? 4 : 0);
  if (descEnd + 1 > src.length) throw new Lz4Error('truncated frame descriptor');
  if (hasDictId) throw new Lz4Error('frames with a dictionary are not supported');
  const headerCheck = (xxhash32(src, ip, descEnd) >>> 8) & 0xff;
  if (headerCheck !== src[descEnd]) throw new Lz4Error('frame descriptor checksum mismatch');
  const frameStart = out.len;
  if (hasContentSize) {
    // Little-endian uint64; sizes beyond 2^53 are not decodable here anyway.
    const size = readU32(src, ip + 2) + readU32(src, ip + 6) * 2 ** 32;
    reserve(out, size);
  }
  ip = descEnd + 1;
  for (;;) {
    if (ip + 4 > src.length) throw new Lz4Error('truncated block header');
    const word = readU32(src, ip);
    ip += 4;
    if (word === 0) break; // EndMark
    const size = word & 0x7fffffff;
    if (ip + size + (blockChecksum ? 4 : 0) > src.length) throw new Lz4Error('truncated block');
    if (blockChecksum && xxhash32(src, ip, ip + size) !== readU32(src, ip + size))
      throw new Lz4Error('block checksum mismatch');
    if (word & 0x80000000) {
      if (size > blockMax) throw new Lz4Error(`stored block of ${size} bytes exceeds ${blockMax}`);
      reserve(out, size);
      out.buf.set(src.subarray(ip, ip + size), out.len);
      out.len += size;
    } else {
      decodeBlockInto(src, ip, ip + size, out, blockMax);
    }
    ip += size + (blockChecksum ? 4 : 0);
  }
  if (contentChecksum) {
    if (ip + 4 > src.length) throw new Lz4Error('truncated content checksum');
    if (xxhash32(out.buf, frameStart, out.len) !== readU32(src, ip))
      throw new Lz4Error('content checksum mismatch');
    ip += 4;
  }
  return ip;
}
