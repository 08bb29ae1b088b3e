#include "models/rtl/tlp_header.h"

namespace hx::rtl {

namespace {
int lowest_set(unsigned be) {
  for (int i = 0; i < 4; ++i)
    if (be >> i & 1) return i;
  return 4;
}
int highest_set(unsigned be) {
  for (int i = 3; i >= 0; --i)
    if (be >> i & 1) return i;
  return -1;
}
bool contiguous(unsigned be) {
  if (!be) return true;
  const unsigned v = be >> lowest_set(be);
  return (v & (v + 1)) == 0;
}
}  // namespace

bool TlpHeader::byte_range(std::uint64_t& first, std::uint32_t& len) const {
  if (length_dw == 0) return false;
  if (length_dw == 1) {
    if (last_be != 0 || !contiguous(first_be)) return false;
    if (first_be == 0) {  // a zero-length request
      first = addr;
      len = 0;
      return true;
    }
    first = addr + static_cast<unsigned>(lowest_set(first_be));
    len = static_cast<std::uint32_t>(highest_set(first_be) - lowest_set(first_be) + 1);
    return true;
  }
  // Several DWs: the enables of the first DW end at its top byte, those of
  // the last start at its bottom byte (contiguous, as memory requests are).
  if (!first_be || !last_be || !(first_be & 8) || !(last_be & 1) || !contiguous(first_be) || !contiguous(last_be)) return false;
  first = addr + static_cast<unsigned>(lowest_set(first_be));
  len = length_dw * 4 - static_cast<std::uint32_t>(lowest_set(first_be)) - static_cast<std::uint32_t>(3 - highest_set(last_be));
  return true;
}

TlpHeader request_header(HdrType type, std::uint64_t addr, std::uint32_t len) {
  TlpHeader h;
  h.type = type;
  h.four_dw = addr >= (1ull << 32);
  h.addr = addr & ~3ull;
  if (len == 0) {
    h.length_dw = 1;
    return h;  // no byte enabled
  }
  const std::uint64_t first_dw = addr >> 2, last_dw = (addr + len - 1) >> 2;
  h.length_dw = static_cast<std::uint32_t>(last_dw - first_dw + 1);
  const unsigned lead = static_cast<unsigned>(addr & 3), end = static_cast<unsigned>((addr + len - 1) & 3);
  if (h.length_dw == 1) {
    h.first_be = static_cast<std::uint8_t>(((1u << (end + 1)) - 1) & ~((1u << lead) - 1));
  } else {
    h.first_be = static_cast<std::uint8_t>(0xf & ~((1u << lead) - 1));
    h.last_be = static_cast<std::uint8_t>((1u << (end + 1)) - 1);
  }
  return h;
}

}  // namespace hx::rtl
