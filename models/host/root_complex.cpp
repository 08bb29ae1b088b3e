#include "models/host/root_complex.h"

#include <algorithm>
#include <vector>

#include "models/ats/ats_protocol.h"
#include "models/core/error.h"

namespace hx::host {

using pcie::TlpKind;

namespace {
enum : std::uint32_t { kAdmit, kArrive, kInbound, kWriteDone, kToHost, kTrackerFree, kMessage, kMsiToHost };
}

RootComplex::RootComplex(sc_core::sc_module_name name, const RootComplexConfig& cfg)
    : sc_core::sc_module(name),
      m_cfg(cfg),
      m_sched(basename()),
      m_mem(std::string(name) + ".memory", cfg.memory),
      m_lines(cfg.line_interval) {
  m_data = &m_mem.store();
  m_homes.assign(static_cast<std::size_t>(cfg.socket) + 1, Home{});
  m_homes[static_cast<std::size_t>(cfg.socket)] = Home{&m_mem, this, {}, 0};
  for (std::size_t i = 0; i < cfg.ports.size(); ++i) {
    m_ports.push_back(std::make_unique<pcie::PciePort>(*this, std::string(name) + ".rp" + std::to_string(i), cfg.ports[i]));
    m_ports.back()->index = static_cast<int>(i);
  }
  if (cfg.iommu.enabled) {
    if (cfg.iommu.table_region >= cfg.dram_size) throw InputError(std::string(name) + ": iommu.table_region does not fit in DRAM");
    // The page tables take the top of DRAM; buffers are allocated from the bottom.
    const std::uint64_t tables = (cfg.dram_base + cfg.dram_size - cfg.iommu.table_region) / 4096 * 4096;
    m_iommu = std::make_unique<ats::Iommu>(std::string(name) + ".iommu", cfg.iommu, m_mem.store(), tables,
                                           [this](std::uint64_t line, Tick t, bool llc) {
                                             return llc ? t + m_cfg.iommu.pte_read : m_mem.read_line(line, t);
                                           });
  }
  for (const auto& pc : cfg.ports) m_vcs = std::max(m_vcs, std::min(pc.vcs, pcie::kMaxVcs));
  const auto vcs = static_cast<std::size_t>(m_vcs);
  // The address map: DRAM, the MSI page, and each root port's windows from
  // enumeration (connect_socket adds the other sockets').
  using K = AddressTarget::Kind;
  std::vector<std::string> bad;
  bad.push_back(m_map.add(cfg.dram_base, cfg.dram_size, {K::Dram, cfg.socket},
                          cfg.socket ? "DRAM of socket " + std::to_string(cfg.socket) : std::string("DRAM")));
  bad.push_back(m_map.add(cfg.msi_base, 4096, {K::Msi, 0}, "the MSI page"));
  for (std::size_t i = 0; i < cfg.routes.size(); ++i)
    for (const auto& w : cfg.routes[i].windows)
      if (w.size) bad.push_back(m_map.add(w.base, w.size, {K::Mmio, static_cast<int>(i)}, "root port " + std::to_string(i) + "'s window"));
  for (const std::string& b : bad)
    if (!b.empty()) throw InputError(std::string(name) + ": address map: " + b);
  m_txq.assign(cfg.ports.size(), std::vector<std::array<std::deque<Tlp*>, pcie::kFcClasses>>(vcs));
  m_posted_release.assign(cfg.ports.size(), 0);
  m_reads.assign(cfg.ports.size(), std::vector<std::deque<ReadJob>>(vcs));
  for (const auto& pc : cfg.ports) m_arb.push_back(std::make_unique<pcie::VcArbiter>(pc.vc_arb, m_vcs));
  auto& reg = StatsRegistry::instance();
  const std::string n(name);
  reg.add_counter(n + ".writes", &writes, "TLP", "inbound memory writes");
  reg.add_counter(n + ".write_bytes", &write_bytes, "B", "inbound memory write bytes");
  reg.add_counter(n + ".reads", &reads, "TLP", "inbound memory read requests");
  reg.add_counter(n + ".read_bytes", &read_bytes, "B", "bytes returned in completions");
  reg.add_counter(n + ".completions", &completions, "TLP", "completions sent");
  reg.add_counter(n + ".msis", &msis, "1", "MSI writes received");
  reg.add_counter(n + ".p2p_forwarded", &p2p_forwarded, "TLP", "peer-to-peer requests forwarded");
  if (cfg.atomic_completer) reg.add_counter(n + ".atomics", &atomics, "TLP", "AtomicOps completed on memory");
  if (cfg.read_trackers > 0) {
    reg.add_counter(n + ".tracker_waits", &tracker_waits, "TLP", "inbound reads that waited for a free read tracker");
    reg.add_resource(n + ".read_trackers", [this] { return m_trackers.busy(now_tick()); }, cfg.read_trackers,
                     "inbound read trackers (each held from a read's arrival to its last completion)");
  }
  if (cfg.line_interval > 0)
    reg.add_resource(n + ".line_pipeline", [this] { return m_lines.busy(); }, 1, "coherent line pipeline (line_interval per line)");
}


void RootComplex::connect_socket(RootComplex& peer, const std::vector<SocketHop>& route) {
  const int s = peer.m_cfg.socket;
  if (s == m_cfg.socket || s < 0 || route.empty())
    throw InputError(std::string(basename()) + ": socket links join the root complexes of different sockets");
  int at = m_cfg.socket;
  Tick latency = 0;
  for (const SocketHop& h : route) {  // a chain of links from this socket to s
    if (!h.link || h.from != at || (h.link->end(0) != at && h.link->end(1) != at))
      throw InputError(std::string(basename()) + ": a route to socket " + std::to_string(s) + " that is not a chain of socket links");
    at = h.link->other(at);
    latency += h.link->latency();
  }
  if (at != s) throw InputError(std::string(basename()) + ": a route to socket " + std::to_string(s) + " that ends on socket " + std::to_string(at));
  m_sockets = true;
  if (m_homes.size() <= static_cast<std::size_t>(std::max(s, m_cfg.socket))) m_homes.resize(static_cast<std::size_t>(std::max(s, m_cfg.socket)) + 1);
  m_homes[static_cast<std::size_t>(s)] = Home{&peer.m_mem, &peer, route, latency};
  if (s == 0) m_host_distance = latency;
  using K = AddressTarget::Kind;
  std::vector<std::string> bad{m_map.add(peer.m_cfg.dram_base, peer.m_cfg.dram_size, {K::Dram, s}, "DRAM of socket " + std::to_string(s))};
  for (const auto& r : peer.m_cfg.routes)
    for (const auto& w : r.windows)
      if (w.size) bad.push_back(m_map.add(w.base, w.size, {K::Socket, s}, "a window of socket " + std::to_string(s) + "'s root complex"));
  for (const std::string& b : bad)
    if (!b.empty()) throw InputError(std::string(basename()) + ": address map: " + b);
  m_last_range = nullptr;
}

// A line leaving home h's socket at `t` back over its route, each link
// taking a slot of its direction: when it is here.
Tick RootComplex::line_back(const Home& h, Tick t) {
  for (auto hop = h.route.rbegin(); hop != h.route.rend(); ++hop) t = hop->link->carry_line(hop->link->other(hop->from), t);
  return t;
}

// This socket's LLC serves a line it holds, whatever its home. Otherwise
// a line homed here that another socket's LLC holds is snooped there (the
// first such socket's) and forwarded back over the route; one homed on
// another socket is read there: the request crosses every link of the
// route and the line comes back.
Tick RootComplex::read_home(std::uint64_t line, Tick t) {
  if (!m_sockets) return m_mem.read_line(line, t);
  const Home& h = m_homes[static_cast<std::size_t>(target_of(line).index)];
  if (m_mem.llc_holds(line)) return m_mem.read_line(line, t);
  if (h.route.empty()) {
    for (const Home& o : m_homes)
      if (o.mem && !o.route.empty() && o.mem->llc_holds(line)) return line_back(o, o.mem->forward_line(line, t + o.latency));
    return m_mem.read_line(line, t);
  }
  return line_back(h, h.mem->read_line(line, t + h.latency, true));
}

// The written line leaves every other socket's LLC. With an LLC here (DDIO)
// it is written into it; a line homed on another socket first has its
// ownership from the home (a request over the route and an acknowledgement
// back) unless this LLC holds it already. Without one it goes to its home's
// memory: the line crosses every link of the route in turn, and the
// acknowledgement comes back over them.
Tick RootComplex::write_home(std::uint64_t addr, std::uint32_t len, Tick t) {
  if (!m_sockets) return m_mem.write(addr, len, t);
  const std::uint64_t line = addr / static_cast<std::uint64_t>(m_cfg.memory.line_B) * static_cast<std::uint64_t>(m_cfg.memory.line_B);
  const bool llc_here = m_cfg.memory.llc_size > 0, held = m_mem.llc_holds(line);
  leave_other_llcs(line);
  const Home& h = m_homes[static_cast<std::size_t>(target_of(addr).index)];
  if (h.route.empty()) return m_mem.write(addr, len, t);
  if (llc_here) return m_mem.write(addr, len, held ? t : t + 2 * h.latency);
  Tick at = t;
  for (const SocketHop& hop : h.route) at = hop.link->carry_line(hop.from, at);
  return h.mem->write(addr, len, at, true) + h.latency;
}

void RootComplex::dma_written(std::uint64_t addr, std::uint64_t len) {
  m_mem.dma_written(addr, len);
  if (!m_sockets || len == 0) return;
  const std::uint64_t L = static_cast<std::uint64_t>(m_cfg.memory.line_B);
  for (std::uint64_t a = addr / L * L; a < addr + len; a += L) leave_other_llcs(a);
}

void RootComplex::leave_other_llcs(std::uint64_t line) {
  for (const Home& o : m_homes)
    if (o.mem && o.mem != &m_mem) o.mem->llc_drop(line);
}

Tick RootComplex::fetch_line(std::uint64_t addr, Tick t) {
  if (!m_sockets) return t;
  const AddressTarget home = target_of(addr);
  if (home.kind != AddressTarget::Kind::Dram) return t;
  const Home& h = m_homes[static_cast<std::size_t>(home.index)];
  return line_back(h, t + h.latency);
}

Tick RootComplex::store_toward(int to, Tick t) {
  if (!m_sockets || to == m_cfg.socket) return t;
  const Home& h = m_homes.at(static_cast<std::size_t>(to));
  return h.route.empty() ? t : h.route.front().link->carry_store(h.route.front().from, t);
}

int RootComplex::port_for_addr(std::uint64_t a) const {
  const AddressTarget t = target_of(a);
  return t.kind == AddressTarget::Kind::Mmio ? t.index : -1;
}

void RootComplex::retire_writes() {
  const Tick now = now_tick();
  while (!m_commits.empty() && m_commits.top() <= now) {
    m_commits.pop();
    --m_posted_inflight;
  }
}

bool RootComplex::idle() const {
  // Writes still committing are accepted and complete by themselves (their
  // entries retire lazily); only writes refused entry are outstanding.
  if (!m_posted_wait.empty() || !m_tracker_wait.empty()) return false;
  for (const auto& port : m_txq)
    for (const auto& vc : port)
      for (const auto& c : vc)
        if (!c.empty()) return false;
  for (const auto& port : m_reads)
    for (const auto& r : port)
      if (!r.empty()) return false;
  return true;
}

void RootComplex::rx_arrive(pcie::PciePort& p, Tlp* t, Tick, Tick tail) {
  // A message some protocol layer took (CCIX on VC1) leaves the PCIe path
  // as it arrives: that layer models its own pipeline.
  if ((t->kind == TlpKind::MsgD || t->kind == TlpKind::Msg) && !m_handlers.empty() && m_handlers.count(t->msg_code)) {
    if (t->ledger) t->ledger->land(tail);
    m_sched.at(tail, this, kMessage, static_cast<std::uint64_t>(p.index), t);
    return;
  }
  const std::uint32_t next = m_cfg.read_trackers > 0 ? kAdmit : m_iommu ? kArrive : kInbound;
  if (t->ledger) {
    t->ledger->land(tail);
    t->ledger->charge(Stage::RootComplex, tail + m_cfg.inbound_latency);
  }
  m_sched.at(tail + m_cfg.inbound_latency, this, next, static_cast<std::uint64_t>(p.index), t);
}

// A memory read takes a read tracker (or waits for one, in order); anything
// else goes on.
void RootComplex::admit(Tlp* t, int port) {
  if (t->kind == TlpKind::MemRd && is_dram(*t)) {
    if (m_trackers.count() >= m_cfg.read_trackers || !m_tracker_wait.empty()) {
      ++tracker_waits;
      m_tracker_wait.emplace_back(t, port);
      return;
    }
    m_trackers.add(1, now_tick());
  }
  enter(t, port);
}

void RootComplex::enter(Tlp* t, int port) {
  if (t->ledger) t->ledger->charge(Stage::RootComplex, now_tick());  // waited for a read tracker
  if (m_iommu) arrive(t, port);
  else inbound(t, port);
}

// A read's last completion has left: its tracker goes to the oldest waiting
// read, if any.
void RootComplex::free_tracker() {
  if (m_trackers.count() <= 0) sim_fail(basename(), "read tracker freed twice");
  m_trackers.add(-1, now_tick());
  if (!m_tracker_wait.empty()) m_sched.at(now_tick(), this, kTrackerFree);
}

// The translation stage (IOMMU on): remap, then release in order.
void RootComplex::arrive(Tlp* t, int port) {
  const Tick now = now_tick();
  Tick ready = now;
  if (t->kind == TlpKind::AtsReq) {
    ++m_iommu->ats_requests;
    serve_ats(t, port, m_iommu->translate(t->addr, now));
    return;
  }
  if ((t->kind == TlpKind::MemRd || t->kind == TlpKind::MemWr || pcie::is_atomic(t->kind)) && t->at == 0 && is_dram(*t)) {
    const auto r = m_iommu->translate(t->addr, now);
    if (r.pa != t->addr) sim_fail(basename(), "IOVA and physical address differ under the identity mapping");
    ready = r.ready;
    // A read that missed is replayed into the read pipeline, one line per
    // line interval; a write goes on.
    if (r.missed && t->kind == TlpKind::MemRd) {
      const std::uint64_t L = static_cast<std::uint64_t>(m_cfg.memory.line_B);
      const std::uint64_t lines = (t->addr + t->req_len + L - 1) / L - t->addr / L;
      ready += m_cfg.iommu.miss_latency + static_cast<Tick>(lines - 1) * m_cfg.line_interval;
    }
  }
  // Nothing passes an older posted request from the same port still being
  // translated; posted requests leave in order. Ports are independent.
  Tick& last = m_posted_release[static_cast<std::size_t>(port)];
  if (t->ledger) {
    t->ledger->charge(Stage::Translation, ready);
    t->ledger->charge(Stage::Ordering, std::max(ready, last));
  }
  ready = std::max(ready, last);
  if (t->fc() == pcie::FcClass::P) last = ready;
  if (ready > now) m_sched.at(ready, this, kInbound, static_cast<std::uint64_t>(port), t);
  else inbound(t, port);
}

// A translation completion (PCIe sec. 10.2.3): one 8-byte entry giving the
// translated page and its size, sent when the IOMMU has the translation.
void RootComplex::serve_ats(Tlp* t, int port, const ats::Iommu::Result& r) {
  m_ports[port]->release(*t);
  Tick ready = r.ready;
  // A request for several pages (length = 8 B per translation) is answered
  // for the consecutive mapped pages of the first one's size.
  unsigned n = 1;
  const unsigned want = std::max(1u, std::min(64u, t->req_len / 8));
  while (n < want) {
    const std::uint64_t va = r.pa_base + (static_cast<std::uint64_t>(n) << r.shift);
    if (!m_iommu->mapped(va)) break;
    const auto rn = m_iommu->translate(va, now_tick());
    if (rn.shift != r.shift) break;
    ready = std::max(ready, rn.ready);
    ++n;
  }
  Tlp* c = pcie::TlpPool::instance().get();
  c->kind = TlpKind::CplD;
  c->vc = t->vc;
  c->requester = t->requester;
  c->tag = t->tag;
  c->addr = r.pa_base;
  c->msg_code = static_cast<std::uint16_t>(r.shift);
  c->len = 8 * n;
  c->req_len = 8 * n;
  c->data_off = r.pa_base;
  c->checksum = ats::translation_checksum(r.pa_base, r.shift, n);
  c->ctx = t->ctx;
  c->created = ready;
  ++completions;
  pcie::TlpPool::instance().put(t);
  enqueue(port, c, ready + m_cfg.completion_latency);
}

void RootComplex::on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) {
  switch (kind) {
    case kAdmit:
      admit(static_cast<Tlp*>(ptr), static_cast<int>(arg));
      break;
    case kTrackerFree:
      while (!m_tracker_wait.empty() && m_trackers.count() < m_cfg.read_trackers) {
        auto [t, port] = m_tracker_wait.front();
        m_tracker_wait.pop_front();
        m_trackers.add(1, now_tick());
        enter(t, port);
      }
      break;
    case kArrive:
      arrive(static_cast<Tlp*>(ptr), static_cast<int>(arg));
      break;
    case kInbound:
      inbound(static_cast<Tlp*>(ptr), static_cast<int>(arg));
      break;
    case kWriteDone:
      retire_writes();
      while (!m_posted_wait.empty()) {
        auto [t, port] = m_posted_wait.front();
        if (t->kind == TlpKind::MemWr && is_dram(*t) && m_posted_inflight >= m_cfg.posted_buffer) break;
        m_posted_wait.pop_front();
        dispatch(t, port);
      }
      if (!m_posted_wait.empty()) m_sched.at(m_commits.top(), this, kWriteDone);
      break;
    case kToHost: {
      Tlp* t = static_cast<Tlp*>(ptr);
      if (m_host) m_host->on_mmio_completion(*t, now_tick());
      pcie::TlpPool::instance().put(t);
      break;
    }
    case kMsiToHost:
      if (m_host) m_host->on_msi(static_cast<std::uint32_t>(arg), now_tick());
      break;
    case kMessage: {
      Tlp* t = static_cast<Tlp*>(ptr);
      m_ports[arg]->release(*t);
      m_handlers.at(t->msg_code)->on_message(*t, static_cast<int>(arg));
      pcie::TlpPool::instance().put(t);
      break;
    }
  }
}

