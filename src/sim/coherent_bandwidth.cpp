#include "src/sim/coherent_bandwidth.h"

#include <systemc>

#include <algorithm>
#include <vector>

#include "models/coherence/socket.h"
#include "models/core/error.h"
#include "models/core/ledger.h"
#include "src/sim/workload_kinds.h"

namespace hx::sim {

using cfg::Cursor;

namespace {

// Every core of the sockets in `from` (the first `cores` of each) loads or
// stores `lines` lines of its own, never touched before and homed on the
// socket `home`, keeping `inflight` accesses outstanding: a new one as each
// is done, from time zero. The bandwidth is the lines' bytes over the time
// from the start to the last access done; each access's latency is from
// its issue to its end, and its ledger says where that time went (an
// access slot's ledger is reused by the slot's next access).
class CoherentBandwidth final : public Workload {
 public:
  CoherentBandwidth(const Cursor& c, const topo::Topology& t) : Workload("coh_bw") {
    c.keys({"type", "name", "op", "from", "cores", "home", "lines", "inflight"});
    if (c.has("name")) m_name = c.child("name").str();
    const auto& root = t.nodes[static_cast<std::size_t>(t.root)];
    if (!root.has_sockets)
      c.child("type").fail("coh_bw needs a host with sockets (`sockets:` under the root complex '" + root.name + "')");
    const auto& s = root.sockets;
    const auto socket = [&](const Cursor& v) { return host_socket(v, v.integer(0, 7), s.sockets); };
    m_store = c.has("op") && c.child("op").choice({"rd", "wr"}) == "wr";
    if (c.has("from")) {
      const Cursor f = c.child("from");
      if (!f.node.IsSequence() || f.node.size() == 0) f.fail("expected a list of sockets, e.g. [0, 1]");
      for (std::size_t i = 0; i < f.node.size(); ++i) {
        const int k = socket(f.item(i));
        if (std::find(m_from.begin(), m_from.end(), k) != m_from.end()) f.item(i).fail("socket " + std::to_string(k) + " is listed twice");
        m_from.push_back(k);
      }
    } else {
      m_from = {0};
    }
    m_cores = c.has("cores") ? static_cast<int>(c.child("cores").integer(1, s.cores)) : 1;
    m_home = c.has("home") ? socket(c.child("home")) : (s.sockets > 1 ? 1 : 0);
    m_lines = c.has("lines") ? static_cast<std::uint64_t>(c.child("lines").integer(1, 1000000)) : 4096;
    m_inflight = c.has("inflight") ? static_cast<int>(c.child("inflight").integer(1, 256)) : s.mshrs;
    const std::uint64_t total = m_lines * static_cast<std::uint64_t>(m_cores) * m_from.size();
    if (total * coherence::kLineB > s.socket_bytes)
      (c.has("lines") ? c.child("lines") : c).fail("more lines than a socket's DRAM holds (sockets.socket_bytes)");
  }

  void start(Platform& p) override {
    m_sys = p.sockets();
    for (int s : m_from)
      for (int k = 0; k < m_cores; ++k) {
        auto core = std::make_unique<Core>();
        core->w = this;
        core->agent = &m_sys->core(s, k);
        core->first = static_cast<std::uint64_t>(m_streams.size()) * m_lines;
        core->issue_at.assign(static_cast<std::size_t>(m_inflight), 0);
        core->led.resize(static_cast<std::size_t>(m_inflight));
        m_streams.push_back(std::move(core));
      }
    sc_core::sc_spawn([this] {
      m_t0 = now_tick();
      for (auto& c : m_streams)
        for (int i = 0; i < m_inflight; ++i) c->next(static_cast<std::size_t>(i));
    });
  }
  bool done() const override { return m_done == m_lines * m_streams.size() && !m_streams.empty(); }
  double progress() const override {
    return m_streams.empty() ? 0.0 : static_cast<double>(m_done) / static_cast<double>(m_lines * m_streams.size());
  }
  void report(Results& r) const override {
    const Tick span = m_last > m_t0 ? m_last - m_t0 : 0;
    const double bytes = static_cast<double>(m_done) * coherence::kLineB;
    r.metric(m_name + ".GBps", span ? bytes / (static_cast<double>(span) * 1e-3) : 0.0, "GB/s");
    r.metric(m_name + ".mean_ns", m_lat.mean(), "ns");
    r.metric(m_name + ".median_ns", m_lat.percentile(50), "ns");
    r.metric(m_name + ".p99_ns", m_lat.percentile(99), "ns");
    r.metric(m_name + ".link_messages_per_line", m_done ? static_cast<double>(m_sys->link_messages.value) / static_cast<double>(m_done) : 0.0,
             "1");
    r.hist(m_name + (m_store ? ".wr_ns" : ".rd_ns"), m_lat, "ns");
    if (m_breakdown.count) r.breakdown(m_name + (m_store ? ".wr_ns" : ".rd_ns"), m_breakdown);
  }

 private:
  // One core's stream: lines [first, first + lines) of the home's region,
  // `inflight` access slots (an access's tag is its slot).
  struct Core : coherence::CoreSide {
    CoherentBandwidth* w = nullptr;
    coherence::CachingAgent* agent = nullptr;
    std::uint64_t first = 0, issued = 0;
    std::vector<Tick> issue_at;  // by slot
    std::vector<Ledger> led;     // by slot
    void next(std::size_t slot) {
      if (issued == w->m_lines) return;
      const std::uint64_t i = issued++;
      issue_at[slot] = now_tick();
      led[slot].open(now_tick());
      agent->access(w->m_store, w->m_sys->line_at(w->m_home, (first + i) * coherence::kLineB), i + 1, slot, *this, ~0ull,
                    &led[slot]);
    }
    void access_done(std::uint64_t tag, std::uint64_t, Tick at) override {
      const auto slot = static_cast<std::size_t>(tag);
      w->m_lat.add(to_ns(at - issue_at[slot]));
      if (led[slot].mark == at) w->m_breakdown.add(led[slot], issue_at[slot], at);  // (a buffered store is not timed)
      ++w->m_done;
      w->m_last = std::max(w->m_last, at);
      next(slot);
    }
  };
  coherence::SocketSystem* m_sys = nullptr;
  bool m_store = false;
  std::vector<int> m_from;
  int m_cores = 1, m_home = 1, m_inflight = 16;
  std::uint64_t m_lines = 4096;
  std::vector<std::unique_ptr<Core>> m_streams;
  std::uint64_t m_done = 0;
  Tick m_t0 = 0, m_last = 0;
  Histogram m_lat;
  Breakdown m_breakdown;
};

}  // namespace

std::unique_ptr<Workload> make_coherent_bandwidth(const Cursor& c, const topo::Topology& t) {
  return std::make_unique<CoherentBandwidth>(c, t);
}

std::string coherent_bandwidth_reference() {
  return "| `coh_bw` | `op` (rd: loads; wr: stores), `from` (the sockets whose cores access, default [0]), `cores` (the first "
         "N cores of each, default 1), `home` (the socket homing every line, default 1), `lines` (per core, each never "
         "touched before, default 4096), `inflight` (accesses a core keeps outstanding, default sockets.mshrs) | bandwidth "
         "across a host's sockets and their socket links |\n";
}

}  // namespace hx::sim
