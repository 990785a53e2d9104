// LZF (liblzf, Marc Lehmann) decompression and a simple compressor: the codec of PCD
// `DATA binary_compressed`. Format: control byte < 32 = literal run of ctrl+1 bytes; otherwise a
// back-reference of length (ctrl>>5)+2 (7 → plus the next byte) at distance ((ctrl&31)<<8 | next)+1.

/** Thrown for a stream that does not decode to exactly the expected length. */
export class LzfError extends Error {
  override name = 'LzfError';
}

/** Decompress an LZF stream whose decompressed size is known (PCD stores it in its header). */
export function lzfDecompress(input: Uint8Array, outLength: number): Uint8Array {
  const out = new Uint8Array(outLength);
  let ip = 0;
  let op = 0;
  const inEnd = input.length;
  while (ip < inEnd) {
    const ctrl = input[ip++];
    if (ctrl < 32) {
      const run = ctrl + 1;
      if (ip + run > inEnd) throw new LzfError(`literal run of ${run} bytes passes the end of the input`);
      if (op + run > outLength) throw new LzfError(`output exceeds the expected ${outLength} bytes`);
      out.set(input.subarray(ip, ip + run), op);
      ip += run;
      op += run;
    } else {
      let len = ctrl >> 5;
      if (len === 7) {
        if (ip >= inEnd) throw new LzfError('back-reference length passes the end of the input');
        len += input[ip++];
      }
      len += 2;
      if (ip >= inEnd) throw new LzfError('back-reference distance passes the end of the input');
      const ref = op - (((ctrl & 0x1f) << 8) | input[ip++]) - 1;
      if (ref < 0) throw new LzfError(`back-reference points ${-ref} bytes before the start of the output`);
      if (op + len > outLength) throw new LzfError(`output exceeds the expected ${outLength} bytes`);
      // Byte by byte: a reference may overlap the bytes it produces (run-length style).
      for (let k = 0; k < len; k++) out[op + k] = out[ref + k];
      op += len;
    }
  }
  if (op !== outLength) throw new LzfError(`decompressed to ${op} bytes, expected ${outLength}`);
  return out;
}

const HASH_BITS = 14;
const MAX_LITERAL = 32;
const MAX_OFFSET = 1 << 13;
const MAX_REF = (1 << 8) + (1 << 3); // 264: longest back-reference LZF can express

/** Compress with a greedy single-entry hash of 3-byte prefixes (what PCD writers need; not tuned). */
export function lzfCompress(input: Uint8Array): Uint8Array {
  const n = input.length;
  // Worst case: every 32 bytes of input cost one control byte.
  const out = new Uint8Array(n + Math.ceil(n / MAX_LITERAL) + 1);
  const table = new Int32Array(1 << HASH_BITS).fill(-1);
  let op = 0;
  let litStart = 0;
  const flushLiterals = (end: number) => {
    while (litStart < end) {
      const run = Math.min(MAX_LITERAL, end - litStart);
      out[op++] = run - 1;
      out.set(input.subarray(litStart, litStart + run), op);
      op += run;
      litStart += run;
    }
  };
  let ip = 0;
  while (ip + 2 < n) {
    const v = (input[ip] << 16) | (input[ip + 1] << 8) | input[ip + 2];
    const h = (Math.imul(v, 2654435761) >>> (32 - HASH_BITS)) & ((1 << HASH_BITS) - 1);
    const ref = table[h];
    table[h] = ip;
    const off = ip - ref - 1;
    if (
      ref >= 0 &&
      off < MAX_OFFSET &&
      input[ref] === input[ip] &&
      input[ref + 1] === input[ip + 1] &&
      input[ref + 2] === input[ip + 2]
    ) {
      let len = 3;
      const maxLen = Math.min(MAX_REF, n - ip);
      while (len < maxLen && input[ref + len] === input[ip + len]) len++;
      flushLiterals(ip);
      const l = len - 2;
      if (l < 7) {
        out[op++] = (l << 5) | (off >> 8);
      } else {
        out[op++] = (7 << 5) | (off >> 8);
        out[op++] = l - 7;
      }
      out[op++] = off & 0xff;
      ip += len;
      litStart = ip;
    } else {
      ip++;
    }
  }
  flushLiterals(n);
  return out.slice(0, op);
}
