#include "models/rtl/usp.h"

#include <algorithm>
#include <cstring>

#include "models/core/error.h"
#include "models/rtl/tlp_stream.h"

namespace hx::rtl {

namespace {
// The four interfaces in Way order, and their descriptors' DWs.
const char* const kPrefix[] = {"m_axis_cq", "m_axis_rc", "s_axis_rq", "s_axis_cc"};
const char* const kName[] = {"cq", "rc", "rq", "cc"};
constexpr std::uint32_t kDescDw[] = {4, 3, 4, 3};

std::uint64_t bits(const std::uint32_t* d, int lo, int n) {
  std::uint64_t v = 0;
  for (int i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(d[(lo + i) / 32] >> ((lo + i) % 32) & 1) << i;
  return v;
}
void put(std::uint32_t* d, int lo, int n, std::uint64_t v) {
  for (int i = 0; i < n; ++i) {
    const std::uint32_t m = 1u << ((lo + i) % 32);
    if (v >> i & 1) d[(lo + i) / 32] |= m;
    else d[(lo + i) / 32] &= ~m;
  }
}
void put_bytes(std::vector<std::uint8_t>& b, int lo, int n, std::uint64_t v) {
  for (int i = 0; i < n; ++i) {
    const std::uint8_t m = static_cast<std::uint8_t>(1u << ((lo + i) % 8));
    if (v >> i & 1) b[static_cast<std::size_t>((lo + i) / 8)] |= m;
  }
}
std::uint32_t load_dw(const std::uint8_t* p) {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 | static_cast<std::uint32_t>(p[2]) << 16 |
         static_cast<std::uint32_t>(p[3]) << 24;
}
void store_dw(std::uint8_t* p, std::uint32_t v) {
  for (int i = 0; i < 4; ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}
}  // namespace

std::string usp_port_error(const std::vector<PortShape>& ports, int w) {
  PortRules r(ports);
  const auto in = PortDir::In, out = PortDir::Out;
  if (r.has("user_clk")) r.want("user_clk", 1, in);
  else r.want("clk", 1, in);
  int resets = 0;
  for (const char* n : {"user_reset", "rst", "rst_n", "user_reset_n"})
    if (r.has(n)) {
      r.want(n, 1, in);
      ++resets;
    }
  if (resets > 1) r.problem("more than one of user_reset, user_reset_n, rst, rst_n: one reset");
  int present = 0;
  for (int i = 0; i < 4; ++i) {
    const std::string p = kPrefix[i];
    int parts = 0;
    for (const char* part : {"_tdata", "_tuser", "_tlast", "_tkeep", "_tvalid", "_tready"}) parts += r.has(p + part);
    if (parts == 0) continue;
    ++present;
    const bool core_out = i < 2;  // CQ and RC come from the core
    const PortDir fwd = core_out ? in : out, back = core_out ? out : in;
    r.want(p + "_tdata", w, fwd);
    r.want(p + "_tkeep", w / 32, fwd);
    r.want(p + "_tlast", 1, fwd);
    r.want(p + "_tvalid", 1, fwd);
    if (core_out) r.want(p + "_tready", {1, 22}, back);
    else r.want(p + "_tready", {1, 4}, back);
    const bool wide = w == 512;  // the 512-bit interface has tuser layouts of its own
    switch (i) {
      case 0: wide ? r.want(p + "_tuser", 183, fwd) : r.want(p + "_tuser", {85, 88}, fwd); break;
      case 1: r.want(p + "_tuser", wide ? 161 : 75, fwd); break;
      case 2: wide ? r.want(p + "_tuser", 137, fwd) : r.want(p + "_tuser", {60, 62}, fwd); break;
      default: r.want(p + "_tuser", wide ? 81 : 33, fwd); break;
    }
  }
  if (present == 0) r.problem("none of the interfaces m_axis_cq, m_axis_rc, s_axis_rq, s_axis_cc");
  if (r.has("cfg_max_payload")) r.want("cfg_max_payload", {2, 3}, in);
  if (r.has("cfg_max_read_req")) r.want("cfg_max_read_req", 3, in);
  if (r.has("cfg_function_status")) r.want("cfg_function_status", 16, in);
  if (r.has("cfg_rcb_status")) r.want("cfg_rcb_status", {2, 4}, in);
  if (r.has("cfg_interrupt_msi_enable")) r.want("cfg_interrupt_msi_enable", {2, 4}, in);
  if (r.has("cfg_interrupt_msi_fail")) r.want("cfg_interrupt_msi_fail", 1, in);
  if (r.has("cfg_interrupt_msi_int") || r.has("cfg_interrupt_msi_sent")) {
    r.want("cfg_interrupt_msi_int", 32, out);
    r.want("cfg_interrupt_msi_sent", 1, in);
  }
  return r.error();
}

UspShim::UspShim(RtlModel& model, int data_width, std::string device, const std::uint64_t& cycle)
    : Shim(model, data_width, std::move(device), cycle), m_wide(data_width == 512), m_user(24) {
  for (int i = 0; i < 4; ++i) {
    const std::string p = kPrefix[i];
    Ports& s = m_p[static_cast<std::size_t>(i)];
    s.valid = model.find(p + "_tvalid");
    if (!s.valid) continue;
    s.data = model.find(p + "_tdata");
    s.user = model.find(p + "_tuser");
    s.last = model.find(p + "_tlast");
    s.keep = model.find(p + "_tkeep");
    s.ready = model.find(p + "_tready");
  }
  tx_valid(Way::TxReq, port(Way::TxReq).valid);
  tx_valid(Way::TxCpl, port(Way::TxCpl).valid);
  m_msi_int = model.find("cfg_interrupt_msi_int");
  m_msi_sent = model.find("cfg_interrupt_msi_sent");
}

const char* UspShim::stream(Way w) const { return kName[static_cast<int>(w)]; }

bool UspShim::has(Way w) const { return port(w).valid != nullptr; }

void UspShim::configure(const LinkSettings& s) {
  m_rid = s.rid;
  m_bar_aperture = 0;
  while (m_bar_aperture < 63 && (1ull << (m_bar_aperture + 1)) <= s.bar_size) ++m_bar_aperture;
  if (const RtlPort* p = m_model.find("cfg_max_payload")) p->set(std::min<std::uint64_t>(size_code(s.mps), p->bits == 2 ? 3 : 5));
  if (const RtlPort* p = m_model.find("cfg_max_read_req")) p->set(size_code(s.mrrs));
  if (const RtlPort* p = m_model.find("cfg_function_status")) p->set(0x6);  // function 0: memory space, bus master
  if (const RtlPort* p = m_model.find("cfg_rcb_status")) p->set(s.rcb == 128);
  if (const RtlPort* p = m_model.find("cfg_interrupt_msi_enable")) p->set(1);
}

void UspShim::encode_cq(const TlpHeader& h, int bar_aperture, std::uint32_t d[4]) {
  std::fill(d, d + 4, 0u);
  put(d, 2, 62, h.addr >> 2);
  put(d, 64, 11, h.length_dw);
  put(d, 75, 4, h.type == HdrType::MemWr ? 1 : 0);
  put(d, 80, 16, h.requester);
  put(d, 96, 8, h.tag);
  put(d, 115, 6, static_cast<std::uint64_t>(bar_aperture));
}

void UspShim::encode_rc(const TlpHeader& h, std::uint32_t bytes_here, std::uint32_t d[3]) {
  std::fill(d, d + 3, 0u);
  put(d, 0, 12, h.lower_addr);
  put(d, 16, 13, h.byte_count);
  put(d, 30, 1, h.byte_count <= bytes_here);  // the read's last completion
  put(d, 32, 11, h.type == HdrType::CplD ? h.length_dw : 0);
  put(d, 43, 3, h.status);
  put(d, 48, 16, h.requester);
  put(d, 64, 8, h.tag);
  put(d, 72, 16, h.completer);
}

std::uint32_t UspShim::beats(Way w, const Packet& p) const {
  const std::uint32_t lanes = m_beat_B / 4;
  const std::uint32_t total = kDescDw[static_cast<int>(w)] + static_cast<std::uint32_t>(p.data.size() / 4);
  return (total + lanes - 1) / lanes;
}

void UspShim::drive(Way w, const Packet* p, std::uint32_t beat) {
  const Ports& s = port(w);
  if (!p) {
    s.valid->set(0);
    return;
  }
  const TlpHeader& h = p->h;
  const bool cq = w == Way::RxReq;
  const std::uint32_t desc = kDescDw[static_cast<int>(w)];
  // The payload bytes that count: a write's enabled bytes; a completion's
  // bytes from its lower address.
  std::uint32_t lead = 0, n = 0;
  std::uint32_t d[4];
  if (cq) {
    std::uint64_t first = 0;
    if (h.type == HdrType::MemWr && h.byte_range(first, n)) lead = static_cast<std::uint32_t>(first - h.addr);
    encode_cq(h, m_bar_aperture, d);
  } else {
    lead = h.lower_addr & 3u;
    n = h.type == HdrType::CplD ? std::min<std::uint32_t>(h.byte_count, h.length_dw * 4 - lead) : 0;
    encode_rc(h, n, d);
  }
  const std::uint32_t lanes = m_beat_B / 4;
  const std::uint32_t total = desc + static_cast<std::uint32_t>(p->data.size() / 4);
  std::fill(m_beat.begin(), m_beat.end(), 0);
  std::fill(m_user.begin(), m_user.end(), 0);
  std::uint64_t keep = 0;
  std::uint32_t last_lane = 0;
  for (std::uint32_t k = 0; k < lanes; ++k) {
    const std::uint32_t i = beat * lanes + k;
    if (i >= total) break;
    keep |= 1ull << k;
    last_lane = k;
    if (i < desc) {
      store_dw(&m_beat[4 * k], d[i]);
      continue;
    }
    const std::uint32_t at = (i - desc) * 4;
    std::memcpy(&m_beat[4 * k], p->data.data() + at, 4);
    const int byte_en = cq ? (m_wide ? 16 : 8) : 0;
    for (std::uint32_t b = 0; b < 4; ++b)  // byte enables of tdata's bytes
      if (at + b >= lead && at + b < lead + n) put_bytes(m_user, byte_en + static_cast<int>(4 * k + b), 1, 1);
  }
  const bool last = beat + 1 == beats(w, *p);
  // Where each field sits (PG213's tuser tables): 64-256 bit, and 512 bit
  // with its is_sop/is_eop vectors (straddling off: TLP 0's bits only).
  if (cq) {
    put_bytes(m_user, 0, 4, h.first_be);
    put_bytes(m_user, m_wide ? 8 : 4, 4, h.last_be);
    put_bytes(m_user, m_wide ? 80 : 40, 1, beat == 0);
    if (m_wide && last) {
      put_bytes(m_user, 86, 1, 1);           // is_eop[0]
      put_bytes(m_user, 88, 4, last_lane);   // is_eop0_ptr
    }
  } else if (m_wide) {
    put_bytes(m_user, 64, 1, beat == 0);     // is_sop[0]
    if (last) {
      put_bytes(m_user, 76, 1, 1);           // is_eop[0]
      put_bytes(m_user, 80, 4, last_lane);   // is_eop0_ptr
    }
  } else {
    put_bytes(m_user, 32, 1, beat == 0);     // is_sof_0
    if (last) put_bytes(m_user, 34, 4, last_lane << 1 | 1);  // is_eof_0
  }
  s.data->set_bytes(m_beat.data(), m_beat_B);
  s.user->set_bytes(m_user.data(), m_user.size());
  s.keep->set(keep);
  s.last->set(last);
  s.valid->set(1);
}

bool UspShim::taken(Way w) const {
  const Ports& s = port(w);
  return s.valid && s.valid->get() && (s.ready->get() & 1);
}

void UspShim::set_ready(Way w, bool ready) {
  if (!has(w)) return;
  const RtlPort* r = port(w).ready;
  r->set(ready ? (1ull << r->bits) - 1 : 0);
}

void UspShim::decode(Way w, Asm& a) {
  const std::uint32_t* d = a.dws.data();
  TlpHeader& h = a.h;
  if (w == Way::TxReq) {
    if (const auto at = bits(d, 0, 2)) fail(w, "address type " + std::to_string(at) + ": only untranslated addresses (0) are modelled");
    h.addr = bits(d, 2, 62) << 2;
    h.four_dw = h.addr >= (1ull << 32);
    h.length_dw = static_cast<std::uint32_t>(bits(d, 64, 11));
    const auto type = bits(d, 75, 4);
    if (type == 0) h.type = HdrType::MemRd;
    else if (type == 1) h.type = HdrType::MemWr;
    else fail(w, "request type " + std::to_string(type) + ": only memory reads (0) and writes (1) are modelled");
    if (h.length_dw == 0) fail(w, "dword count 0");
    if (bits(d, 79, 1)) fail(w, "a poisoned request");
    h.requester = static_cast<std::uint16_t>(bits(d, 80, 16));
    if (bits(d, 120, 1) && h.requester != m_rid)
      fail(w, "requester ID " + hex(h.requester) + " enabled in the descriptor, but the function's is " + hex(m_rid));
    h.requester = m_rid;
    h.tag = static_cast<std::uint8_t>(bits(d, 96, 8));
    h.first_be = a.first_be;
    h.last_be = a.last_be;
    a.total = 4 + (h.type == HdrType::MemWr ? h.length_dw : 0);
  } else {
    h.lower_addr = static_cast<std::uint16_t>(bits(d, 0, 7));
    h.byte_count = static_cast<std::uint16_t>(bits(d, 16, 13));
    h.length_dw = static_cast<std::uint32_t>(bits(d, 32, 11));
    h.type = h.length_dw ? HdrType::CplD : HdrType::Cpl;
    h.status = static_cast<std::uint8_t>(bits(d, 43, 3));
    if (bits(d, 46, 1)) fail(w, "a poisoned completion");
    h.requester = static_cast<std::uint16_t>(bits(d, 48, 16));
    h.tag = static_cast<std::uint8_t>(bits(d, 64, 8));
    h.completer = static_cast<std::uint16_t>(bits(d, 72, 16));
    a.total = 3 + h.length_dw;
  }
  a.decoded = true;
}

bool UspShim::sample_offered(Way w, Packet& out, bool& done) {
  const Ports& s = port(w);
  Asm& a = m_asm[w == Way::TxCpl ? 1 : 0];
  const bool ready = (s.ready->get() & 1) != 0;
  s.data->get_bytes(m_beat.data(), m_beat_B);
  std::fill(m_user.begin(), m_user.end(), 0);
  s.user->get_bytes(m_user.data(), m_user.size());
  const std::uint64_t keep = s.keep->get();
  const bool last = s.last->get() != 0;
  hold(w, true, ready, [&] {
    const std::uint64_t sum = digest(digest(0xcbf29ce484222325ull, m_beat.data(), m_beat_B), m_user.data(), m_user.size());
    return (sum * 31 + keep) * 2 + last;
  });
  if (!ready) return false;
  const bool rq = w == Way::TxReq;
  if (!a.open) {
    std::vector<std::uint32_t> dws = std::move(a.dws);  // its buffer stays: no allocation per TLP
    dws.clear();
    a = Asm{};
    a.dws = std::move(dws);
    a.open = true;
    if (rq) {
      a.first_be = m_user[0] & 15;
      a.last_be = m_wide ? m_user[1] & 15 : m_user[0] >> 4;
    }
  }
  const int discontinue = rq ? (m_wide ? 36 : 11) : (m_wide ? 16 : 0);
  if (m_user[static_cast<std::size_t>(discontinue / 8)] >> (discontinue % 8) & 1) fail(w, "discontinue: aborted TLPs are not modelled");
  // tkeep: contiguous from DW 0; every DW of the bus on a beat before tlast.
  const std::uint32_t lanes = m_beat_B / 4;
  std::uint32_t n = 0;
  while (n < lanes && (keep >> n & 1)) ++n;
  if (n == 0 || (n < lanes && (keep >> n) != 0)) fail(w, "tkeep " + hex(keep) + " is not contiguous from DW 0");
  if (!last && n != lanes) fail(w, "tkeep " + hex(keep) + " leaves DWs out of a beat before tlast");
  for (std::uint32_t k = 0; k < n; ++k) a.dws.push_back(load_dw(&m_beat[4 * k]));
  const std::uint32_t desc = kDescDw[static_cast<int>(w)];
  if (!a.decoded && a.dws.size() >= desc) decode(w, a);
  if (a.decoded && a.dws.size() > a.total)
    fail(w, std::to_string(a.dws.size()) + " DWs, but the descriptor says " + std::to_string(a.total) + " (dword count " +
                std::to_string(a.h.length_dw) + ")");
  if (!last) {
    if (a.decoded && a.dws.size() == a.total) fail(w, "no tlast on the TLP's last DW");
    return true;
  }
  if (!a.decoded) fail(w, "tlast before the descriptor's " + std::to_string(desc) + " DWs");
  if (a.dws.size() != a.total) fail(w, "tlast after " + std::to_string(a.dws.size()) + " DWs, but the descriptor says " + std::to_string(a.total));
  out.h = a.h;
  out.data.resize(static_cast<std::size_t>(a.total - desc) * 4);
  for (std::uint32_t i = desc; i < a.total; ++i) store_dw(&out.data[(i - desc) * 4], a.dws[i]);
  a.open = false;
  done = true;
  return true;
}

void UspShim::msi_drive(bool) {
  if (m_msi_sent) m_msi_sent->set(m_msi_sent_next);
  m_msi_sent_next = false;
}

bool UspShim::msi_sample(bool space, std::uint32_t& vector) {
  if (m_msi_int) {
    // The core registers a request on a 0-to-1 transition of a bit.
    const std::uint64_t now = m_msi_int->get(), v = now & ~m_msi_prev;
    m_msi_prev = now;
    if (v) {
      if (v & (v - 1)) fail("msi", "cfg_interrupt_msi_int " + hex(v) + " asks for more than one vector");
      if (m_msi_pending) fail("msi", "a second MSI asked for before cfg_interrupt_msi_sent");
      m_msi_pending = true;
      m_msi_vector = 0;
      while (!(v >> m_msi_vector & 1)) ++m_msi_vector;
    }
  }
  if (!m_msi_pending || !space) return false;
  m_msi_pending = false;
  m_msi_sent_next = true;
  vector = m_msi_vector;
  return true;
}

}  // namespace hx::rtl
