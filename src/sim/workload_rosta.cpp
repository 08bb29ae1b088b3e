// S001's workloads on the Rosta engine: host DMA through the driver, FPGA-to-
// FPGA peer writes, the echo round trip.
#include "src/sim/workload_kinds.h"

#include <algorithm>
#include <sstream>
#include <vector>

#include "models/core/error.h"
#include "models/host/drivers/rosta_driver.h"

namespace hx::sim {

namespace {

// S001: host DMA through the Rosta engine, one driver call per device
// (models/host/drivers/rosta_driver.h) on a core of its own, each timed from
// the call to its return and its engine from first to last TLP.
class RostaHostDma final : public Workload {
 public:
  RostaHostDma(const Cursor& c, const topo::Topology& p) : Workload("rosta_dma") {
    c.keys({"type", "name", "op", "devices", "count", "bytes", "payload", "desc_mmio_writes"});
    if (c.has("name")) m_name = c.child("name").str();
    m_write = c.child("op").choice({"write", "read"}) == "write";
    std::vector<std::string> devs;
    if (c.has("devices")) {
      const Cursor d = c.child("devices");
      if (!d.node.IsSequence() || d.node.size() == 0) d.fail("a list of endpoint names");
      for (std::size_t i = 0; i < d.node.size(); ++i) devs.push_back(need_device(d.item(i), p, "rosta"));
    } else {
      devs = endpoints_with(p, "rosta");
      if (devs.empty()) c.fail("the topology has no rosta endpoint");
    }
    std::size_t count = devs.size();
    if (c.has("count")) count = static_cast<std::size_t>(c.child("count").integer(1, static_cast<long long>(devs.size())));
    devs.resize(count);
    m_bytes = c.has("bytes") ? c.child("bytes").size() : 4ull << 20;
    if (m_bytes == 0 || m_bytes % 4096) c.child("bytes").fail("a whole number of 4 KiB pages");
    m_payload = c.has("payload") ? size32(c.child("payload"), 4, 4096) : 128;
    m_desc_writes = c.has("desc_mmio_writes") ? static_cast<int>(c.child("desc_mmio_writes").integer(0, 64)) : 2;
    if (static_cast<int>(devs.size()) > host_cores(p)) c.fail("more transfers than host cores");
    for (const auto& d : devs) {
      m_runs.emplace_back();
      m_runs.back().dev = d;
    }
  }

  void start(Platform& plat) override {
    m_p = &plat;
    for (std::size_t i = 0; i < m_runs.size(); ++i) {
      Run* r = &m_runs[i];
      r->job.kind = m_write ? dma::RostaDma::Kind::HostWrite : dma::RostaDma::Kind::HostRead;
      r->job.payload = m_payload;
      r->job.stream = 0x100 + i;
      r->job.msi_vector = static_cast<std::uint32_t>(i + 1);
      host::drivers::RostaDriver::describe(r->job, m_p->alloc(buffers()[i].bytes), m_bytes);
      const int core = static_cast<int>(i);
      m_p->cpu().spawn(m_name + "_" + r->dev, core, [this, r](int core) { driver_call(*r, core); });
    }
  }

  bool done() const override {
    return std::all_of(m_runs.begin(), m_runs.end(), [](const Run& r) { return r.returned; });
  }
  std::vector<BufferNeed> buffers() const override { return std::vector<BufferNeed>(m_runs.size(), BufferNeed{m_bytes}); }
  double progress() const override {
    double moved = 0;
    for (const auto& r : m_runs) moved += r.returned ? 1.0 : static_cast<double>(r.job.bytes) / static_cast<double>(m_bytes);
    return moved / static_cast<double>(m_runs.size());
  }

