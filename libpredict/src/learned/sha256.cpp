// SHA-256 (FIPS 180-4) without OpenSSL: loading libcrypto and initialising its providers cost a
// learned CLI call more than hashing the bundle does. x86 CPUs with the SHA extensions hash with
// them (~2 GB/s, chosen at run time); others take the portable loop (~0.3 GB/s).
#include "ptp/predict/learned/sha256.hpp"

#include <cstdint>
#include <cstring>
#include <fstream>
#include <sstream>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <cpuid.h>
#include <immintrin.h>
#define PTP_SHA_NI 1
#endif

#include "ptp/vocab/error.hpp"

#include "ptp/predict/vocabulary.hpp"

namespace ptp::predict {

namespace {

alignas(16) constexpr std::uint32_t kK[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98, 0x12835b01,
    0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc,
    0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147,
    0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08,
    0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208,
    0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

inline std::uint32_t rotr(std::uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

void blocks_portable(std::uint32_t s[8], const unsigned char* p, std::size_t blocks) {
  for (; blocks--; p += 64) {
    std::uint32_t w[64];
    for (int i = 0; i < 16; ++i)
      w[i] = std::uint32_t(p[4 * i]) << 24 | std::uint32_t(p[4 * i + 1]) << 16 | std::uint32_t(p[4 * i + 2]) << 8 | p[4 * i + 3];
    for (int i = 16; i < 64; ++i) {
      const std::uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const std::uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    std::uint32_t a = s[0], b = s[1], c = s[2], d = s[3], e = s[4], f = s[5], g = s[6], h = s[7];
    for (int i = 0; i < 64; ++i) {
      const std::uint32_t t1 = h + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + kK[i] + w[i];
      const std::uint32_t t2 = (rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      h = g;
      g = f;
      f = e;
      e = d + t1;
      d = c;
      c = b;
      b = a;
      a = t1 + t2;
    }
    s[0] += a, s[1] += b, s[2] += c, s[3] += d, s[4] += e, s[5] += f, s[6] += g, s[7] += h;
  }
}

#ifdef PTP_SHA_NI
bool cpu_has_sha() {
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return false;
  const bool sha = (b >> 29) & 1;
  if (!__get_cpuid(1, &a, &b, &c, &d)) return false;
  const bool ssse3 = (c >> 9) & 1, sse41 = (c >> 19) & 1;
  return sha && ssse3 && sse41;
}

// Four rounds per step with the SHA extensions; the message schedule in groups of four words.
__attribute__((target("sha,sse4.1,ssse3"))) void blocks_sha_ni(std::uint32_t s[8], const unsigned char* p,
                                                                std::size_t blocks) {
  const __m128i byteswap = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s)), 0xB1);  // CDAB
  __m128i state1 = _mm_shuffle_epi32(_mm_loadu_si128(reinterpret_cast<const __m128i*>(s + 4)), 0x1B);  // EFGH
  __m128i state0 = _mm_alignr_epi8(tmp, state1, 8);  // ABEF
  state1 = _mm_blend_epi16(state1, tmp, 0xF0);       // CDGH
  for (; blocks--; p += 64) {
    const __m128i abef = state0, cdgh = state1;
    __m128i msg[4];
    for (int i = 0; i < 16; ++i) {
      if (i < 4) {
        msg[i] = _mm_shuffle_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * i)), byteswap);
      } else {  // W[t..t+3] from the four groups before it
        const __m128i w16 = msg[i % 4], w12 = msg[(i + 1) % 4], w8 = msg[(i + 2) % 4], w4 = msg[(i + 3) % 4];
        msg[i % 4] = _mm_sha256msg2_epu32(
            _mm_add_epi32(_mm_sha256msg1_epu32(w16, w12), _mm_alignr_epi8(w4, w8, 4)), w4);
      }
      __m128i m = _mm_add_epi32(msg[i % 4], _mm_load_si128(reinterpret_cast<const __m128i*>(kK + 4 * i)));
      state1 = _mm_sha256rnds2_epu32(state1, state0, m);
      m = _mm_shuffle_epi32(m, 0x0E);
      state0 = _mm_sha256rnds2_epu32(state0, state1, m);
    }
    state0 = _mm_add_epi32(state0, abef);
    state1 = _mm_add_epi32(state1, cdgh);
  }
  tmp = _mm_shuffle_epi32(state0, 0x1B);     // FEBA
  state1 = _mm_shuffle_epi32(state1, 0xB1);  // DCHG
  state0 = _mm_blend_epi16(tmp, state1, 0xF0);  // DCBA
  state1 = _mm_alignr_epi8(state1, tmp, 8);     // HGFE
  _mm_storeu_si128(reinterpret_cast<__m128i*>(s), state0);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(s + 4), state1);
}
#endif

void blocks(std::uint32_t s[8], const unsigned char* p, std::size_t n) {
#ifdef PTP_SHA_NI
  static const bool sha_ni = cpu_has_sha();
  if (sha_ni) return blocks_sha_ni(s, p, n);
#endif
  blocks_portable(s, p, n);
}

}  // namespace

std::string sha256_hex(const char* data, std::size_t size) {
  std::uint32_t s[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  const auto* p = reinterpret_cast<const unsigned char*>(data);
  const std::size_t full = size / 64;
  blocks(s, p, full);
  // Padding: 0x80, zeros, the bit length big-endian in the last 8 bytes (one or two blocks).
  unsigned char tail[128] = {};
  const std::size_t rest = size - 64 * full;
  std::memcpy(tail, p + 64 * full, rest);
  tail[rest] = 0x80;
  const std::size_t tail_blocks = rest + 9 <= 64 ? 1 : 2;
  const std::uint64_t bits = static_cast<std::uint64_t>(size) * 8;
  for (int i = 0; i < 8; ++i) tail[64 * tail_blocks - 1 - i] = static_cast<unsigned char>(bits >> (8 * i));
  blocks(s, tail, tail_blocks);
  static const char* hex = "0123456789abcdef";
  std::string out;
  out.reserve(64);
  for (std::uint32_t word : s)
    for (int shift = 28; shift >= 0; shift -= 4) out.push_back(hex[(word >> shift) & 0xf]);
  return out;
}

std::string sha256_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, 0, "", "cannot read file");
  std::stringstream ss;
  ss << in.rdbuf();
  return sha256_hex(ss.str());
}

}  // namespace ptp::predict
