#include "models/rtl/rtl_device.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>

#include "models/core/error.h"
#include "models/rtl/interfaces.h"

namespace hx::rtl {

using pcie::Tlp;
using pcie::TlpKind;

namespace {
enum : std::uint32_t { kTick };

// The design's clock and reset, by the names the interfaces allow.
struct ClockReset {
  const RtlPort *clk = nullptr, *rst = nullptr;
  bool active_low = true;
};
ClockReset clock_reset(const RtlModel& m) {
  ClockReset c;
  c.clk = m.find("clk");
  if (!c.clk) c.clk = m.find("user_clk");
  for (const char* n : {"rst_n", "user_reset_n"})
    if (!c.rst) c.rst = m.find(n);
  for (const char* n : {"rst", "user_reset"})
    if (!c.rst) {
      c.rst = m.find(n);
      c.active_low = false;
    }
  return c;
}
// Reset: `cycles` cycles with reset asserted, then released with the clock
// low (before time 0: not simulated time).
void reset(RtlModel& m, const ClockReset& c, int cycles) {
  if (c.rst) c.rst->set(c.active_low ? 0 : 1);
  for (int i = 0; i < std::max(1, cycles); ++i) {
    c.clk->set(0);
    m.eval();
    c.clk->set(1);
    m.eval();
  }
  if (c.rst) c.rst->set(c.active_low ? 1 : 0);
  c.clk->set(0);
  m.eval();
}
}  // namespace

double RtlDevice::raw_cycles_per_s(const RtlDeviceConfig& cfg, std::uint64_t cycles) {
  RtlModel m(RtlLibrary::open(cfg.library), "");
  const ClockReset c = clock_reset(m);
  reset(m, c, cfg.reset_cycles);
  // The median of five segments: one segment is a fraction of a second.
  std::vector<double> rates;
  for (int seg = 0; seg < 5; ++seg) {
    const auto t0 = std::chrono::steady_clock::now();
    for (std::uint64_t i = 0; i < cycles / 5; ++i) {
      c.clk->set(0);
      m.eval();
      c.clk->set(1);
      m.eval();
    }
    rates.push_back(static_cast<double>(cycles / 5) / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(rates.begin(), rates.end());
  return rates[2];
}

namespace {
template <class T>
void put(std::vector<std::uint8_t>& v, T x) {
  const auto* b = reinterpret_cast<const std::uint8_t*>(&x);
  v.insert(v.end(), b, b + sizeof x);
}
template <class T>
bool take(const std::string& s, std::size_t& at, T& x) {
  if (at + sizeof x > s.size()) return false;
  std::memcpy(&x, s.data() + at, sizeof x);
  at += sizeof x;
  return true;
}
constexpr char kLogMagic[] = "HXRL1";
}  // namespace

void RtlDevice::InputLog::record() {
  const std::size_t at = log.size();
  put(log, std::uint16_t{0});
  std::uint16_t changed = 0;
  const bool first = last.empty();
  if (first)
    for (const RtlPort* p : ports) last.resize(last.size() + static_cast<std::size_t>(p->storage_bytes()));
  std::size_t off = 0;
  for (std::size_t i = 0; i < ports.size(); ++i) {
    const auto size = static_cast<std::size_t>(ports[i]->storage_bytes());
    const auto* now = static_cast<const std::uint8_t*>(ports[i]->ptr);
    if (first || std::memcmp(now, &last[off], size) != 0) {
      std::memcpy(&last[off], now, size);
      put(log, static_cast<std::uint16_t>(i));
      log.insert(log.end(), now, now + size);
      ++changed;
    }
    off += size;
  }
  std::memcpy(&log[at], &changed, sizeof changed);
  ++cycles;
}

void RtlDevice::InputLog::write() const {
  std::vector<std::uint8_t> head(kLogMagic, kLogMagic + sizeof kLogMagic);
  put(head, static_cast<std::uint32_t>(ports.size()));
  for (const RtlPort* p : ports) {
    put(head, static_cast<std::uint16_t>(p->name.size()));
    head.insert(head.end(), p->name.begin(), p->name.end());
    put(head, static_cast<std::uint32_t>(p->storage_bytes()));
  }
  put(head, cycles);
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(head.data()), static_cast<std::streamsize>(head.size()));
  out.write(reinterpret_cast<const char*>(log.data()), static_cast<std::streamsize>(log.size()));
}

double RtlDevice::replay_cycles_per_s(const RtlDeviceConfig& cfg, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  const std::string s((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::size_t at = sizeof kLogMagic;
  std::uint32_t n = 0;
  if (s.compare(0, sizeof kLogMagic, kLogMagic, sizeof kLogMagic) != 0 || !take(s, at, n)) return 0;
  std::vector<std::pair<std::string, std::uint32_t>> names(n);
  for (auto& [name, size] : names) {
    std::uint16_t len = 0;
    if (!take(s, at, len) || at + len > s.size()) return 0;
    name.assign(s, at, len);
    at += len;
    if (!take(s, at, size)) return 0;
  }
  std::uint64_t cycles = 0;
  if (!take(s, at, cycles) || cycles == 0) return 0;
  // Decoded before the clock starts: per cycle, how many changes; per
  // change, the port and where its bytes are.
  struct Change {
    std::uint16_t port;
    std::size_t from;
  };
  std::vector<std::uint16_t> per_cycle(cycles);
  std::vector<Change> changes;
  for (auto& count : per_cycle) {
    if (!take(s, at, count)) return 0;
    for (std::uint16_t j = 0; j < count; ++j) {
      std::uint16_t idx = 0;
      if (!take(s, at, idx) || idx >= names.size() || at + names[idx].second > s.size()) return 0;
      changes.push_back({idx, at});
      at += names[idx].second;
    }
  }
  const auto lib = RtlLibrary::open(cfg.library);
  std::vector<double> rates;
  for (int rep = 0; rep < 3; ++rep) {
    RtlModel m(lib, "");
    std::vector<std::pair<void*, std::uint32_t>> ports;
    for (const auto& [name, size] : names) {
      const RtlPort* p = m.find(name);
      if (!p || static_cast<std::uint32_t>(p->storage_bytes()) != size) return 0;
      ports.emplace_back(p->ptr, size);
    }
    const ClockReset c = clock_reset(m);
    reset(m, c, cfg.reset_cycles);
    const Change* ch = changes.data();
    const auto t0 = std::chrono::steady_clock::now();
    for (const std::uint16_t count : per_cycle) {
      for (const Change* stop = ch + count; ch != stop; ++ch)
        std::memcpy(ports[ch->port].first, s.data() + ch->from, ports[ch->port].second);
      c.clk->set(0);
      m.eval();
      c.clk->set(1);
      m.eval();
    }
    rates.push_back(static_cast<double>(cycles) / std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(rates.begin(), rates.end());
  return rates[1];
}

RtlDevice::RtlDevice(const std::string& name, const RtlDeviceConfig& cfg)
    : m_name(name), m_cfg(cfg), m_clock(clock_period(cfg.clock_mhz)), m_corrupt(cfg.corrupt_completion) {
  m_model = std::make_unique<RtlModel>(RtlLibrary::open(cfg.library), cfg.wave);
  std::vector<PortShape> shapes;
  for (const auto& p : m_model->ports()) shapes.push_back({p.name, p.bits, p.dir});
  const std::string err = interface_port_error(cfg.interface, shapes, cfg.data_width);
  if (!err.empty()) sim_fail(name, "the design does not have the " + cfg.interface + " interface:" + err);
  m_shim = make_shim(cfg.interface, *m_model, cfg.data_width, name, m_cycle);
  m_clk = clock_reset(*m_model).clk;
  if (const char* rec = std::getenv("HXSIM_RTL_RECORD"); rec && *rec) {
    m_log = std::make_unique<InputLog>();
    m_log->path = std::string(rec) + "." + name;
    for (const auto& p : m_model->ports())
      if (p.dir != PortDir::Out && &p != m_clk) m_log->ports.push_back(&p);
  }
  auto& reg = StatsRegistry::instance();
  reg.add_counter(name + ".rtl_cycles", &rtl_cycles, "cycle", "RTL clock cycles simulated");
  reg.add_counter(name + ".rx_tlps", &rx_tlps, "TLP", "TLPs the design took (requests to its BARs, completions)");
  reg.add_counter(name + ".tx_tlps", &tx_tlps, "TLP", "TLPs the design sent (requests, completions)");
  reg.add_counter(name + ".msis", &msis, "1", "MSIs the design raised");
}

RtlDevice::~RtlDevice() {
  if (m_log) m_log->write();
  for (HostRead& r : m_host_reads) drop_ledger(r.led);
}

void RtlDevice::attach(pcie::Endpoint& ep) {
  Device::attach(ep);
  m_s_req = ep.add_stream("rtl_tx_req", static_cast<std::size_t>(m_cfg.tx_depth));
  // The configuration the hard block presents, fixed after enumeration.
  LinkSettings ls;
  ls.rid = static_cast<std::uint16_t>(ep.config().rid & 0xffff);
  ls.mps = ep.mps();
  ls.mrrs = ep.config().mrrs;
  ls.rcb = ep.config().rcb;
  ls.bar_size = ep.config().bars.empty() ? 0 : ep.config().bars.front().size;
  m_shim->configure(ls);
  reset(*m_model, clock_reset(*m_model), m_cfg.reset_cycles);
  m_shim->set_ready(Way::TxReq, true);
  m_shim->set_ready(Way::TxCpl, true);  // the host always takes completions
  if (m_cfg.free_running) wake();
}

void RtlDevice::fail(Way w, const std::string& what) const {
  m_shim->fail(w, what);
}

void RtlDevice::queue_rx(Way w, std::deque<RxTlp>& q, const TlpHeader& h, const std::uint8_t* payload, std::uint32_t lead,
                         std::uint32_t n) {
  RxTlp r;
  r.p.h = h;
  if (h.type == HdrType::MemWr || h.type == HdrType::CplD) {
    r.p.data.assign(static_cast<std::size_t>(h.length_dw) * 4, 0);
    if (n) std::memcpy(r.p.data.data() + lead, payload, n);
  }
  r.beats = m_shim->beats(w, r.p);
  r.seq = ++m_rx_seq;
  q.push_back(std::move(r));
  wake();
}

void RtlDevice::on_write(const Tlp& t) {
  if (t.kind != TlpKind::MemWr) sim_fail(m_name, std::string("a ") + pcie::kind_name(t.kind) + " reached the design, which takes memory requests only");
  if (!m_shim->has(Way::RxReq)) sim_fail(m_name, std::string("a write to the design's BAR, but the design has no ") + m_shim->stream(Way::RxReq) + " stream");
  if (!t.payload_intact()) sim_fail(m_name, "payload check failed on a write to " + hex(t.addr));
  TlpHeader h = request_header(HdrType::MemWr, t.addr, t.len);
  h.requester = static_cast<std::uint16_t>(t.requester);
  h.tag = static_cast<std::uint8_t>(t.tag);
  std::uint8_t buf[PayloadBytes::kMax];
  t.payload(buf);
  queue_rx(Way::RxReq, m_rxq_req, h, buf, static_cast<std::uint32_t>(t.addr & 3), t.len);
}

bool RtlDevice::on_read(const Tlp& t) {
  if (!m_shim->has(Way::RxReq) || !m_shim->has(Way::TxCpl))
    sim_fail(m_name, std::string("a read of the design's BAR, but the design lacks the ") + m_shim->stream(Way::RxReq) + " or " +
                         m_shim->stream(Way::TxCpl) + " stream");
  const std::uint8_t tag = static_cast<std::uint8_t>(t.tag);
  HostRead& r = m_host_reads[tag];
  if (r.open) sim_fail(m_name, "two host reads of the design with tag " + std::to_string(tag) + " at once");
  r.open = true;
  r.req = t;
  r.req.bytes = nullptr;
  r.req.ledger = nullptr;
  r.led = fork_ledger(t.ledger);
  r.left = std::max<std::uint32_t>(t.req_len, 1);
  ++m_host_open;
  TlpHeader h = request_header(HdrType::MemRd, t.addr, t.req_len);
  h.requester = static_cast<std::uint16_t>(t.requester);
  h.tag = tag;
  queue_rx(Way::RxReq, m_rxq_req, h, nullptr, 0, 0);
  return true;
}

void RtlDevice::on_completion(const Tlp& t) {
  const std::uint8_t tag = static_cast<std::uint8_t>(t.tag);
  DevRead& r = m_dev_reads[tag];
  if (!r.open) sim_fail(m_name, "a completion with tag " + std::to_string(tag) + " for no read of the design");
  if (!t.payload_intact()) sim_fail(m_name, "payload check failed on a completion from " + hex(t.addr));
  if (t.addr != r.next || t.len > r.left) sim_fail(m_name, "a completion out of order for the design's read with tag " + std::to_string(tag));
  if (!m_shim->has(Way::RxCpl)) sim_fail(m_name, std::string("a completion for the design, which has no ") + m_shim->stream(Way::RxCpl) + " stream");
  TlpHeader h;
  h.type = t.len ? HdrType::CplD : HdrType::Cpl;
  h.completer = static_cast<std::uint16_t>(t.completer);
  h.requester = static_cast<std::uint16_t>(m_ep->config().rid);
  h.tag = tag;
  h.byte_count = static_cast<std::uint16_t>(r.left);
  h.lower_addr = static_cast<std::uint16_t>(t.addr & 0xfff);
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
  queue_rx(Way::RxCpl, m_rxq_cpl, h, buf, lead, t.len);
}

void RtlDevice::on_tx_space(int) { wake(); }

void RtlDevice::quiesce() { m_quiesced = true; }

bool RtlDevice::busy() const {
  return !m_rxq_req.empty() || !m_rxq_cpl.empty() || m_shim->assembling() || m_host_open || m_dev_open;
}

std::string RtlDevice::status() const {
  return std::to_string(m_rxq_req.size()) + " requests and " + std::to_string(m_rxq_cpl.size()) +
         " completions not yet taken by the design, " + std::to_string(m_dev_open) + " of its reads and " +
         std::to_string(m_host_open) + " host reads of it outstanding, cycle " + std::to_string(m_cycle);
}

void RtlDevice::wake() { m_clock.wake(m_ep->scheduler(), this, kTick); }

void RtlDevice::on_action(std::uint32_t kind, std::uint64_t, void*) {
  if (kind != kTick || !m_clock.due()) return;  // a superseded wake-up
  while (tick()) {
  }
}

// The ports change only when the beat offered does: a beat waiting for
// ready is not driven again.
void RtlDevice::drive_rx_now(Way w, const std::deque<RxTlp>& q) {
  if (!m_shim->has(w)) return;
  if (q.empty()) m_shim->drive(w, nullptr, 0);
  else m_shim->drive(w, &q.front().p, q.front().next);
}

void RtlDevice::check_request(const TlpHeader& h) const {
  std::uint64_t first = 0;
  std::uint32_t len = 0;
  if (h.type != HdrType::MemWr && h.type != HdrType::MemRd) fail(Way::TxReq, "not a memory request");
  if (!h.byte_range(first, len))
    fail(Way::TxReq, "invalid byte enables (first " + std::to_string(h.first_be) + ", last " + std::to_string(h.last_be) + ")");
  const int limit = h.type == HdrType::MemWr ? m_ep->mps() : m_ep->config().mrrs;
  if (len > static_cast<std::uint32_t>(limit))
    fail(Way::TxReq, std::string(h.type == HdrType::MemWr ? "a write of " : "a read of ") + std::to_string(len) + " B above the " +
                         (h.type == HdrType::MemWr ? "MPS " : "MRRS ") + std::to_string(limit));
  if (len && (first & 4095) + len > 4096) fail(Way::TxReq, "a request crosses a 4 KiB boundary at " + hex(first));
}

void RtlDevice::finish_tx_req(const Packet& p) {
  check_request(p.h);
  std::uint64_t first = 0;
  std::uint32_t len = 0;
  p.h.byte_range(first, len);
  if (p.h.type == HdrType::MemWr) {
    Tlp* t = m_ep->make(TlpKind::MemWr);
    t->addr = first;
    t->addr64 = pcie::needs_addr64(first);
    t->set_bytes(p.data.data() + (first & 3), len);
    m_ep->push(m_s_req, t);
  } else {
    DevRead& r = m_dev_reads[p.h.tag];
    if (r.open) fail(Way::TxReq, "a read with tag " + std::to_string(p.h.tag) + ", which an earlier read still holds");
    r.open = true;
    r.next = first;
    r.left = len;
    ++m_dev_open;
    Tlp* t = m_ep->make(TlpKind::MemRd);
    t->addr = first;
    t->addr64 = pcie::needs_addr64(first);
    t->req_len = len;
    t->tag = p.h.tag;
    t->want_bytes = true;
    m_ep->push(m_s_req, t);
  }
  ++tx_tlps;
}

void RtlDevice::finish_tx_cpl(const Packet& p) {
  const TlpHeader& h = p.h;
  HostRead& r = m_host_reads[h.tag];
  if (!r.open) fail(Way::TxCpl, "a completion with tag " + std::to_string(h.tag) + " for no host read");
  if (h.requester != static_cast<std::uint16_t>(r.req.requester))
    fail(Way::TxCpl, "a completion for requester " + std::to_string(h.requester) + ", not the reader's " +
                         std::to_string(static_cast<std::uint16_t>(r.req.requester)));
  if (h.status != 0) fail(Way::TxCpl, "a completion with status " + std::to_string(h.status) + " (only successful ones are modelled)");
  if (h.byte_count != r.left) fail(Way::TxCpl, "byte count " + std::to_string(h.byte_count) + ", but " + std::to_string(r.left) + " bytes are left");
  const std::uint64_t first = r.req.addr + (std::max<std::uint32_t>(r.req.req_len, 1) - r.left);
  if ((first & 0x7f) != (h.lower_addr & 0x7f))
    fail(Way::TxCpl, "lower address " + std::to_string(h.lower_addr) + ", expected " + std::to_string(first & 0x7f));
  const std::uint32_t lead = static_cast<std::uint32_t>(first & 3);
  const std::uint32_t n = h.type == HdrType::Cpl ? 0 : std::min<std::uint32_t>(r.left, h.length_dw * 4 - lead);
  Tlp* c = m_ep->completion_for(r.req);
  c->addr = first;
  c->req_len = r.left;
  c->set_bytes(p.data.data() + lead, n);
  if ((c->ledger = fork_ledger(r.led))) c->ledger->charge(Stage::Device, now_tick());
  if (m_corrupt && n) {
    c->bytes->b[0] ^= 0x5a;  // the test hook: after the checksum
    m_corrupt = false;
  }
  r.left -= n;
  if (r.left == 0 || n == 0) {
    r.open = false;
    drop_ledger(r.led);
    --m_host_open;
  }
  m_ep->push(0, c);
  ++tx_tlps;
}

// One clock cycle: drive the inputs, evaluate before and after the rising
// edge, act on the handshakes that happened at it. True when the next cycle
// is due at once (GatedClock::after_cycle).
bool RtlDevice::tick() {
  ++m_cycle;
  ++rtl_cycles;
  drive_rx(Way::RxReq, m_rxq_req);
  drive_rx(Way::RxCpl, m_rxq_cpl);
  const bool req_space = !m_ep->stream_full(m_s_req);
  if (req_space != m_req_space) {  // inputs change only when they change
    m_req_space = req_space;
    m_shim->set_ready(Way::TxReq, req_space);
  }
  m_shim->msi_drive(req_space);
  if (m_log) m_log->record();
  m_clk->set(0);
  m_model->eval();
  m_model->dump(static_cast<std::uint64_t>(now_tick()));

  const bool rx_req_fire = !m_rxq_req.empty() && m_shim->taken(Way::RxReq);
  const bool rx_cpl_fire = !m_rxq_cpl.empty() && m_shim->taken(Way::RxCpl);
  bool req_done = false, cpl_done = false;
  const bool tx_req_fire = m_shim->sample(Way::TxReq, m_tx_req, req_done);
  const bool tx_cpl_fire = m_shim->sample(Way::TxCpl, m_tx_cpl, cpl_done);
  std::uint32_t msi_vector = 0;
  const bool msi_fire = m_shim->msi_sample(req_space, msi_vector);
  const bool tx_offered = m_shim->offered(Way::TxReq) || m_shim->offered(Way::TxCpl) || m_shim->msi_busy();

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
  if (req_done) finish_tx_req(m_tx_req);
  if (cpl_done) finish_tx_cpl(m_tx_cpl);
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
  return m_clock.after_cycle(active, m_cfg.idle_cycles, m_cfg.free_running && !m_quiesced, m_ep->scheduler(), this, kTick);
}

}  // namespace hx::rtl
