// Helpers shared by the DMA engines: cutting a transfer into TLPs under the
// PCIe rules (MPS for writes, MRRS for reads, never across a 4 KiB boundary,
// spec 2.2.7) and tag bookkeeping.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

namespace hx::dma {

// Length of the next TLP starting at `addr` with `left` bytes to go.
inline std::uint32_t next_chunk(std::uint64_t addr, std::uint64_t left, std::uint32_t max_len) {
  const std::uint64_t to_4k = 4096 - (addr & 4095);
  return static_cast<std::uint32_t>(std::min<std::uint64_t>({left, to_4k, max_len}));
}

struct Segment {
  std::uint64_t addr;
  std::uint32_t len;
};

}  // namespace hx::dma
