#include "models/ccix/request_agent.h"

#include <algorithm>
#include <cstdint>

#include "models/core/error.h"
#include "models/pcie/message.h"

namespace hx::ccix {

namespace {
enum : std::uint32_t { kIssue, kLoad, kStore, kLoadOnce, kStoreOnce, kLoadNoSnp, kStoreNoSnp, kEvict, kAtomic, kDone };
constexpr std::uint32_t kLineB = coherence::kLineB;
}  // namespace

RequestAgent::RequestAgent(const std::string& name, const RequestAgentConfig& cfg)
    : m_name(name), m_cfg(cfg), m_sched(name) {
  if (cfg.ats && !cfg.dma.ats) throw InputError(name + ": a request agent on virtual addresses needs the device's ATS switch (bench.ats)");
  m_dma = std::make_unique<dma::BenchDma>(name + ".dma", cfg.dma);
  m_dma->set_translate_commands(cfg.dma_translates);
  m_link = std::make_unique<CcixLink>(name + ".ccix", cfg.ccix, *this);
  m_agent = std::make_unique<coherence::CachingAgent>(name + ".sc", cfg.agent, *this);
  m_link->bind(*m_agent);
  auto& reg = StatsRegistry::instance();
  reg.add_counter(name + ".transfers", &transfers, "1", "transfers the traffic generator completed");
  reg.add_counter(name + ".lines", &lines, "line", "lines the traffic generator issued to the SC");
  reg.add_counter(name + ".atomics", &atomics, "1", "atomics the traffic generator completed");
}

RequestAgent::~RequestAgent() = default;

void RequestAgent::attach(pcie::Endpoint& ep) {
  Device::attach(ep);
  m_dma->attach(ep);
  m_stream = ep.add_stream("ccix", static_cast<std::size_t>(m_cfg.stream_depth));
}

void RequestAgent::send(coherence::Packet* p) {
  if (!m_cfg.ats || coherence::msg_class(p->msg.type) != coherence::MsgClass::Req) return m_link->send(p);
  ++m_translating;
  const Tick t0 = now_tick();
  m_dma->translate_page(p->msg.line * kLineB, [this, p, t0](Tick ready) {
    --m_translating;
    if (now_tick() > t0) xlate_wait.add(to_ns(ready - t0));  // it missed: answered later
    p->ready = std::max(p->ready, ready);
    if (p->ledger) p->ledger->charge(Stage::Translation, p->ready);
    m_link->send(p);
  });
}

void RequestAgent::transfer(bool write, std::uint64_t addr, std::uint32_t bytes, Done done, Keep keep, Ledger* led) {
  start(write ? Op::Write : Op::Read, addr, bytes, std::move(done), led).keep = keep;
}

void RequestAgent::flush(std::uint64_t addr, std::uint32_t bytes, Done done) { start(Op::Flush, addr, bytes, std::move(done)); }

void RequestAgent::atomic(std::uint64_t addr, const coherence::Rmw& rmw, AtomicDone done, Ledger* led) {
  Xfer& x = start(Op::Atomic, addr, kLineB, nullptr, led);
  x.rmw = rmw;
  x.atomic_done = std::move(done);
}

RequestAgent::Xfer& RequestAgent::start(Op op, std::uint64_t addr, std::uint32_t bytes, Done done, Ledger* led) {
  if (addr % kLineB || bytes == 0 || bytes % kLineB)
    sim_fail(m_name, "a CCIX transfer of whole, aligned lines only (" + std::to_string(bytes) + " B at " + std::to_string(addr) + ")");
  Xfer x;
  x.op = op;
  x.first = addr / kLineB;
  x.n = x.left = bytes / kLineB;
  x.done = std::move(done);
  x.led = led;
  if (led) x.line_led.assign(x.n, nullptr);
  m_xfers.push_back(std::move(x));
  if (!m_issue_pending) {
    m_issue_pending = true;
    m_sched.at(std::max(now_tick(), m_next_issue), this, kIssue);
  }
  return m_xfers.back();
}

// One line per issue interval, in transfer order; each reaches the SC
// after the AXI bridge.
void RequestAgent::issue() {
  m_issue_pending = false;
  if (m_issuing >= m_xfers.size()) return;
  Xfer& x = m_xfers[m_issuing];
  const std::uint64_t id = m_first_id + m_issuing;
  const std::uint64_t line = x.first + x.issued;
  ++lines;
  const std::uint32_t way = static_cast<std::uint32_t>(x.keep) * 2;  // (kLoad, kStore), (kLoadOnce, ...), (kLoadNoSnp, ...)
  const std::uint32_t kind = x.op == Op::Write   ? kStore + way
                             : x.op == Op::Read   ? kLoad + way
                             : x.op == Op::Atomic ? kAtomic
                                                  : kEvict;
  // An atomic's AXI sequence: the operands' write and its response, then
  // the read that carries the operation to the SC.
  const Tick axi = x.op == Op::Atomic ? 2 * m_cfg.axi_latency + m_cfg.write_return : m_cfg.axi_latency;
  if (x.led) {  // the line's way: the generator's issue, then the AXI bridge
    Ledger* l = x.line_led[x.issued] = fork_ledger(x.led);
    l->charge(Stage::Device, now_tick() + axi);
  }
  m_sched.at(now_tick() + axi, this, kind, line, reinterpret_cast<void*>(static_cast<std::uintptr_t>(id)));
  if (++x.issued == x.n) ++m_issuing;
  m_next_issue = now_tick() + m_cfg.issue_interval;
  if (m_issuing < m_xfers.size()) {
    m_issue_pending = true;
    m_sched.at(m_next_issue, this, kIssue);
  }
}

void RequestAgent::on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) {
  if (kind == kIssue) {
    issue();
    return;
  }
  if (kind == kDone) {
    auto it = m_done.find(arg);
    Done d = std::move(it->second.done);
    if (Ledger* l = it->second.led) l->charge(Stage::Device, now_tick());  // the response's way back to the generator
    m_done.erase(it);
    ++transfers;
    if (d) d(now_tick());
    return;
  }
  const auto id = static_cast<std::uint64_t>(reinterpret_cast<std::uintptr_t>(ptr));
  Xfer& x = m_xfers[id - m_first_id];
  Ledger* led = x.led ? x.line_led[arg - x.first] : nullptr;
  // A store writes a value no other store wrote: the checker can tell them apart.
  if (kind == kEvict) m_agent->evict(arg, id, *this);
  else if (kind == kAtomic) m_agent->atomic(x.rmw, arg, id, *this, led);
  else if (kind == kLoadOnce || kind == kStoreOnce)
    m_agent->access_once(kind == kStoreOnce, arg, kind == kStoreOnce ? ++m_store_value : 0, id, *this, led);
  else if (kind == kLoadNoSnp || kind == kStoreNoSnp)
    m_agent->access_nosnp(kind == kStoreNoSnp, arg, kind == kStoreNoSnp ? ++m_store_value : 0, id, *this, led);
  else m_agent->access(kind == kStore, arg, kind == kStore ? ++m_store_value : 0, id, *this, ~0ull, led);
}