void RootComplex::add_message_handler(std::uint16_t code, pcie::MessageHandler* h) {
  if (!m_handlers.emplace(code, h).second) sim_fail(basename(), "two handlers for message code " + std::to_string(code));
}

Tlp* RootComplex::make_message(int port, pcie::Rid target) {
  if (port < 0 || static_cast<std::size_t>(port) >= m_ports.size()) sim_fail(basename(), "a message to no root port");
  Tlp* t = pcie::TlpPool::instance().get();
  t->kind = TlpKind::MsgD;
  t->by_id = true;
  t->target = target;
  t->requester = 0;
  t->created = now_tick();
  return t;
}

void RootComplex::send_message(int port, Tlp* t, Tick ready) { enqueue(port, t, ready); }

void RootComplex::inbound(Tlp* t, int port) {
  auto& rp = *m_ports[port];
  switch (t->kind) {
    case TlpKind::Cpl:
    case TlpKind::CplD:
      // Completion of a core's MMIO read.
      rp.release(*t);
      if (t->ledger) t->ledger->charge(Stage::RootComplex, now_tick() + m_cfg.outbound_latency + m_host_distance);
      m_sched.at(now_tick() + m_cfg.outbound_latency + m_host_distance, this, kToHost, 0, t);
      return;
    default:
      break;
  }
  if (t->kind == TlpKind::Msg && t->msg_code == ats::kInvalidateCompletion) {
    rp.release(*t);
    auto it = m_invalidations.find(t->tag);
    if (it == m_invalidations.end()) sim_fail(basename(), "invalidate completion for no request");
    auto done = std::move(it->second);
    m_invalidations.erase(it);
    pcie::TlpPool::instance().put(t);
    if (done) done(now_tick());
    return;
  }
  if (t->kind != TlpKind::MemWr && t->kind != TlpKind::MemRd && !pcie::is_atomic(t->kind))
    sim_fail(basename(), std::string("unsupported inbound ") + kind_name(t->kind));
  // Requests stay behind posted writes (spec table 2-40): nothing, MSI and
  // reads included, passes a write waiting for a posted-buffer entry.
  retire_writes();
  const bool needs_entry = t->kind == TlpKind::MemWr && is_dram(*t);
  if (!m_posted_wait.empty() || (needs_entry && m_posted_inflight >= m_cfg.posted_buffer)) {
    // Credits stay held: back-pressure. Wake when the oldest commit frees an entry.
    if (m_posted_wait.empty()) m_sched.at(m_commits.top(), this, kWriteDone);
    m_posted_wait.emplace_back(t, port);
    return;
  }
  dispatch(t, port);
}

