#include "src/sim/nic_loop.h"

#include <algorithm>

#include "models/core/error.h"
#include "models/nic/coherent_nic.h"
#include "models/nic/pcie_nic.h"
#include "src/config/units.h"

namespace hx::sim {

using cfg::Cursor;

namespace {

class NicLoop final : public Workload {
 public:
  NicLoop(const Cursor& c, const topo::Topology& t) : Workload("nic_loop") {
    c.keys({"type", "name", "nic", "device", "rx", "per_line", "layout", "buffers", "ring", "batch", "queues", "size", "homing",
            "mode",
            "load",
            "packets", "warmup"});
    if (c.has("name")) m_name = c.child("name").str();
    const auto& root = t.nodes[static_cast<std::size_t>(t.root)];
    const std::string kind = c.child("nic").choice({"ccnic", "e810_upi", "pcie"});
    m_pcie = kind == "pcie";
    for (const char* k : m_pcie ? std::vector<const char*>{"per_line", "layout", "buffers", "homing"} : std::vector<const char*>{"device", "rx"})
      if (c.has(k)) c.child(k).fail(std::string(k) + " applies to " + (m_pcie ? "nic: ccnic and e810_upi" : "nic: pcie"));
    Traffic& tr = m_cfg.traffic;
    if (m_pcie) {
      bind_pcie(c, t);
    } else {
      if (!root.has_sockets || root.sockets.sockets < 2)
        c.child("type").fail("nic_loop needs a host with two sockets (`sockets:` under the root complex '" + root.name + "')");
      m_cfg = root.coherent_nic;  // the platform's costs; the traffic is read below
      m_cfg.inline_signal = kind == "ccnic";
      if (c.has("per_line")) m_cfg.per_line = static_cast<int>(c.child("per_line").integer(1, 4));
      // CC-NIC's own layout by default; the E810's descriptors lie back to back.
      m_cfg.layout = m_cfg.inline_signal ? nic::Layout::Grouped : nic::Layout::Packed;
      if (c.has("layout")) {
        const Cursor l = c.child("layout");
        m_cfg.layout = l.choice({"grouped", "packed"}) == "grouped" ? nic::Layout::Grouped : nic::Layout::Packed;
        if (!m_cfg.inline_signal && m_cfg.layout == nic::Layout::Grouped)
          l.fail("layout: grouped needs inline signalling (nic: ccnic); with tail registers descriptors lie back to back");
      }
      m_cfg.writer_homed = !c.has("homing") || c.child("homing").choice({"writer", "reader"}) == "writer";
      m_cfg.pools = c.has("buffers") && c.child("buffers").choice({"slots", "pools"}) == "pools";
    }
    if (c.has("ring")) tr.ring = static_cast<int>(c.child("ring").integer(2, 4096));
    if (c.has("batch")) tr.batch = static_cast<int>(c.child("batch").integer(1, 4096));
    const int slots = tr.ring * (m_pcie ? 1 : m_cfg.per_line);
    if (tr.batch > slots / 2)
      c.child("batch").fail(std::string("a batch is at most half a ring (ring") + (m_pcie ? "" : " x per_line") + " / 2 = " + std::to_string(slots / 2) + ")");
    if (c.has("queues")) tr.queues = static_cast<int>(c.child("queues").integer(1, 32));
    const int cores = m_pcie ? root.cpu.cores : root.sockets.cores;
    if (2 * tr.queues > cores)
      (c.has("queues") ? c.child("queues") : c).fail(m_pcie ? "each queue takes two host cores (cpu.cores is " + std::to_string(cores) + ")"
                                                            : "each queue takes two host cores of socket 0 and a NIC core of the NIC's socket: "
                                                              "sockets.cores is " + std::to_string(cores));
    if (c.has("size")) {
      const std::uint64_t b = c.child("size").size();
      if (b < 1 || b > 9216) c.child("size").fail("packets of 1 B to 9216 B");
      tr.packet_B = static_cast<std::uint32_t>(b);
    }
    const std::string mode = c.has("mode") ? c.child("mode").choice({"pingpong", "open", "peak"}) : "pingpong";
    tr.flood = mode == "peak";
    if (mode == "open") {
      if (!c.has("load")) c.child("mode").fail("an open loop needs load: millions of packets per second per queue (e.g. load: 5)");
      tr.offered_Mpps = c.child("load").number(1e-6, 1e4);
    } else if (c.has("load")) {
      c.child("load").fail("load applies to mode: open");
    }
    if (c.has("packets")) tr.packets = static_cast<std::uint64_t>(c.child("packets").integer(1, 10000000));
    if (c.has("warmup")) tr.warmup = static_cast<std::uint64_t>(c.child("warmup").integer(0, 1000000));
    if (m_pcie) {
      if (tr.ring < 2 * m_nic_cfg.tx_wb_every)
        (c.has("ring") ? c.child("ring") : c).fail("a ring of at least twice the NIC's tx_wb_every (" + std::to_string(m_nic_cfg.tx_wb_every) + ")");
      if (m_nic_cfg.rx_buffer && m_nic_cfg.rx_buffer < tr.packet_B)
        (c.has("size") ? c.child("size") : c)
            .fail("packets of " + std::to_string(tr.packet_B) + " B do not fit in the NIC's rx_buffer of " + std::to_string(m_nic_cfg.rx_buffer) +
                  " B (it must hold at least one packet, or be 0: no limit)");
      return;
    }
    using Nic = nic::CoherentNic;
    if (Nic::buffer_bytes(m_cfg) > Nic::kRegionB)
      (c.has("ring") ? c.child("ring") : c).fail(m_cfg.pools ? "a queue's buffer pools exceed 64 MiB" : "a ring's buffers exceed 64 MiB");
    if (static_cast<std::uint64_t>(tr.queues) * Nic::kRegionsPerQueue * Nic::kRegionB > root.sockets.socket_bytes)
      c.fail("the queues' rings exceed a socket's DRAM (sockets.socket_bytes)");
  }
  void start(Platform& p) override {
    if (m_pcie) {
      nic::PcieNic* dev = p.device<nic::PcieNic>(m_dev);
      if (!dev) sim_fail(m_name, "endpoint " + m_dev + " carries no NIC");
      m_nic0 = dev->tlps_out.value;
      m_driver = std::make_unique<nic::PcieNicDriver>(m_name, dev->config(), m_cfg.traffic, m_irq, *dev, p.cpu(), m_bar, p.alloc(buffers()));
      m_driver->start();
      m_dev_ptr = dev;
      return;
    }
    m_sys = p.sockets();
    m_msgs0 = m_sys->messages.value;
    m_link0 = m_sys->link_messages.value;
    m_nic = std::make_unique<nic::CoherentNic>(m_name, m_cfg, *m_sys);
    m_nic->start();
  }
  std::vector<BufferNeed> buffers() const override {
    if (!m_pcie) return {};
    return std::vector<BufferNeed>(static_cast<std::size_t>(m_cfg.traffic.queues),
                                   BufferNeed(nic::PcieNicDriver::queue_bytes(m_nic_cfg, m_cfg.traffic)));
  }
  std::vector<std::string> exclusive_devices() const override { return m_pcie ? std::vector<std::string>{m_dev} : std::vector<std::string>{}; }
  bool done() const override { return m_pcie ? m_driver && m_driver->done() : m_nic && m_nic->done(); }
  double progress() const override {
    if (m_pcie) return m_driver ? m_driver->progress() : 0.0;
    return m_nic ? m_nic->progress() : 0.0;
  }
  void report(Results& r) const override {
    const Histogram& h = m_pcie ? m_driver->latency() : m_nic->latency();
    const Tick span = m_pcie ? m_driver->span() : m_nic->span();
    const double n = static_cast<double>(m_pcie ? m_driver->received() : m_nic->received());
    const Traffic& tr = m_cfg.traffic;
    const double mpps = span ? n / (static_cast<double>(span) * 1e-12) / 1e6 : 0.0;
    const double all = static_cast<double>(tr.queues) * static_cast<double>(tr.packets + tr.warmup);
    r.metric(m_name + ".median_ns", h.percentile(50), "ns");
    r.metric(m_name + ".p99_ns", h.percentile(99), "ns");
    r.metric(m_name + ".min_ns", h.min(), "ns");
    r.metric(m_name + ".mean_ns", h.mean(), "ns");
    r.metric(m_name + ".Mpps", mpps, "Mpps");
    r.metric(m_name + ".Gbps", mpps * tr.packet_B * 8 / 1000.0, "Gb/s");
    if (m_pcie) {
      r.metric(m_name + ".tlps_per_packet", static_cast<double>(m_dev_ptr->tlps_out.value - m_nic0) / all, "1");
      r.metric(m_name + ".doorbells_per_packet", static_cast<double>(m_driver->doorbells()) / all, "1");
      r.metric(m_name + ".drop_rate", static_cast<double>(m_driver->dropped()) / all, "1");
    } else {
      r.metric(m_name + ".messages_per_packet", static_cast<double>(m_sys->messages.value - m_msgs0) / all, "1");
      r.metric(m_name + ".link_messages_per_packet", static_cast<double>(m_sys->link_messages.value - m_link0) / all, "1");
      const auto per = [&](std::uint64_t batches) { return batches ? all / static_cast<double>(batches) : 0.0; };
      r.metric(m_name + ".host_batch", per(m_nic->host_batches()), "1");
      r.metric(m_name + ".nic_batch", per(m_nic->nic_batches()), "1");
    }
    r.hist(m_name + ".latency_ns", h, "ns");
    const Breakdown& bd = m_pcie ? m_driver->breakdown() : m_nic->breakdown();
    if (bd.count) r.breakdown(m_name + ".latency_ns", bd);
  }

