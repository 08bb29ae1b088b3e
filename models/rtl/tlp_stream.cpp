#include "models/rtl/tlp_stream.h"

#include <algorithm>
#include <cstring>

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
}  // namespace

std::uint64_t size_code(int bytes) {
  std::uint64_t c = 0;
  while ((128 << c) < bytes && c < 5) ++c;
  return c;
}

std::string tlp_stream_port_error(const std::vector<PortShape>& ports, int w) {
  PortRules r(ports);
  const auto in = PortDir::In, out = PortDir::Out;
  r.want("clk", 1, in);
  int streams = 0;
  for (const char* s : kStreams) {
    const std::string p = s;
    const bool rx = p.rfind("rx", 0) == 0;
    const char* parts[] = {"_hdr", "_data", "_strb", "_sop", "_eop", "_valid", "_ready"};
    int present = 0;
    for (const char* part : parts) present += r.has(p + part);
    if (present == 0) continue;
    ++streams;
    const PortDir fwd = rx ? in : out, back = rx ? out : in;
    r.want(p + "_hdr", 128, fwd);
    r.want(p + "_data", w, fwd);
    r.want(p + "_strb", w / 32, fwd);
    r.want(p + "_sop", 1, fwd);
    r.want(p + "_eop", 1, fwd);
    r.want(p + "_valid", 1, fwd);
    r.want(p + "_ready", 1, back);
  }
  if (streams == 0) r.problem("none of the streams rx_req, rx_cpl, tx_req, tx_cpl");
  if (r.has("rst_n") && r.has("rst")) r.problem("both rst_n and rst: one reset");
  if (r.has("rst_n")) r.want("rst_n", 1, in);
  if (r.has("rst")) r.want("rst", 1, in);
  const std::pair<const char*, int> cfg[] = {{"cfg_requester_id", 16}, {"cfg_max_payload", 3}, {"cfg_max_read_req", 3},
                                             {"cfg_rcb_128b", 1}, {"cfg_bus_master_en", 1}};
  for (const auto& [n, bits] : cfg)
    if (r.has(n)) r.want(n, bits, in);
  if (r.has("msi_valid") || r.has("msi_vector")) {
    r.want("msi_valid", 1, out);
    r.want("msi_vector", 5, out);
  }
  if (r.has("msi_ready")) r.want("msi_ready", 1, in);
  return r.error();
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
    h.lower_addr = static_cast<std::uint16_t>(d2 & 0x7f);
    return h;
  }
  h.requester = static_cast<std::uint16_t>(d1 >> 16);
  h.tag = static_cast<std::uint8_t>(d1 >> 8);
  h.last_be = static_cast<std::uint8_t>(d1 >> 4 & 15);
  h.first_be = static_cast<std::uint8_t>(d1 & 15);
  h.addr = h.four_dw ? (static_cast<std::uint64_t>(d2) << 32 | (d3 & ~3u)) : (d2 & ~3u);
  return h;
}

// ---------------------------------------------------------------- the shim

TlpStreamShim::TlpStreamShim(RtlModel& model, int data_width, std::string device, const std::uint64_t& cycle)
    : Shim(model, data_width, std::move(device), cycle) {
  for (int i = 0; i < 4; ++i) {
    const std::string p = kStreams[i];
    Ports& s = m_p[static_cast<std::size_t>(i)];
    s.valid = model.find(p + "_valid");
    if (!s.valid) continue;
    s.hdr = model.find(p + "_hdr");
    s.data = model.find(p + "_data");
    s.strb = model.find(p + "_strb");
    s.sop = model.find(p + "_sop");
    s.eop = model.find(p + "_eop");
    s.ready = model.find(p + "_ready");
  }
  tx_valid(Way::TxReq, port(Way::TxReq).valid);
  tx_valid(Way::TxCpl, port(Way::TxCpl).valid);
  m_msi_valid = model.find("msi_valid");
  m_msi_vector = model.find("msi_vector");
  m_msi_ready = model.find("msi_ready");
}

const char* TlpStreamShim::stream(Way w) const { return kStreams[static_cast<int>(w)]; }

bool TlpStreamShim::has(Way w) const { return port(w).valid != nullptr; }

void TlpStreamShim::configure(const LinkSettings& s) {
  if (const RtlPort* p = m_model.find("cfg_requester_id")) p->set(s.rid);
  if (const RtlPort* p = m_model.find("cfg_max_payload")) p->set(size_code(s.mps));
  if (const RtlPort* p = m_model.find("cfg_max_read_req")) p->set(size_code(s.mrrs));
  if (const RtlPort* p = m_model.find("cfg_rcb_128b")) p->set(s.rcb == 128);
  if (const RtlPort* p = m_model.find("cfg_bus_master_en")) p->set(1);
}

std::uint32_t TlpStreamShim::beats(Way, const Packet& p) const {
  return std::max<std::uint32_t>(1, static_cast<std::uint32_t>((p.data.size() + m_beat_B - 1) / m_beat_B));
}

