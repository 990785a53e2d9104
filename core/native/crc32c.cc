// CRC32C with the CPU's own instructions, as a Node-API addon: carry-less multiply folding of 256-byte
// blocks where AVX-512 VPCLMULQDQ exists (Intel's "Fast CRC Computation Using PCLMULQDQ"), then the
// `crc32` instruction (SSE4.2; ARMv8's CRC extension) on three interleaved streams, after Mark Adler's
// crc32c.c.
#include <node_api.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__x86_64__)
#include <nmmintrin.h>
#define CRC_TARGET __attribute__((target("sse4.2")))
CRC_TARGET static inline uint64_t crcWord(uint64_t c, uint64_t w) { return _mm_crc32_u64(c, w); }
CRC_TARGET static inline uint32_t crcByte(uint32_t c, uint8_t b) { return _mm_crc32_u8(c, b); }
static bool cpuHasCrc() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("sse4.2");
}
#include <immintrin.h>
#define HAVE_FOLD 1
static bool cpuHasFold() {
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("vpclmulqdq") &&
         __builtin_cpu_supports("pclmul");
}
#elif defined(__aarch64__)
#include <arm_acle.h>
#include <sys/auxv.h>
#define CRC_TARGET __attribute__((target("+crc")))
CRC_TARGET static inline uint64_t crcWord(uint64_t c, uint64_t w) { return __crc32cd((uint32_t)c, w); }
CRC_TARGET static inline uint32_t crcByte(uint32_t c, uint8_t b) { return __crc32cb(c, b); }
static bool cpuHasCrc() { return (getauxval(AT_HWCAP) & (1 << 7)) != 0; }  // HWCAP_CRC32
#else
#error "drivekit's native CRC32C needs x86-64 or AArch64; the TypeScript CRC32C runs elsewhere"
#endif

static const uint32_t POLY = 0x82f63b78;
// Each of the three streams covers LONG (or SHORT) bytes; the register of an earlier stream is moved
// past the later ones' bytes with a zero-shift operator applied a byte at a time (4 tables of 256).
static const size_t LONG = 8192, SHORT = 256;
static uint32_t longShift[4][256], shortShift[4][256];

static uint32_t gf2Times(const uint32_t *mat, uint32_t vec) {
  uint32_t sum = 0;
  for (; vec; vec >>= 1, mat++)
    if (vec & 1) sum ^= *mat;
  return sum;
}

static void gf2Square(uint32_t *out, const uint32_t *mat) {
  for (int n = 0; n < 32; n++) out[n] = gf2Times(mat, mat[n]);
}

// The operator "append `bytes` zero bytes" as byte tables: table k maps byte k of the register.
static void zeroShiftTables(uint32_t table[4][256], size_t bytes) {
  uint32_t op[32], tmp[32];
  op[0] = POLY;  // one zero bit
  for (int n = 1; n < 32; n++) op[n] = 1u << (n - 1);
  gf2Square(tmp, op);  // two bits
  gf2Square(op, tmp);  // four bits
  // op now shifts by 4 bits; square up through the bits of `bytes`, starting at one byte.
  uint32_t acc[32];
  bool have = false;
  for (size_t len = bytes;;) {
    gf2Square(tmp, op);
    memcpy(op, tmp, sizeof op);  // op shifts by 8·2^k bits
    if (len & 1) {
      if (!have) {
        memcpy(acc, op, sizeof acc);
        have = true;
      } else {
        uint32_t next[32];
        for (int n = 0; n < 32; n++) next[n] = gf2Times(op, acc[n]);
        memcpy(acc, next, sizeof acc);
      }
    }
    len >>= 1;
    if (!len) break;
  }
  for (uint32_t b = 0; b < 256; b++)
    for (int k = 0; k < 4; k++) table[k][b] = gf2Times(acc, b << (8 * k));
}