void RequestAgent::access_done(std::uint64_t tag, std::uint64_t value, Tick at) {
  if (tag < m_first_id || tag - m_first_id >= m_xfers.size()) sim_fail(m_name, "an access done for no transfer");
  Xfer& x = m_xfers[tag - m_first_id];
  if (x.left == 0) sim_fail(m_name, "a transfer's line done twice");
  if (--x.left == 0) {
    // The response crosses back to the generator, which learns then (an
    // atomic's old value as read data).
    const std::uint64_t k = m_done_seq++;
    if (x.led) {
      // The transfer's time went where its line done last's did (each is
      // accounted for up to its own done time).
      const Ledger* last = x.line_led.front();
      for (const Ledger* l : x.line_led) last = l->mark > last->mark ? l : last;
      x.led->copy_from(*last);
      for (Ledger*& l : x.line_led) drop_ledger(l);
    }
    if (x.op == Op::Atomic) {
      ++atomics;
      m_done.emplace(k, Returning{[d = std::move(x.atomic_done), value](Tick t) {
                                    if (d) d(t, value);
                                  },
                                  x.led});
    } else {
      m_done.emplace(k, Returning{std::move(x.done), x.led});
    }
    x.done = nullptr;
    m_sched.at(at + (x.op == Op::Read || x.op == Op::Atomic ? m_cfg.read_return : m_cfg.write_return), this, kDone, k);
  }
  // Transfers leave the list in order, once every line of each is done.
  while (!m_xfers.empty() && m_xfers.front().left == 0 && m_issuing > 0) {
    m_xfers.pop_front();
    ++m_first_id;
    --m_issuing;
  }
}

// CCIX packets go to the link; anything else (ATS invalidations) to the
// DMA engine's function.
void RequestAgent::on_write(const pcie::Tlp& t) {
  if (t.msg_code == pcie::kVendorMsgType1 && (t.kind == pcie::TlpKind::MsgD || t.kind == pcie::TlpKind::Msg))
    m_link->on_tlp(t);
  else
    m_dma->on_write(t);
}

void RequestAgent::on_completion(const pcie::Tlp& t) { m_dma->on_completion(t); }

void RequestAgent::on_tx_space(int stream) {
  if (stream == m_stream) m_link->on_room();
  else m_dma->on_tx_space(stream);
}

std::string RequestAgent::status() const {
  std::string s = std::to_string(m_xfers.size()) + " transfer(s) in progress, " + std::to_string(m_translating) +
                  " request(s) waiting for a translation";
  if (m_dma->busy()) s += "; DMA: " + m_dma->status();
  if (!m_agent->idle()) s += "; SC:" + m_agent->status();
  const std::string b = m_link->blocked_reason();
  return b.empty() ? s : s + "; " + b;
}

pcie::Tlp* RequestAgent::new_message() {
  if (!m_ep) sim_fail(m_name, "a CCIX request agent attached to no endpoint");
  pcie::Tlp* t = m_ep->make(pcie::TlpKind::MsgD);
  t->by_id = true;
  t->target = 0;  // the root complex: the home agent
  return t;
}

bool RequestAgent::room() const { return m_ep && !m_ep->stream_full(m_stream); }

void RequestAgent::transmit(pcie::Tlp* t, Tick ready) { m_ep->push(m_stream, t, ready); }

}  // namespace hx::ccix