  void report(Results& res) const override {
    const std::string op = m_write ? "write" : "read";
    Tick first = kNever, last = 0, app_first = kNever, app_last = 0;
    double sum_hw = 0;
    for (const auto& r : m_runs) {
      const Tick hw = r.job.last - r.job.first;
      res.metric(m_name + "." + r.dev + "." + op + "_hw_MiB_per_s", mib_per_s(m_bytes, hw), "MiB/s");
      res.metric(m_name + "." + r.dev + "." + op + "_app_MiB_per_s", mib_per_s(m_bytes, r.t1 - r.t0), "MiB/s");
      res.metric(m_name + "." + r.dev + ".syscall_us", to_ns(r.t1 - r.t0) / 1000.0, "us");
      res.metric(m_name + "." + r.dev + ".setup_us", to_ns(r.t_doorbell - r.t0) / 1000.0, "us");
      first = std::min(first, r.job.first);
      last = std::max(last, r.job.last);
      app_first = std::min(app_first, r.t0);
      app_last = std::max(app_last, r.t1);
      sum_hw += mib_per_s(m_bytes, hw);
    }
    const std::uint64_t total = m_bytes * m_runs.size();
    res.metric(m_name + ".devices", static_cast<double>(m_runs.size()), "1");
    res.metric(m_name + "." + op + "_hw_MiB_per_s_per_device", sum_hw / static_cast<double>(m_runs.size()), "MiB/s");
    res.metric(m_name + "." + op + "_hw_MiB_per_s_aggregate", mib_per_s(total, last - first), "MiB/s");
    res.metric(m_name + "." + op + "_app_MiB_per_s_aggregate", mib_per_s(total, app_last - app_first), "MiB/s");
  }

  std::string status() const override {
    std::ostringstream os;
    for (const auto& r : m_runs) os << r.dev << (r.returned ? " returned; " : " waiting; ");
    return os.str();
  }
  std::vector<std::string> exclusive_devices() const override {
    std::vector<std::string> d;
    for (const auto& r : m_runs) d.push_back(r.dev);
    return d;
  }

