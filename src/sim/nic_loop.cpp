#include "src/sim/nic_loop.h"

#include "models/core/error.h"
#include "models/nic/coherent_nic.h"
#include "src/config/units.h"

namespace hx::sim {

using cfg::Cursor;

namespace {

class NicLoop final : public Workload {
 public:
  NicLoop(const Cursor& c, const topo::Topology& t) : Workload("nic_loop") {
    c.keys({"type", "name", "nic", "per_line", "ring", "batch", "queues", "size", "homing", "mode", "load", "packets", "warmup"});
    if (c.has("name")) m_name = c.child("name").str();
    const auto& root = t.nodes[static_cast<std::size_t>(t.root)];
    if (!root.has_sockets || root.sockets.sockets < 2)
      c.child("type").fail("nic_loop needs a host with two sockets (`sockets:` under the root complex '" + root.name + "')");
    m_cfg = root.coherent_nic;
    m_cfg.inline_signal = c.child("nic").choice({"ccnic", "e810_upi"}) == "ccnic";
    if (c.has("per_line")) m_cfg.per_line = static_cast<int>(c.child("per_line").integer(1, 4));
    if (c.has("ring")) m_cfg.ring = static_cast<int>(c.child("ring").integer(2, 4096));
    if (c.has("batch")) m_cfg.batch = static_cast<int>(c.child("batch").integer(1, 4096));
    if (m_cfg.batch > m_cfg.ring * m_cfg.per_line / 2)
      c.child("batch").fail("a batch is at most half a ring (ring x per_line / 2 = " + std::to_string(m_cfg.ring * m_cfg.per_line / 2) + ")");
    if (c.has("queues")) m_cfg.queues = static_cast<int>(c.child("queues").integer(1, 32));
    if (2 * m_cfg.queues > root.sockets.cores)
      (c.has("queues") ? c.child("queues") : c).fail("each queue takes two host cores of socket 0 and a NIC core of socket 1: "
                                                     "sockets.cores is " + std::to_string(root.sockets.cores));
    if (c.has("size")) {
      const std::uint64_t b = c.child("size").size();
      if (b < 1 || b > 9216) c.child("size").fail("packets of 1 B to 9216 B");
      m_cfg.packet_B = static_cast<std::uint32_t>(b);
    }
    m_cfg.writer_homed = !c.has("homing") || c.child("homing").choice({"writer", "reader"}) == "writer";
    const std::string mode = c.has("mode") ? c.child("mode").choice({"pingpong", "open", "peak"}) : "pingpong";
    m_cfg.flood = mode == "peak";
    if (mode == "open") {
      if (!c.has("load")) c.child("mode").fail("an open loop needs load: millions of packets per second per queue (e.g. load: 5)");
      m_cfg.offered_Mpps = c.child("load").number(1e-6, 1e4);
    } else if (c.has("load")) {
      c.child("load").fail("load applies to mode: open");
    }
    if (c.has("packets")) m_cfg.packets = static_cast<std::uint64_t>(c.child("packets").integer(1, 10000000));
    if (c.has("warmup")) m_cfg.warmup = static_cast<std::uint64_t>(c.child("warmup").integer(0, 1000000));
    using Nic = nic::CoherentNic;
    if (Nic::buffer_bytes(m_cfg) > Nic::kRegionB) (c.has("ring") ? c.child("ring") : c).fail("a ring's buffers exceed 64 MiB");
    if (static_cast<std::uint64_t>(m_cfg.queues) * Nic::kRegionsPerQueue * Nic::kRegionB > root.sockets.socket_bytes)
      c.fail("the queues' rings exceed a socket's DRAM (sockets.socket_bytes)");
  }
  void start(Platform& p) override {
    m_sys = p.sockets();
    m_msgs0 = m_sys->messages.value;
    m_link0 = m_sys->link_messages.value;
    m_nic = std::make_unique<nic::CoherentNic>(m_name, m_cfg, *m_sys);
    m_nic->start();
  }
  bool done() const override { return m_nic && m_nic->done(); }
  double progress() const override { return m_nic ? m_nic->progress() : 0.0; }
  void report(Results& r) const override {
    const Histogram& h = m_nic->latency();
    const double n = static_cast<double>(m_nic->received());
    const double mpps = m_nic->span() ? n / (static_cast<double>(m_nic->span()) * 1e-12) / 1e6 : 0.0;
    const double all = static_cast<double>(m_cfg.queues) * static_cast<double>(m_cfg.packets + m_cfg.warmup);
    r.metric(m_name + ".median_ns", h.percentile(50), "ns");
    r.metric(m_name + ".p99_ns", h.percentile(99), "ns");
    r.metric(m_name + ".min_ns", h.min(), "ns");
    r.metric(m_name + ".mean_ns", h.mean(), "ns");
    r.metric(m_name + ".Mpps", mpps, "Mpps");
    r.metric(m_name + ".Gbps", mpps * m_cfg.packet_B * 8 / 1000.0, "Gb/s");
    r.metric(m_name + ".messages_per_packet", static_cast<double>(m_sys->messages.value - m_msgs0) / all, "1");
    r.metric(m_name + ".link_messages_per_packet", static_cast<double>(m_sys->link_messages.value - m_link0) / all, "1");
    r.hist(m_name + ".latency_ns", h, "ns");
  }

 private:
  nic::CoherentNicConfig m_cfg;
  coherence::SocketSystem* m_sys = nullptr;
  std::unique_ptr<nic::CoherentNic> m_nic;
  std::uint64_t m_msgs0 = 0, m_link0 = 0;
};

}  // namespace

std::unique_ptr<Workload> make_nic_loop(const Cursor& c, const topo::Topology& t) { return std::make_unique<NicLoop>(c, t); }

std::string nic_loop_reference() {
  return "| `nic_loop` | `nic` (ccnic: CC-NIC, a ready signal inside each descriptor line; e810_upi: the E810's head/tail "
         "registers as coherent lines), `per_line` (descriptors per descriptor line, 1-4, one signal per line), `ring` "
         "(descriptor lines per ring), `batch` (packets taken at once), `queues` (each: a TX and an RX core on socket 0, a NIC "
         "core on socket 1), `size` (packet bytes), `homing` (writer: each ring homed at its writer; reader), `mode` (pingpong: "
         "one packet in flight, the minimum latency; open: `load` packets per second per queue; peak: as fast as the rings "
         "allow), `packets`, `warmup` (packets first, not timed) | S002: a NIC on the socket interconnect, packets looped "
         "back; latency from when each packet was due to its reception |\n";
}

}  // namespace hx::sim
