#include "models/rtl/rtl_device.h"

#include <algorithm>
#include <cstring>

#include "models/core/error.h"

namespace hx::rtl {

using pcie::Tlp;
using pcie::TlpKind;

namespace {
enum : std::uint32_t { kTick };

std::uint64_t mix(std::uint64_t h, const std::uint8_t* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
  return h;
}
// log2(size / 128): the encoding of Max_Payload_Size and Max_Read_Request_Size.
std::uint64_t size_code(int bytes) {
  std::uint64_t c = 0;
  while ((128 << c) < bytes && c < 5) ++c;
  return c;
}
}  // namespace

RtlDevice::RtlDevice(const std::string& name, const RtlDeviceConfig& cfg)
    : m_name(name), m_cfg(cfg), m_clock(clock_period(cfg.clock_mhz)), m_beat_B(static_cast<std::uint32_t>(cfg.data_width / 8)),
      m_beat(m_beat_B), m_corrupt(cfg.corrupt_completion) {
  m_model = std::make_unique<RtlModel>(RtlLibrary::open(cfg.library), cfg.wave);
  std::vector<PortShape> shapes;
  for (const auto& p : m_model->ports()) shapes.push_back({p.name, p.bits, p.dir});
  const std::string err = tlp_stream_port_error(shapes, cfg.data_width);
  if (!err.empty()) sim_fail(name, "the design does not have the tlp_stream interface:" + err);
  m_clk = m_model->find("clk");
  m_rst = m_model->find("rst_n");
  if (!m_rst) {
    m_rst = m_model->find("rst");
    m_rst_active_low = false;
  }
  m_msi_valid = m_model->find("msi_valid");
  m_msi_vector = m_model->find("msi_vector");
  m_msi_ready = m_model->find("msi_ready");
  m_rx_req = bind("rx_req");
  m_rx_cpl = bind("rx_cpl");
  m_tx_req = bind("tx_req");
  m_tx_cpl = bind("tx_cpl");
  auto& reg = StatsRegistry::instance();
  reg.add_counter(name + ".rtl_cycles", &rtl_cycles, "cycle", "RTL clock cycles simulated");
  reg.add_counter(name + ".rx_tlps", &rx_tlps, "TLP", "TLPs the design took (requests to its BARs, completions)");
  reg.add_counter(name + ".tx_tlps", &tx_tlps, "TLP", "TLPs the design sent (requests, completions)");
  reg.add_counter(name + ".msis", &msis, "1", "MSIs the design raised");
}

RtlDevice::~RtlDevice() = default;

RtlDevice::Stream RtlDevice::bind(const std::string& p) const {
  Stream s;
  s.valid = m_model->find(p + "_valid");
  if (!s.valid) return s;
  s.hdr = m_model->find(p + "_hdr");
  s.data = m_model->find(p + "_data");
  s.strb = m_model->find(p + "_strb");
  s.sop = m_model->find(p + "_sop");
  s.eop = m_model->find(p + "_eop");
  s.ready = m_model->find(p + "_ready");
  return s;
}

void RtlDevice::attach(pcie::Endpoint& ep) {
  Device::attach(ep);
  m_s_req = ep.add_stream("rtl_tx_req", static_cast<std::size_t>(m_cfg.tx_depth));
  // The configuration the hard block presents, fixed after enumeration.
  if (const RtlPort* p = m_model->find("cfg_requester_id")) p->set(ep.config().rid & 0xffff);
  if (const RtlPort* p = m_model->find("cfg_max_payload")) p->set(size_code(ep.mps()));
  if (const RtlPort* p = m_model->find("cfg_max_read_req")) p->set(size_code(ep.config().mrrs));
  if (const RtlPort* p = m_model->find("cfg_rcb_128b")) p->set(0);
  if (const RtlPort* p = m_model->find("cfg_bus_master_en")) p->set(1);
  // Reset: reset_cycles cycles with reset asserted, then released with the
  // clock low (before time 0: not simulated time).
  if (m_rst) m_rst->set(m_rst_active_low ? 0 : 1);
  for (int i = 0; i < std::max(1, m_cfg.reset_cycles); ++i) {
    m_clk->set(0);
    m_model->eval();
    m_clk->set(1);
    m_model->eval();
  }
  if (m_rst) m_rst->set(m_rst_active_low ? 1 : 0);
  m_clk->set(0);
  m_model->eval();
  if (m_cfg.free_running) wake();
}

void RtlDevice::fail(const char* stream, const std::string& what) const {
  sim_fail("rtl checker " + m_name + "." + stream, "cycle " + std::to_string(m_cycle) + ": " + what);
}

void RtlDevice::queue_rx(std::deque<RxTlp>& q, const TlpHeader& h, const std::uint8_t* payload, std::uint32_t lead,
                         std::uint32_t n) {
  RxTlp r;
  encode_header(h, r.hdr.data());
  if (h.type == HdrType::MemWr || h.type == HdrType::CplD) {
    r.data.assign(static_cast<std::size_t>(h.length_dw) * 4, 0);
    if (n) std::memcpy(r.data.data() + lead, payload, n);
    r.beats = static_cast<std::uint32_t>((r.data.size() + m_beat_B - 1) / m_beat_B);
  }
  q.push_back(std::move(r));
  wake();
}

void RtlDevice::on_write(const Tlp& t) {
  if (t.kind != TlpKind::MemWr) sim_fail(m_name, std::string("a ") + pcie::kind_name(t.kind) + " reached the design, which takes memory requests only");
  if (!m_rx_req.present()) sim_fail(m_name, "a write to the design's BAR, but the design has no rx_req stream");
  if (!t.payload_intact()) sim_fail(m_name, "payload check failed on a write to " + hex(t.addr));
  TlpHeader h = request_header(HdrType::MemWr, t.addr, t.len);
  h.requester = static_cast<std::uint16_t>(t.requester);
  h.tag = static_cast<std::uint8_t>(t.tag);
  std::uint8_t buf[PayloadBytes::kMax];
  t.payload(buf);
  queue_rx(m_rxq_req, h, buf, static_cast<std::uint32_t>(t.addr & 3), t.len);
}

bool RtlDevice::on_read(const Tlp& t) {
  if (!m_rx_req.present() || !m_tx_cpl.present())
    sim_fail(m_name, "a read of the design's BAR, but the design lacks the rx_req or tx_cpl stream");
  const std::uint8_t tag = static_cast<std::uint8_t>(t.tag);
  HostRead& r = m_host_reads[tag];
  if (r.open) sim_fail(m_name, "two host reads of the design with tag " + std::to_string(tag) + " at once");
  r.open = true;
  r.req = t;
  r.req.bytes = nullptr;
  r.req.ledger = nullptr;
  r.left = std::max<std::uint32_t>(t.req_len, 1);
  ++m_host_open;
  TlpHeader h = request_header(HdrType::MemRd, t.addr, t.req_len);
  h.requester = static_cast<std::uint16_t>(t.requester);
  h.tag = tag;
  queue_rx(m_rxq_req, h, nullptr, 0, 0);
  return true;
}

void RtlDevice::on_completion(const Tlp& t) {
  const std::uint8_t tag = static_cast<std::uint8_t>(t.tag);
  DevRead& r = m_dev_reads[tag];
  if (!r.open) sim_fail(m_name, "a completion with tag " + std::to_string(tag) + " for no read of the design");
  if (!t.payload_intact()) sim_fail(m_name, "payload check failed on a completion from " + hex(t.addr));
  if (t.addr != r.next || t.len > r.left) sim_fail(m_name, "a completion out of order for the design's read with tag " + std::to_string(tag));
  if (!m_rx_cpl.present()) sim_fail(m_name, "a completion for the design, which has no rx_cpl stream");
  TlpHeader h;
  h.type = t.len ? HdrType::CplD : HdrType::Cpl;
  h.completer = static_cast<std::uint16_t>(t.completer);
  h.requester = static_cast<std::uint16_t>(m_ep->config().rid);
  h.tag = tag;
  h.byte_count = static_cast<std::uint16_t>(r.left);
  h.lower_addr = static_cast<std::uint8_t>(t.addr & 0x7f);
  const std::uint32_t lead = static_cast<std::uint32_t>(t.addr & 3);
  h.length_dw = (lead + t.len + 3) / 4;
  std::uint8_t buf[PayloadBytes::kMax];
  t.payload(buf);
  r.next += t.len;
  r.left -= t.len;
  if (r.left == 0) {
    r.open = false;
    --m_dev_open;
  }
  queue_rx(m_rxq_cpl, h, buf, lead, t.len);
}

void RtlDevice::on_tx_space(int) { wake(); }

void RtlDevice::quiesce() { m_quiesced = true; }

bool RtlDevice::busy() const {
  return !m_rxq_req.empty() || !m_rxq_cpl.empty() || m_asm_req.open || m_asm_cpl.open || m_host_open || m_dev_open;
}

std::string RtlDevice::status() const {
  return std::to_string(m_rxq_req.size()) + " requests and " + std::to_string(m_rxq_cpl.size()) +
         " completions not yet taken by the design, " + std::to_string(m_dev_open) + " of its reads and " +
         std::to_string(m_host_open) + " host reads of it outstanding, cycle " + std::to_string(m_cycle);
}

void RtlDevice::wake() { m_clock.wake(m_ep->scheduler(), this, kTick); }

void RtlDevice::on_action(std::uint32_t kind, std::uint64_t, void*) {
  if (kind != kTick || !m_clock.due()) return;  // a superseded wake-up
  tick();
}

void RtlDevice::drive_rx(const Stream& s, std::deque<RxTlp>& q) {
  if (!s.present()) return;
  if (q.empty()) {
    s.valid->set(0);
    return;
  }
  const RxTlp& r = q.front();
  const std::uint32_t from = r.next * m_beat_B;
  const std::uint32_t n = r.data.size() > from ? std::min<std::uint32_t>(m_beat_B, static_cast<std::uint32_t>(r.data.size()) - from) : 0;
  std::fill(m_beat.begin(), m_beat.end(), 0);
  if (n) std::memcpy(m_beat.data(), r.data.data() + from, n);
  s.hdr->set_bytes(r.hdr.data(), 16);
  s.data->set_bytes(m_beat.data(), m_beat_B);
  const std::uint32_t dws = (n + 3) / 4;
  std::uint8_t strb[64] = {};
  for (std::uint32_t i = 0; i < dws; ++i) strb[i / 8] |= static_cast<std::uint8_t>(1u << (i % 8));
  s.strb->set_bytes(strb, sizeof strb);
  s.sop->set(r.next == 0);
  s.eop->set(r.next + 1 == r.beats);
  s.valid->set(1);
}

bool RtlDevice::check_tx(const Stream& s, Held& held, TxAsm& a, bool is_cpl, const char* name) {
  if (!s.present()) return false;
  const bool valid = s.valid->get() != 0, ready = s.ready->get() != 0;
  std::uint8_t hdr[16];
  s.hdr->get_bytes(hdr, 16);
  s.data->get_bytes(m_beat.data(), m_beat_B);
  std::uint8_t strb_b[64] = {};
  s.strb->get_bytes(strb_b, sizeof strb_b);
  const bool sop = s.sop->get() != 0, eop = s.eop->get() != 0;
  std::uint64_t sum = mix(mix(mix(0xcbf29ce484222325ull, hdr, 16), m_beat.data(), m_beat_B), strb_b, sizeof strb_b);
  sum = sum * 31 + (sop ? 2 : 0) + (eop ? 1 : 0);
  if (held.stalled) {
    if (!valid) fail(name, "valid dropped before the beat was taken");
    if (sum != held.sum) fail(name, "beat changed while waiting for ready");
  }
  held.stalled = valid && !ready;
  held.sum = sum;
  if (!(valid && ready)) return false;
  if (sop == a.open) fail(name, sop ? "sop inside a TLP" : "first beat of a TLP without sop");
  if (sop) {
    a = TxAsm{};
    a.open = true;
    a.h = decode_header(hdr);
    const TlpHeader& h = a.h;
    if (is_cpl) {
      if (h.type != HdrType::CplD && h.type != HdrType::Cpl) fail(name, "not a completion on tx_cpl");
      if (h.type == HdrType::CplD) a.dws_left = h.length_dw;
    } else {
      if (h.type != HdrType::MemWr && h.type != HdrType::MemRd) fail(name, "not a memory request on tx_req");
      std::uint64_t first = 0;
      std::uint32_t len = 0;
      if (!h.byte_range(first, len)) fail(name, "invalid byte enables (first " + std::to_string(h.first_be) + ", last " + std::to_string(h.last_be) + ")");
      const int limit = h.type == HdrType::MemWr ? m_ep->mps() : m_ep->config().mrrs;
      if (len > static_cast<std::uint32_t>(limit))
        fail(name, std::string(h.type == HdrType::MemWr ? "a write of " : "a read of ") + std::to_string(len) + " B above the " +
                       (h.type == HdrType::MemWr ? "MPS " : "MRRS ") + std::to_string(limit));
      if (len && (first & 4095) + len > 4096) fail(name, "a request crosses a 4 KiB boundary at " + hex(first));
      if (h.four_dw != (first >= (1ull << 32))) fail(name, h.four_dw ? "a 4-DW header for an address below 4 GiB" : "a 3-DW header for an address above 4 GiB");
      if (h.type == HdrType::MemWr) a.dws_left = h.length_dw;
    }
  }
  // Strobes: contiguous from lane 0, as many as the TLP has DWs left in this beat.
  const std::uint32_t lanes = m_beat_B / 4;
  const std::uint32_t expect = std::min(a.dws_left, lanes);
  for (std::uint32_t i = 0; i < lanes; ++i) {
    const bool on = strb_b[i / 8] >> (i % 8) & 1;
    if (on != (i < expect)) fail(name, "strobes do not cover exactly the TLP's next " + std::to_string(expect) + " DWs");
  }
  a.data.insert(a.data.end(), m_beat.begin(), m_beat.begin() + expect * 4);
  a.dws_left -= expect;
  if (eop != (a.dws_left == 0)) fail(name, eop ? "eop before the TLP's last DW" : "no eop on the TLP's last DW");
  if (eop) a.open = false;
  return true;
}

void RtlDevice::finish_tx_req(TxAsm& a) {
  std::uint64_t first = 0;
  std::uint32_t len = 0;
  a.h.byte_range(first, len);
  if (a.h.type == HdrType::MemWr) {
    Tlp* t = m_ep->make(TlpKind::MemWr);
    t->addr = first;
    t->addr64 = pcie::needs_addr64(first);
    t->set_bytes(a.data.data() + (first & 3), len);
    m_ep->push(m_s_req, t);
  } else {
    DevRead& r = m_dev_reads[a.h.tag];
    if (r.open) fail("tx_req", "a read with tag " + std::to_string(a.h.tag) + ", which an earlier read still holds");
    r.open = true;
    r.next = first;
    r.left = len;
    ++m_dev_open;
    Tlp* t = m_ep->make(TlpKind::MemRd);
    t->addr = first;
    t->addr64 = pcie::needs_addr64(first);
    t->req_len = len;
    t->tag = a.h.tag;
    t->want_bytes = true;
    m_ep->push(m_s_req, t);
  }
  ++tx_tlps;
}

void RtlDevice::finish_tx_cpl(TxAsm& a) {
  HostRead& r = m_host_reads[a.h.tag];
  if (!r.open) fail("tx_cpl", "a completion with tag " + std::to_string(a.h.tag) + " for no host read");
  if (a.h.requester != static_cast<std::uint16_t>(r.req.requester))
    fail("tx_cpl", "a completion for requester " + std::to_string(a.h.requester) + ", not the reader's " +
                       std::to_string(static_cast<std::uint16_t>(r.req.requester)));
  if (a.h.status != 0) fail("tx_cpl", "a completion with status " + std::to_string(a.h.status) + " (only successful ones are modelled)");
  if (a.h.byte_count != r.left) fail("tx_cpl", "byte count " + std::to_string(a.h.byte_count) + ", but " + std::to_string(r.left) + " bytes are left");
  const std::uint64_t first = r.req.addr + (std::max<std::uint32_t>(r.req.req_len, 1) - r.left);
  if ((first & 0x7f) != a.h.lower_addr) fail("tx_cpl", "lower address " + std::to_string(a.h.lower_addr) + ", expected " + std::to_string(first & 0x7f));
  const std::uint32_t lead = static_cast<std::uint32_t>(first & 3);
  const std::uint32_t n = a.h.type == HdrType::Cpl ? 0 : std::min<std::uint32_t>(r.left, a.h.length_dw * 4 - lead);
  Tlp* c = m_ep->completion_for(r.req);
  c->addr = first;
  c->req_len = r.left;
  c->set_bytes(a.data.data() + lead, n);
  if (m_corrupt && n) {
    c->bytes->b[0] ^= 0x5a;  // the test hook: after the checksum
    m_corrupt = false;
  }
  r.left -= n;
  if (r.left == 0 || n == 0) {
    r.open = false;
    --m_host_open;
  }
  m_ep->push(0, c);
  ++tx_tlps;
}

// One clock cycle: drive the inputs, evaluate before and after the rising
// edge, act on the handshakes that happened at it.
void RtlDevice::tick() {
  ++m_cycle;
  ++rtl_cycles;
  drive_rx(m_rx_req, m_rxq_req);
  drive_rx(m_rx_cpl, m_rxq_cpl);
  const bool req_space = !m_ep->stream_full(m_s_req);
  if (m_tx_req.present()) m_tx_req.ready->set(req_space);
  if (m_tx_cpl.present()) m_tx_cpl.ready->set(1);
  if (m_msi_ready) m_msi_ready->set(req_space);
  m_clk->set(0);
  m_model->eval();
  m_model->dump(static_cast<std::uint64_t>(now_tick()));

  const bool rx_req_fire = m_rx_req.present() && m_rx_req.valid->get() && m_rx_req.ready->get();
  const bool rx_cpl_fire = m_rx_cpl.present() && m_rx_cpl.valid->get() && m_rx_cpl.ready->get();
  const bool tx_req_fire = check_tx(m_tx_req, m_held_req, m_asm_req, false, "tx_req");
  const bool tx_cpl_fire = check_tx(m_tx_cpl, m_held_cpl, m_asm_cpl, true, "tx_cpl");
  const bool msi_fire = m_msi_valid && m_msi_valid->get() && (!m_msi_ready || req_space);
  const std::uint32_t msi_vector = m_msi_vector ? static_cast<std::uint32_t>(m_msi_vector->get()) : 0;
  const bool tx_offered = (m_tx_req.present() && m_tx_req.valid->get()) || (m_tx_cpl.present() && m_tx_cpl.valid->get()) ||
                          (m_msi_valid && m_msi_valid->get());

  m_clk->set(1);
  m_model->eval();
  m_model->dump(static_cast<std::uint64_t>(now_tick() + m_clock.period() / 2));

  auto advance = [&](std::deque<RxTlp>& q) {
    RxTlp& r = q.front();
    if (++r.next == r.beats) {
      q.pop_front();
      ++rx_tlps;
    }
  };
  if (rx_req_fire) advance(m_rxq_req);
  if (rx_cpl_fire) advance(m_rxq_cpl);
  if (tx_req_fire && !m_asm_req.open) finish_tx_req(m_asm_req);
  if (tx_cpl_fire && !m_asm_cpl.open) finish_tx_cpl(m_asm_cpl);
  if (msi_fire) {
    m_ep->push(m_s_req, m_ep->make_msi(msi_vector));
    ++msis;
  }
  // Active: a handshake, a TLP waiting for the design, or one the design
  // offers. The clock stops idle_cycles after the last; a design waiting
  // for a completion is woken by its arrival. A free-running clock runs
  // until quiesce().
  const bool active = rx_req_fire || rx_cpl_fire || tx_req_fire || tx_cpl_fire || msi_fire || !m_rxq_req.empty() ||
                      !m_rxq_cpl.empty() || tx_offered;
  m_clock.after_cycle(active, m_cfg.idle_cycles, m_cfg.free_running && !m_quiesced, m_ep->scheduler(), this, kTick);
}

}  // namespace hx::rtl