static inline uint32_t shift(const uint32_t table[4][256], uint32_t c) {
  return table[0][c & 0xff] ^ table[1][(c >> 8) & 0xff] ^ table[2][(c >> 16) & 0xff] ^ table[3][c >> 24];
}

static inline uint64_t load64(const uint8_t *p) {
  uint64_t w;
  memcpy(&w, p, 8);
  return w;
}

// Three streams of `block` bytes each in parallel (the instruction's latency is three times its
// throughput), then one register again.
CRC_TARGET static inline const uint8_t *threeWay(const uint8_t *p, uint64_t &c, size_t block,
                                                 const uint32_t table[4][256]) {
  uint64_t c1 = 0, c2 = 0;
  const uint8_t *end = p + block;
  do {
    c = crcWord(c, load64(p));
    c1 = crcWord(c1, load64(p + block));
    c2 = crcWord(c2, load64(p + 2 * block));
    p += 8;
  } while (p < end);
  c = shift(table, (uint32_t)c) ^ c1;
  c = shift(table, (uint32_t)c) ^ c2;
  return p + 2 * block;
}

#ifdef HAVE_FOLD
// x^n mod P, bit-reflected (x^0 is the top bit): the folding constants.
static uint32_t xPowModP(uint32_t n) {
  uint32_t a = 0x80000000u;
  while (n--) a = (a >> 1) ^ ((a & 1) ? POLY : 0);
  return a;
}

// A 128-bit lane moved `bytes` further on: its low half (earlier bytes) times x^(8·bytes+31), its high
// half times x^(8·bytes−33), both mod P, as one 128-bit constant per lane.
static __m128i foldConstants(uint32_t bytes) {
  return _mm_set_epi64x(xPowModP(8 * bytes - 33), xPowModP(8 * bytes + 31));
}

static __m128i fold16, fold64, fold256;
static bool useFold = false;

#define FOLD_TARGET __attribute__((target("avx512f,avx512vl,vpclmulqdq,pclmul,sse4.2")))

FOLD_TARGET static inline __m512i fold512(__m512i x, __m512i k, __m512i next) {
  return _mm512_ternarylogic_epi64(_mm512_clmulepi64_epi128(x, k, 0x00), _mm512_clmulepi64_epi128(x, k, 0x11),
                                   next, 0x96);  // three-way xor
}

FOLD_TARGET static inline __m128i fold128(__m128i x, __m128i k, __m128i next) {
  return _mm_xor_si128(_mm_xor_si128(_mm_clmulepi64_si128(x, k, 0x00), _mm_clmulepi64_si128(x, k, 0x11)), next);
}

// The raw register `c` carried through whole 256-byte blocks (n ≥ 256): four 512-bit accumulators folded
// forward, then reduced to one lane, whose 16 bytes the crc32 instruction turns back into a register.
FOLD_TARGET static uint64_t foldBlocks(uint64_t c, const uint8_t *&p, size_t &n) {
  __m512i x0 = _mm512_xor_si512(_mm512_loadu_si512(p), _mm512_zextsi128_si512(_mm_cvtsi32_si128((int)c)));
  __m512i x1 = _mm512_loadu_si512(p + 64), x2 = _mm512_loadu_si512(p + 128), x3 = _mm512_loadu_si512(p + 192);
  p += 256, n -= 256;
  const __m512i k256 = _mm512_broadcast_i32x4(fold256);
  for (; n >= 256; p += 256, n -= 256) {
    x0 = fold512(x0, k256, _mm512_loadu_si512(p));
    x1 = fold512(x1, k256, _mm512_loadu_si512(p + 64));
    x2 = fold512(x2, k256, _mm512_loadu_si512(p + 128));
    x3 = fold512(x3, k256, _mm512_loadu_si512(p + 192));
  }
  const __m512i k64 = _mm512_broadcast_i32x4(fold64);
  x3 = fold512(fold512(fold512(x0, k64, x1), k64, x2), k64, x3);
  __m128i r = _mm512_extracti32x4_epi32(x3, 0);
  r = fold128(r, fold16, _mm512_extracti32x4_epi32(x3, 1));
  r = fold128(r, fold16, _mm512_extracti32x4_epi32(x3, 2));
  r = fold128(r, fold16, _mm512_extracti32x4_epi32(x3, 3));
  return crcWord(crcWord(0, (uint64_t)_mm_cvtsi128_si64(r)), (uint64_t)_mm_extract_epi64(r, 1));
}
#endif