void RootComplex::forward_p2p(Tlp* t, int port) {
  const int out = port_for_addr(t->addr);
  if (out < 0) {
    char b[32];
    std::snprintf(b, sizeof b, "%llx", static_cast<unsigned long long>(t->addr));
    sim_fail(basename(), std::string(kind_name(t->kind)) + " to unclaimed address 0x" + b);
  }
  if (!m_cfg.p2p) sim_fail(basename(), "peer-to-peer request but the root complex has p2p disabled");
  m_ports[port]->release(*t);
  ++p2p_forwarded;
  enqueue(out, t, now_tick());
}

// One request, in order: an MSI, a write or read of memory, or a peer request.
void RootComplex::dispatch(Tlp* t, int port) {
  // Held behind a write waiting for a posted-buffer entry: a write waited
  // for the buffer, anything else for the write ahead of it.
  if (t->ledger) t->ledger->charge(t->kind == TlpKind::MemWr ? Stage::RootComplex : Stage::Ordering, now_tick());
  if (t->kind == TlpKind::MemRd) {
    if (is_dram(*t)) serve_read(t, port);
    else forward_p2p(t, port);
  } else if (pcie::is_atomic(t->kind)) {
    if (is_dram(*t)) serve_atomic(t, port);
    else forward_p2p(t, port);
  } else if (target_of(t->addr).kind == AddressTarget::Kind::Msi) {
    m_ports[port]->release(*t);
    ++msis;
    if (m_host_distance) m_sched.at(now_tick() + m_host_distance, this, kMsiToHost, t->data_off);
    else if (m_host) m_host->on_msi(static_cast<std::uint32_t>(t->data_off), now_tick());
    pcie::TlpPool::instance().put(t);
  } else if (is_dram(*t)) {
    accept_write(t, port);
  } else {
    forward_p2p(t, port);
  }
}

