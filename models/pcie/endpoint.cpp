#include "models/pcie/endpoint.h"

#include <algorithm>

#include "models/core/error.h"

namespace hx::pcie {

namespace {
enum : std::uint32_t { kRx, kRegRead };
}

Endpoint::Endpoint(sc_core::sc_module_name name, const EndpointConfig& cfg)
    : sc_core::sc_module(name), m_cfg(cfg), m_sched(basename()) {
  PortConfig pc = cfg.port;
  pc.tx_pipeline = cfg.tx_latency;
  pc.infinite_completion_credits();  // endpoints: infinite completion credits
  m_port = std::make_unique<PciePort>(*this, std::string(name) + ".up", pc);
  const int vcs = std::max(1, std::min(pc.vcs, kMaxVcs));
  m_arb = std::make_unique<VcArbiter>(pc.vc_arb, vcs);
  m_rr.assign(static_cast<std::size_t>(vcs), 1);
  add_stream("completions", 64);
  auto& reg = StatsRegistry::instance();
  reg.add_counter(std::string(name) + ".rx_tlps", &rx_tlps, "TLP", "TLPs received");
  reg.add_counter(std::string(name) + ".rx_bytes", &rx_bytes, "B", "payload bytes received");
}

void Endpoint::set_device(Device* d) {
  m_dev = d;
  d->attach(*this);
}

int Endpoint::add_stream(const std::string& name, std::size_t depth) {
  m_streams.push_back(Stream{{}, depth, name});
  return static_cast<int>(m_streams.size() - 1);
}

// A function sends up to its own programmed MPS; it cannot know its
// partner's (a mismatch is a malformed TLP at the receiver).
int Endpoint::mps() const { return m_port->config().mps; }

Tlp* Endpoint::make(TlpKind kind) {
  Tlp* t = TlpPool::instance().get();
  t->kind = kind;
  t->requester = m_cfg.rid;
  t->created = now_tick();
  return t;
}

Tlp* Endpoint::make_msi(std::uint32_t vector) {
  Tlp* t = make(TlpKind::MemWr);
  t->addr = m_cfg.msi_addr;
  t->addr64 = needs_addr64(t->addr);
  t->len = 4;
  t->data_stream = kMemoryStream;
  t->data_off = vector;
  t->checksum = pattern_checksum(kMemoryStream, vector, 4);
  return t;
}

void Endpoint::push(int stream, Tlp* t, Tick at) {
  const Tick now = now_tick();
  t->ready = std::max(at, now);  // the TX pipeline latency is applied by the port
  m_streams[static_cast<std::size_t>(stream)].q.push_back(t);
  m_port->wake_for(*t);
}

Tlp* Endpoint::tx_select(PciePort& p) {
  const Tick now = now_tick();
  Tick next = kNever;
  auto try_stream = [&](std::size_t s) -> Tlp* {
    auto& q = m_streams[s].q;
    if (q.empty()) return nullptr;
    Tlp* h = q.front();
    if (h->ready > now) {
      next = std::min(next, h->ready);
      return nullptr;
    }
    if (!p.can_send(*h)) return nullptr;
    q.pop_front();
    return h;
  };
  if (Tlp* t = try_stream(0)) return t;  // completions first
  // VC arbitration among the data streams' heads, then round robin over the
  // streams 1..n-1 of the chosen VC, from m_rr[vc] on (no division: this
  // runs once per TLP sent).
  const std::size_t n = m_streams.size();
  Tlp* sent = nullptr;
  m_arb->pick([&](int vc) {
    std::size_t& rr = m_rr[static_cast<std::size_t>(vc)];
    std::size_t s = rr;
    for (std::size_t k = 1; k < n; ++k) {
      const std::size_t after = s + 1 == n ? 1 : s + 1;
      const auto& q = m_streams[s].q;
      // A head on a VC this port lacks is offered with the highest one, so
      // that the port names the error instead of the stream waiting for ever.
      if (!q.empty() && std::min<std::size_t>(q.front()->vc, m_rr.size() - 1) == static_cast<std::size_t>(vc)) {
        if (Tlp* t = try_stream(s)) {
          rr = after;
          if (m_dev) m_dev->on_tx_space(static_cast<int>(s));
          sent = t;
          return true;
        }
      }
      s = after;
    }
    return false;
  });
  if (sent) return sent;
  if (next != kNever) p.wake_at(next);
  return nullptr;
}

link::TxOutlook Endpoint::tx_outlook(const PciePort& p, Tick at, Tick& next_ready) const {
  bool queued = false;
  for (const auto& s : m_streams) {
    if (s.q.empty()) continue;
    queued = true;
    if (p.head_sendable(*s.q.front(), at, next_ready)) return link::TxOutlook::Maybe;
  }
  return queued ? link::TxOutlook::NoneEligible : link::TxOutlook::Empty;
}

Tlp* Endpoint::completion_for(const Tlp& req) {
  Tlp* c = make(TlpKind::CplD);
  c->vc = req.vc;
  c->requester = req.requester;
  c->completer = m_cfg.rid;
  c->tag = req.tag;
  c->addr = req.addr;
  c->ctx = req.ctx;
  return c;
}

void Endpoint::tx_done(PciePort&, const Tlp& t, Tick start, Tick end) {
  if (m_dev) m_dev->on_sent(t, start, end);
}

void Endpoint::rx_arrive(PciePort&, Tlp* t, Tick, Tick tail) {
  if (t->ledger) {
    t->ledger->land(tail);
    t->ledger->charge(Stage::HardBlock, tail + m_cfg.rx_latency);
  }
  m_sched.at(tail + m_cfg.rx_latency, this, kRx, 0, t);
}

void Endpoint::on_action(std::uint32_t kind, std::uint64_t, void* ptr) {
  Tlp* t = static_cast<Tlp*>(ptr);
  if (kind == kRx) {
    m_port->release(*t);
    ++rx_tlps;
    rx_bytes += t->len;
    switch (t->kind) {
      case TlpKind::Cpl:
      case TlpKind::CplD:
        if (!m_dev) sim_fail(basename(), "completion arrived at an endpoint without device logic");
        m_dev->on_completion(*t);
        TlpPool::instance().put(t);
        break;
      case TlpKind::MemWr:
      case TlpKind::MsgD:
      case TlpKind::Msg:
        if (m_dev) m_dev->on_write(*t);
        TlpPool::instance().put(t);
        break;
      case TlpKind::MemRd:
        if (m_dev && m_dev->on_read(*t)) TlpPool::instance().put(t);
        else {
          const std::uint32_t dws = (std::max<std::uint32_t>(4, t->req_len) + 3) / 4;
          m_sched.at(now_tick() + m_cfg.reg_read_latency + (dws - 1) * m_cfg.reg_read_per_dw, this, kRegRead, 0, t);
        }
        break;
      case TlpKind::FetchAdd:
      case TlpKind::Swap:
      case TlpKind::Cas:
        sim_fail(basename(), std::string("an AtomicOp (") + kind_name(t->kind) +
                                 ") reached an endpoint, which completes none (its AtomicOp Completer Supported bits are 0)");
      default:
        sim_fail(basename(), std::string("unexpected ") + kind_name(t->kind));
    }
  } else if (kind == kRegRead) {
    Tlp* c = completion_for(*t);
    const std::uint32_t len = std::max<std::uint32_t>(4, t->req_len);
    std::uint8_t b[PayloadBytes::kMax];
    if (len <= sizeof b && m_dev && m_dev->register_bytes(t->addr, len, b)) {
      c->set_bytes(b, len);
    } else {
      c->len = len;
      c->data_stream = kMemoryStream;
      c->data_off = t->addr;
      c->checksum = pattern_checksum(kMemoryStream, t->addr, c->len);
    }
    c->req_len = c->len;
    if (t->ledger) {  // a timed read: the register file's latency is the device's
      std::swap(c->ledger, t->ledger);
      c->ledger->charge(Stage::Device, now_tick());
    }
    // Completions bypass the TX pipeline queueing behind data (absolute priority).
    m_streams[0].q.push_back(c);
    c->ready = now_tick();
    m_port->wake_for(*c);
    TlpPool::instance().put(t);
  }
}

}  // namespace hx::pcie
