#include "models/dma/rtl/calypte_rtl.h"

#include <algorithm>
#include <chrono>
#include <cstring>

// The Verilated model stays inside this file (its header pulls names into
// the global namespace; TOOLCHAIN.md pitfall 6). With SystemC headers seen
// first, verilated.h takes its time from an unqualified sc_time_stamp().
using sc_core::sc_time_stamp;
#include "Vhx_dma_top.h"
#include "verilated.h"
#include "verilated_vcd_c.h"

namespace hx::dma {

using pcie::Tlp;
using pcie::TlpKind;

namespace {
enum : std::uint32_t { kTick };
constexpr std::uint8_t kReqMwr = 0, kReqMrd = 1;
constexpr std::uint32_t kCsrF2hBase = 0, kCsrF2hSize = 8, kCsrF2hUpd = 16, kCsrH2fUpd = 24;

template <class W, std::size_t N>
void put_bytes(W& w, const std::array<std::uint8_t, N>& b) {
  static_assert(N == static_cast<std::size_t>(CalypteRtl::kBytes), "a beat fills the datapath");
  std::memcpy(&w[0], b.data(), N);
}
template <class W>
void get_bytes(const W& w, std::uint8_t* out) {
  std::memcpy(out, &w[0], CalypteRtl::kBytes);
}
// The checkers' digest of a beat offered (valid), taken word by word; a beat
// not offered has none (nothing holds it: StreamChecker compares digests
// only while a beat waits for ready).
template <class W>
std::uint64_t beat_hash(bool valid, const W& data, std::uint64_t h) {
  if (!valid) return 0;
  static_assert(CalypteRtl::kBytes % 8 == 0, "a beat is whole words");
  const auto* p = reinterpret_cast<const unsigned char*>(&data[0]);
  for (std::size_t i = 0; i < CalypteRtl::kBytes; i += 8) {
    std::uint64_t w;
    std::memcpy(&w, p + i, 8);
    h = (h ^ w) * 0x9E3779B97F4A7C15ull;
    h ^= h >> 29;
  }
  return h;
}
// Two cycles with rst_n low, then released with the clock low.
void reset(Vhx_dma_top& t) {
  t.rst_n = 0;
  for (int i = 0; i < 2; ++i) {
    t.clk = 0;
    t.eval();
    t.clk = 1;
    t.eval();
  }
  t.rst_n = 1;
  t.clk = 0;
  t.eval();
}

std::vector<std::uint8_t> le64(std::uint64_t v) {
  std::vector<std::uint8_t> b(8);
  for (int i = 0; i < 8; ++i) b[static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(v >> (8 * i));
  return b;
}
}  // namespace

struct CalypteRtl::Impl {
  VerilatedContext ctx;
  std::unique_ptr<Vhx_dma_top> top;
  std::unique_ptr<VerilatedVcdC> vcd;
};

CalypteRtl::CalypteRtl(const std::string& name, const CalypteRtlConfig& cfg)
    : m_name(name),
      m_cfg(cfg),
      m_clock(clock_period(cfg.clock_mhz)),
      m_impl(std::make_unique<Impl>()),
      m_ring(kChannels),
      m_h2f(kChannels),
      m_csr_reads(256),
      m_chk_cq(name + ".cq", kBytes, true, 4096),
      m_chk_rq(name + ".rq", kBytes, true, 256),
      m_chk_f2h(name + ".f2h", kBytes, false),
      m_chk_h2f(name + ".h2f", kBytes, false) {
  auto& im = *m_impl;
  if (!cfg.wave.empty()) im.ctx.traceEverOn(true);
  im.top = std::make_unique<Vhx_dma_top>(&im.ctx, "hx_dma_top");
  if (!cfg.wave.empty()) {
    im.vcd = std::make_unique<VerilatedVcdC>();
    im.top->trace(im.vcd.get(), 99);
    im.vcd->open(cfg.wave.c_str());
  }
  reset(*im.top);
  auto& reg = StatsRegistry::instance();
  reg.add_counter(name + ".rtl_cycles", &rtl_cycles, "cycle", "RTL clock cycles simulated");
  reg.add_counter(name + ".rtl_tlps", &rtl_tlps, "TLP", "requester TLPs the RTL produced");
  reg.add_counter(name + ".h2f_packets", &h2f_packets, "1", "packets the RTL delivered to user logic");
}

double CalypteRtl::raw_cycles_per_s(std::uint64_t cycles) {
  VerilatedContext ctx;
  Vhx_dma_top t(&ctx, "raw");
  reset(t);
  // Ring settings for channel 0, then 1500 B packets back to back with the
  // requester side always ready.
  t.rq_ready = 1;
  t.cc_ready = 1;
  t.h2f_ready = 1;
  t.cq_valid = 1;
  t.cq_sop = t.cq_eop = 1;
  t.cq_type = kReqMwr;
  t.cq_len = 8;
  const std::uint64_t csr[2][2] = {{kCsrF2hBase, 1ull << 32}, {kCsrF2hSize, 1ull << 20}};
  for (const auto& c : csr) {
    t.cq_addr = static_cast<std::uint32_t>(c[0]);
    t.cq_data[0] = static_cast<std::uint32_t>(c[1]);
    t.cq_data[1] = static_cast<std::uint32_t>(c[1] >> 32);
    t.clk = 0;
    t.eval();
    t.clk = 1;
    t.eval();
  }
  t.cq_valid = 0;
  const auto start = std::chrono::steady_clock::now();
  std::uint32_t beat = 0;
  const std::uint32_t beats = (1500 + kBytes - 1) / kBytes;
  for (std::uint64_t i = 0; i < cycles; ++i) {
    t.f2h_valid = 1;
    t.f2h_sop = beat == 0;
    t.f2h_eop = beat + 1 == beats;
    t.f2h_len = 1500;
    t.f2h_chan = 0;
    t.f2h_data[0] = static_cast<std::uint32_t>(i);
    t.clk = 0;
    t.eval();
    const bool taken = t.f2h_ready;
    t.clk = 1;
    t.eval();
    if (taken) beat = beat + 1 == beats ? 0 : beat + 1;
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  t.final();
  return static_cast<double>(cycles) / s;
}

CalypteRtl::~CalypteRtl() {
  for (auto& p : m_f2h_packets) drop_ledger(p.led);
  for (auto& r : m_ring)
    for (Ledger*& l : r.written) drop_ledger(l);
  for (auto& e : m_h2f_expect) drop_ledger(e.second.led);
  if (m_impl && m_impl->vcd) m_impl->vcd->close();
  if (m_impl && m_impl->top) m_impl->top->final();
}

void CalypteRtl::attach(pcie::Endpoint& ep) {
  Device::attach(ep);
  m_s_rq = ep.add_stream("rtl_rq", 4);
}

std::string CalypteRtl::status() const {
  return std::to_string(m_f2h_packets.size()) + " F2H packets, " + std::to_string(m_h2f_expect.size()) +
         " H2F packets in flight, " + std::to_string(m_cq.size()) + " host beats queued";
}

bool CalypteRtl::busy() const {
  return !m_f2h_packets.empty() || !m_h2f_expect.empty() || !m_cq.empty() || !m_f2h.empty() || !m_h2f_bytes.empty();
}

void CalypteRtl::cq_write(std::uint32_t addr, const std::vector<std::uint8_t>& bytes) {
  const std::size_t beats = std::max<std::size_t>(1, (bytes.size() + kBytes - 1) / kBytes);
  for (std::size_t k = 0; k < beats; ++k) {
    Beat b;
    b.sop = k == 0;
    b.eop = k + 1 == beats;
    b.type = kReqMwr;
    b.addr = addr;
    b.len = static_cast<std::uint32_t>(bytes.size());
    const std::size_t from = k * kBytes, n = std::min<std::size_t>(kBytes, bytes.size() - from);
    if (n) std::memcpy(b.data.data(), bytes.data() + from, n);
    m_cq.push_back(b);
  }
  wake();
}

void CalypteRtl::set_f2h_ring(int ch, std::uint64_t base, std::uint64_t size, std::uint64_t update_addr) {
  if (ch < 0 || ch >= kChannels) sim_fail(m_name, "no channel " + std::to_string(ch));
  const std::uint32_t c = static_cast<std::uint32_t>(ch) * 32;
  cq_write(c + kCsrF2hBase, le64(base));
  cq_write(c + kCsrF2hSize, le64(size));
  cq_write(c + kCsrF2hUpd, le64(update_addr));
  m_ring[static_cast<std::size_t>(ch)].base = base;
  m_ring[static_cast<std::size_t>(ch)].size = size;
  m_ring[static_cast<std::size_t>(ch)].wptr = 0;
  m_ring[static_cast<std::size_t>(ch)].f2h_update = update_addr;
}

void CalypteRtl::set_h2f_update(int ch, std::uint64_t update_addr) {
  if (ch < 0 || ch >= kChannels) sim_fail(m_name, "no channel " + std::to_string(ch));
  cq_write(static_cast<std::uint32_t>(ch) * 32 + kCsrH2fUpd, le64(update_addr));
  m_ring[static_cast<std::size_t>(ch)].h2f_update = update_addr;
}

void CalypteRtl::csr_read(std::uint32_t offset, std::function<void(std::uint64_t)> done) {
  auto it = std::find_if(m_csr_reads.begin(), m_csr_reads.end(), [](const auto& f) { return !f; });
  if (it == m_csr_reads.end()) sim_fail(m_name, "more than 256 CSR reads outstanding");
  *it = std::move(done);
  Beat b;
  b.sop = b.eop = true;
  b.type = kReqMrd;
  b.addr = offset;
  b.len = 8;
  b.tag = static_cast<std::uint32_t>(it - m_csr_reads.begin());
  m_cq.push_back(b);
  wake();
}

std::uint64_t CalypteRtl::send(int ch, std::uint32_t bytes, std::uint64_t stream, std::uint64_t off, const Ledger* led) {
  if (ch < 0 || ch >= kChannels) sim_fail(m_name, "no channel " + std::to_string(ch));
  if (bytes == 0 || bytes > 0xffff) sim_fail(m_name, "packet of " + std::to_string(bytes) + " B");
  Ring& r = m_ring[static_cast<std::size_t>(ch)];
  if (!r.size) sim_fail(m_name, "F2H channel " + std::to_string(ch) + " has no ring buffer");
  // Where the RTL will put it (checked when its writes come out).
  const std::uint64_t start = r.base + calypte_ring_place(r.wptr, r.size, bytes);
  m_f2h_packets.push_back(F2hPacket{ch, bytes, stream, off, start, 0, fork_ledger(led)});
  std::vector<std::uint8_t> data(bytes);
  pattern_fill(stream, off, data.data(), bytes);
  const std::uint32_t beats = (bytes + kBytes - 1) / kBytes;
  for (std::uint32_t k = 0; k < beats; ++k) {
    Beat b;
    b.sop = k == 0;
    b.eop = k + 1 == beats;
    b.chan = static_cast<std::uint32_t>(ch);
    b.len = bytes;
    const std::uint32_t from = k * kBytes, n = std::min<std::uint32_t>(kBytes, bytes - from);
    std::memcpy(b.data.data(), data.data() + from, n);
    m_f2h.push_back(b);
  }
  wake();
  return start;
}

void CalypteRtl::on_write(const Tlp& t) {
  const auto& bar = m_ep->config().bars.at(0);
  if (!bar.contains(t.addr)) return;
  const std::uint64_t off = t.addr - bar.base;
  std::vector<std::uint8_t> bytes(t.len);
  pattern_fill(t.data_stream, t.data_off, bytes.data(), t.len);
  if (bytes_checksum(bytes.data(), t.len) != t.checksum) sim_fail(m_name, "BAR write data check failed");
  if (off >= kCalypteH2FData) {
    const std::size_t ch = static_cast<std::size_t>((off - kCalypteH2FData) >> 20);
    if (ch >= m_h2f.size()) sim_fail(m_name, "H2F write beyond the last channel");
    if (off % kBytes) sim_fail(m_name, "H2F data write not aligned to the datapath");
    H2fState& h = m_h2f[ch];
    if (!h.have_first) {
      h.stream = t.data_stream;
      h.off = t.data_off;
      h.have_first = true;
    }
    h.bytes += t.len;
  } else if (off >= kCalypteH2FHeader && off < kCalypteH2FHeader + 8 * kChannels) {
    // The header carries the packet length: the bytes the host wrote since.
    const std::size_t ch = static_cast<std::size_t>((off - kCalypteH2FHeader) / 8);
    m_h2f_expect.emplace_back(static_cast<int>(ch), m_h2f[ch]);
    m_h2f_expect.back().second.led = fork_ledger(t.ledger);
    bytes = le64(m_h2f[ch].bytes);
    m_h2f[ch] = H2fState{};
  }
  cq_write(static_cast<std::uint32_t>(off), bytes);
}

void CalypteRtl::on_completion(const Tlp&) { sim_fail(m_name, "the Calypte RTL issues no reads"); }

void CalypteRtl::wake() { m_clock.wake(m_ep->scheduler(), this, kTick); }

void CalypteRtl::on_action(std::uint32_t kind, std::uint64_t, void*) {
  if (kind != kTick || !m_clock.due()) return;  // a superseded wake-up
  while (tick()) {
  }
}

// One RTL clock cycle: drive inputs, evaluate before and after the rising
// edge, act on the handshakes that happened at it.
bool CalypteRtl::tick() {
  auto& im = *m_impl;
  auto& t = *im.top;
  const std::uint64_t cyc = m_cycle_count++;
  ++rtl_cycles;
  // inputs
  const bool cq_v = !m_cq.empty();
  t.cq_valid = cq_v;
  if (cq_v) {
    const Beat& b = m_cq.front();
    t.cq_sop = b.sop;
    t.cq_eop = b.eop;
    t.cq_type = b.type;
    t.cq_addr = b.addr;
    t.cq_len = static_cast<std::uint16_t>(b.len);
    t.cq_tag = static_cast<std::uint8_t>(b.tag);
    put_bytes(t.cq_data, b.data);
  }
  const bool f_v = !m_f2h.empty();
  t.f2h_valid = f_v;
  if (f_v) {
    const Beat& b = m_f2h.front();
    t.f2h_sop = b.sop;
    t.f2h_eop = b.eop;
    t.f2h_chan = static_cast<std::uint8_t>(b.chan);
    t.f2h_len = static_cast<std::uint16_t>(b.len);
    put_bytes(t.f2h_data, b.data);
  }
  t.rq_ready = !m_ep->stream_full(m_s_rq);
  t.cc_ready = 1;
  t.rc_valid = 0;
  t.h2f_ready = (m_cfg.user_ready_every <= 1) || (cyc % static_cast<std::uint64_t>(m_cfg.user_ready_every) == 0);
  t.clk = 0;
  t.eval();
  if (im.vcd) im.vcd->dump(static_cast<std::uint64_t>(now_tick()));

  // the handshakes of this edge
  const bool cq_fire = t.cq_valid && t.cq_ready;
  const bool f_fire = t.f2h_valid && t.f2h_ready;
  const bool rq_fire = t.rq_valid && t.rq_ready;
  const bool h_fire = t.h2f_valid && t.h2f_ready;
  const bool cc_fire = t.cc_valid && t.cc_ready;
  // The bytes of the beats taken, kept past the rising edge.
  std::uint8_t rq_data[kBytes] = {}, h_data[kBytes] = {};
  if (rq_fire) get_bytes(t.rq_data, rq_data);
  if (h_fire) get_bytes(t.h2f_data, h_data);
  BeatSample s;
  s = {t.rq_valid != 0, t.rq_ready != 0, t.rq_sop != 0, t.rq_eop != 0, t.rq_addr, t.rq_len,
       beat_hash(t.rq_valid, t.rq_data, t.rq_addr * 31 + t.rq_len)};
  if (m_inject && s.valid) {
    s.eop = !s.eop;  // a framing error the checker must catch
    m_inject = false;
  }
  m_chk_rq.sample(s, cyc);
  m_chk_cq.sample({t.cq_valid != 0, t.cq_ready != 0, t.cq_sop != 0, t.cq_eop != 0, t.cq_addr, t.cq_len,
                   beat_hash(t.cq_valid, t.cq_data, t.cq_addr)}, cyc);
  m_chk_f2h.sample({t.f2h_valid != 0, t.f2h_ready != 0, t.f2h_sop != 0, t.f2h_eop != 0, 0, 0,
                    beat_hash(t.f2h_valid, t.f2h_data, t.f2h_chan)}, cyc);
  m_chk_h2f.sample({t.h2f_valid != 0, t.h2f_ready != 0, t.h2f_sop != 0, t.h2f_eop != 0, 0, 0,
                    beat_hash(t.h2f_valid, t.h2f_data, t.h2f_chan * 65537u + t.h2f_len)}, cyc);
  const std::uint64_t rq_addr = t.rq_addr;
  const std::uint32_t rq_len = t.rq_len;
  const bool rq_sop = t.rq_sop, rq_eop = t.rq_eop;
  const bool h_eop = t.h2f_eop, h_sop = t.h2f_sop;
  const int h_ch = t.h2f_chan;
  const std::uint32_t h_len = t.h2f_len;
  const std::uint8_t cc_tag = t.cc_tag;
  const std::uint64_t cc_data = t.cc_data;

  t.clk = 1;
  t.eval();
  if (im.vcd) im.vcd->dump(static_cast<std::uint64_t>(now_tick() + m_clock.period() / 2));

  bool active = cq_fire || f_fire || rq_fire || h_fire || cc_fire;
  if (cq_fire) m_cq.pop_front();
  if (f_fire) m_f2h.pop_front();
  if (rq_fire) {
    if (rq_sop) {
      m_rq_open = true;
      m_rq_addr = rq_addr;
      m_rq_len = rq_len;
      m_rq_bytes.clear();
      start_rq();
    }
    const std::size_t n = std::min<std::size_t>(kBytes, m_rq_len - m_rq_bytes.size());
    m_rq_bytes.insert(m_rq_bytes.end(), rq_data, rq_data + n);
    if (rq_eop) finish_rq();
  }
  if (h_fire) {
    if (h_sop) start_h2f(h_ch, h_len);
    const std::size_t n = std::min<std::size_t>(kBytes, m_h2f_len - m_h2f_bytes.size());
    m_h2f_bytes.insert(m_h2f_bytes.end(), h_data, h_data + n);
    if (h_eop) finish_h2f();
  }
  if (cc_fire) {
    auto& f = m_csr_reads[cc_tag];
    if (!f) sim_fail(m_name, "CSR completion for no read");
    auto done = std::move(f);
    f = nullptr;
    done(cc_data);
  }
  // Keep clocking while work is queued or the RTL offers something.
  if (!m_cq.empty() || !m_f2h.empty() || t.rq_valid || t.h2f_valid || t.cc_valid) active = true;
  // The RTL is idle once nothing has moved for longer than its deepest
  // pipeline: then the adapter stops clocking it until an input arrives.
  return m_clock.after_cycle(active, m_cfg.idle_cycles, false, m_ep->scheduler(), this, kTick);
}

bool CalypteRtl::is_update(std::uint64_t addr, std::uint32_t len) const {
  for (const auto& r : m_ring)
    if (len == 8 && (addr == r.f2h_update || addr == r.h2f_update)) return true;
  return false;
}

// A packet segment is handed to the hard block at its first beat (cut-through,
// as the PCIe block streams a TLP from its first beat); its bytes are checked
// when the last beat is out.
void CalypteRtl::start_rq() {
  if (is_update(m_rq_addr, m_rq_len)) return;  // one beat: sent at its end
  if (m_f2h_packets.empty()) sim_fail(m_name, "RTL wrote to host memory with no packet in flight");
  F2hPacket& p = m_f2h_packets.front();
  if (m_rq_addr != p.ring_addr + p.written) sim_fail(m_name, "RTL wrote a segment at an unexpected ring address");
  Tlp* w = m_ep->make(TlpKind::MemWr);
  w->addr = m_rq_addr;
  w->addr64 = pcie::needs_addr64(m_rq_addr);
  w->len = m_rq_len;
  w->data_stream = p.stream;
  w->data_off = p.off + p.written;
  w->checksum = pattern_checksum(w->data_stream, w->data_off, w->len);
  m_rq_stream = p.stream;
  m_rq_off = w->data_off;
  p.written += m_rq_len;
  if (p.written == p.bytes) {
    m_ring[static_cast<std::size_t>(p.ch)].written.push_back(p.led);
    m_f2h_packets.pop_front();
  }
  ++rtl_tlps;
  m_ep->push(m_s_rq, w, now_tick());
}

void CalypteRtl::finish_rq() {
  m_rq_open = false;
  if (m_rq_bytes.size() != m_rq_len) sim_fail(m_name, "RTL requester TLP ended short of its length");
  if (!is_update(m_rq_addr, m_rq_len)) {
    if (bytes_checksum(m_rq_bytes.data(), m_rq_len) != pattern_checksum(m_rq_stream, m_rq_off, m_rq_len))
      sim_fail(m_name, "RTL F2H data differs from what user logic sent");
    return;
  }
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | m_rq_bytes[static_cast<std::size_t>(i)];
  ++rtl_tlps;
  Tlp* u = calypte_pointer_update(*m_ep, m_rq_addr, v);
  // An F2H update tells the host of every packet written before it: the
  // last one's ledger goes on with it (the RTL's cycles since its send()).
  for (auto& r : m_ring) {
    if (r.f2h_update != m_rq_addr) continue;
    while (!r.written.empty()) {
      drop_ledger(u->ledger);
      u->ledger = r.written.front();
      r.written.pop_front();
    }
    if (u->ledger) u->ledger->charge(Stage::Device, now_tick());
    break;
  }
  m_ep->push(m_s_rq, u, now_tick());
}

void CalypteRtl::start_h2f(int ch, std::uint32_t len) {
  if (m_h2f_expect.empty()) sim_fail(m_name, "RTL delivered an H2F packet nobody released");
  const auto [want_ch, h] = m_h2f_expect.front();
  m_h2f_expect.pop_front();
  if (ch != want_ch || len != h.bytes) sim_fail(m_name, "RTL delivered an H2F packet of the wrong channel or length");
  m_h2f_cur = h;
  m_h2f_cur.led = nullptr;
  m_h2f_len = len;
  m_h2f_bytes.clear();
  ++h2f_packets;
  Ledger* led = h.led;
  if (led) led->charge(Stage::Device, now_tick());  // the RTL's cycles from the header to the packet's first beat
  if (on_h2f_packet) on_h2f_packet(ch, len, now_tick(), led);
  drop_ledger(led);
}

void CalypteRtl::finish_h2f() {
  const std::uint32_t len = static_cast<std::uint32_t>(m_h2f_bytes.size());
  if (len != m_h2f_len) sim_fail(m_name, "RTL H2F packet ended after " + std::to_string(len) + " of " + std::to_string(m_h2f_len) + " B");
  if (len && bytes_checksum(m_h2f_bytes.data(), len) != pattern_checksum(m_h2f_cur.stream, m_h2f_cur.off, len))
    sim_fail(m_name, "RTL H2F data differs from what the host wrote");
  m_h2f_bytes.clear();
}

}  // namespace hx::dma