void RootComplex::accept_write(Tlp* t, int port) {
  m_ports[port]->release(*t);
  ++m_posted_inflight;
  ++writes;
  write_bytes += t->len;
  // Store the real bytes; they must match what the producer checksummed
  // (the pattern's sum equals the sum of its stored bytes: test_units_config).
  if (!t->payload_intact()) sim_fail(basename(), "payload check failed on a write to " + hex(t->addr));
  if (t->bytes) m_data->write(t->addr, t->bytes->b, t->len);
  else m_data->write_pattern(t->addr, t->data_stream, t->data_off, t->len);
  const Tick now = now_tick();
  const std::uint64_t L = static_cast<std::uint64_t>(m_cfg.memory.line_B);
  Tick commit = now, crit_own = now;
  for (std::uint64_t a = t->addr; a < t->addr + t->len;) {
    const std::uint64_t stop = std::min<std::uint64_t>(t->addr + t->len, (a / L + 1) * L);
    // The line's slot in the pipeline, then the line itself once no older read holds it.
    const Tick slot = line_slot(now);
    const Tick own = m_reading.free_at(a / L * L, slot);
    const Tick line_commit = write_home(a, static_cast<std::uint32_t>(stop - a), own);
    if (line_commit >= commit) crit_own = own;  // the line that commits last is the write's critical path
    commit = std::max(commit, line_commit);
    a = stop;
  }
  // Posted writes become visible in order (PCIe producer-consumer
  // ordering): a flag written after data is not seen before the data, even
  // when the data's lines commit later (far node, read-modify-write).
  const Tick visible = std::max(commit, m_last_write_commit);
  m_last_write_commit = visible;
  if (t->ledger) {
    // Its last line's pipeline slot (and any older read of the line), the
    // memory's commit, then the older writes it becomes visible behind.
    t->ledger->charge(Stage::RootComplex, crit_own);
    t->ledger->charge(Stage::Memory, commit);
    t->ledger->charge(Stage::Ordering, visible);
  }
  if (m_host) m_host->on_memory_write(t->addr, t->len, visible, t->ledger);
  m_commits.push(commit);  // the entry frees at commit (retired lazily, no event)
  pcie::TlpPool::instance().put(t);
}

