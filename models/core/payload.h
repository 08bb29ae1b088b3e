// What data is, without carrying it. A payload is bytes [off, off+len) of a
// deterministic pattern stream, or real bytes; either way it travels as a
// 64-bit checksum, computed where the data is produced and re-derived where
// it is consumed (DESIGN.md section 9). Every transport (PCIe TLPs, memory,
// later coherence messages) shares these functions, so a payload keeps its
// checksum across a change of transport.
#pragma once
#include <cstdint>

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

}  // namespace hx