void TlpStreamShim::drive(Way w, const Packet* p, std::uint32_t beat) {
  const Ports& s = port(w);
  if (!p) {
    s.valid->set(0);
    return;
  }
  // The header bus holds the TLP's header from its first beat to its last:
  // written once, on the first.
  if (beat == 0) {
    std::uint8_t hdr[16];
    encode_header(p->h, hdr);
    s.hdr->set_bytes(hdr, 16);
  }
  const std::uint32_t from = beat * m_beat_B;
  const std::uint32_t n =
      p->data.size() > from ? std::min<std::uint32_t>(m_beat_B, static_cast<std::uint32_t>(p->data.size()) - from) : 0;
  if (n == m_beat_B) {
    s.data->set_bytes(p->data.data() + from, m_beat_B);
  } else {
    std::fill(m_beat.begin(), m_beat.end(), 0);
    if (n) std::memcpy(m_beat.data(), p->data.data() + from, n);
    s.data->set_bytes(m_beat.data(), m_beat_B);
  }
  // One strobe per DW the beat carries, from lane 0 (at most 64 lanes).
  const std::uint32_t dws = (n + 3) / 4;
  const std::uint64_t lanes = dws >= 64 ? ~0ull : (1ull << dws) - 1;
  std::uint8_t strb[8];
  for (int i = 0; i < 8; ++i) strb[i] = static_cast<std::uint8_t>(lanes >> (8 * i));
  s.strb->set_bytes(strb, (m_beat_B / 4 + 7) / 8);
  s.sop->set(beat == 0);
  s.eop->set(beat + 1 == beats(w, *p));
  s.valid->set(1);
}

bool TlpStreamShim::taken(Way w) const {
  const Ports& s = port(w);
  return s.valid && s.valid->get() && s.ready->get();
}

void TlpStreamShim::set_ready(Way w, bool ready) {
  if (has(w)) port(w).ready->set(ready);
}

bool TlpStreamShim::sample_offered(Way w, Packet& out, bool& done) {
  const Ports& s = port(w);
  const bool is_cpl = w == Way::TxCpl;
  Asm& a = m_asm[is_cpl ? 1 : 0];
  const bool ready = s.ready->get() != 0;
  std::uint8_t hdr[16];
  std::uint8_t strb_b[8] = {};
  const std::size_t strb_n = (m_beat_B / 4 + 7) / 8;
  s.hdr->get_bytes(hdr, 16);
  s.data->get_bytes(m_beat.data(), m_beat_B);
  s.strb->get_bytes(strb_b, strb_n);
  const bool sop = s.sop->get() != 0;
  const bool eop = s.eop->get() != 0;
  hold(w, true, ready, [&] {
    const std::uint64_t sum = digest(digest(digest(0xcbf29ce484222325ull, hdr, 16), m_beat.data(), m_beat_B), strb_b, strb_n);
    return sum * 31 + (sop ? 2 : 0) + (eop ? 1 : 0);
  });
  if (!ready) return false;
  if (sop == a.open) fail(w, sop ? "sop inside a TLP" : "first beat of a TLP without sop");
  if (sop) {
    a.open = true;
    a.dws_left = 0;
    a.p.h = decode_header(hdr);
    const TlpHeader& h = a.p.h;
    a.p.data.clear();  // its buffer stays: one allocation per way, not per TLP or beat
    a.p.data.reserve(static_cast<std::size_t>(h.length_dw) * 4);
    if (is_cpl) {
      if (h.type != HdrType::CplD && h.type != HdrType::Cpl) fail(w, "not a completion on tx_cpl");
      if (h.type == HdrType::CplD) a.dws_left = h.length_dw;
    } else {
      if (h.type != HdrType::MemWr && h.type != HdrType::MemRd) fail(w, "not a memory request on tx_req");
      const bool high = h.addr >= (1ull << 32);
      if (h.four_dw != high) fail(w, h.four_dw ? "a 4-DW header for an address below 4 GiB" : "a 3-DW header for an address above 4 GiB");
      if (h.type == HdrType::MemWr) a.dws_left = h.length_dw;
    }
  }
  // Strobes: contiguous from lane 0, as many as the TLP has DWs left in this beat.
  const std::uint32_t lanes = m_beat_B / 4;
  const std::uint32_t expect = std::min(a.dws_left, lanes);
  std::uint64_t on = 0;
  for (std::size_t i = 0; i < strb_n; ++i) on |= static_cast<std::uint64_t>(strb_b[i]) << (8 * i);
  const std::uint64_t all = lanes >= 64 ? ~0ull : (1ull << lanes) - 1;
  if ((on & all) != (expect >= 64 ? ~0ull : (1ull << expect) - 1))
    fail(w, "strobes do not cover exactly the TLP's next " + std::to_string(expect) + " DWs");
  a.p.data.insert(a.p.data.end(), m_beat.begin(), m_beat.begin() + expect * 4);
  a.dws_left -= expect;
  if (eop != (a.dws_left == 0)) fail(w, eop ? "eop before the TLP's last DW" : "no eop on the TLP's last DW");
  if (eop) {
    a.open = false;
    out.h = a.p.h;
    std::swap(out.data, a.p.data);  // the caller's previous buffer comes back for the next TLP
    done = true;
  }
  return true;
}

void TlpStreamShim::msi_drive(bool space) {
  if (m_msi_ready && space != m_msi_space) m_msi_ready->set(space);
  m_msi_space = space;
}

bool TlpStreamShim::msi_sample(bool space, std::uint32_t& vector) {
  if (!m_msi_valid || !m_msi_valid->get() || (m_msi_ready && !space)) return false;
  vector = m_msi_vector ? static_cast<std::uint32_t>(m_msi_vector->get()) : 0;
  return true;
}

bool TlpStreamShim::msi_busy() const { return m_msi_valid && m_msi_valid->get(); }

}  // namespace hx::rtl