Tick RootComplex::line_slot(Tick t) { return m_lines.reserve(t, now_tick()); }

void RootComplex::serve_read(Tlp* t, int port) {
  m_ports[port]->release(*t);
  ++reads;
  const Tick now = now_tick();
  // A read must not pass older posted writes: start after they commit.
  const Tick start = std::max(now, m_last_write_commit);
  const std::uint64_t L = static_cast<std::uint64_t>(m_cfg.memory.line_B);
  ReadJob j;
  j.req = t;
  j.next = t->addr;
  j.end = t->addr + t->req_len;
  j.first_line = t->addr / L * L;
  j.seq = m_seq++;
  if (t->ledger) t->ledger->charge(Stage::Ordering, start);
  Tick issue = start, ready = start;
  std::uint32_t crit = 0;
  for (std::uint64_t line = j.first_line; line < j.end; line += L) {
    const Tick slot = line_slot(issue);
    const Tick data = read_home(line, slot);
    m_reading.hold(line, data, now);
    if (data + m_cfg.completion_latency > ready) crit = static_cast<std::uint32_t>(j.line_ready.size());
    ready = std::max(ready, data + m_cfg.completion_latency);
    j.line_ready.push_back(ready);
    if (t->ledger) {
      j.line_slot.push_back(slot);
      j.line_data.push_back(data);
      j.line_crit.push_back(crit);
    }
    issue = slot + m_cfg.read_line_interval;
  }
  auto& jobs = m_reads[port][t->vc];
  jobs.push_back(std::move(j));
  m_ports[port]->wake_at(jobs.back().line_ready.front());
}

