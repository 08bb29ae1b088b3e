// S004's workloads on the Calypte engine: F2H bursts and the FHF/HFH loopback
// round trips.
#include "src/sim/workload_kinds.h"

#include <memory>
#include <vector>

#include "models/core/error.h"
#include "models/host/drivers/calypte_driver.h"

namespace hx::sim {

namespace {

// Calypte F2H burst: user logic sends `packets` packets of `size` bytes back
// to back, round-robin over `channels`, then a 64 B marker packet on the next
// channel; the host waits for the marker's pointer update (the engine writes
// packets in order). Reports the F2H rate.
class CalypteBurst final : public Workload {
 public:
  CalypteBurst(const Cursor& c, const topo::Topology& p) : Workload("burst") {
    c.keys({"type", "name", "device", "channels", "size", "packets", "core"});
    if (c.has("name")) m_name = c.child("name").str();
    m_dev = need_device(c.child("device"), p, "calypte");
    const int have = p.node(m_dev).calypte.channels;
    m_channels = c.has("channels") ? static_cast<int>(c.child("channels").integer(1, 1024)) : 1;
    if (m_channels + 1 > have) c.child("channels").fail("the marker needs one more channel than the burst (" + std::to_string(have) + " in all)");
    m_size = c.has("size") ? size32(c.child("size"), 1, 4096) : 1500;
    m_packets = c.has("packets") ? static_cast<int>(c.child("packets").integer(1, 10000000)) : 1000;
    m_core = core_of(c, p, "core", 0);
  }
  void start(Platform& plat) override {
    m_p = &plat;
    auto* dev = m_p->device<dma::CalypteApi>(m_dev);
    host::drivers::CalypteDriver driver(m_p->cpu(), *dev, m_p->endpoint(m_dev).config().bars.at(0).base);
    std::vector<std::uint64_t> upd;
    const std::vector<std::uint64_t> at = m_p->alloc(buffers());
    for (int ch = 0; ch <= m_channels; ++ch) {
      const std::uint64_t ring = at[2 * static_cast<std::size_t>(ch)], u = at[2 * static_cast<std::size_t>(ch) + 1];
      driver.open_f2h(ch, ring, 1u << 20, u);
      upd.push_back(u);
    }
    m_p->cpu().spawn(m_name, m_core, [this, dev, upd](int core) {
      auto& cpu = m_p->cpu();
      const int w = cpu.arm_watch(upd.back(), 8, core);
      const Tick t0 = cpu.now();
      for (int i = 0; i < m_packets; ++i)
        dev->send(i % m_channels, m_size, 0xb0057ull, static_cast<std::uint64_t>(i) * m_size);
      dev->send(m_channels, 64, 0xb0058ull, 0);
      cpu.wait_watch(w);
      m_elapsed = cpu.now() - t0;
      m_done = true;
    });
  }
  bool done() const override { return m_done; }
  std::vector<std::string> exclusive_devices() const override { return {m_dev}; }
  // Per channel (and the marker's): a 1 MiB ring and its 64 B update line.
  std::vector<BufferNeed> buffers() const override {
    std::vector<BufferNeed> b;
    for (int ch = 0; ch <= m_channels; ++ch) b.insert(b.end(), {BufferNeed{1u << 20}, BufferNeed{64, 64}});
    return b;
  }
  void report(Results& res) const override {
    res.metric(m_name + ".f2h_MBps", mb_per_s(static_cast<double>(m_size) * m_packets, m_elapsed), "MB/s");
    res.metric(m_name + ".elapsed_us", static_cast<double>(m_elapsed) / 1e6, "us");
  }

