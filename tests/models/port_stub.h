// A stub partner for PCIe model tests: a port owner with one transmit queue
// that records what it sends and receives, and helpers to run the models.
#pragma once
#include <systemc>

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "models/core/scheduler.h"
#include "models/pcie/port.h"

namespace hx::pcie {

// An owner with one transmit queue; what it receives it drains `drain`
// after the TLP's last byte (never, if `hold`), releasing its credits.
class Stub final : public PortOwner, public Actor {
 public:
  explicit Stub(const std::string& name, const PortConfig& cfg) : sched(name), port(*this, name + ".port", cfg) {}
  Tlp* tx_select(PciePort& p) override {
    if (q.empty() || q.front()->ready > now_tick() || !p.can_send(*q.front())) return nullptr;
    Tlp* t = q.front();
    q.pop_front();
    return t;
  }
  void rx_arrive(PciePort&, Tlp* t, Tick head, Tick tail) override {
    rx.push_back({head, tail});
    got.push_back(*t);
    // The copy keeps no pointer to the pooled parts (they go back with t).
    got.back().ledger = nullptr;
    got.back().bytes = nullptr;
    data.emplace_back(t->bytes ? std::vector<std::uint8_t>(t->bytes->b, t->bytes->b + t->len) : std::vector<std::uint8_t>{});
    if (!hold) sched.at(tail + drain, this, 0, 0, t);
    else held.push_back(t);
  }
  void tx_done(PciePort&, const Tlp&, Tick start, Tick end) override { tx.push_back({start, end}); }
  bool tx_pending(const PciePort&) const override { return !q.empty(); }
  void on_action(std::uint32_t, std::uint64_t, void* p) override {
    Tlp* t = static_cast<Tlp*>(p);
    port.release(*t);
    TlpPool::instance().put(t);
  }
  // Queues a TLP ready at `ready`; returns it for the caller to address.
  Tlp* send(TlpKind k, std::uint32_t len, Tick ready = 0, std::uint64_t addr = 0) {
    Tlp* t = TlpPool::instance().get();
    t->kind = k;
    t->len = carries_data(k) ? len : 0;
    t->req_len = k == TlpKind::MemRd ? len : 0;
    t->ready = ready;
    t->addr = addr;
    q.push_back(t);
    port.wake_for(*t);
    return t;
  }
  Scheduler sched;
  PciePort port;
  std::deque<Tlp*> q;
  std::vector<std::pair<Tick, Tick>> rx, tx;
  std::vector<Tlp> got;  // copies of what arrived, in arrival order
  std::vector<std::vector<std::uint8_t>> data;  // their real bytes (empty: none)
  std::vector<Tlp*> held;
  bool hold = false;
  Tick drain = 0;
};

// Runs the models up to simulated time t (the dispatcher runs ahead of the
// SystemC clock otherwise: design note 2).
inline void run_until(Tick t) {
  Scheduler::set_horizon(t);
  sc_core::sc_start(sc_core::sc_time::from_value(t - now_tick()));
}

inline LinkConfig gen(int g, int width, Tick latency = 0) {
  LinkConfig l;
  l.gen = g;
  l.width = width;
  l.latency = latency;
  l.skp = false;
  l.ack_every = 1 << 20;  // no ACKs unless a test asks for them
  l.ack_timeout = kMs;
  l.fc_update_every = 1;
  return l;
}

// The share of VC1 among the VCs of TLPs [from, to) of `v` (in arrival order).
inline double vc1_share(const std::vector<int>& v, std::size_t from, std::size_t to) {
  int n = 0;
  for (std::size_t i = from; i < to; ++i) n += v[i] == 1;
  return static_cast<double>(n) / static_cast<double>(to - from);
}

}  // namespace hx::pcie
