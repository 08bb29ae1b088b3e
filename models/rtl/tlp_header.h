// The fields of a TLP header that the RTL interfaces carry (PCIe Base
// Specification sec. 2.2), shared by every interface shim: the generic TLP
// stream puts them on a header bus as the wire format has them, the
// UltraScale+ interfaces in their own descriptors.
#pragma once
#include <cstdint>

namespace hx::rtl {

enum class HdrType : std::uint8_t { MemRd, MemWr, Cpl, CplD, Other };

struct TlpHeader {
  HdrType type = HdrType::Other;
  bool four_dw = false;
  std::uint32_t length_dw = 0;  // 1..1024
  std::uint16_t requester = 0, completer = 0;
  std::uint8_t tag = 0;
  std::uint8_t first_be = 0, last_be = 0;
  std::uint64_t addr = 0;       // requests: DW-aligned address
  std::uint16_t byte_count = 0; // completions: bytes left, this one included (4096 as 0 on the wire)
  std::uint16_t lower_addr = 0; // completions: the first byte's address, low 12 bits (the TLP carries 7)
  std::uint8_t status = 0;      // completions: 0 successful
  // Requests: the first byte's address and the number of bytes the enables
  // cover (contiguous); false if the enables are not a valid pattern.
  bool byte_range(std::uint64_t& first, std::uint32_t& len) const;
};

// A request header for bytes [addr, addr+len) (len 0: a zero-length read).
TlpHeader request_header(HdrType type, std::uint64_t addr, std::uint32_t len);

}  // namespace hx::rtl
