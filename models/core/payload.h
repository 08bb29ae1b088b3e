// What data is, without carrying it. A payload is bytes [off, off+len) of a
// deterministic pattern stream, or real bytes; either way it travels as a
// 64-bit checksum, computed where the data is produced and re-derived where
// it is consumed (DESIGN.md section 9). Every transport (PCIe TLPs, memory,
// later coherence messages) shares these functions, so a payload keeps its
// checksum across a change of transport.
#pragma once
#include <cstdint>
#include <cstring>

#include "models/core/pool.h"

namespace hx {

// Checksum of `len` bytes of a deterministic data pattern, as would be read
// at byte offsets [off, off+len) of a stream identified by `stream`.
std::uint64_t pattern_checksum(std::uint64_t stream, std::uint64_t off, std::uint32_t len);
// Checksum of real bytes.
std::uint64_t bytes_checksum(const std::uint8_t* p, std::uint32_t len);
std::uint8_t pattern_byte(std::uint64_t stream, std::uint64_t off);
void pattern_fill(std::uint64_t stream, std::uint64_t off, std::uint8_t* out, std::uint32_t len);
// The stream whose byte at offset a is the initial content of host memory at
// address a.
constexpr std::uint64_t kMemoryStream = 0x5eedull;

// Real bytes riding with a transaction, for producers whose data is not a
// pattern (an RTL device's descriptors and status words, a driver's
// register values, data read back for such a device). Pooled: a buffer is
// taken with take_bytes and goes back with its transaction.
struct PayloadBytes {
  static constexpr const char* kPoolName = "a payload buffer";
  static constexpr std::uint32_t kMax = 4096;  // the largest PCIe payload
  std::uint64_t id = 0;
  std::uint32_t n = 0;
  std::uint8_t b[kMax];  // b[0, n) is the payload; take_bytes writes it, nothing reads past n
  void fresh() {         // for the pool: not 4 KiB of zeros per transaction
    id = 0;
    n = 0;
  }
};
using PayloadPool = Pool<PayloadBytes>;
// A buffer holding a copy of [p, p+n) (n <= PayloadBytes::kMax).
PayloadBytes* take_bytes(const std::uint8_t* p, std::uint32_t n);
inline void drop_bytes(PayloadBytes*& b) {
  if (!b) return;
  PayloadPool::instance().put(b);
  b = nullptr;
}

}  // namespace hx
