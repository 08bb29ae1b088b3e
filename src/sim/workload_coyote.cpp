// S003's Coyote perf_local through the FPGA MMU.
#include "src/sim/workload_kinds.h"

#include <memory>
#include <vector>

#include "models/core/error.h"
#include "models/host/drivers/coyote_driver.h"

namespace hx::sim {

namespace {

// S003: Coyote perf_local. The host invokes transfers of `size` bytes from a
// source buffer through the FPGA's user logic back to a destination buffer
// (virtual addresses, translated by the FPGA MMU; a miss interrupts the
// driver's miss handler, models/host/drivers/coyote_driver.h) and polls the
// completion writeback.
// lat: one transfer at a time, mean latency; thr: all `reps` invoked back to
// back, then one wait; throughput = bytes / time.
class CoyotePerf final : public Workload {
 public:
  CoyotePerf(const Cursor& c, const topo::Topology& p) : Workload("coyote") {
    c.keys({"type", "name", "device", "mode", "size", "reps", "page_size", "node", "core", "driver_core", "mapped"});
    if (c.has("name")) m_name = c.child("name").str();
    m_dev = need_device(c.child("device"), p, "coyote");
    m_thr = c.child("mode").choice({"lat", "thr"}) == "thr";
    m_size = c.has("size") ? size32(c.child("size"), 1, 1u << 30) : 64;
    m_reps = c.has("reps") ? static_cast<int>(c.child("reps").integer(1, 1000000)) : 50;
    m_backing = backing_of(c, p);
    m_core = core_of(c, p, "core", 0);
    m_driver_core = core_of(c, p, "driver_core", 1);
    if (m_driver_core == m_core) c.child(c.has("driver_core") ? "driver_core" : "core").fail("the driver needs a core of its own");
    m_mapped = c.has("mapped") ? c.child("mapped").boolean() : true;
    m_cfg = p.node(m_dev).coyote;
  }
  void start(Platform& plat) override {
    m_p = &plat;
    const std::uint64_t page = 1ull << m_backing.page_shift;
    const std::uint64_t span = (m_size + page - 1) / page * page;
    const std::vector<std::uint64_t> at = m_p->alloc(buffers());
    const std::uint64_t src = at[0], dst = at[1];
    m_driver = std::make_unique<host::drivers::CoyoteDriver>(m_p->cpu(), *m_p->device<dma::CoyoteDma>(m_dev),
                                                             m_p->endpoint(m_dev).config().bars.at(0).base, m_cfg);
    m_driver->map(src, span, m_backing.page_shift, m_mapped ? m_size : 0);
    m_driver->map(dst, span, m_backing.page_shift, m_mapped ? m_size : 0);
    m_driver->set_writeback(at[2]);  // a driver buffer, written by physical address
    auto& cpu = m_p->cpu();
    // An application with its buffers on the far node runs there too.
    cpu.set_far(m_core, m_backing.far());
    m_driver->spawn_miss_handler(m_name + "_driver", m_driver_core);
    cpu.spawn(m_name, m_core, [this, src, dst](int core) {
      auto& cpu = m_p->cpu();
      // A timed invocation's ledger goes with its last register write (the
      // one that starts it) and comes back with the writeback it polls for.
      Ledger led;
      auto invoke = [&](Ledger* l) { m_driver->invoke(core, src, dst, m_size, l); };
      auto slot = [&](int n) { return m_driver->writeback_slot(n); };
      const Tick t0 = cpu.now();
      if (m_thr) {
        const int w = cpu.arm_watch(slot(m_reps - 1), 8, core);
        for (int r = 0; r < m_reps; ++r) invoke(nullptr);
        cpu.wait_watch(w);
      } else {
        for (int r = 0; r < m_reps; ++r) {
          const int w = cpu.arm_watch(slot(r), 8, core, &led);
          const Tick t = cpu.now();
          led.open(t);
          invoke(&led);
          cpu.wait_watch(w);
          led.charge(Stage::Software, cpu.now());  // an OS tick that held the core past the detection
          m_breakdown.add(led, t, cpu.now());
          m_lat.add(to_ns(cpu.now() - t) / 1000.0);
        }
      }
      m_elapsed = cpu.now() - t0;
      // The destination holds the source's bytes.
      if (!m_p->rc().memory().store().holds_pattern(dst, kMemoryStream, src, m_size))
        sim_fail(m_name, "destination buffer differs from the source after the transfers");
      m_done = true;
    });
  }
  bool done() const override { return m_done; }
  double progress() const override {
    return m_done ? 1.0 : static_cast<double>(m_p->device<dma::CoyoteDma>(m_dev)->writebacks.value) / m_reps;
  }
  // Source and destination in whole pages of their backing, and the writeback page.
  std::vector<BufferNeed> buffers() const override {
    const std::uint64_t page = 1ull << m_backing.page_shift;
    const std::uint64_t span = (m_size + page - 1) / page * page;
    return {BufferNeed{span, 4096, m_backing}, BufferNeed{span, 4096, m_backing}, BufferNeed{4096}};
  }
  std::vector<std::string> exclusive_devices() const override { return {m_dev}; }
  void report(Results& res) const override {
    res.metric(m_name + ".size_B", m_size, "B");
    if (m_thr) {
      res.metric(m_name + ".throughput_MBps", mb_per_s(static_cast<double>(m_size) * m_reps, m_elapsed), "MB/s");
      // Coyote's perf_local prints MB/s of 2^20 bytes.
      res.metric(m_name + ".throughput_MiBps", mib_per_s(static_cast<std::uint64_t>(m_size) * static_cast<std::uint64_t>(m_reps), m_elapsed), "MiB/s");
    } else {
      res.metric(m_name + ".latency_us", m_lat.mean(), "us");
      res.metric(m_name + ".latency_p50_us", m_lat.percentile(50), "us");
      res.hist(m_name + ".latency_us", m_lat, "us");
      res.breakdown(m_name + ".latency_us", m_breakdown);  // in ns, as every breakdown
    }
  }

 private:
  Platform* m_p = nullptr;
  std::string m_dev;
  bool m_thr = false, m_mapped = true;
  std::uint32_t m_size = 64;
  int m_reps = 50, m_core = 0, m_driver_core = 1;
  Backing m_backing;
  dma::CoyoteConfig m_cfg;
  std::unique_ptr<host::drivers::CoyoteDriver> m_driver;
  Histogram m_lat;
  Breakdown m_breakdown;  // lat mode: each transfer's round trip, stage by stage
  Tick m_elapsed = 0;
  bool m_done = false;
};

}  // namespace

std::unique_ptr<Workload> make_coyote_perf(const Cursor& c, const topo::Topology& p) { return std::make_unique<CoyotePerf>(c, p); }

}  // namespace hx::sim