// An AtomicOp on memory (PCIe sec. 6.15), the root complex its completer.
// Like a read it starts after older posted writes commit and takes a slot
// of the line pipeline; when the line's data is there the operation is
// applied to the real bytes, the line written back whole, and the original
// value leaves in one completion. Its latency is the sum of those stages.
void RootComplex::serve_atomic(Tlp* t, int port) {
  m_ports[port]->release(*t);
  if (!m_cfg.atomic_completer)
    sim_fail(basename(), std::string("an AtomicOp (") + kind_name(t->kind) +
                             ") to memory, but the root complex completes none (atomic_completer: false)");
  const std::uint32_t size = pcie::atomic_operand_B(t->kind, t->len);
  if (!size)
    sim_fail(basename(), std::string("a ") + kind_name(t->kind) + " of " + std::to_string(t->len) +
                             " B: its operands must be 4 or 8 B");
  if (t->addr % size) sim_fail(basename(), std::string("a ") + kind_name(t->kind) + " not aligned to its operand size");
  ++atomics;
  const Tick now = now_tick();
  const Tick start = std::max(now, m_last_write_commit);
  const std::uint64_t L = static_cast<std::uint64_t>(m_cfg.memory.line_B);
  const std::uint64_t line = t->addr / L * L;
  const Tick slot = line_slot(start);
  const Tick data = read_home(line, slot);
  auto& store = *m_data;
  std::uint8_t b[8] = {};
  store.read(t->addr, b, size);
  std::uint64_t old = 0;
  for (std::uint32_t i = 0; i < size; ++i) old |= static_cast<std::uint64_t>(b[i]) << (8 * i);
  const std::uint64_t mask = size == 8 ? ~0ull : (1ull << (8 * size)) - 1;
  std::uint64_t now_value = old;
  switch (t->kind) {
    case TlpKind::FetchAdd: now_value = (old + t->operand[0]) & mask; break;
    case TlpKind::Swap: now_value = t->operand[0] & mask; break;
    default: if (old == (t->operand[0] & mask)) now_value = t->operand[1] & mask; break;  // CAS
  }
  Tlp* c = pcie::TlpPool::instance().get();
  c->kind = TlpKind::CplD;
  c->vc = t->vc;
  c->requester = t->requester;
  c->tag = t->tag;
  c->addr = t->addr;
  c->len = size;
  c->req_len = size;
  c->operand[0] = old;
  if (t->want_bytes) c->set_bytes(b, size);
  else c->checksum = store.checksum(t->addr, size);
  c->ctx = t->ctx;
  c->created = data;
  if (t->ledger) {
    std::swap(c->ledger, t->ledger);
    c->ledger->charge(Stage::Ordering, start);
    c->ledger->charge(Stage::RootComplex, slot);
    c->ledger->charge(Stage::Memory, data);
    c->ledger->charge(Stage::RootComplex, data + m_cfg.completion_latency);
  }
  for (std::uint32_t i = 0; i < size; ++i) b[i] = static_cast<std::uint8_t>(now_value >> (8 * i));
  store.write(t->addr, b, size);
  const Tick commit = write_home(line, static_cast<std::uint32_t>(L), data);
  if (m_host) m_host->on_memory_write(t->addr, size, commit, nullptr);  // its ledger went with the completion
  read_bytes += size;
  ++completions;
  pcie::TlpPool::instance().put(t);
  enqueue(port, c, data + m_cfg.completion_latency);
}

