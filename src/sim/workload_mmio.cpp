// S002's MMIO read latency of any endpoint's register.
#include "src/sim/workload_kinds.h"

#include "models/core/error.h"
#include "src/config/units.h"

namespace hx::sim {

namespace {

// S002: a host core's MMIO read of a device register, one at a time: the
// load leaves the core uncached, crosses the root complex and the link,
// the device answers it (its register read turnaround), and the completion
// comes back. Any endpoint: with no device logic the endpoint's function
// answers its BAR itself (a NIC's registers).
class MmioLatency final : public Workload {
 public:
  MmioLatency(const Cursor& c, const topo::Topology& p) : Workload("mmio_lat") {
    c.keys({"type", "name", "device", "offset", "size", "reps", "core"});
    if (c.has("name")) m_name = c.child("name").str();
    const Cursor d = c.child("device");
    m_dev = d.str();
    const int i = p.find(m_dev);
    if (i < 0 || p.nodes[static_cast<std::size_t>(i)].type != topo::NodeType::Endpoint)
      d.fail("'" + m_dev + "' is not an endpoint of this topology");
    const auto& bar = p.nodes[static_cast<std::size_t>(i)].bar;
    m_size = c.has("size") ? size32(c.child("size"), 1, 64) : 8;
    if (m_size & (m_size - 1)) c.child("size").fail("a load of 1, 2, 4, 8, 16, 32 or 64 B");
    const std::uint64_t off = c.has("offset") ? c.child("offset").size() : 0;
    if (off % m_size) c.child("offset").fail("a load is aligned to its size");
    if (off + m_size > bar.size) c.child("offset").fail("beyond the device's BAR (" + cfg::format_size(bar.size) + ")");
    m_addr = bar.base + off;
    m_n = c.has("reps") ? static_cast<int>(c.child("reps").integer(1, 1000000)) : 1000;
    m_core = core_of(c, p, "core", 0);
  }
  void start(Platform& plat) override {
    m_p = &plat;
    m_p->cpu().spawn(m_name, m_core, [this](int core) {
      Ledger led;
      for (int k = 0; k < m_n; ++k) {
        const Tick t0 = now_tick();
        led.open(t0);
        if (!m_p->cpu().mmio_read(core, m_addr, m_size, nullptr, &led))
          sim_fail(m_name, "an MMIO read's completion came back without its latency ledger");
        m_breakdown.add(led, t0, now_tick());
        m_lat.add(to_ns(now_tick() - t0));
        sc_core::wait(100, sc_core::SC_NS);
      }
      m_done = true;
    });
  }
  bool done() const override { return m_done; }
  double progress() const override { return m_done ? 1.0 : static_cast<double>(m_lat.count()) / m_n; }
  void report(Results& r) const override {
    r.metric(m_name + ".size_B", m_size, "B");
    r.metric(m_name + ".median_ns", m_lat.percentile(50), "ns");
    r.metric(m_name + ".min_ns", m_lat.min(), "ns");
    r.metric(m_name + ".p99_ns", m_lat.percentile(99), "ns");
    r.hist(m_name + ".read_ns", m_lat, "ns");
    if (m_breakdown.count) r.breakdown(m_name + ".read_ns", m_breakdown);
  }

 private:
  Platform* m_p = nullptr;
  std::string m_dev;
  std::uint64_t m_addr = 0;
  std::uint32_t m_size = 8;
  int m_n = 1000, m_core = 0;
  Histogram m_lat;
  Breakdown m_breakdown;
  bool m_done = false;
};

}  // namespace

std::unique_ptr<Workload> make_mmio_lat(const Cursor& c, const topo::Topology& p) { return std::make_unique<MmioLatency>(c, p); }

}  // namespace hx::sim