 private:
  Platform* m_p = nullptr;
  std::string m_dev;
  int m_channels = 1, m_packets = 1000, m_core = 0;
  std::uint32_t m_size = 1500;
  Tick m_elapsed = 0;
  bool m_done = false;
};

// S004: Calypte round trips, FHF (FPGA -> host loop -> FPGA) and HFH
// (host -> FPGA loop -> host), one channel, N repetitions.
class CalypteLoop final : public Workload {
 public:
  CalypteLoop(const Cursor& c, const topo::Topology& p) : Workload("calypte") {
    c.keys({"type", "name", "mode", "device", "channel", "size", "reps", "core"});
    if (c.has("name")) m_name = c.child("name").str();
    m_fhf = c.child("mode").choice({"fhf", "hfh"}) == "fhf";
    m_dev = need_device(c.child("device"), p, "calypte");
    m_ch = c.has("channel") ? static_cast<int>(c.child("channel").integer(0, 255)) : 0;
    if (m_ch >= p.node(m_dev).calypte.channels) c.child("channel").fail("beyond the device's channels");
    m_size = c.has("size") ? size32(c.child("size"), 1, 65536) : 64;
    m_reps = c.has("reps") ? static_cast<int>(c.child("reps").integer(1, 10000000)) : 1000;
    m_core = core_of(c, p, "core", 0);
  }
  void start(Platform& plat) override {
    m_p = &plat;
    auto* dev = m_p->device<dma::CalypteApi>(m_dev);
    m_driver = std::make_unique<host::drivers::CalypteDriver>(m_p->cpu(), *dev, m_p->endpoint(m_dev).config().bars.at(0).base);
    const std::vector<std::uint64_t> at = m_p->alloc(buffers());
    const std::uint64_t ring = at[0], f2h_upd = at[1], h2f_upd = at[2];
    m_driver->open_f2h(m_ch, ring, 1u << 20, f2h_upd);
    m_driver->open_h2f(m_ch, h2f_upd);
    m_p->cpu().spawn(m_name, m_core, [this, dev, f2h_upd](int core) {
      auto& cpu = m_p->cpu();
      sc_core::sc_event delivered;
      Tick t_del = 0;
      bool got = false;
      // The round trip's ledger (the behavioural engine carries it through
      // both directions: the pointer update the host polls for, the header
      // that releases the packet), and the delivered header's.
      Ledger led, back;
      Ledger* timed = dev->carries_ledgers() ? &led : nullptr;
      dev->on_h2f_packet = [&](int ch, std::uint32_t bytes, Tick t, const Ledger* l) {
        if (ch != m_ch || bytes != m_size) sim_fail(m_name, "H2F delivered an unexpected packet");
        if (timed && !l) sim_fail(m_name, "a timed header's packet was delivered without its ledger");
        t_del = t;
        got = true;
        if (l) back.copy_from(*l);
        if (!m_fhf) {
          // FPGA loopback USR_TX -> USR_RX -> F2H.
          dev->send(m_ch, bytes, m_stream, m_off, l);
        }
        notify_now(delivered);
      };
      for (int r = 0; r < m_reps; ++r) {
        m_off = static_cast<std::uint64_t>(r) * m_size;
        const int w = cpu.arm_watch(f2h_upd, 8, core, timed);
        const Tick t0 = cpu.now();
        led.open(t0);
        got = false;
        if (m_fhf) {
          const std::uint64_t src = dev->send(m_ch, m_size, m_stream, m_off, timed);
          cpu.wait_watch(w);
          m_driver->send_from(core, m_ch, src, m_size, m_stream, m_off, static_cast<std::uint64_t>(r), timed);
          if (!got) sc_core::wait(delivered);  // it may have arrived while an OS tick held the core
          m_lat.add(to_ns(t_del - t0) / 1000.0);
          if (timed) m_breakdown.add(back, t0, t_del);
        } else {
          m_driver->send(core, m_ch, m_size, m_stream, m_off, static_cast<std::uint64_t>(r), timed);
          cpu.wait_watch(w);
          m_lat.add(to_ns(cpu.now() - t0) / 1000.0);
          if (timed) {
            led.charge(Stage::Software, cpu.now());  // an OS tick that held the core past the detection
            m_breakdown.add(led, t0, cpu.now());
          }
        }
      }
      dev->on_h2f_packet = nullptr;
      m_done = true;
    });
  }
  bool done() const override { return m_done; }
  double progress() const override { return static_cast<double>(m_lat.count()) / m_reps; }
  // The channel's 1 MiB F2H ring and the F2H and H2F update lines.
  std::vector<BufferNeed> buffers() const override { return {BufferNeed{1u << 20}, BufferNeed{64, 64}, BufferNeed{64, 64}}; }
  std::vector<std::string> exclusive_devices() const override { return {m_dev}; }
  void report(Results& res) const override {
    const std::string k = m_name + (m_fhf ? ".fhf" : ".hfh");
    res.metric(k + "_min_us", m_lat.min(), "us");
    res.metric(k + "_p1_us", m_lat.percentile(1), "us");
    res.metric(k + "_p50_us", m_lat.percentile(50), "us");
    res.metric(k + "_p80_us", m_lat.percentile(80), "us");
    res.metric(k + "_p99_us", m_lat.percentile(99), "us");
    res.metric(k + "_max_us", m_lat.max(), "us");
    res.hist(k + "_us", m_lat, "us");
    if (m_breakdown.count) res.breakdown(k + "_us", m_breakdown);  // in ns, as every breakdown
  }

 private:
  Platform* m_p = nullptr;
  bool m_fhf = true;
  std::string m_dev;
  int m_ch = 0, m_reps = 1000, m_core = 0;
  std::uint32_t m_size = 64;
  std::uint64_t m_stream = 0x400, m_off = 0;
  std::unique_ptr<host::drivers::CalypteDriver> m_driver;
  Histogram m_lat;
  Breakdown m_breakdown;  // the behavioural engine's round trips, stage by stage
  bool m_done = false;
};

}  // namespace

std::unique_ptr<Workload> make_calypte_burst(const Cursor& c, const topo::Topology& p) { return std::make_unique<CalypteBurst>(c, p); }
std::unique_ptr<Workload> make_calypte_loopback(const Cursor& c, const topo::Topology& p) { return std::make_unique<CalypteLoop>(c, p); }

}  // namespace hx::sim