// The next completion of read job `j`: the contiguous data ready now, up to
// the completion size (a multiple of the RCB) and never across one of its
// boundaries, ending on an RCB boundary unless it ends the request. Returns
// where it would end (j.next if nothing is ready; `wake` then says when).
std::uint64_t RootComplex::completion_end(pcie::PciePort& p, const ReadJob& j, Tick now, Tick& wake) const {
  const std::uint64_t L = static_cast<std::uint64_t>(m_cfg.memory.line_B);
  const std::uint64_t rcb = static_cast<std::uint64_t>(m_cfg.rcb_B);
  const std::uint64_t mps = static_cast<std::uint64_t>(p.config().mps);
  // The rule counts the lines a request touches (a 511 B read of a whole
  // line run is combined like a 512 B one).
  const bool combine = j.line_ready.size() * L >= static_cast<std::uint64_t>(m_cfg.cpl_combine_min_B);
  const std::uint64_t cpl =
      combine ? std::max(rcb, std::min<std::uint64_t>(static_cast<std::uint64_t>(m_cfg.cpl_max_B), mps) / rcb * rcb) : rcb;
  std::size_t li = static_cast<std::size_t>((j.next / L * L - j.first_line) / L);
  std::uint64_t ready_end = j.next;
  while (li < j.line_ready.size() && j.line_ready[li] <= now) {
    ready_end = std::min(j.end, j.first_line + (li + 1) * L);
    ++li;
  }
  std::uint64_t stop = std::min(ready_end, (j.next / cpl + 1) * cpl);
  if (stop != j.end) stop = stop / rcb * rcb;
  if (stop <= j.next) {
    if (li < j.line_ready.size()) wake = std::min(wake, j.line_ready[li]);
    return j.next;
  }
  return stop;
}

Tlp* RootComplex::make_completion(ReadJob& j, std::uint64_t stop, Tick now) {
  Tlp* c = pcie::TlpPool::instance().get();
  c->kind = TlpKind::CplD;
  c->vc = j.req->vc;
  c->requester = j.req->requester;
  c->tag = j.req->tag;
  c->addr = j.next;
  c->len = static_cast<std::uint32_t>(stop - j.next);
  c->req_len = static_cast<std::uint32_t>(j.end - j.next);
  if (j.req->want_bytes) {
    c->bytes = PayloadPool::instance().get();
    c->bytes->n = c->len;
    m_data->read(j.next, c->bytes->b, c->len);
    c->checksum = bytes_checksum(c->bytes->b, c->len);
  } else {
    c->checksum = m_data->checksum(j.next, c->len);
  }
  c->ctx = j.req->ctx;
  c->created = now;
  if (j.req->ledger) {
    // Its data was ready when the line that came last (of those up to its
    // own last line) was: that line's path is the completion's.
    const std::uint64_t L = static_cast<std::uint64_t>(m_cfg.memory.line_B);
    const std::size_t last = static_cast<std::size_t>(((stop - 1) / L * L - j.first_line) / L);
    const std::size_t k = j.line_crit[last];
    Ledger* l = c->ledger = fork_ledger(j.req->ledger);
    l->charge(Stage::RootComplex, j.line_slot[k]);
    l->charge(Stage::Memory, j.line_data[k]);
    l->charge(Stage::RootComplex, j.line_ready[last]);
    l->charge(Stage::Arbitration, now);  // built when the root port could transmit
  }
  read_bytes += c->len;
  ++completions;
  j.next = stop;
  return c;
}