CRC_TARGET static uint32_t crc32c(uint32_t crc, const uint8_t *p, size_t n) {
  uint64_t c = ~crc & 0xffffffffu;
#ifdef HAVE_FOLD
  if (useFold && n >= 1024) c = foldBlocks(c, p, n);
#endif
  while (n && ((uintptr_t)p & 7)) c = crcByte((uint32_t)c, *p++), n--;
  while (n >= 3 * LONG) p = threeWay(p, c, LONG, longShift), n -= 3 * LONG;
  while (n >= 3 * SHORT) p = threeWay(p, c, SHORT, shortShift), n -= 3 * SHORT;
  for (; n >= 8; n -= 8, p += 8) c = crcWord(c, load64(p));
  while (n) c = crcByte((uint32_t)c, *p++), n--;
  return ~(uint32_t)c;
}

// The bytes of a Uint8Array argument; false (with a JavaScript TypeError pending) for anything else.
static bool bytesOf(napi_env env, napi_value value, const uint8_t **data, size_t *length) {
  bool isView = false;
  napi_typedarray_type type;
  napi_value buffer;
  size_t offset = 0;
  if (napi_is_typedarray(env, value, &isView) != napi_ok || !isView ||
      napi_get_typedarray_info(env, value, &type, length, (void **)data, &buffer, &offset) != napi_ok ||
      type != napi_uint8_array) {
    napi_throw_type_error(env, nullptr, "crc32c: expected a Uint8Array");
    return false;
  }
  return true;
}

static bool args(napi_env env, napi_callback_info info, napi_value *bytes, uint32_t *crc) {
  size_t argc = 2;
  napi_value argv[2];
  napi_get_cb_info(env, info, &argc, argv, nullptr, nullptr);
  if (argc < 1) {
    napi_throw_type_error(env, nullptr, "crc32c: expected a Uint8Array");
    return false;
  }
  *bytes = argv[0];
  *crc = 0;
  if (argc > 1 && napi_get_value_uint32(env, argv[1], crc) != napi_ok) {
    napi_throw_type_error(env, nullptr, "crc32c: the running crc must be a number");
    return false;
  }
  return true;
}

// crc32c(bytes: Uint8Array, crc: number) → number (unsigned)
static napi_value Crc32c(napi_env env, napi_callback_info info) {
  napi_value bytes, out;
  uint32_t crc;
  const uint8_t *data;
  size_t length;
  if (!args(env, info, &bytes, &crc) || !bytesOf(env, bytes, &data, &length)) return nullptr;
  napi_create_uint32(env, crc32c(crc, data, length), &out);
  return out;
}

// The tables and constants, once per process however many worker threads load the addon.
static bool initOnce() {
  zeroShiftTables(longShift, LONG);
  zeroShiftTables(shortShift, SHORT);
#ifdef HAVE_FOLD
  if ((useFold = cpuHasFold())) fold16 = foldConstants(16), fold64 = foldConstants(64), fold256 = foldConstants(256);
#endif
  return true;
}

NAPI_MODULE_INIT() {
  if (!cpuHasCrc()) return exports;  // no `crc32c` export: the caller keeps the TypeScript one
  static const bool ready = initOnce();  // thread-safe static initialisation
  (void)ready;
  napi_value fn;
  napi_create_function(env, "crc32c", NAPI_AUTO_LENGTH, Crc32c, nullptr, &fn);
  napi_set_named_property(env, exports, "crc32c", fn);
  return exports;
}
