#include "models/rtl/tlp_stream.h"

#include <map>

namespace hx::rtl {

namespace {
const char* const kStreams[] = {"rx_req", "rx_cpl", "tx_req", "tx_cpl"};

std::uint32_t dw(const std::uint8_t b[16], int k) {
  // DW k of the header is bits [127-32k : 96-32k] of the vector.
  const int at = (3 - k) * 4;
  return static_cast<std::uint32_t>(b[at]) | static_cast<std::uint32_t>(b[at + 1]) << 8 |
         static_cast<std::uint32_t>(b[at + 2]) << 16 | static_cast<std::uint32_t>(b[at + 3]) << 24;
}
void put_dw(std::uint8_t b[16], int k, std::uint32_t v) {
  const int at = (3 - k) * 4;
  for (int i = 0; i < 4; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
}
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

std::string tlp_stream_port_error(const std::vector<PortShape>& ports, int w) {
  std::map<std::string, const PortShape*> by;
  for (const auto& p : ports) by[p.name] = &p;
  std::string err;
  auto want = [&](const std::string& n, int bits, PortDir d) {
    const auto it = by.find(n);
    if (it == by.end()) {
      err += "\n  no port " + n;
      return;
    }
    if (it->second->bits != bits) err += "\n  " + n + " is " + std::to_string(it->second->bits) + " bits wide, not " + std::to_string(bits);
    if (it->second->dir != d) err += "\n  " + n + " must be an " + (d == PortDir::In ? "input" : "output");
  };
  const auto in = PortDir::In, out = PortDir::Out;
  want("clk", 1, in);
  int streams = 0;
  for (const char* s : kStreams) {
    const std::string p = s;
    const bool rx = p.rfind("rx", 0) == 0;
    const char* parts[] = {"_hdr", "_data", "_strb", "_sop", "_eop", "_valid", "_ready"};
    int present = 0;
    for (const char* part : parts) present += by.count(p + part) != 0;
    if (present == 0) continue;
    ++streams;
    const PortDir fwd = rx ? in : out, back = rx ? out : in;
    want(p + "_hdr", 128, fwd);
    want(p + "_data", w, fwd);
    want(p + "_strb", w / 32, fwd);
    want(p + "_sop", 1, fwd);
    want(p + "_eop", 1, fwd);
    want(p + "_valid", 1, fwd);
    want(p + "_ready", 1, back);
  }
  if (streams == 0) err += "\n  none of the streams rx_req, rx_cpl, tx_req, tx_cpl";
  if (by.count("rst_n") && by.count("rst")) err += "\n  both rst_n and rst: one reset";
  if (by.count("rst_n")) want("rst_n", 1, in);
  if (by.count("rst")) want("rst", 1, in);
  const std::pair<const char*, int> cfg[] = {{"cfg_requester_id", 16}, {"cfg_max_payload", 3}, {"cfg_max_read_req", 3},
                                             {"cfg_rcb_128b", 1}, {"cfg_bus_master_en", 1}};
  for (const auto& [n, bits] : cfg)
    if (by.count(n)) want(n, bits, in);
  if (by.count("msi_valid") || by.count("msi_vector")) {
    want("msi_valid", 1, out);
    want("msi_vector", 5, out);
  }
  if (by.count("msi_ready")) want("msi_ready", 1, in);
  return err;
}

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

void encode_header(const TlpHeader& h, std::uint8_t out[16]) {
  for (int i = 0; i < 16; ++i) out[i] = 0;
  std::uint32_t fmt = 0, type = 0;
  switch (h.type) {
    case HdrType::MemRd: fmt = h.four_dw ? 1 : 0; break;
    case HdrType::MemWr: fmt = h.four_dw ? 3 : 2; break;
    case HdrType::Cpl: fmt = 0; type = 0x0a; break;
    case HdrType::CplD: fmt = 2; type = 0x0a; break;
    case HdrType::Other: break;
  }
  put_dw(out, 0, fmt << 29 | type << 24 | (h.length_dw & 0x3ff));
  if (h.type == HdrType::Cpl || h.type == HdrType::CplD) {
    put_dw(out, 1, static_cast<std::uint32_t>(h.completer) << 16 | static_cast<std::uint32_t>(h.status & 7) << 13 |
                       (h.byte_count & 0xfff));
    put_dw(out, 2, static_cast<std::uint32_t>(h.requester) << 16 | static_cast<std::uint32_t>(h.tag) << 8 | (h.lower_addr & 0x7f));
    return;
  }
  put_dw(out, 1, static_cast<std::uint32_t>(h.requester) << 16 | static_cast<std::uint32_t>(h.tag) << 8 |
                     static_cast<std::uint32_t>(h.last_be & 15) << 4 | (h.first_be & 15));
  if (h.four_dw) {
    put_dw(out, 2, static_cast<std::uint32_t>(h.addr >> 32));
    put_dw(out, 3, static_cast<std::uint32_t>(h.addr) & ~3u);
  } else {
    put_dw(out, 2, static_cast<std::uint32_t>(h.addr) & ~3u);
  }
}

TlpHeader decode_header(const std::uint8_t in[16]) {
  TlpHeader h;
  const std::uint32_t d0 = dw(in, 0), d1 = dw(in, 1), d2 = dw(in, 2), d3 = dw(in, 3);
  const std::uint32_t fmt = d0 >> 29 & 7, type = d0 >> 24 & 31;
  h.length_dw = (d0 & 0x3ff) ? (d0 & 0x3ff) : 1024;
  h.four_dw = fmt & 1;
  if (type == 0 && (fmt == 0 || fmt == 1)) h.type = HdrType::MemRd;
  else if (type == 0 && (fmt == 2 || fmt == 3)) h.type = HdrType::MemWr;
  else if (type == 0x0a && fmt == 0) h.type = HdrType::Cpl;
  else if (type == 0x0a && fmt == 2) h.type = HdrType::CplD;
  if (h.type == HdrType::Cpl || h.type == HdrType::CplD) {
    h.completer = static_cast<std::uint16_t>(d1 >> 16);
    h.status = static_cast<std::uint8_t>(d1 >> 13 & 7);
    h.byte_count = static_cast<std::uint16_t>((d1 & 0xfff) ? (d1 & 0xfff) : 4096);
    h.requester = static_cast<std::uint16_t>(d2 >> 16);
    h.tag = static_cast<std::uint8_t>(d2 >> 8);
    h.lower_addr = static_cast<std::uint8_t>(d2 & 0x7f);
    return h;
  }
  h.requester = static_cast<std::uint16_t>(d1 >> 16);
  h.tag = static_cast<std::uint8_t>(d1 >> 8);
  h.last_be = static_cast<std::uint8_t>(d1 >> 4 & 15);
  h.first_be = static_cast<std::uint8_t>(d1 & 15);
  h.addr = h.four_dw ? (static_cast<std::uint64_t>(d2) << 32 | (d3 & ~3u)) : (d2 & ~3u);
  return h;
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