void RootComplex::ats_invalidate(pcie::Rid rid, std::uint64_t va, std::uint64_t len, std::function<void(Tick)> done) {
  if (!m_iommu) sim_fail(basename(), "ATS invalidation without an IOMMU");
  m_iommu->invalidate(va, len);
  int port = -1;
  for (std::size_t i = 0; i < m_cfg.routes.size(); ++i)
    if (m_cfg.routes[i].claims_id(rid)) port = static_cast<int>(i);
  if (port < 0) sim_fail(basename(), "ATS invalidation for a function below no root port");
  const std::uint16_t itag = m_itag++ % 32;
  if (m_invalidations.count(itag)) sim_fail(basename(), "more than 32 ATS invalidations outstanding");
  m_invalidations[itag] = std::move(done);
  Tlp* t = make_message(port, rid);
  t->msg_code = ats::kInvalidateRequest;
  t->tag = itag;
  t->addr = va;
  t->req_len = static_cast<std::uint32_t>(len);
  t->len = 8;
  t->data_stream = kMemoryStream;
  t->data_off = va;
  t->checksum = pattern_checksum(kMemoryStream, va, 8);
  enqueue(port, t, now_tick() + m_cfg.outbound_latency);
}

void RootComplex::issue_mmio(Tlp* t) {
  const AddressTarget to = target_of(t->addr);
  if (m_sockets && to.kind == AddressTarget::Kind::Socket) {
    // To a device below another socket: it crosses the links to it, then
    // leaves that root complex's root port.
    const Home& h = m_homes[static_cast<std::size_t>(to.index)];
    const int port = h.rc->port_for_addr(t->addr);
    if (port < 0) sim_fail(basename(), "MMIO to an address no root port of socket " + std::to_string(to.index) + " claims");
    const Tick ready = now_tick() + m_cfg.outbound_latency + h.latency;
    if (t->ledger) t->ledger->charge(Stage::RootComplex, ready);
    h.rc->enqueue(port, t, ready);
    return;
  }
  const int port = port_for_addr(t->addr);
  if (port < 0) sim_fail(basename(), "MMIO to an address no root port claims");
  const Tick ready = now_tick() + m_cfg.outbound_latency;
  if (t->ledger) t->ledger->charge(Stage::RootComplex, ready);
  enqueue(port, t, ready);
}

void RootComplex::enqueue(int port, Tlp* t, Tick ready) {
  t->ready = ready;
  t->seq = m_seq++;
  m_txq[port][t->vc][static_cast<int>(t->fc())].push_back(t);
  m_ports[port]->wake_at(ready);
}

Tlp* RootComplex::tx_select(pcie::PciePort& p) {
  const Tick now = now_tick();
  Tick wake = kNever;
  Tlp* t = nullptr;
  m_arb[static_cast<std::size_t>(p.index)]->pick([&](int vc) { return (t = select_vc(p, vc, now, wake)) != nullptr; });
  if (!t && wake != kNever) p.wake_at(wake);
  return t;
}

Tlp* RootComplex::select_vc(pcie::PciePort& p, int vc, Tick now, Tick& wake) {
  auto& qs = m_txq[p.index][static_cast<std::size_t>(vc)];
  auto& jobs = m_reads[p.index][static_cast<std::size_t>(vc)];
  const std::uint64_t p_seq = qs[0].empty() ? ~0ull : qs[0].front()->seq;
  int best = -1;
  std::uint64_t best_seq = ~0ull;
  for (int c = 0; c < pcie::kFcClasses; ++c) {
    if (qs[c].empty()) continue;
    Tlp* h = qs[c].front();
    if (h->ready > now) {
      wake = std::min(wake, h->ready);
      continue;
    }
    if (c != 0 && h->seq > p_seq && qs[0].front()->ready <= now) continue;
    if (h->seq < best_seq && p.can_send(*h)) {
      best = c;
      best_seq = h->seq;
    }
  }
  // Completions of memory reads, built from what is ready now. Different
  // requests interleave (the oldest with data ready goes first); one
  // request's completions stay in address order; none passes an older
  // posted request on this port.
  for (auto it = jobs.begin(); it != jobs.end() && it->seq < best_seq; ++it) {
    if (it->seq > p_seq && qs[0].front()->ready <= now) break;
    const std::uint64_t stop = completion_end(p, *it, now, wake);
    if (stop == it->next) continue;
    // Credits for exactly this completion, or it waits (back-pressure).
    Tlp probe;
    probe.kind = TlpKind::CplD;
    probe.vc = it->req->vc;
    probe.len = static_cast<std::uint32_t>(stop - it->next);
    if (!p.can_send(probe)) continue;
    Tlp* c = make_completion(*it, stop, now);
    if (it->next == it->end) {
      pcie::TlpPool::instance().put(it->req);
      jobs.erase(it);
      if (m_cfg.read_trackers > 0) free_tracker();
    }
    return c;
  }
  if (best < 0) return nullptr;
  Tlp* t = qs[best].front();
  qs[best].pop_front();
  return t;
}

}  // namespace hx::host
