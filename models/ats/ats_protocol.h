// ATS messages (PCIe Base spec ch. 10): the translation completion's data
// entry. The entry is 8 bytes: the translated address with the S bit
// encoding a larger page as the lowest zero of the address bits above bit 12
// (sec. 10.2.3.2). Here the entry is produced and checked as bytes, so a
// device consuming a translation verifies what the IOMMU sent.
// Simplifications: no PASID prefix and no Page Request Interface (a page
// that is not mapped is a fault, never requested of the host); the entry's
// permission bits are always read and write.
#pragma once
#include <cstdint>

#include "models/core/payload.h"

namespace hx::ats {

// ATS message codes (PCIe sec. 10.3): the invalidate request (MsgD, from the
// root complex to a function, its 8-byte body naming the untranslated range:
// here `addr` and `req_len`) and the invalidate completion (Msg, back to the
// root complex, `tag` = the request's ITag).
constexpr std::uint16_t kInvalidateRequest = 0x01;
constexpr std::uint16_t kInvalidateCompletion = 0x02;

inline std::uint64_t translation_entry(std::uint64_t pa_base, unsigned shift) {
  std::uint64_t e = pa_base | 0x3;  // R and W permitted
  if (shift > 12) e |= ((1ull << (shift - 1)) - 1) & ~0xfffull;  // S = 1 with the size in the low address bits
  if (shift > 12) e |= 1ull << 11;
  return e;
}

// The completion data of a request for `n` consecutive pages of 2^shift
// starting at pa_base: n entries of 8 bytes.
inline std::uint64_t translation_checksum(std::uint64_t pa_base, unsigned shift, unsigned n = 1) {
  std::uint8_t b[8 * 64];
  n = n > 64 ? 64 : n;
  for (unsigned k = 0; k < n; ++k) {
    const std::uint64_t e = translation_entry(pa_base + (static_cast<std::uint64_t>(k) << shift), shift);
    for (int i = 0; i < 8; ++i) b[8 * k + static_cast<unsigned>(i)] = static_cast<std::uint8_t>(e >> (8 * i));
  }
  return bytes_checksum(b, 8 * n);
}

}  // namespace hx::ats
