#include "models/core/payload.h"

#include <array>
#include <cstring>
#include <memory>
#include <string>

namespace hx {

namespace {
// Eight pattern bytes at a time: word q covers byte offsets [8q, 8q+8).
inline std::uint64_t pattern_word(std::uint64_t stream, std::uint64_t q) {
  std::uint64_t x = stream * 0x9e3779b97f4a7c15ull + q;
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 32;
  return x;
}
constexpr std::uint64_t kBasis = 1469598103934665603ull;
constexpr std::uint64_t kPrime = 1099511628211ull;
constexpr std::uint64_t kStep = 0x9e3779b97f4a7c15ull;
// The sum of a payload: each 8-byte word (little-endian, zero-padded at the
// tail) is mixed with a key of its position and multiplied, and the terms
// are added. Position-dependent, so shifted or swapped data changes the
// sum; the terms do not depend on each other, so a long payload's words
// are summed in parallel, not one after the other.
class Sum {
 public:
  void add(std::uint64_t w) {
    m_h += (w ^ m_pos) * kPrime;
    m_pos += kStep;
  }
  std::uint64_t finish(std::uint32_t len) const {
    std::uint64_t h = m_h ^ len;
    h ^= h >> 31;
    h *= 0xbf58476d1ce4e5b9ull;
    return h ^ (h >> 29);
  }

 private:
  std::uint64_t m_h = kBasis, m_pos = kStep;
};
}  // namespace

std::uint8_t pattern_byte(std::uint64_t stream, std::uint64_t off) {
  return static_cast<std::uint8_t>(pattern_word(stream, off >> 3) >> ((off & 7) * 8));
}

void pattern_fill(std::uint64_t stream, std::uint64_t off, std::uint8_t* out, std::uint32_t len) {
  std::uint32_t i = 0;
  // Head: up to the next 8-byte boundary of the offset.
  if (off & 7) {
    const std::uint64_t w = pattern_word(stream, off >> 3);
    for (unsigned k = static_cast<unsigned>(off & 7); k < 8 && i < len; ++k, ++i)
      out[i] = static_cast<std::uint8_t>(w >> (k * 8));
  }
  // Body: whole words, little-endian bytes as pattern_byte defines them.
  std::uint64_t q = (off + i) >> 3;
  for (; i + 8 <= len; i += 8, ++q) {
    std::uint64_t w = pattern_word(stream, q);
    if constexpr (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__) w = __builtin_bswap64(w);
    std::memcpy(out + i, &w, 8);
  }
  // Tail.
  if (i < len) {
    const std::uint64_t w = pattern_word(stream, q);
    for (unsigned k = 0; i < len; ++k, ++i) out[i] = static_cast<std::uint8_t>(w >> (k * 8));
  }
}

namespace {
std::uint64_t compute_pattern_checksum(std::uint64_t stream, std::uint64_t off, std::uint32_t len) {
  Sum h;
  const unsigned sh = static_cast<unsigned>(off & 7) * 8;
  std::uint64_t q = off >> 3;
  const std::uint32_t whole = len & ~7u;
  if (sh == 0) {  // aligned: each payload word is one pattern word
    for (std::uint32_t i = 0; i < whole; i += 8) h.add(pattern_word(stream, q++));
    if (whole < len) h.add(pattern_word(stream, q) & ((1ull << ((len - whole) * 8)) - 1));
    return h.finish(len);
  }
  std::uint64_t lo = pattern_word(stream, q);
  for (std::uint32_t i = 0; i < whole; i += 8) {
    const std::uint64_t hi = pattern_word(stream, ++q);
    h.add((lo >> sh) | (hi << (64 - sh)));
    lo = hi;
  }
  if (whole < len) {
    const std::uint64_t hi = pattern_word(stream, q + 1);
    h.add(((lo >> sh) | (hi << (64 - sh))) & ((1ull << ((len - whole) * 8)) - 1));
  }
  return h.finish(len);
}
}  // namespace

// A pure function that is asked twice of most TLPs, by the producer that
// fills in the checksum and by the root complex that checks it on arrival:
// recent results are kept, each under a 64-bit tag of all three arguments:
// off*A + stream*B + len with odd constants A and B, so two keys share a
// tag only if their offsets differ by A^-1 * ((stream' - stream) * B +
// (len' - len)) mod 2^64: for any small difference in stream or length a
// pseudo-random 64-bit number, which no run's addresses come near.
// A TLP whose checksum or whose (stream, offset, length) changed on the way
// still fails the check, since the kept value is the function's own for
// that key. Entries of 16 bytes: the 64 KiB table is 16 pages, a cost paid
// in page faults by every point process, however short. It is allocated on
// first use, not held in thread-local storage: a thread's TLS is cleared
// when the thread starts, so a 64 KiB table there cost 16 page faults to
// every thread of every process, checksums or not.
std::uint64_t pattern_checksum(std::uint64_t stream, std::uint64_t off, std::uint32_t len) {
  struct Kept {
    std::uint64_t tag = 0, sum = 0;  // tag 0: empty (a key whose tag is 0 is not kept)
  };
  static thread_local std::unique_ptr<std::array<Kept, 4096>> kept;
  if (!kept) kept = std::make_unique<std::array<Kept, 4096>>();
  const std::uint64_t tag = off * 0x9e3779b97f4a7c15ull + stream * 0xc2b2ae3d27d4eb4full + len;
  Kept& k = (*kept)[tag >> 52];
  const bool keep = len != 0 && tag != 0;
  if (keep && k.tag == tag) return k.sum;
  const std::uint64_t sum = compute_pattern_checksum(stream, off, len);
  if (keep) k = Kept{tag, sum};
  return sum;
}

std::uint64_t bytes_checksum(const std::uint8_t* p, std::uint32_t len) {
  Sum h;
  std::uint32_t i = 0;
  for (; i + 8 <= len; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    if constexpr (__BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__) w = __builtin_bswap64(w);
    h.add(w);
  }
  if (i < len) {
    std::uint64_t w = 0;
    for (std::uint32_t k = 0; i + k < len; ++k) w |= static_cast<std::uint64_t>(p[i + k]) << (8 * k);
    h.add(w);
  }
  return h.finish(len);
}

PayloadBytes* take_bytes(const std::uint8_t* p, std::uint32_t n) {
  if (n > PayloadBytes::kMax) throw SimError("a payload of " + std::to_string(n) + " bytes is larger than any TLP carries");
  PayloadBytes* b = PayloadPool::instance().get();
  b->n = n;
  if (n) std::memcpy(b->b, p, n);
  return b;
}

}  // namespace hx