 private:
  using Traffic = nic::Traffic;
  // `device`: an endpoint with device: nic (the only one, when not named).
  void bind_pcie(const Cursor& c, const topo::Topology& t) {
    std::vector<std::string> nics;
    for (const auto& n : t.nodes)
      if (n.type == topo::NodeType::Endpoint && n.device == "nic") nics.push_back(n.name);
    if (c.has("device")) {
      m_dev = c.child("device").str();
      if (std::find(nics.begin(), nics.end(), m_dev) == nics.end())
        c.child("device").fail("'" + m_dev + "' is not an endpoint with device: nic");
    } else if (nics.size() == 1) {
      m_dev = nics[0];
    } else {
      c.child("nic").fail(nics.empty() ? "nic: pcie needs an endpoint with device: nic" : "several NICs: say which with device:");
    }
    const auto& node = t.nodes[static_cast<std::size_t>(t.find(m_dev))];
    m_nic_cfg = node.nic;
    m_bar = node.bar.base;
    m_irq = c.has("rx") && c.child("rx").choice({"poll", "irq"}) == "irq";
  }
  nic::CoherentNicConfig m_cfg;
  bool m_pcie = false;
  // nic: pcie
  std::string m_dev;
  nic::PcieNicConfig m_nic_cfg;
  std::uint64_t m_bar = 0;
  bool m_irq = false;
  nic::PcieNic* m_dev_ptr = nullptr;
  std::unique_ptr<nic::PcieNicDriver> m_driver;
  std::uint64_t m_nic0 = 0;
  // the NICs on the socket interconnect
  coherence::SocketSystem* m_sys = nullptr;
  std::unique_ptr<nic::CoherentNic> m_nic;
  std::uint64_t m_msgs0 = 0, m_link0 = 0;
};

}  // namespace

std::unique_ptr<Workload> make_nic_loop(const Cursor& c, const topo::Topology& t) { return std::make_unique<NicLoop>(c, t); }

std::string nic_loop_reference() {
  return "| `nic_loop` | `nic` (ccnic: CC-NIC, a ready signal inside each descriptor line; e810_upi: the E810's head/tail "
         "registers as coherent lines; pcie: a NIC on PCIe, an endpoint with device: nic), `device` (pcie: which NIC endpoint, "
         "when there are several), `rx` (pcie: poll, or irq: the RX core sleeps until an interrupt), `per_line` (descriptors per descriptor line, 1-4), `layout` (grouped: each "
         "batch starts a line of its own, one signal per line, CC-NIC's and ccnic's default; packed: back to back, with "
         "ccnic a ready flag per descriptor that its reader clears; e810_upi is always packed), `buffers` (slots: a buffer per descriptor slot, the default; pools: "
         "shared buffer pools, each side reusing the buffers it has just read), `ring` "
         "(descriptor lines per ring; pcie: descriptors), `batch` (packets taken at once), `queues` (each: a TX and an RX core on "
         "socket 0, and a NIC core on the NIC's socket for the coherent NICs: coherent_nic.socket, 1 by default), `size` (packet bytes), `homing` (writer: each ring homed at its writer; reader), `mode` (pingpong: "
         "one packet in flight, the minimum latency; open: `load` packets per second per queue; peak: as fast as the rings "
         "allow), `packets`, `warmup` (packets first, not timed) | S002: a NIC on the socket interconnect or on PCIe, "
         "packets looped back; latency from when each packet was due to its reception |\n";
}

}  // namespace hx::sim
