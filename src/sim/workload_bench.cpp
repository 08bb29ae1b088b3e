// S011's pcie-bench DMA tests on a bench engine: LAT_DMA_RD/WRRD (bench_lat)
// and BW_DMA_RD/WR/RW (bench_bw).
#include "src/sim/workload_kinds.h"

#include <algorithm>
#include <set>
#include <vector>

#include "models/core/rng.h"

namespace hx::sim {

namespace {

// S011: pcie-bench latency (LAT_DMA_RD, LAT_DMA_WRRD) and bandwidth
// (BW_DMA_RD/WR/RW) over a host window. BW_DMA_RW as pcie-bench runs it
// (pciebench-nfp, me/pcie_dma.c, dma_bw_worker): the transactions alternate
// read and write over one address sequence in one window, so reads and
// writes meet on the same lines; and as it reports it (python/pciebench/
// nfpbench.py, bw_test): over half the transactions, the bandwidth of
// each direction (`total_gbit_per_s` is both together).
class BenchDmaLoad final : public Workload {
 public:
  BenchDmaLoad(const Cursor& c, const topo::Topology& p, bool latency) : Workload(latency ? "bench_lat" : "bench_bw"), m_lat_test(latency) {
    c.keys({"type", "name", "device", "op", "size", "window", "reps", "transactions", "pattern", "seed", "page_size", "node",
            "invalidate", "host_cache", "host_node", "untimed"});
    m_backing = backing_of(c, p);
    if (c.has("name")) m_name = c.child("name").str();
    m_dev = need_device(c.child("device"), p, "bench");  // a bench engine, or one beside a CCIX request agent
    m_op = latency ? c.child("op").choice({"rd", "wrrd"}) : c.child("op").choice({"rd", "wr", "rw"});
    m_size = c.has("size") ? size32(c.child("size"), 1, 1u << 20) : 64;
    m_window = c.has("window") ? c.child("window").size() : 8192;
    if (m_window < m_size) c.child("window").fail("the window must hold one transfer");
    const char* countkey = latency ? "reps" : "transactions";
    if (c.has(latency ? "transactions" : "reps")) c.child(latency ? "transactions" : "reps").fail(std::string("use '") + countkey + "' here");
    m_n = c.has(countkey) ? static_cast<int>(c.child(countkey).integer(1, 100000000)) : 10000;
    const std::string pat = c.has("pattern") ? c.child("pattern").choice({"seq", "rand", "fresh"}) : "seq";
    m_seq = pat == "seq";
    // fresh: every access touches a page no earlier access touched (the
    // "first access of a buffer": translation caches miss by construction).
    m_fresh = pat == "fresh";
    if (m_fresh) {
      m_stride = (m_size + 4095) / 4096 * 4096;
      m_window = m_stride * static_cast<std::uint64_t>(m_n);
    }
    // invalidate: before each access the IOMMU driver invalidates its pages
    // (IOTLB, then the device's ATC by an ATS invalidate request message).
    // host_cache: warm (the host has just written the window: it is in the
    // LLC as far as it fits, pcie-bench's HWarm) or cold (nothing of it is).
    // Only a host with an LLC (memory.llc_size) tells them apart.
    m_warm = !c.has("host_cache") || c.child("host_cache").choice({"warm", "cold"}) == "warm";
    // host_node: the socket of the core that warmed the window (pcie-bench's
    // control socket), by default the buffer's own; its LLC holds the lines
    // (with host_cache cold nothing is warmed and it has no effect).
    m_warm_far = far_node(c, p, "host_node", m_backing.far());
    m_invalidate = c.has("invalidate") && c.child("invalidate").boolean();
    if (m_invalidate && !latency) c.child("invalidate").fail("invalidate applies to bench_lat");
    if (m_invalidate && !p.node(m_dev).bench.ats) c.child("invalidate").fail("the device has no ATC (bench.ats: false)");
    // untimed: transactions that ran before the timed ones, as far as the
    // host's caches saw them (a write's line allocated, DDIO; no time
    // passes, and a read leaves no trace): a long run's steady state
    // without timing every transaction of it. pcie-bench's latency tests
    // run 2 M transactions and report the median of all of them
    // (pciebench-nfp, me/pciebench.h, PCIEBENCH_LAT_TRANS), so on a window
    // the LLC can hold its own writes have put the window's lines there.
    if (c.has("untimed")) {
      const Cursor u = c.child("untimed");
      m_untimed = static_cast<std::uint64_t>(u.integer(0, 100000000));
      if (!latency) u.fail("untimed applies to bench_lat");
      if (m_fresh && m_untimed) u.fail("pattern fresh touches pages no transaction touched before: no untimed transactions with it");
    }
  }
  void start(Platform& plat) override {
    m_p = &plat;
    sc_core::sc_spawn([this] {
      dma::BenchDma* dev = m_p->device<dma::BenchDma>(m_dev);
      if (!dev) dev = &m_p->device<ccix::RequestAgent>(m_dev)->dma();
      const std::uint64_t buf = m_p->alloc(buffers()).at(0);
      if (m_warm) {
        m_p->cores_memory(m_warm_far).warm(buf, m_window);  // the warming core's socket's LLC
      }
      Rng rng(global_seed(), m_name);
      // pcie-bench's layout (pciebench-nfp, me/utils.c, dma_addr_init): the
      // window is cut into units of the size rounded up to 64 B, and a unit
      // whose transfer would cross a 4 KiB boundary is skipped (transfers of
      // more than 4 KiB, which pcie-bench refuses, take every unit).
      const std::uint64_t unit = (m_size + 63) / 64 * 64;
      std::vector<std::uint64_t> offs;
      for (std::uint64_t u = 0; u < std::max<std::uint64_t>(1, m_window / unit); ++u)
        if (m_size > 4096 || (u * unit) % 4096 + m_size <= 4096) offs.push_back(u * unit);  // unit 0 always fits
      auto addr_of = [&](int i) {
        if (m_fresh) return buf + static_cast<std::uint64_t>(i) * m_stride;
        const std::size_t k = m_seq ? static_cast<std::size_t>(i) % offs.size() : static_cast<std::size_t>(rng.below(offs.size()));
        return buf + offs[k];
      };
      const std::uint64_t stream = 0x500;
      if (m_op == "wrrd" && m_untimed) {
        // The untimed transactions come just before the timed ones: in a
        // sequential run the last m_untimed of the cycle before index 0; in
        // a random one, draws of their own (the timed draws stay as they are).
        Rng earlier(global_seed(), m_name + ".untimed");
        const std::uint64_t n = offs.size(), back = n - m_untimed % n;
        for (std::uint64_t k = 0; k < m_untimed; ++k)
          m_p->rc_above(m_dev).dma_written(buf + offs[m_seq ? (back + k) % n : earlier.below(n)], m_size);
      }
      m_t0 = now_tick();
      if (m_lat_test) {
        sc_core::sc_event ev;
        Tick done_at = 0;
        Ledger led;
        for (int i = 0; i < m_n; ++i) {
          const std::uint64_t a = addr_of(i);
          if (m_invalidate) {
            bool inv = false;
            const std::uint64_t first = a / 4096 * 4096;
            m_p->rc_above(m_dev).ats_invalidate(m_p->endpoint(m_dev).config().rid, first, (a + m_size + 4095) / 4096 * 4096 - first,
                                     [&](Tick) { inv = true; notify_now(ev); });
            while (!inv) sc_core::wait(ev);
          }
          const Tick t0 = now_tick();
          done_at = 0;
          led.open(t0);
          if (m_op == "wrrd") {
            // As pcie-bench (me/pcie_dma.c, dma_lat): the read is queued
            // when the engine has signalled the write done.
            bool wrote = false;
            dev->write(a, m_size, stream, a - buf, [&](Tick) { wrote = true; notify_now(ev); }, &led);
            while (!wrote) sc_core::wait(ev);
            dev->read(a, m_size, stream, a - buf, [&](Tick t) { done_at = t; notify_now(ev); }, &led);
          } else {
            // Plain reads see what the buffer holds: memory's initial
            // pattern, or what an earlier WRRD wrote there.
            dev->read(a, m_size, m_written.count(a) ? stream : kMemoryStream, m_written.count(a) ? a - buf : a,
                      [&](Tick t) { done_at = t; notify_now(ev); }, &led);
          }
          if (m_op == "wrrd") m_written.insert(a);
          const std::size_t rtts = dev->ats_rtt.count(), waits = dev->xlate_wait.count();
          if (done_at == 0) sc_core::wait(ev);
          m_lat.add(to_ns(done_at - t0));
          m_breakdown.add(led, t0, done_at);
          if (dev->ats_rtt.count() == rtts + 1 && dev->xlate_wait.count() == waits + 1) {
            // One translation round trip this access: the rest of its wait is the ATC's.
            m_ats_rtt.add(dev->ats_rtt.last());
            m_atc_time.add(dev->xlate_wait.last() - dev->ats_rtt.last());
          }
          sc_core::wait(100, sc_core::SC_NS);
        }
      } else {
        sc_core::sc_event ev;
        int left = m_n;
        auto done = [&](Tick t) {
          m_t1 = std::max(m_t1, t);
          ++m_completed;
          if (--left == 0) notify_now(ev);
        };
        // Commands are made as the engine takes them (memory flat in N).
        int i = 0;
        const bool wr = m_op == "wr", rw = m_op == "rw";
        dev->feed([&](dma::BenchDma::Command& c) {
          if (i == m_n) return false;
          const std::uint64_t a = addr_of(i);
          c.write = wr || (rw && (i & 1));
          c.addr = a;
          c.len = m_size;
          // BW_DMA_WR writes bytes of its own; BW_DMA_RW's writes put back
          // the bytes the window holds, so that every read stays checkable
          // whichever write it sees.
          c.stream = wr ? stream + 1 + static_cast<std::uint64_t>(i) : kMemoryStream;
          c.off = wr ? 0 : a;
          c.done = done;
          ++i;
          return true;
        });
        if (left > 0) sc_core::wait(ev);
        dev->feed(nullptr);  // the source refers to this frame
      }
      m_done = true;
    });
  }
  bool done() const override { return m_done; }
  double progress() const override {
    return m_done ? 1.0 : static_cast<double>(m_lat_test ? static_cast<int>(m_lat.count()) : m_completed) / m_n;
  }
  std::vector<BufferNeed> buffers() const override {
    return {BufferNeed{m_window, 4096, m_backing}};
  }
  // A throughput test feeds the engine's command queue, which has one feeder.
  std::vector<std::string> exclusive_devices() const override {
    return m_lat_test ? std::vector<std::string>{} : std::vector<std::string>{m_dev};
  }
  void report(Results& res) const override {
    std::string test = m_lat_test ? (m_op == "rd" ? "LAT_DMA_RD" : "LAT_DMA_WRRD")
                                  : (m_op == "rd" ? "BW_DMA_RD" : m_op == "wr" ? "BW_DMA_WR" : "BW_DMA_RW");
    res.metric(m_name + ".size_B", m_size, "B");
    if (m_lat_test) {
      res.metric(m_name + ".median_ns", m_lat.percentile(50), "ns");
      res.metric(m_name + ".min_ns", m_lat.min(), "ns");
      res.metric(m_name + ".p99_ns", m_lat.percentile(99), "ns");
      res.metric(m_name + ".mean_ns", m_lat.mean(), "ns");
      res.hist(m_name + "." + test + "_ns", m_lat, "ns");
      res.breakdown(m_name + "." + test + "_ns", m_breakdown);
      if (m_ats_rtt.count()) {
        // Where a missed first access spends its time (S000 experiment 2).
        res.metric(m_name + ".ats_rtt_ns", m_ats_rtt.percentile(50), "ns");
        res.metric(m_name + ".atc_ns", m_atc_time.percentile(50), "ns");
      }
    } else {
      const double secs = static_cast<double>(m_t1 - m_t0) * 1e-12;
      // BW_DMA_RW counts half its transactions, one direction's (pcie-bench's definition).
      const double trans = m_op == "rw" ? m_n / 2.0 : m_n;
      const double bytes = static_cast<double>(m_size) * trans;
      res.metric(m_name + ".gbit_per_s", bytes * 8 / secs / 1e9, "Gb/s");
      res.metric(m_name + ".transactions_per_s", trans / secs, "1/s");
      if (m_op == "rw") res.metric(m_name + ".total_gbit_per_s", 2 * bytes * 8 / secs / 1e9, "Gb/s");
    }
  }

 private:
  Platform* m_p = nullptr;
  bool m_lat_test;
  std::string m_dev, m_op;
  std::uint32_t m_size = 64;
  std::uint64_t m_window = 8192;
  int m_n = 10000;
  std::uint64_t m_untimed = 0;
  bool m_seq = true, m_fresh = false, m_invalidate = false, m_warm = true, m_warm_far = false;
  std::uint64_t m_stride = 0;
  Histogram m_ats_rtt, m_atc_time;
  Backing m_backing;
  Histogram m_lat;
  Breakdown m_breakdown;
  std::set<std::uint64_t> m_written;
  Tick m_t0 = 0, m_t1 = 0;
  int m_completed = 0;  // bandwidth test: transactions done
  bool m_done = false;
};

}  // namespace

std::unique_ptr<Workload> make_bench_dma(const Cursor& c, const topo::Topology& p, bool latency) { return std::make_unique<BenchDmaLoad>(c, p, latency); }

}  // namespace hx::sim