 private:
  struct Run {
    std::string dev;
    dma::RostaDma::Job job;
    Tick t0 = 0, t1 = 0, t_doorbell = 0;
    bool returned = false;
  };
  void driver_call(Run& r, int core) {
    host::drivers::RostaDriver driver(m_p->cpu(), *m_p->device<dma::RostaDma>(r.dev),
                                      m_p->endpoint(r.dev).config().bars.at(0).base, {m_desc_writes});
    const host::drivers::RostaCallTimes t = driver.call(core, r.job);
    r.t0 = t.entered;
    r.t_doorbell = t.doorbell;
    r.t1 = t.returned;
    if (m_write) {
      // End to end: the buffer in host memory holds exactly what the FPGA sent.
      std::uint64_t off = 0;
      for (const auto& d : r.job.descs) {
        if (!m_p->rc().memory().store().holds_pattern(d.addr, r.job.stream, off, d.len))
          sim_fail(m_name, "host buffer of " + r.dev + " does not hold the data written at offset " + std::to_string(off));
        off += d.len;
      }
    }
    r.returned = true;
  }
  Platform* m_p = nullptr;
  bool m_write = true;
  std::uint64_t m_bytes = 0;
  std::uint32_t m_payload = 128;
  int m_desc_writes = 2;
  std::vector<Run> m_runs;
};

// S001: FPGA-to-FPGA peer writes on command, several transfers at once.
class RostaPeer final : public Workload {
 public:
  RostaPeer(const Cursor& c, const topo::Topology& p) : Workload("rosta_peer") {
    c.keys({"type", "name", "pairs", "bytes", "payload", "vc"});
    if (c.has("name")) m_name = c.child("name").str();
    const Cursor pr = c.child("pairs");
    if (!pr.node.IsSequence() || pr.node.size() == 0) pr.fail("a list of [source, destination] pairs");
    for (std::size_t i = 0; i < pr.node.size(); ++i) {
      const Cursor one = pr.item(i);
      if (!one.node.IsSequence() || one.node.size() != 2) one.fail("a pair is [source, destination]");
      Pair x;
      x.src = need_device(one.item(0), p, "rosta");
      x.dst = need_device(one.item(1), p, "rosta");
      if (x.src == x.dst) one.fail("a device cannot write to itself");
      for (const auto& o : m_pairs)
        if (o.dst == x.dst) one.item(1).fail("'" + x.dst + "' already receives a transfer");
      m_pairs.push_back(x);
    }
    m_bytes = c.has("bytes") ? c.child("bytes").size() : 4ull << 20;
    if (m_bytes == 0) c.child("bytes").fail("must be positive");
    m_payload = c.has("payload") ? size32(c.child("payload"), 4, 4096) : 128;
    m_vc = c.has("vc") ? static_cast<std::uint8_t>(c.child("vc").integer(0, pcie::kMaxVcs - 1)) : 0;
    // The route each transfer takes must carry it: checked here, before
    // anything runs, rather than found by the first TLP that cannot pass.
    for (std::size_t i = 0; i < m_pairs.size(); ++i) {
      const std::string why = p.peer_route_error(p.find(m_pairs[i].src), p.find(m_pairs[i].dst), m_vc);
      if (!why.empty()) pr.item(i).fail(m_pairs[i].src + " -> " + m_pairs[i].dst + ": " + why);
    }
  }
  void start(Platform& plat) override {
    m_p = &plat;
    sc_core::sc_spawn([this] {
      for (std::size_t i = 0; i < m_pairs.size(); ++i) {
        Pair& x = m_pairs[i];
        auto* src = m_p->device<dma::RostaDma>(x.src);
        auto* dst = m_p->device<dma::RostaDma>(x.dst);
        const std::uint64_t target = m_p->endpoint(x.dst).config().bars.at(0).base + dma::kRostaEpRx;
        x.job.kind = dma::RostaDma::Kind::Peer;
        x.job.payload = m_payload;
        x.job.vc = m_vc;
        x.job.stream = 0x200 + i;
        x.job.msi = false;
        for (std::uint64_t off = 0; off < m_bytes; off += 1u << 20)
          x.job.descs.push_back(dma::Segment{target, static_cast<std::uint32_t>(std::min<std::uint64_t>(1u << 20, m_bytes - off))});
        dst->expect_peer(x.job.stream, m_bytes);
        src->start(&x.job);
      }
    });
  }
  bool done() const override {
    for (const auto& x : m_pairs)
      if (m_p->device<dma::RostaDma>(x.dst)->rx_bytes() < m_bytes) return false;
    return true;
  }
  double progress() const override {
    double got = 0;
    for (const auto& x : m_pairs)
      got += static_cast<double>(m_p->device<dma::RostaDma>(x.dst)->rx_bytes()) / static_cast<double>(m_bytes);
    return got / static_cast<double>(m_pairs.size());
  }
  std::vector<std::string> exclusive_devices() const override {
    std::vector<std::string> d;
    for (const auto& x : m_pairs) d.push_back(x.src);
    for (const auto& x : m_pairs)
      if (std::find(d.begin(), d.end(), x.dst) == d.end()) d.push_back(x.dst);
    return d;
  }
  void report(Results& res) const override {
    Tick first = kNever, last = 0;
    double sum = 0;
    for (const auto& x : m_pairs) {
      const auto* dst = m_p->device<dma::RostaDma>(x.dst);
      const std::string k = m_name + "." + x.src + "_to_" + x.dst;
      const double rx = mib_per_s(m_bytes, dst->rx_last() - dst->rx_first());
      sum += rx;
      res.metric(k + ".rx_MiB_per_s", rx, "MiB/s");
      res.metric(k + ".tx_MiB_per_s", mib_per_s(m_bytes, x.job.last - x.job.first), "MiB/s");
      first = std::min(first, dst->rx_first());
      last = std::max(last, dst->rx_last());
    }
    res.metric(m_name + ".transfers", static_cast<double>(m_pairs.size()), "1");
    res.metric(m_name + ".aggregate_MiB_per_s", mib_per_s(m_bytes * m_pairs.size(), last - first), "MiB/s");
    res.metric(m_name + ".per_transfer_MiB_per_s", sum / static_cast<double>(m_pairs.size()), "MiB/s");
  }

