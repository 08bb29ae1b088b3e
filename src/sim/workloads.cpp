#include "src/sim/workloads.h"

#include <algorithm>
#include <functional>
#include <cctype>
#include <cmath>
#include <map>
#include <sstream>
#include <vector>

#include "models/core/error.h"
#include "models/coherence/core_thread.h"
#include "models/core/rng.h"
#include "src/config/units.h"
#include "src/sim/coherent_latency.h"
#include "src/sim/nic_loop.h"
#include "src/sim/rtl_script.h"

namespace hx::sim {

using cfg::Cursor;

void Results::metric(const std::string& name, double v, const std::string& unit) {
  metrics[name] = v;
  units[name] = unit;
}

void Results::hist(const std::string& name, const Histogram& h, const std::string& unit) {
  histograms[name] = {{"unit", unit},   {"count", h.count()},         {"min", h.min()},
                      {"p1", h.percentile(1)}, {"p50", h.percentile(50)}, {"p80", h.percentile(80)},
                      {"p99", h.percentile(99)}, {"max", h.max()},       {"mean", h.mean()}};
}

void Results::breakdown(const std::string& name, const Breakdown& b, double scale) {
  // Every stage, in the order a transaction meets them (a figure stacks
  // them so, and keeps one colour per stage across points).
  nlohmann::json stages = nlohmann::json::array();
  for (int i = 0; i < kStages; ++i) {
    const auto s = static_cast<Stage>(i);
    stages.push_back({{"stage", stage_name(s)}, {"mean_ns", scale * b.mean_ns(s)}});
  }
  breakdowns[name] = {{"transactions", b.count}, {"mean_ns", scale * b.mean_latency_ns()}, {"stages", stages}};
}

namespace {

constexpr double kMiB = 1048576.0;

double mib_per_s(std::uint64_t bytes, Tick dur) {
  return dur ? static_cast<double>(bytes) / kMiB / (static_cast<double>(dur) * 1e-12) : 0.0;
}

// Decimal megabytes per second.
double mb_per_s(double bytes, Tick dur) { return dur ? bytes / (static_cast<double>(dur) * 1e-12) / 1e6 : 0.0; }

// Endpoints with a `kind` engine: devices of that kind, or of a kind that
// carries one beside it (a CCIX request agent's DMA engine: its `uses`).
std::vector<std::string> endpoints_with(const topo::Topology& t, const std::string& kind) {
  std::vector<std::string> out;
  for (const auto& n : t.nodes) {
    if (n.type != topo::NodeType::Endpoint) continue;
    const topo::DeviceKind* k = n.device == kind ? nullptr : topo::device_kind(n.device);
    if (n.device == kind || (k && std::count(k->uses.begin(), k->uses.end(), kind))) out.push_back(n.name);
  }
  return out;
}

int host_cores(const topo::Topology& t) { return t.nodes[static_cast<std::size_t>(t.root)].cpu.cores; }

std::string need_device(const Cursor& c, const topo::Topology& t, const std::string& kind) {
  const std::string n = c.str();
  const auto names = endpoints_with(t, kind);
  if (std::find(names.begin(), names.end(), n) == names.end()) {
    std::string all;
    for (const auto& x : names) all += (all.empty() ? "" : ", ") + x;
    c.fail("'" + n + "' is not an endpoint with a " + kind + " device" + (all.empty() ? "" : "; candidates: " + all));
  }
  return n;
}

// The workload's `device` key if it has one; otherwise the topology's only
// endpoint with a `kind` engine (so one study runs on every platform of a
// source whose boards have different names).
std::string device_or_only(const Cursor& c, const topo::Topology& t, const std::string& kind) {
  if (c.has("device")) return need_device(c.child("device"), t, kind);
  const auto names = endpoints_with(t, kind);
  if (names.size() == 1) return names[0];
  std::string all;
  for (const auto& x : names) all += (all.empty() ? "" : ", ") + x;
  c.fail(names.empty() ? "the topology has no endpoint with a " + kind + " device"
                       : "name the device: the topology has several with a " + kind + " device (" + all + ")");
}

std::uint32_t size32(const Cursor& c, std::uint64_t lo, std::uint64_t hi) {
  const std::uint64_t v = c.size();
  if (v < lo || v > hi) c.fail(c.scalar() + " is outside " + std::to_string(lo) + "B.." + std::to_string(hi) + "B");
  return static_cast<std::uint32_t>(v);
}

// The host core named by optional key `key` (default `def`), checked against the host.
int core_of(const Cursor& c, const topo::Topology& p, const char* key, int def) {
  const int core = c.has(key) ? static_cast<int>(c.child(key).integer(0, 4095)) : def;
  if (core >= host_cores(p)) (c.has(key) ? c.child(key) : c).fail(std::string(key) + " " + std::to_string(core) + ": no such core");
  return core;
}

// Whether optional key `key` (near, far) names the far socket (socket 1;
// near is socket 0, the host's cores'); far needs a host with two memory
// nodes: memory.numa_nodes: 2, or a root complex on socket 1.
bool far_node(const Cursor& c, const topo::Topology& p, const char* key, bool def) {
  if (!c.has(key)) return def;
  const bool far = c.child(key).choice({"near", "far"}) == "far";
  if (far && p.nodes[static_cast<std::size_t>(p.root)].rc.memory.numa_nodes < 2 && p.roots.size() < 2)
    c.child(key).fail("the far socket needs memory.numa_nodes: 2 on the host, or a root complex on socket 1");
  return far;
}

// A buffer's backing from the optional `page_size` and `node` keys.
Backing backing_of(const Cursor& c, const topo::Topology& p) {
  Backing b;
  if (c.has("page_size")) b.page_shift = cfg::page_shift(c.child("page_size"));
  b.far = far_node(c, p, "node", false);
  return b;
}

// ---------------------------------------------------------------------------
// S001: host DMA through the Rosta engine, driven by the driver's read/write
// call: syscall, page pinning, one descriptor per 4 KiB page written by UC
// MMIO, a doorbell, the interrupt at the end.
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
      const std::uint64_t buf = m_p->alloc(buffers()[i].bytes);
      for (std::uint64_t off = 0; off < m_bytes; off += 4096) r->job.descs.push_back(dma::Segment{buf + off, 4096});
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
    auto& cpu = m_p->cpu();
    auto* dev = m_p->device<dma::RostaDma>(r.dev);
    const std::uint64_t bar = m_p->endpoint(r.dev).config().bars.at(0).base;
    r.t0 = cpu.now();
    cpu.syscall(core);
    cpu.pin_pages(core, r.job.descs.size());
    for (std::size_t d = 0; d < r.job.descs.size(); ++d)
      for (int k = 0; k < m_desc_writes; ++k)
        cpu.mmio_write_uc(core, bar + dma::kRostaDescRegs + ((d * 16 + static_cast<std::size_t>(k) * 8) & 0xff8), 8,
                          kMemoryStream, d);
    dev->load(&r.job);
    cpu.mmio_write_uc(core, bar + dma::kRostaDoorbell, 4, kMemoryStream, 0);
    r.t_doorbell = cpu.now();
    cpu.wait_msi(core, r.job.msi_vector);
    r.t1 = cpu.now();
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
    std::vector<std::uint64_t> upd;
    const std::vector<std::uint64_t> at = m_p->alloc(buffers());
    for (int ch = 0; ch <= m_channels; ++ch) {
      const std::uint64_t ring = at[2 * static_cast<std::size_t>(ch)], u = at[2 * static_cast<std::size_t>(ch) + 1];
      dev->set_f2h_ring(ch, ring, 1u << 20, u);
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
    const std::vector<std::uint64_t> at = m_p->alloc(buffers());
    const std::uint64_t ring = at[0], f2h_upd = at[1], h2f_upd = at[2];
    dev->set_f2h_ring(m_ch, ring, 1u << 20, f2h_upd);
    dev->set_h2f_update(m_ch, h2f_upd);
    m_p->cpu().spawn(m_name, m_core, [this, dev, f2h_upd](int core) {
      auto& cpu = m_p->cpu();
      const std::uint64_t bar = m_p->endpoint(m_dev).config().bars.at(0).base;
      const std::uint64_t data = bar + dma::kCalypteH2FData + (static_cast<std::uint64_t>(m_ch) << 20);
      const std::uint64_t hdr = bar + dma::kCalypteH2FHeader + static_cast<std::uint64_t>(m_ch) * 8;
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
          cpu.mmio_copy_wc(core, data, src, m_size, m_stream, m_off);
          cpu.fence(core);
          cpu.mmio_write_wc(core, hdr, 8, kMemoryStream, static_cast<std::uint64_t>(r), timed);
          cpu.fence(core);
          if (!got) sc_core::wait(delivered);  // it may have arrived while an OS tick held the core
          m_lat.add(to_ns(t_del - t0) / 1000.0);
          if (timed) m_breakdown.add(back, t0, t_del);
        } else {
          cpu.mmio_write_wc(core, data, m_size, m_stream, m_off);
          cpu.fence(core);
          cpu.mmio_write_wc(core, hdr, 8, kMemoryStream, static_cast<std::uint64_t>(r), timed);
          cpu.fence(core);
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
  Histogram m_lat;
  Breakdown m_breakdown;  // the behavioural engine's round trips, stage by stage
  bool m_done = false;
};

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
    m_warm_far = far_node(c, p, "host_node", m_backing.far);
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
        // The warming core's socket's LLC: the two-node model keeps both in one controller.
        if (m_p->two_root_complexes()) m_p->cores_memory(m_warm_far).warm(buf, m_window);
        else m_p->rc().memory().warm(buf, m_window, m_warm_far);
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
          m_p->home_memory(buf).dma_written(buf + offs[m_seq ? (back + k) % n : earlier.below(n)], m_size);
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

// ---------------------------------------------------------------------------
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

// ---------------------------------------------------------------------------
// The translations of [addr, addr+bytes) in a CCIX request agent's ATC,
// untimed (S000 pre-warms it before it measures), from a process of the
// workload's; nothing if the agent works on physical addresses.
void warm_atc(ccix::RequestAgent& ra, std::uint64_t addr, std::uint64_t bytes, unsigned page_shift, sc_core::sc_event& ev) {
  if (!ra.config().ats) return;
  const std::uint64_t page = 1ull << page_shift;
  for (std::uint64_t a = addr; a < addr + bytes; a += page) {
    bool ok = false;
    ra.dma().translate_page(a, [&](Tick) {
      ok = true;
      notify_now(ev);
    });
    if (!ok) sc_core::wait(ev);
  }
}

// S000: the on-FPGA traffic generator. One transfer of `size` at a time,
// timed from issue until all its data has arrived (a read) or its write
// response is back, on one of two paths of the same device: `ccix`, AXI
// requests to the CCIX request agent's system cache (whole lines), or
// `dma`, the device's DMA engine reading or writing host memory (S000's
// TaPaSCo baseline). Patterns: fresh (every transfer on lines and a page
// never touched: a system-cache miss and, with ATS, an ATC miss), warm
// (transfers cycle through a `window` whose pages are translated
// beforehand, and each transfer's lines are flushed from the system cache
// before it, untimed: a miss with an ATC hit, as S000's random addresses
// force), hit (the transfer's lines were brought into the system cache by
// the same operation beforehand, untimed). `op: cas` is an AtomicCompare
// on the transfer's line from the generator (S000 experiment 5), each
// expecting the value it last saw there and swapping in one more (a lock
// word's version; a failure teaches it the value); with `hit`, the line
// was written into the system cache beforehand, unique, and the atomic
// runs there. `allocate: false` makes the transfers streaming ones (AXI's
// allocate bits clear): each line the system cache does not hold is read
// with a ReadOnce or written whole with a WriteUnique, and not kept.
// `snoop: false` puts the buffer in memory no agent caches (a
// non-snoopable region): each line is read with a ReadNoSnp or written
// whole with a WriteNoSnp, no snoop, no copy kept.
class CcixLatency final : public Workload {
 public:
  CcixLatency(const Cursor& c, const topo::Topology& p) : Workload("ccix_lat") {
    c.keys({"type", "name", "device", "path", "op", "size", "reps", "pattern", "window", "page_size", "node", "allocate", "snoop"});
    if (c.has("name")) m_name = c.child("name").str();
    m_dev = device_or_only(c, p, "ccix_ra");
    m_ccix = !c.has("path") || c.child("path").choice({"ccix", "dma"}) == "ccix";
    const std::string op = c.child("op").choice({"rd", "wr", "cas"});
    m_write = op == "wr";
    m_cas = op == "cas";
    if (m_cas && !m_ccix) c.child("op").fail("cas applies to the ccix path (the DMA engine issues no atomics)");
    const bool allocate = !c.has("allocate") || c.child("allocate").boolean();
    if (!allocate && (m_cas || !m_ccix))
      c.child("allocate").fail("allocate applies to reads and writes on the ccix path (the system cache's)");
    const bool snoop = !c.has("snoop") || c.child("snoop").boolean();
    if (!snoop && (m_cas || !m_ccix)) c.child("snoop").fail("snoop applies to reads and writes on the ccix path (the system cache's)");
    if (!snoop && c.has("allocate") && allocate)
      c.child("allocate").fail("a buffer no agent caches (snoop: false) is not kept in the system cache");
    m_keep = !snoop ? Keep::NoSnoop : allocate ? Keep::Allocate : Keep::Stream;
    m_size = c.has("size") ? size32(c.child("size"), 1, 1u << 20) : m_cas ? 8 : 64;
    if (m_cas && m_size > 8) c.child("size").fail("an AtomicCompare swaps one 8 B word: size 8B at most");
    m_n = c.has("reps") ? static_cast<int>(c.child("reps").integer(1, 1000000)) : 1000;
    const std::string pat = c.has("pattern") ? c.child("pattern").choice({"fresh", "warm", "hit"}) : "warm";
    m_fresh = pat == "fresh";
    m_hit = pat == "hit";
    m_backing = backing_of(c, p);
    if (m_hit && !m_ccix) c.child("pattern").fail("hit applies to the ccix path (the DMA engine has no cache)");
    if (m_hit && m_keep == Keep::NoSnoop) c.child("pattern").fail("hit needs the lines in the system cache, and a buffer no agent caches (snoop: false) has none there");
    m_lines = (m_size + 63) / 64 * 64;
    // fresh: a page of its own per transfer; warm: lines one after another
    // around the window.
    const std::uint64_t page = 1ull << m_backing.page_shift;
    m_stride = m_fresh ? (m_lines + page - 1) / page * page : m_lines;
    const std::uint64_t window = c.has("window") ? c.child("window").size() : 65536;
    if (c.has("window") && (m_fresh || m_hit)) c.child("window").fail("window applies to the warm pattern");
    if (window < m_lines) c.child("window").fail("the window must hold one transfer");
    m_window = m_hit ? m_lines : m_fresh ? m_stride * static_cast<std::uint64_t>(m_n) : window / m_lines * m_lines;
  }
  void start(Platform& plat) override {
    m_p = &plat;
    sc_core::sc_spawn([this] {
      auto* ra = m_p->device<ccix::RequestAgent>(m_dev);
      const std::uint64_t buf = m_p->alloc(buffers()).at(0);
      sc_core::sc_event ev;
      Tick done_at = 0;
      bool warming = false;
      Ledger led;  // where each timed transfer's time goes
      auto one = [&](std::uint64_t a, bool flush = false, Ledger* l = nullptr) {
        done_at = 0;
        auto done = [&](Tick t) {
          done_at = t;
          notify_now(ev);
        };
        if (flush) ra->flush(a, m_lines, done);
        else if (m_cas && !warming) {
          coherence::Rmw cas;
          cas.op = coherence::AtomicOp::Compare;
          std::uint64_t& seen = m_seen[a];
          cas.compare = seen;
          cas.operand = seen + 1;
          ra->atomic(a, cas, [&](Tick t, std::uint64_t old) {
            m_swapped += old == seen;
            seen = old == seen ? old + 1 : old;
            done_at = t;
            notify_now(ev);
          }, l);
        } else if (m_cas) ra->transfer(true, a, m_lines, done);  // the line in, unique
        else if (!m_ccix && m_write) ra->dma().write(a, m_size, 0x600, a - buf, done, l);
        else if (!m_ccix) ra->dma().read(a, m_size, kMemoryStream, a, done, l);
        else ra->transfer(m_write, a, m_lines, done, warming ? Keep::Allocate : m_keep, l);
        if (done_at == 0) sc_core::wait(ev);
      };
      // warm: translate every page first (untimed), as S000 does before
      // its measurements; hit: bring the lines in once.
      if (!m_fresh && m_ccix) warm_atc(*ra, buf, m_window, m_backing.page_shift, ev);
      if (m_hit) {
        warming = true;
        one(buf);  // the line in, unique (a cas: written, then one atomic that learns its value)
        warming = false;
        if (m_cas) {
          one(buf);
          m_swapped = 0;
        }
      }
      sc_core::wait(100, sc_core::SC_NS);
      const std::size_t rtts = ra->dma().ats_rtt.count();
      for (int i = 0; i < m_n; ++i) {
        const std::uint64_t a = m_hit ? buf : buf + static_cast<std::uint64_t>(i) * m_stride % m_window;
        if (m_ccix && !m_fresh && !m_hit) {
          one(a, true);  // out of the system cache, untimed
          sc_core::wait(100, sc_core::SC_NS);
        }
        const Tick t0 = now_tick();
        led.open(t0);
        one(a, false, &led);
        m_lat.add(to_ns(done_at - t0));
        m_breakdown.add(led, t0, done_at);
        sc_core::wait(100, sc_core::SC_NS);
      }
      if (ra->dma().ats_rtt.count() > rtts) m_ats_rtt = ra->dma().ats_rtt.percentile(50);
      if (ra->xlate_wait.count()) m_xlate = ra->xlate_wait.percentile(50);
      m_done = true;
    });
  }
  bool done() const override { return m_done; }
  double progress() const override { return m_done ? 1.0 : static_cast<double>(m_lat.count()) / m_n; }
  std::vector<std::string> exclusive_devices() const override { return {m_dev}; }
  std::vector<BufferNeed> buffers() const override {
    const std::uint64_t page = 1ull << m_backing.page_shift;
    return {BufferNeed{(m_window + page - 1) / page * page, page, m_backing}};
  }
  void report(Results& res) const override {
    const std::string what = std::string(m_ccix ? "ccix" : "dma") + "_" + (m_cas ? "cas" : m_write ? "wr" : "rd");
    res.metric(m_name + ".size_B", m_size, "B");
    res.metric(m_name + ".median_ns", m_lat.percentile(50), "ns");
    res.metric(m_name + ".min_ns", m_lat.min(), "ns");
    res.metric(m_name + ".p99_ns", m_lat.percentile(99), "ns");
    res.metric(m_name + ".mean_ns", m_lat.mean(), "ns");
    res.metric(m_name + ".MB_per_s", m_lat.percentile(50) > 0 ? m_size / m_lat.percentile(50) * 1e3 : 0, "MB/s");
    res.hist(m_name + "." + what + "_ns", m_lat, "ns");
    if (m_breakdown.count) res.breakdown(m_name + "." + what + "_ns", m_breakdown);
    if (m_cas) res.metric(m_name + ".swapped", static_cast<double>(m_swapped), "1");
    if (m_ats_rtt > 0) {
      res.metric(m_name + ".ats_rtt_ns", m_ats_rtt, "ns");
      if (m_xlate > 0) res.metric(m_name + ".atc_ns", m_xlate - m_ats_rtt, "ns");
    }
  }

 private:
  Platform* m_p = nullptr;
  std::string m_dev;
  bool m_ccix = true, m_write = false, m_cas = false, m_fresh = false, m_hit = false;
  using Keep = ccix::RequestAgent::Keep;
  Keep m_keep = Keep::Allocate;  // how the system cache takes lines it does not hold
  std::uint64_t m_swapped = 0;             // compare-and-swaps that succeeded
  std::map<std::uint64_t, std::uint64_t> m_seen;  // per line: the value its last compare-and-swap saw
  std::uint32_t m_size = 64, m_lines = 64;
  std::uint64_t m_stride = 64, m_window = 64;
  int m_n = 1000;
  Backing m_backing;
  Histogram m_lat;
  Breakdown m_breakdown;
  double m_ats_rtt = 0, m_xlate = 0;
  bool m_done = false;
};

// S000's experiments 4 and 6 share their set-up: host cores at the CCIX
// home and the accelerator's traffic generator working on one buffer at
// once (`cores`, `fpga`), on 2 MiB pages unless `page_size` says, each
// side timing its first m_n operations and going on until every side has
// timed its own, so the fast side's load lasts while the slow one is
// measured. The derived workload parses the rest and runs the sides.
class HostAndFpga : public Workload {
 protected:
  // `keys`: every key the workload takes (checked first).
  HostAndFpga(const char* type, const Cursor& c, const topo::Topology& p, const std::set<std::string>& keys,
              const char* count_key, int count_default, const char* nobody)
      : Workload(type) {
    c.keys(keys);
    if (c.has("name")) m_name = c.child("name").str();
    m_dev = device_or_only(c, p, "ccix_ra");
    m_n = c.has(count_key) ? static_cast<int>(c.child(count_key).integer(1, 1000000)) : count_default;
    const int host_cores = p.nodes[static_cast<std::size_t>(p.root)].ccix_home.cores;
    m_cores = c.has("cores") ? static_cast<int>(c.child("cores").integer(0, 62)) : 1;
    if (m_cores > host_cores)
      c.child("cores").fail(std::to_string(m_cores) + " host cores, but the CCIX home has " + std::to_string(host_cores) +
                            " (ccix.cores under the root complex)");
    m_fpga = c.has("fpga") ? c.child("fpga").boolean() : true;
    if (!m_fpga && m_cores == 0) c.child("fpga").fail(nobody);
    m_backing = backing_of(c, p);
    if (!c.has("page_size")) m_backing.page_shift = 21;  // S000 used huge pages
  }
  BufferNeed pages(std::uint64_t bytes) const {
    const std::uint64_t page = 1ull << m_backing.page_shift;
    return BufferNeed{(bytes + page - 1) / page * page, page, m_backing};
  }
  void begin() { m_running = m_timing = m_cores + (m_fpga ? 1 : 0); }
  // The i-th operation of a side is over: `ns` timed into `h` if it is
  // among the first m_n (h null: over but not timed).
  void timed(Histogram* h, int i, double ns) {
    if (i >= m_n) return;
    if (h) h->add(ns);
    if (i == m_n - 1) --m_timing;
  }
  bool timing(int i) const { return i < m_n || m_timing > 0; }
  // Each side's median, p99, mean (and deciles) and its histogram `<side><hist>`.
  void report_sides(Results& res, const std::string& hist, bool deciles) const {
    for (const auto& [side, h] : {std::pair<const char*, const Histogram*>{"host", &m_host}, {"device", &m_device}}) {
      if (!h->count()) continue;
      const std::string n = m_name + "." + side;
      res.metric(n + "_median_ns", h->percentile(50), "ns");
      res.metric(n + "_p99_ns", h->percentile(99), "ns");
      res.metric(n + "_mean_ns", h->mean(), "ns");
      if (deciles)
        for (int q = 10; q <= 90; q += 10) res.metric(n + "_p" + std::to_string(q) + "_ns", h->percentile(q), "ns");
      res.hist(n + hist, *h, "ns");
    }
  }

 public:
  std::vector<std::string> exclusive_devices() const override { return {m_dev}; }
  bool done() const override { return m_running == 0; }
  double progress() const override {
    const int sides = m_cores + (m_fpga ? 1 : 0);
    return static_cast<double>(m_host.count() + m_device.count()) / (static_cast<double>(sides) * m_n);
  }

 protected:
  std::string m_dev;
  int m_n = 1, m_cores = 1;
  bool m_fpga = true;
  Backing m_backing;
  int m_running = -1, m_timing = -1;  // sides still running, and still timing
  Histogram m_host, m_device;
};

// S000 experiment 4: the host's cores and the accelerator read-modify-write
// random lines of one shared buffer at the same time. Each side repeats,
// one access at a time: a random line of the buffer (its own random
// stream), a load of it, then a store of the value plus one; an access is
// timed from the load's issue to the store's completion. The device's
// side is the traffic generator's AXI read then write of the line through
// the system cache (translations warmed first, as in `ccix_lat`'s warm
// pattern); each host core's is its private cache at the CCIX home. Every
// side times its first `accesses` and goes on until all sides have timed
// theirs, so the fast side's contention lasts as long as the slow side is
// measured. With `cores: 0` the device runs alone, with `fpga: false` the
// host alone: the baselines that contention is measured against.
class CcixShare final : public HostAndFpga {
 public:
  CcixShare(const Cursor& c, const topo::Topology& p)
      : HostAndFpga("ccix_share", c, p, {"type", "name", "device", "buffer", "accesses", "cores", "fpga", "page_size", "node"},
                    "accesses", 1024, "nothing would access the buffer: cores: 0 and fpga: false") {
    m_bytes = c.has("buffer") ? c.child("buffer").size() : 32768;
    if (m_bytes < coherence::kLineB || m_bytes % coherence::kLineB || m_bytes > (1ull << 30))
      c.child("buffer").fail("a whole number of lines, 1 GiB at most");
  }
  std::vector<BufferNeed> buffers() const override { return {pages(m_bytes)}; }
  void start(Platform& plat) override {
    auto* ra = plat.device<ccix::RequestAgent>(m_dev);
    ccix::HomePort* home = plat.ccix_home();
    const std::uint64_t buf = plat.alloc(buffers()).at(0);
    const std::uint64_t lines = m_bytes / coherence::kLineB;
    begin();
    for (int k = 0; k < m_cores; ++k) {
      sc_core::sc_spawn([this, home, k, buf, lines] {
        coherence::CoreThread core(home->core(k));
        Rng rng(global_seed(), m_name + ".core" + std::to_string(k));
        Ledger led;
        for (int i = 0; timing(i); ++i) {
          const std::uint64_t line = buf / coherence::kLineB + rng.below(lines);
          const Tick t0 = now_tick();
          led.open(t0);
          core.time_next(&led);
          const std::uint64_t v = core.load(line);
          core.time_next(&led);  // the store goes on from the load's end
          core.store(line, v + 1);
          if (i < m_n && led.mark == core.done_at()) m_host_bd.add(led, t0, core.done_at());  // (a buffered store is not timed)
          timed(&m_host, i, to_ns(core.done_at() - t0));
        }
        --m_running;
      });
    }
    if (!m_fpga) return;
    sc_core::sc_spawn([this, ra, buf, lines] {
      sc_core::sc_event ev;
      Tick done_at = 0;
      Ledger led;
      auto one = [&](bool write, std::uint64_t a) {
        done_at = 0;
        ra->transfer(write, a, coherence::kLineB, [&](Tick t) {
          done_at = t;
          notify_now(ev);
        }, ccix::RequestAgent::Keep::Allocate, &led);
        if (done_at == 0) sc_core::wait(ev);
      };
      warm_atc(*ra, buf, m_bytes, m_backing.page_shift, ev);
      Rng rng(global_seed(), m_name + ".fpga");
      for (int i = 0; timing(i); ++i) {
        const std::uint64_t a = buf + rng.below(lines) * coherence::kLineB;
        const Tick t0 = now_tick();
        led.open(t0);
        one(false, a);
        one(true, a);  // the write goes on from the read's end
        if (i < m_n) m_device_bd.add(led, t0, done_at);
        timed(&m_device, i, to_ns(done_at - t0));
      }
      --m_running;
    });
  }
  void report(Results& res) const override {
    report_sides(res, "_ns", true);
    if (m_host_bd.count) res.breakdown(m_name + ".host_ns", m_host_bd);
    if (m_device_bd.count) res.breakdown(m_name + ".device_ns", m_device_bd);
  }

 private:
  std::uint64_t m_bytes = 32768;
  Breakdown m_host_bd, m_device_bd;  // where the timed accesses' time went, per side
};

// S000 experiment 6: a lock table in host memory shared by host cores and
// the accelerator. Each bucket is one line whose word holds the bucket's
// lock queue: four 16-bit slots of locker ids (id + 1; 0 empty), the
// owner first. A locker takes `locks` locks one after another, each on a
// random bucket of `buckets` (fewer buckets: more contention): it joins
// the queue by compare-and-swap (appending its id; a CAS that finds
// another value retries with it; a full queue waits `retry` and reads
// again), waits until it is at the head, holds the lock `hold`, and
// releases it by CAS, shifting the queue so the next waiter is the owner.
// A host core waits by polling the word in its cache (a load, then nothing
// until a store takes its copy); the accelerator, which has no such watch,
// reads the word at the home with an AtomicLoad of 0 every `retry`. The
// lock latency is from the first CAS to being the owner. Every locker
// times its first `locks` and goes on until all have timed theirs. A
// locker whose CASes keep finding the word changed (the others change it
// faster than its CAS's round trip) gives the lock up after `patience`:
// counted as starved, not timed.
// With `lock: ticket` the word is a ticket lock instead (the next ticket in
// its low 32 bits, the ticket being served in its high 32): a locker takes
// a ticket with an AtomicLoad that adds 1 (it always succeeds, so nobody
// starves and the lock goes in order of arrival), waits until its ticket
// is served (as a queue's locker waits for the head), and releases with an
// AtomicStore that adds 1 to the served ticket.
class CcixLocks final : public HostAndFpga {
 public:
  CcixLocks(const Cursor& c, const topo::Topology& p)
      : HostAndFpga("ccix_locks", c, p,
                    {"type", "name", "device", "lock", "buckets", "locks", "cores", "fpga", "hold", "think", "retry",
                     "patience", "page_size", "node"},
                    "locks", 256, "nobody would take a lock: cores: 0 and fpga: false") {
    m_ticket = c.has("lock") && c.child("lock").choice({"queue", "ticket"}) == "ticket";
    if (m_ticket && c.has("patience")) c.child("patience").fail("patience applies to lock: queue (a ticket is never given up)");
    m_buckets = c.has("buckets") ? c.child("buckets").integer(1, 1 << 20) : 64;
    m_hold = c.has("hold") ? c.child("hold").time() : 200 * kNs;
    m_think = c.has("think") ? c.child("think").time() : 500 * kNs;
    m_retry = c.has("retry") ? c.child("retry").time() : 200 * kNs;
    if (m_retry == 0) c.child("retry").fail("a retry interval above zero (a zero one spins at one instant)");
    m_patience = c.has("patience") ? c.child("patience").time() : 100 * kUs;
    if (m_patience == 0) c.child("patience").fail("a patience above zero");
  }
  std::vector<BufferNeed> buffers() const override { return {pages(m_buckets * coherence::kLineB)}; }

  // The queue in a bucket's word: slot i is bits 16i..16i+15.
  static std::uint64_t slot(std::uint64_t v, int i) { return v >> (16 * i) & 0xffff; }
  static bool full(std::uint64_t v) { return slot(v, 3) != 0; }
  static std::uint64_t append(std::uint64_t v, std::uint64_t who) {
    int i = 0;
    while (slot(v, i)) ++i;
    return v | who << (16 * i);
  }

  void start(Platform& plat) override {
    auto* ra = plat.device<ccix::RequestAgent>(m_dev);
    ccix::HomePort* home = plat.ccix_home();
    const std::uint64_t base = plat.alloc(buffers()).at(0) / coherence::kLineB;
    begin();
    for (int k = 0; k < m_cores; ++k) {
      sc_core::sc_spawn([this, home, k, base] {
        coherence::CoreThread core(home->core(k));
        const std::uint64_t me = static_cast<std::uint64_t>(k) + 1;
        Side side;
        side.cas = [&core, &side](std::uint64_t line, std::uint64_t expect, std::uint64_t swap) {
          coherence::Rmw r;
          r.op = coherence::AtomicOp::Compare;
          r.compare = expect;
          r.operand = swap;
          core.time_next(side.led);
          return core.atomic(line, r);
        };
        side.wait_head = [this, &core, me](std::uint64_t line) {
          core.poll(line, 0, [me](std::uint64_t v) { return slot(v, 0) == me; });
        };
        side.wait_room = [this, &core](std::uint64_t line) {
          sc_core::wait(sc_core::sc_time::from_value(m_retry));
          return core.load(line);
        };
        side.add = [&core, &side](std::uint64_t line, std::uint64_t n, bool store) {
          core.time_next(side.led);
          return core.atomic(line, add(n, store));
        };
        side.wait_turn = [&core](std::uint64_t line, std::uint64_t ticket) {
          core.poll(line, 0, [ticket](std::uint64_t v) { return serving(v) == ticket; });
        };
        run(side, me, base, m_host, m_host_bd, m_host_starved, "core" + std::to_string(k));
      });
    }
    if (!m_fpga) return;
    sc_core::sc_spawn([this, ra, base] {
      const std::uint64_t me = static_cast<std::uint64_t>(m_cores) + 1;
      sc_core::sc_event ev;
      auto atomic = [&](std::uint64_t line, const coherence::Rmw& r, Ledger* led = nullptr) {
        bool done = false;
        std::uint64_t got = 0;
        ra->atomic(line * coherence::kLineB, r, [&](Tick, std::uint64_t v) {
          got = v;
          done = true;
          notify_now(ev);
        }, led);
        if (!done) sc_core::wait(ev);
        return got;
      };
      auto peek = [&](std::uint64_t line) {
        coherence::Rmw r;
        r.op = coherence::AtomicOp::Load;  // adds 0: the word as the home has it
        return atomic(line, r);
      };
      warm_atc(*ra, base * coherence::kLineB, m_buckets * coherence::kLineB, m_backing.page_shift, ev);
      Side side;
      side.between = Stage::Device;  // the FPGA's own logic waits and retries
      side.cas = [&](std::uint64_t line, std::uint64_t expect, std::uint64_t swap) {
        coherence::Rmw r;
        r.op = coherence::AtomicOp::Compare;
        r.compare = expect;
        r.operand = swap;
        return atomic(line, r, side.led);
      };
      side.wait_head = [&, me](std::uint64_t line) {
        while (slot(peek(line), 0) != me) sc_core::wait(sc_core::sc_time::from_value(m_retry));
      };
      side.wait_room = [&](std::uint64_t line) {
        sc_core::wait(sc_core::sc_time::from_value(m_retry));
        return peek(line);
      };
      side.add = [&](std::uint64_t line, std::uint64_t n, bool store) { return atomic(line, add(n, store), side.led); };
      side.wait_turn = [&](std::uint64_t line, std::uint64_t ticket) {
        while (serving(peek(line)) != ticket) sc_core::wait(sc_core::sc_time::from_value(m_retry));
      };
      run(side, me, base, m_device, m_device_bd, m_device_starved, "fpga");
    });
  }
  void report(Results& res) const override {
    report_sides(res, "_lock_ns", false);
    if (m_host_bd.count) res.breakdown(m_name + ".host_lock_ns", m_host_bd);
    if (m_device_bd.count) res.breakdown(m_name + ".device_lock_ns", m_device_bd);
    if (m_cores) res.metric(m_name + ".host_starved", static_cast<double>(m_host_starved), "1");
    if (m_fpga) res.metric(m_name + ".device_starved", static_cast<double>(m_device_starved), "1");
    res.metric(m_name + ".cas_retries", static_cast<double>(m_retries), "1");
    res.metric(m_name + ".queued", static_cast<double>(m_queued), "1");
  }

 private:
  // A ticket lock's word: the ticket being served is its high half.
  static std::uint64_t serving(std::uint64_t v) { return v >> 32; }
  static constexpr std::uint64_t kServeNext = std::uint64_t{1} << 32;
  // An atomic that adds n: AtomicStore (no value back) or AtomicLoad.
  static coherence::Rmw add(std::uint64_t n, bool store) {
    coherence::Rmw r;
    r.op = store ? coherence::AtomicOp::Store : coherence::AtomicOp::Load;
    r.operand = n;
    return r;
  }

  // How one side reaches a bucket's word.
  struct Side {
    std::function<std::uint64_t(std::uint64_t, std::uint64_t, std::uint64_t)> cas;  // line, expected, new: the old value
    std::function<void(std::uint64_t)> wait_head;                                    // until this locker owns the lock
    std::function<std::uint64_t(std::uint64_t)> wait_room;                          // a while, then the word again
    std::function<std::uint64_t(std::uint64_t, std::uint64_t, bool)> add;  // line, n, store: an atomic add; the old value
    std::function<void(std::uint64_t, std::uint64_t)> wait_turn;          // line, ticket: until it is served
    // While a lock is being taken, its ledger: cas and add charge their
    // atomics' stages to it; the waits between them are `between`'s.
    Ledger* led = nullptr;
    Stage between = Stage::Software;
  };
  // The time since the ledger's mark went to the side's own waits.
  static void waited(const Side& s) {
    if (s.led && now_tick() > s.led->mark) s.led->charge(s.between, now_tick());
  }
  // A lock taken at now: its latency since t0, and its breakdown.
  void taken(Side& s, Histogram& lat, Breakdown& bd, int i, Tick t0) {
    waited(s);
    if (i < m_n && s.led->mark == now_tick()) bd.add(*s.led, t0, now_tick());  // (a store still merging is past it: not timed)
    s.led = nullptr;  // its release is not timed
    timed(&lat, i, to_ns(now_tick() - t0));
  }
  void run(Side& s, std::uint64_t me, std::uint64_t base, Histogram& lat, Breakdown& bd, std::uint64_t& starved,
           const std::string& who) {
    Rng rng(global_seed(), m_name + "." + who);
    Ledger led;
    for (int i = 0; timing(i); ++i) {
      const std::uint64_t line = base + rng.below(m_buckets);
      const Tick t0 = now_tick();
      led.open(t0);
      s.led = &led;
      if (m_ticket) {
        // Take a ticket (the word it read holds the ticket being served);
        // wait for it to be served; hold; serve the next.
        const std::uint64_t v = s.add(line, 1, false);
        const std::uint64_t ticket = v & 0xffffffffu;
        if (serving(v) != ticket) {
          ++m_queued;
          s.wait_turn(line, ticket);
        }
        taken(s, lat, bd, i, t0);
        sc_core::wait(sc_core::sc_time::from_value(m_hold));
        s.add(line, kServeNext, true);
        sc_core::wait(sc_core::sc_time::from_value(m_think));
        continue;
      }
      // Join the queue, or give up after `patience`.
      std::uint64_t v = 0;
      bool joined = false;
      while (now_tick() - t0 < m_patience) {
        if (full(v)) {
          v = s.wait_room(line);
          continue;
        }
        waited(s);
        const std::uint64_t old = s.cas(line, v, append(v, me));
        if (old == v) {
          joined = true;
          break;
        }
        ++m_retries;
        v = old;
      }
      if (!joined) {
        if (i < m_n) ++starved;
        s.led = nullptr;
        timed(nullptr, i, 0);
        continue;
      }
      if (slot(v, 0) != 0) {  // someone holds it: wait to be at the head
        ++m_queued;
        s.wait_head(line);
      }
      taken(s, lat, bd, i, t0);
      sc_core::wait(sc_core::sc_time::from_value(m_hold));
      // Release: shift the queue (others may have joined meanwhile).
      v = static_cast<std::uint64_t>(me);
      while (true) {
        const std::uint64_t old = s.cas(line, v, v >> 16);
        if (old == v) break;
        if (slot(old, 0) != me) throw SimError(m_name + ": " + who + " released a lock it does not hold");
        ++m_retries;
        v = old;
      }
      sc_core::wait(sc_core::sc_time::from_value(m_think));
    }
    --m_running;
  }
  bool m_ticket = false;
  std::uint64_t m_buckets = 64;
  Tick m_hold = 0, m_think = 0, m_retry = 0, m_patience = 0;
  std::uint64_t m_retries = 0, m_queued = 0, m_host_starved = 0, m_device_starved = 0;
  Breakdown m_host_bd, m_device_bd;  // where the timed locks' time went, per side
};

// S003: Coyote perf_local. The host invokes transfers of `size` bytes from a
// source buffer through the FPGA's user logic back to a destination buffer
// (virtual addresses, translated by the FPGA MMU; a miss interrupts the
// driver thread, which answers by MMIO) and polls the completion writeback.
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
    auto* dev = m_p->device<dma::CoyoteDma>(m_dev);
    const std::uint64_t page = 1ull << m_backing.page_shift;
    const std::uint64_t span = (m_size + page - 1) / page * page;
    const std::vector<std::uint64_t> at = m_p->alloc(buffers());
    const std::uint64_t src = at[0], dst = at[1], wb = at[2];
    dev->map(src, span, m_backing.page_shift, m_mapped ? m_size : 0);
    dev->map(dst, span, m_backing.page_shift, m_mapped ? m_size : 0);
    dev->set_writeback(wb);  // a driver buffer, written by physical address
    const std::uint64_t bar = m_p->endpoint(m_dev).config().bars.at(0).base;
    auto& cpu = m_p->cpu();
    // An application with its buffers on the far node runs there too.
    cpu.set_far(m_core, m_backing.far);
    // The driver: each MMU miss is an interrupt, driver work, and the fill.
    cpu.spawn(m_name + "_driver", m_driver_core, [this, bar](int core) {
      auto& cpu = m_p->cpu();
      for (;;) {
        cpu.wait_msi(core, m_cfg.msi_vector);
        cpu.compute(core, m_cfg.driver_miss);
        cpu.mmio_write_uc(core, bar + dma::kCoyoteTlbFill, 8, kMemoryStream, 0);
      }
    });
    cpu.spawn(m_name, m_core, [this, dev, bar, src, dst, wb](int core) {
      auto& cpu = m_p->cpu();
      // A timed invocation's ledger goes with its last register write (the
      // one that starts it) and comes back with the writeback it polls for.
      Ledger led;
      auto invoke = [&](Ledger* l) {
        dev->post(src, dst, m_size);
        for (int k = m_cfg.invoke_writes - 1; k >= 0; --k)
          cpu.mmio_write_uc(core, bar + dma::kCoyoteInvoke - 8 * static_cast<std::uint64_t>(k), 8, kMemoryStream, 0,
                            k == 0 ? l : nullptr);
      };
      auto slot = [&](int n) { return wb + 8 * static_cast<std::uint64_t>(n % 512); };  // writeback of transfer n
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
  Histogram m_lat;
  Breakdown m_breakdown;  // lat mode: each transfer's round trip, stage by stage
  Tick m_elapsed = 0;
  bool m_done = false;
};

}  // namespace

std::vector<std::unique_ptr<Workload>> make_workloads(const Cursor& list, const topo::Topology& p) {
  std::vector<std::unique_ptr<Workload>> out;
  std::set<std::string> names;
  std::map<std::string, std::string> owner;  // device -> workload driving it
  for (std::size_t i = 0; i < list.node.size(); ++i) {
    const Cursor c = list.item(i);
    if (!c.is_map()) c.fail("a workload is a map with a type");
    const std::string type =
        c.child("type").choice({"rosta_dma", "rosta_peer", "rosta_echo", "calypte_loopback", "bench_lat", "bench_bw", "coyote_perf",
                                 "calypte_burst", "ccix_lat", "ccix_share", "ccix_locks", "rtl_script", "coh_lat", "home_lat", "mmio_lat", "nic_loop"});
    std::unique_ptr<Workload> w;
    if (type == "rosta_dma") w = std::make_unique<RostaHostDma>(c, p);
    if (type == "rosta_peer") w = std::make_unique<RostaPeer>(c, p);
    if (type == "rosta_echo") w = std::make_unique<RostaEcho>(c, p);
    if (type == "calypte_loopback") w = std::make_unique<CalypteLoop>(c, p);
    if (type == "bench_lat") w = std::make_unique<BenchDmaLoad>(c, p, true);
    if (type == "bench_bw") w = std::make_unique<BenchDmaLoad>(c, p, false);
    if (type == "coyote_perf") w = std::make_unique<CoyotePerf>(c, p);
    if (type == "calypte_burst") w = std::make_unique<CalypteBurst>(c, p);
    if (type == "ccix_lat") w = std::make_unique<CcixLatency>(c, p);
    if (type == "ccix_share") w = std::make_unique<CcixShare>(c, p);
    if (type == "ccix_locks") w = std::make_unique<CcixLocks>(c, p);
    if (type == "rtl_script") w = make_rtl_script(c, p);
    if (type == "coh_lat") w = make_coherent_latency(c, p);
    if (type == "home_lat") w = make_home_latency(c, p);
    if (type == "mmio_lat") w = std::make_unique<MmioLatency>(c, p);
    if (type == "nic_loop") w = make_nic_loop(c, p);
    w->set_type(type);
    if (!names.insert(w->name()).second) c.fail("two workloads named '" + w->name() + "'; give one a name:");
    for (const auto& d : w->exclusive_devices()) {
      auto [it, fresh] = owner.emplace(d, w->name());
      if (!fresh) c.fail("'" + d + "' is already driven by workload '" + it->second + "' (its DMA engine runs one job at a time)");
    }
    out.push_back(std::move(w));
  }
  // Every workload's buffers, taken in order from the host's memory as the
  // platform will: one that does not fit is this study's error, not a
  // point's at run time.
  HostHeap heap(p.nodes[static_cast<std::size_t>(p.root)].rc,
                p.roots.size() > 1 ? &p.nodes[static_cast<std::size_t>(p.roots[1])].rc : nullptr);
  for (std::size_t i = 0; i < out.size(); ++i)
    for (const BufferNeed& b : out[i]->buffers()) {
      try {
        heap.alloc(b);
      } catch (const InputError& e) {
        list.item(i).fail(std::string("its buffers do not fit in host memory (rc.dram_size): ") + e.what());
      }
    }
  return out;
}

const std::vector<MetricDoc>& metric_docs() {
  static const std::vector<MetricDoc> docs = {
      {"rosta_dma", "<device>.<op>_hw_MiB_per_s", "MiB/s", "one device's bytes over its DMA job's hardware time (first TLP out to last write sent or last completion in); `<op>` is write or read"},
      {"rosta_dma", "<device>.<op>_app_MiB_per_s", "MiB/s", "one device's bytes over its driver call (syscall entry to return)"},
      {"rosta_dma", "<device>.syscall_us", "us", "the driver call, entry to return"},
      {"rosta_dma", "<device>.setup_us", "us", "the driver call up to the doorbell (syscall, pinning, descriptor writes)"},
      {"rosta_dma", "devices", "1", "devices transferring at once"},
      {"rosta_dma", "<op>_hw_MiB_per_s_per_device", "MiB/s", "the mean of the devices' hardware speeds"},
      {"rosta_dma", "<op>_hw_MiB_per_s_aggregate", "MiB/s", "all devices' bytes over the first job's start to the last job's end"},
      {"rosta_dma", "<op>_app_MiB_per_s_aggregate", "MiB/s", "all devices' bytes over the first call's entry to the last call's return"},
      {"rosta_peer", "<src>_to_<dst>.rx_MiB_per_s", "MiB/s", "a transfer's bytes over the time they arrive: first byte of its first TLP to the last byte of its last, at the receiver"},
      {"rosta_peer", "<src>_to_<dst>.tx_MiB_per_s", "MiB/s", "a transfer's bytes over the time they leave: start of its first TLP to the end of its last, at the sender"},
      {"rosta_peer", "transfers", "1", "transfers at once"},
      {"rosta_peer", "aggregate_MiB_per_s", "MiB/s", "all transfers' bytes over the first byte received to the last"},
      {"rosta_peer", "per_transfer_MiB_per_s", "MiB/s", "the mean of the transfers' receive speeds"},
      {"rosta_echo", "one_way_ns", "ns", "median of half the echo round trip"},
      {"rosta_echo", "one_way_ns", "ns", "half the echo round trip, per repetition", true},
      {"calypte_burst", "f2h_MBps", "MB/s", "the packets' bytes over the first send to the marker's arrival"},
      {"calypte_burst", "elapsed_us", "us", "first send to the marker's arrival"},
      {"calypte_loopback", "<mode>_min_us", "us", "the round trip's minimum; `<mode>` is fhf or hfh"},
      {"calypte_loopback", "<mode>_p1_us", "us", "its 1st percentile"},
      {"calypte_loopback", "<mode>_p50_us", "us", "its median"},
      {"calypte_loopback", "<mode>_p80_us", "us", "its 80th percentile"},
      {"calypte_loopback", "<mode>_p99_us", "us", "its 99th percentile"},
      {"calypte_loopback", "<mode>_max_us", "us", "its maximum"},
      {"calypte_loopback", "<mode>_us", "us", "the round trip, per repetition", true},
      {"rtl_script", "elapsed_ns", "ns", "the script, first step to last"},
      {"rtl_script", "<mark>_ns", "ns", "when the script reached `mark: <mark>` (the last time, inside a loop), from its start"},
      {"rtl_script", "<timer>_min_ns", "ns", "the shortest run of the steps of `time: {name: <timer>}`"},
      {"rtl_script", "<timer>_p50_ns", "ns", "their median run"},
      {"rtl_script", "<timer>_p99_ns", "ns", "their 99th percentile"},
      {"rtl_script", "<timer>_max_ns", "ns", "their longest run"},
      {"rtl_script", "<timer>_mean_ns", "ns", "their mean run"},
      {"rtl_script", "<timer>_ns", "ns", "each run of a timer's steps", true},
      {"rtl_script", "checked_bytes", "B", "bytes its check_mem steps compared"},
      {"rtl_script", "mmio_reads", "1", "register reads the design answered"},
      {"ccix_lat", "size_B", "B", "bytes per transfer"},
      {"ccix_lat", "median_ns", "ns", "median transfer latency (issue to all data arrived, or to the write response)"},
      {"ccix_lat", "min_ns", "ns", "minimum transfer latency"},
      {"ccix_lat", "p99_ns", "ns", "99th percentile of the latency"},
      {"ccix_lat", "mean_ns", "ns", "mean latency"},
      {"ccix_lat", "MB_per_s", "MB/s", "one transfer's bytes over its median latency"},
      {"ccix_lat", "<test>_ns", "ns", "the latency per transfer; `<test>` is ccix_rd, ccix_wr, ccix_cas, dma_rd or dma_wr", true},
      {"ccix_share", "<side>_median_ns", "ns", "median read-modify-write latency of a side; `<side>` is host (all its cores) or device"},
      {"ccix_share", "<side>_p99_ns", "ns", "its 99th percentile"},
      {"ccix_share", "<side>_mean_ns", "ns", "its mean"},
      {"ccix_share", "<side>_p<q>_ns", "ns", "its deciles, q = 10 .. 90 (the distribution's shape)"},
      {"ccix_share", "<side>_ns", "ns", "the latency per read-modify-write", true},
      {"ccix_locks", "<side>_median_ns", "ns", "median lock latency of a side (first CAS to owning the lock); `<side>` is host (all its cores) or device"},
      {"ccix_locks", "<side>_p99_ns", "ns", "its 99th percentile"},
      {"ccix_locks", "<side>_mean_ns", "ns", "its mean"},
      {"ccix_locks", "<side>_lock_ns", "ns", "the latency per lock taken", true},
      {"ccix_locks", "cas_retries", "1", "compare-and-swaps that found another value than expected (joining or releasing)"},
      {"ccix_locks", "queued", "1", "locks that had to wait in a queue"},
      {"ccix_locks", "<side>_starved", "1", "of a side's timed locks, those given up after `patience` (its CASes kept finding the word changed)"},
      {"ccix_lat", "swapped", "1", "op cas: compare-and-swaps that succeeded (each expects the value the last one on its line saw)"},
      {"ccix_lat", "ats_rtt_ns", "ns", "median ATS translation round trip at the ATS switch (runs with ATC misses)"},
      {"ccix_lat", "atc_ns", "ns", "median time a missed request spends in the ATS switch besides that round trip"},
      {"mmio_lat", "size_B", "B", "bytes per load"},
      {"mmio_lat", "median_ns", "ns", "median MMIO read round trip (the load issued to its data at the core)"},
      {"mmio_lat", "min_ns", "ns", "minimum round trip"},
      {"mmio_lat", "p99_ns", "ns", "99th percentile of the round trip"},
      {"mmio_lat", "read_ns", "ns", "the round trip per load", true},
      {"nic_loop", "median_ns", "ns", "median packet latency (due at the sender to read by the receiving core)"},
      {"nic_loop", "p99_ns", "ns", "99th percentile of the latency"},
      {"nic_loop", "min_ns", "ns", "minimum latency"},
      {"nic_loop", "mean_ns", "ns", "mean latency"},
      {"nic_loop", "Mpps", "Mpps", "packets received per second, all queues (first timed packet due to last received)"},
      {"nic_loop", "Gbps", "Gb/s", "the packets' bytes per second"},
      {"nic_loop", "messages_per_packet", "1", "nic: ccnic and e810_upi: coherence messages per packet (warm-up included)"},
      {"nic_loop", "link_messages_per_packet", "1", "of them on the socket links"},
      {"nic_loop", "tlps_per_packet", "1", "nic: pcie: TLPs the NIC sent per packet (reads, writes, MSIs; warm-up included)"},
      {"nic_loop", "doorbells_per_packet", "1", "nic: pcie: doorbell and descriptor-push stores per packet (warm-up included)"},
      {"nic_loop", "latency_ns", "ns", "the latency per packet", true},
      {"coh_lat", "median_ns", "ns", "median access latency (issue at the core to the access done)"},
      {"coh_lat", "min_ns", "ns", "minimum access latency"},
      {"coh_lat", "p99_ns", "ns", "99th percentile of the latency"},
      {"coh_lat", "mean_ns", "ns", "mean latency"},
      {"coh_lat", "<op>_ns", "ns", "the latency per access; `<op>` is rd or wr", true},
      {"home_lat", "median_ns", "ns", "median access latency (issue at the core to the access done)"},
      {"home_lat", "min_ns", "ns", "minimum access latency"},
      {"home_lat", "p99_ns", "ns", "99th percentile of the latency"},
      {"home_lat", "mean_ns", "ns", "mean latency"},
      {"home_lat", "swapped", "1", "op cas: compare-and-swaps that succeeded (each expects the value the last one saw)"},
      {"home_lat", "<op>_ns", "ns", "the latency per access; `<op>` is rd, wr or cas", true},
      {"bench_lat", "size_B", "B", "bytes per transaction"},
      {"bench_lat", "median_ns", "ns", "median transaction latency (command to completion)"},
      {"bench_lat", "min_ns", "ns", "minimum transaction latency"},
      {"bench_lat", "p99_ns", "ns", "99th percentile of the latency"},
      {"bench_lat", "mean_ns", "ns", "mean latency"},
      {"bench_lat", "<test>_ns", "ns", "the latency per transaction; `<test>` is LAT_DMA_RD or LAT_DMA_WRRD", true},
      {"bench_lat", "ats_rtt_ns", "ns", "median ATS translation round trip of a missed access (with an ATC)"},
      {"bench_lat", "atc_ns", "ns", "median time a missed access spends in the ATC and its miss handling"},
      {"bench_bw", "size_B", "B", "bytes per transaction"},
      {"bench_bw", "gbit_per_s", "Gb/s",
       "all transactions' bytes over the first command to the last completion; op rw: half of them, one direction's, as "
       "pcie-bench reports BW_DMA_RW"},
      {"bench_bw", "transactions_per_s", "1/s", "transactions over the same interval (op rw: half of them)"},
      {"bench_bw", "total_gbit_per_s", "Gb/s", "op rw: the bytes of both directions over the same interval"},
      {"coyote_perf", "size_B", "B", "bytes per transfer"},
      {"coyote_perf", "throughput_MBps", "MB/s", "mode thr: all transfers' bytes over the first invoke to the last writeback seen"},
      {"coyote_perf", "throughput_MiBps", "MiB/s", "the same in MiB/s, as perf_local prints it"},
      {"coyote_perf", "latency_us", "us", "mode lat: mean of one transfer's invoke to its writeback"},
      {"coyote_perf", "latency_p50_us", "us", "its median"},
      {"coyote_perf", "latency_us", "us", "one transfer's latency, per repetition", true},
  };
  return docs;
}

namespace {
// A declared name as a pattern: each <placeholder> one name or choice.
bool matches(const std::string& pattern, const std::string& s) {
  std::size_t p = 0, i = 0;
  while (p < pattern.size()) {
    if (pattern[p] == '<') {
      const std::size_t close = pattern.find('>', p);
      p = close + 1;
      // As few characters as leave the rest matching (names hold no '.').
      const std::size_t start = i;
      for (std::size_t end = s.size(); end > start; --end) {
        bool word = true;
        for (std::size_t k = start; k < end && word; ++k) word = std::isalnum(static_cast<unsigned char>(s[k])) || s[k] == '_' || s[k] == '-';
        if (word && matches(pattern.substr(p), s.substr(end))) return true;
      }
      return false;
    }
    if (i >= s.size() || s[i] != pattern[p]) return false;
    ++i;
    ++p;
  }
  return i == s.size();
}
}  // namespace

void check_metrics(const Workload& w, const Results& r) {
  auto check = [&](const nlohmann::json& set, bool hist) {
    for (const auto& [key, v] : set.items()) {
      const std::string prefix = w.name() + ".";
      const std::string unit = hist ? v.value("unit", "") : r.units.value(key, "");
      bool ok = key.rfind(prefix, 0) == 0;
      if (ok) {
        ok = false;
        for (const MetricDoc& d : metric_docs())
          if (d.histogram == hist && w.type() == d.type && unit == d.unit && matches(d.name, key.substr(prefix.size()))) ok = true;
      }
      if (!ok)
        throw SimError("workload " + w.name() + " (" + w.type() + ") wrote " + (hist ? "histogram " : "metric ") + key + " [" +
                       unit + "], which metric_docs() does not declare: a simulator bug");
    }
  };
  check(r.metrics, false);
  check(r.histograms, true);
  for (const auto& [key, v] : r.breakdowns.items())
    if (!r.histograms.contains(key))
      throw SimError("workload " + w.name() + " (" + w.type() + ") broke down " + key +
                     ", which is not one of its latency histograms: a simulator bug");
}

namespace {
// Whether some text matches both patterns, `*` in either standing for any
// text: one of them gives up its next character, or both when those match.
bool globs_meet(const std::string& a, const std::string& b) {
  std::vector<std::vector<char>> seen(a.size() + 1, std::vector<char>(b.size() + 1, -1));
  std::function<bool(std::size_t, std::size_t)> meet = [&](std::size_t i, std::size_t j) -> bool {
    char& m = seen[i][j];
    if (m >= 0) return m;
    bool r;
    if (i == a.size() && j == b.size()) r = true;
    else if (i < a.size() && a[i] == '*') r = meet(i + 1, j) || (j < b.size() && meet(i, j + 1));
    else if (j < b.size() && b[j] == '*') r = meet(i, j + 1) || (i < a.size() && meet(i + 1, j));
    else r = i < a.size() && j < b.size() && a[i] == b[j] && meet(i + 1, j + 1);
    m = r;
    return r;
  };
  return meet(0, 0);
}
}  // namespace

bool metric_glob_matches(const std::string& glob, const std::string& name) { return globs_meet(glob, name); }

void check_metric_globs(const std::vector<std::pair<std::string, cfg::Cursor>>& globs,
                        const std::vector<std::unique_ptr<Workload>>& workloads) {
  for (const auto& [glob, where] : globs) {
    std::string could;
    bool met = false;
    for (const auto& w : workloads)
      for (const MetricDoc& d : metric_docs()) {
        if (d.histogram || w->type() != d.type) continue;
        std::string name = w->name() + "." + d.name;
        for (std::size_t lt; (lt = name.find('<')) != std::string::npos;) name.replace(lt, name.find('>', lt) + 1 - lt, "*");
        met = met || globs_meet(glob, name);
        if (could.size() < 600) could += (could.empty() ? "" : ", ") + name;
      }
    if (!met) where.fail("no metric of this study's workloads matches '" + glob + "'; they write " + could);
  }
}

std::string metrics_reference() {
  std::ostringstream os;
  os << "# Metrics\n\nEvery metric a workload writes to `results.json` (`metrics`, with `units`; histograms under "
        "`histograms`), named `<workload name>.` and then as below. `<device>`, `<src>`, `<dst>` stand for endpoint "
        "names, `<op>`, `<mode>` and `<test>` for the workload's choices.\n";
  std::string type;
  for (const MetricDoc& d : metric_docs()) {
    if (type != d.type) {
      type = d.type;
      os << "\n## " << type << "\n\n| name | unit | kind | what |\n|---|---|---|---|\n";
    }
    os << "| `" << d.name << "` | " << d.unit << " | " << (d.histogram ? "histogram" : "metric") << " | " << d.what << " |\n";
  }
  return os.str();
}

std::string workloads_reference() {
  return R"(# Workload types

| type | keys | what it runs |
|---|---|---|
| `rosta_dma` | `op` (write, read), `devices`, `count`, `bytes`, `payload`, `desc_mmio_writes` | S001 host DMA: per device a driver call on its own core (syscall, page pinning, UC descriptor writes, doorbell, MSI); hardware-timer and application speeds |
| `rosta_peer` | `pairs` ([src, dst] list), `bytes`, `payload`, `vc` | S001 FPGA-to-FPGA peer writes, all started together |
| `rosta_echo` | `from`, `to`, `bytes`, `reps` | S001 latency: echo round trip / 2 |
| `calypte_burst` | `device`, `channels`, `size`, `packets`, `core` | F2H packets back to back over several channels, then a marker; the F2H rate |
| `calypte_loopback` | `mode` (fhf, hfh), `device`, `channel`, `size`, `reps`, `core` | S004 round-trip latency distribution |
| `ccix_lat` | `device` (a ccix_ra endpoint; by default the topology's only one), `path` (ccix: the request agent's system cache; dma: the device's DMA engine), `op` (rd, wr; cas: an AtomicCompare of one word, ccix path), `size`, `reps`, `pattern` (fresh: lines and a page never touched; warm: lines flushed from the system cache, on translated pages; hit: lines already in the system cache), `window` (warm: the bytes the transfers cycle through), `allocate` (rd, wr on the ccix path; false: the system cache keeps no copy, each line not held a ReadOnce or a whole-line WriteUnique; true by default), `snoop` (rd, wr on the ccix path; false: the buffer is memory no agent caches, each line a ReadNoSnp or a whole-line WriteNoSnp, not with allocate: true or pattern: hit; true by default), `page_size`, `node` | S000 experiments 1-3 and 5 |
| `ccix_share` | `device` (a ccix_ra endpoint; by default the only one), `buffer` (the shared buffer's size), `accesses` (per side: each host core and the device), `cores` (host cores at the CCIX home; 0: the device alone), `fpga` (false: the host alone), `page_size` (2 MiB by default), `node` | S000 experiment 4 |
| `ccix_locks` | `device` (a ccix_ra endpoint; by default the only one), `lock` (queue: a queue of lockers joined by compare-and-swap, the default; ticket: a ticket lock, a ticket taken by an atomic add), `buckets` (fewer: more contention), `locks` (per locker), `cores` (host cores at the CCIX home), `fpga`, `hold` (in the critical section), `think` (between locks), `retry` (the device's polling interval, and anyone's wait on a full queue), `patience` (how long a locker tries to join a queue before giving the lock up), `page_size`, `node` | S000 experiment 6 |
| `bench_lat` | `device`, `op` (rd, wrrd), `size`, `window`, `reps`, `pattern` (seq, rand, fresh: every access on pages never touched before), `page_size`, `node` (near, far), `invalidate` (ATS invalidation of the pages before each access), `host_cache` (warm: the window starts in the host's LLC as far as it fits; cold), `host_node` (near, far: the socket whose core warmed the window, pcie-bench's control socket; default the buffer's `node`), `untimed` (transactions before the timed ones whose writes reach the host's caches, untimed: a long run's steady state; pcie-bench runs 2 M) | S011 LAT_DMA_RD / LAT_DMA_WRRD |
| `bench_bw` | `device`, `op` (rd, wr, rw), `size`, `window`, `transactions`, `pattern`, `page_size`, `node`, `host_cache`, `host_node` | S011 BW_DMA_RD / WR / RW |
| `coyote_perf` | `device`, `mode` (lat, thr), `size`, `reps`, `page_size`, `node`, `core`, `driver_core`, `mapped` | S003 Coyote perf_local: host -> FPGA -> host through the FPGA MMU; mean latency of `reps` single transfers, or throughput of `reps` transfers invoked back to back and waited for; `mapped` (default true): the driver installs the buffers' translations in the TLBs up front, false: each first touch of a page misses |
| `rtl_script` | `device` (an endpoint with `device: rtl`), `core`, `buffers` (names to sizes), `values` (names to integers a sweep can set), `steps` | a scripted host driver for a design of your own; its steps are below |
)" + coherent_latency_reference() + nic_loop_reference() + R"(| `mmio_lat` | `device` (any endpoint), `offset` (into its BAR), `size` (1-64 B, an aligned uncached load), `reps`, `core` | S002 MMIO read latency: one uncached load at a time, its round trip |

`page_size` is the OS page backing the buffer (4KiB default; 64KiB, 2MiB, 32MiB, 1GiB huge pages): it bounds the IOMMU's mapping and the device MMU's TLB choice. `node: far` places the buffer on the other socket (`memory.numa_nodes: 2`).
)" + std::string("\n## Steps of `rtl_script`\n\n") + rtl_script_reference();
}

}  // namespace hx::sim