 private:
  struct Pair {
    std::string src, dst;
    dma::RostaDma::Job job;
  };
  Platform* m_p = nullptr;
  std::vector<Pair> m_pairs;
  std::uint64_t m_bytes = 0;
  std::uint32_t m_payload = 128;
  std::uint8_t m_vc = 0;
};

// S001 experiment 5: A writes to B, B echoes at once, A stops on the first
// returning byte; one-way latency = round trip / 2.
class RostaEcho final : public Workload {
 public:
  RostaEcho(const Cursor& c, const topo::Topology& p) : Workload("rosta_echo") {
    c.keys({"type", "name", "from", "to", "bytes", "reps"});
    if (c.has("name")) m_name = c.child("name").str();
    m_a = need_device(c.child("from"), p, "rosta");
    m_b = need_device(c.child("to"), p, "rosta");
    if (m_a == m_b) c.child("to").fail("echo needs two devices");
    m_bytes = c.has("bytes") ? size32(c.child("bytes"), 4, 4096) : 128;
    m_reps = c.has("reps") ? static_cast<int>(c.child("reps").integer(1, 1000000)) : 16;
  }
  void start(Platform& plat) override {
    m_p = &plat;
    sc_core::sc_spawn([this] {
      auto* a = m_p->device<dma::RostaDma>(m_a);
      auto* b = m_p->device<dma::RostaDma>(m_b);
      const std::uint64_t a_rx = m_p->endpoint(m_a).config().bars.at(0).base + dma::kRostaEpRx;
      const std::uint64_t b_rx = m_p->endpoint(m_b).config().bars.at(0).base + dma::kRostaEpRx;
      b->set_echo(a_rx);
      sc_core::sc_event back;
      Tick arrived = 0;
      Ledger led, first;  // the round trip's, and the first echoed TLP's on its return
      a->on_rx = [&](Tick t, const Ledger* l) {
        if (arrived == 0) {
          arrived = t;
          if (!l) sim_fail(m_name, "an echoed TLP came back without its ledger");
          first.copy_from(*l);
          notify_now(back);
        }
      };
      for (int r = 0; r < m_reps; ++r) {
        dma::RostaDma::Job job;
        job.kind = dma::RostaDma::Kind::Peer;
        job.payload = m_bytes;
        job.stream = 0x300;
        job.msi = false;
        job.descs.push_back(dma::Segment{b_rx, m_bytes});
        arrived = 0;
        const Tick t0 = now_tick();
        led.open(t0);
        job.led = &led;
        a->start(&job);
        if (arrived == 0) sc_core::wait(back);
        m_oneway.add(to_ns(arrived - t0) / 2.0);
        m_breakdown.add(first, t0, arrived);
        sc_core::wait(1, sc_core::SC_US);  // let the fabric drain between repetitions
      }
      a->on_rx = nullptr;
      m_done = true;
    });
  }
  bool done() const override { return m_done; }
  double progress() const override { return static_cast<double>(m_oneway.count()) / m_reps; }
  std::vector<std::string> exclusive_devices() const override { return {m_a, m_b}; }
  void report(Results& res) const override {
    res.metric(m_name + ".one_way_ns", m_oneway.percentile(50), "ns");
    res.hist(m_name + ".one_way_ns", m_oneway, "ns");
    res.breakdown(m_name + ".one_way_ns", m_breakdown, 0.5);  // half the round trip, stage by stage
  }

 private:
  Platform* m_p = nullptr;
  std::string m_a, m_b;
  std::uint32_t m_bytes = 128;
  int m_reps = 16;
  Histogram m_oneway;
  Breakdown m_breakdown;
  bool m_done = false;
};

}  // namespace

std::unique_ptr<Workload> make_rosta_dma(const Cursor& c, const topo::Topology& p) { return std::make_unique<RostaHostDma>(c, p); }
std::unique_ptr<Workload> make_rosta_peer(const Cursor& c, const topo::Topology& p) { return std::make_unique<RostaPeer>(c, p); }
std::unique_ptr<Workload> make_rosta_echo(const Cursor& c, const topo::Topology& p) { return std::make_unique<RostaEcho>(c, p); }

}  // namespace hx::sim
