// A NIC on PCIe alone (models/nic/pcie_nic) with its driver, on a
// hand-made host: a root complex with two root ports, a NIC on each, host
// cores, no YAML. Every packet arrives intact and in order (the NIC checks
// the bytes it reads, the driver the completions and the bytes it
// receives); one packet's latency moves by exactly what a stage of its path
// costs; a pushed descriptor saves its read; a flood over a small ring
// neither loses nor deadlocks; interrupts cost their latency; a full RX
// buffer drops, and the driver accounts for every packet, received or
// dropped; a write to no register is an error.
#include <gtest/gtest.h>
#include <systemc>

#include <memory>
#include <string>
#include <vector>

#include "models/core/error.h"
#include "models/host/host_cpu.h"
#include "models/host/root_complex.h"
#include "models/nic/pcie_nic.h"
#include "models/pcie/endpoint.h"
#include "tests/models/port_stub.h"

namespace hx::nic {
namespace {

constexpr std::uint64_t kDram = 4ull << 30;
constexpr std::uint64_t kBar[2] = {0xe000'0000ull, 0xe100'0000ull};

host::RootComplexConfig rc_config() {
  host::RootComplexConfig c;
  c.inbound_latency = 100 * kNs;
  c.outbound_latency = 100 * kNs;
  c.memory.read_latency = 80 * kNs;
  for (int i = 0; i < 2; ++i) {
    pcie::PortConfig rp;
    rp.mps = 256;
    rp.infinite_completion_credits();
    c.ports.push_back(rp);
    pcie::PortRoute r;
    r.windows.push_back({kBar[i], kNicBarBytes});
    r.sec_bus = r.sub_bus = i + 1;
    c.routes.push_back(r);
  }
  return c;
}

host::HostCpuConfig cpu_config() {
  host::HostCpuConfig c;
  c.cores = 4;
  c.poll_period = 0;     // no random phase: every latency is exact
  c.os_tick_period = 0;  // no OS noise
  c.irq_latency = 2 * kUs;
  return c;
}

pcie::EndpointConfig ep_config(int i) {
  pcie::EndpointConfig c;
  c.port.mps = 256;
  c.rid = static_cast<pcie::Rid>((i + 1) << 8);
  c.bars.push_back({kBar[i], kNicBarBytes});
  return c;
}

// Two NICs, each on its own root port (Gen4 x16, 20 ns each way), whose
// drivers run one after the other (on the same cores), so that neither
// disturbs the other's timing.
struct Rig {
  Rig(const PcieNicConfig& a, const PcieNicConfig& b, const pcie::LinkConfig& link = pcie::gen(4, 16, 20 * kNs))
      : rc("host", rc_config()), cpu("cpu", cpu_config(), rc), ep0("ep0", ep_config(0)), ep1("ep1", ep_config(1)),
        nic0("nic0", a), nic1("nic1", b) {
    ep0.set_device(&nic0);
    ep1.set_device(&nic1);
    pcie::PciePort::connect(rc.root_port(0), ep0.upstream(), link);
    pcie::PciePort::connect(rc.root_port(1), ep1.upstream(), link);
  }
  host::RootComplex rc;
  host::HostCpu cpu;
  pcie::Endpoint ep0, ep1;
  PcieNic nic0, nic1;
};

struct Outcome {
  double median_ns = 0, mpps = 0;
  std::uint64_t received = 0, tlps = 0, msis = 0, dropped = 0, nic_drops = 0, waits = 0;
};

// Runs `t` through NIC 0 (with `irq0`) and then NIC 1.
std::vector<Outcome> run(const PcieNicConfig& a, const PcieNicConfig& b, const Traffic& t, bool irq0 = false,
                         const pcie::LinkConfig& link = pcie::gen(4, 16, 20 * kNs)) {
  Rig rig(a, b, link);
  const std::uint64_t qb = PcieNicDriver::queue_bytes(a, t) + PcieNicDriver::queue_bytes(b, t);
  std::vector<std::uint64_t> base0, base1;
  for (int q = 0; q < t.queues; ++q) {
    base0.push_back(kDram + static_cast<std::uint64_t>(2 * q) * qb);
    base1.push_back(kDram + static_cast<std::uint64_t>(2 * q + 1) * qb);
  }
  PcieNicDriver d0("d0", a, t, irq0, rig.nic0, rig.cpu, kBar[0], base0);
  std::unique_ptr<PcieNicDriver> d1;
  sc_core::sc_spawn([&] {
    d0.start();
    while (!d0.done()) sc_core::wait(1, sc_core::SC_US);
    d1 = std::make_unique<PcieNicDriver>("d1", b, t, false, rig.nic1, rig.cpu, kBar[1], base1);
    d1->start();
  });
  const std::uint64_t t0 = rig.nic0.tlps_out.value;
  sc_core::sc_start();
  EXPECT_TRUE(d0.done());
  EXPECT_TRUE(d1 && d1->done());
  EXPECT_FALSE(rig.nic0.busy()) << rig.nic0.status();
  EXPECT_FALSE(rig.nic1.busy()) << rig.nic1.status();
  std::vector<Outcome> out;
  for (int i = 0; i < 2; ++i) {
    const PcieNicDriver& d = i == 0 ? d0 : *d1;
    const PcieNic& n = i == 0 ? rig.nic0 : rig.nic1;
    Outcome o;
    o.median_ns = d.latency().percentile(50);
    o.received = d.received();
    o.mpps = d.span() ? static_cast<double>(o.received) / (static_cast<double>(d.span()) * 1e-12) / 1e6 : 0;
    o.tlps = n.tlps_out.value - (i == 0 ? t0 : 0);
    o.msis = n.msis.value;
    o.dropped = d.dropped();
    o.nic_drops = n.rx_drops.value;
    o.waits = n.rx_waits.value;
    out.push_back(o);
  }
  return out;
}

Traffic pingpong() {
  Traffic t;
  t.ring = 64;
  t.packets = 100;
  t.warmup = 10;
  return t;
}

// One packet in flight: a stage 100 ns longer (the TX pipeline), and a
// loopback 37 ns longer, make each packet that much slower, to within the
// few nanoseconds by which the links' flow-control updates (DLLPs) fall
// differently against the packets; every packet arrives.
TEST(PcieNic, APacketsLatencyIsTheSumOfItsStages) {
  PcieNicConfig a, b;
  b.tx_pipeline = a.tx_pipeline + 100 * kNs;
  b.loopback = a.loopback + 37 * kNs;
  const auto r = run(a, b, pingpong());
  EXPECT_EQ(r[0].received, 100u);
  EXPECT_EQ(r[1].received, 100u);
  EXPECT_NEAR(r[1].median_ns - r[0].median_ns, 137.0, 5.0);
  // Doorbell down, a descriptor read and a packet read each a round trip, the
  // pipelines, the wire, the writes up, the poll: microseconds, not more.
  EXPECT_GT(r[0].median_ns, 1000.0);
  EXPECT_LT(r[0].median_ns, 5000.0);
}

// With descriptors pushed by WC store the NIC reads no descriptor: one TLP
// fewer per packet, and at least a read round trip (two link crossings, the
// root complex both ways and memory) less latency, less what the WC copy of
// a 64 B descriptor costs the core over a UC store.
TEST(PcieNic, APushedDescriptorSavesItsRead) {
  PcieNicConfig a, b;
  a.tx_desc_B = b.tx_desc_B = 64;
  b.push_desc = true;
  b.doorbell_wc = true;
  const Traffic t = pingpong();
  const auto r = run(a, b, t);
  EXPECT_EQ(r[0].tlps - r[1].tlps, t.packets + t.warmup);
  EXPECT_GT(r[0].median_ns - r[1].median_ns, 2 * 20.0 + 2 * 100.0 + 80.0 - 200.0);
}

// A flood of 1500 B packets in batches of 16 over two queues of 64
// descriptors, with the RX descriptor cache smaller than a batch: every
// packet arrives in order with its bytes, the rings wrap many times, the
// TX write-back gates the driver, and the rate is bounded by the wire.
Traffic flood() {
  Traffic t;
  t.ring = 64;
  t.batch = 16;
  t.queues = 2;
  t.packet_B = 1500;
  t.flood = true;
  t.packets = 2000;
  t.warmup = 0;
  return t;
}

TEST(PcieNic, AFloodOverSmallRingsNeitherLosesNorDeadlocks) {
  PcieNicConfig a;
  a.rx_cache = 8;
  const auto r = run(a, a, flood());
  EXPECT_EQ(r[0].received, 4000u);
  EXPECT_EQ(r[1].received, 4000u);
  // 1524 B on the wire a packet at 100 Gb/s: 8.2 Mpps at most.
  EXPECT_LT(r[0].mpps, 1e5 / (1524 * 8) + 1e-9);
  EXPECT_GT(r[0].mpps, 0.5);
}

// The same ping-pong, the RX core sleeping until an interrupt: each packet
// costs the interrupt's latency (2 us) less the poll's line fetch (60 ns)
// it no longer does, and less the completion write's commit (the MSI
// reaches the host when the root complex takes it, when the write before
// it has only been accepted: memory's write latency and line slot, under
// 200 ns here).
TEST(PcieNic, InterruptsCostTheirLatency) {
  PcieNicConfig a;
  const auto r = run(a, a, pingpong(), true);
  EXPECT_EQ(r[0].received, 100u);
  EXPECT_EQ(r[0].msis, 110u);
  EXPECT_EQ(r[1].msis, 0u);  // NIC 1's driver polls
  const double d = r[0].median_ns - r[1].median_ns;
  EXPECT_GT(d, 2000.0 - 60.0 - 200.0);
  EXPECT_LT(d, 2000.0 - 60.0);
}

// The same flood with an RX buffer of one packet: packets that find no RX
// descriptor while another already waits are dropped (NIC 0), where NIC 1,
// with no limit (flow control), keeps them all. Every packet sent is
// received intact, in order, or counted dropped, by the NIC and, through
// its drop registers, by the driver, whose RX core learns of the last
// drops only from them.
TEST(PcieNic, AFullRxBufferDropsAndTheDriverAccountsForEveryPacket) {
  PcieNicConfig a, b;
  a.rx_cache = b.rx_cache = 8;
  a.rx_buffer = 1500;
  const auto r = run(a, b, flood());
  EXPECT_GT(r[0].nic_drops, 0u);
  EXPECT_EQ(r[0].dropped, r[0].nic_drops);
  EXPECT_EQ(r[0].received + r[0].dropped, 4000u);
  EXPECT_EQ(r[1].received, 4000u);
  EXPECT_EQ(r[1].dropped, 0u);
  EXPECT_GT(r[1].waits, r[0].waits);  // what waited without a limit
}

// A packet holds its bytes of the RX buffer until its completion has left,
// not only while it waits for a descriptor: with descriptors always there
// (a cache as large as the ring) and room for two packets, a flood of two
// queues' 1500 B packets over a Gen1 x4 link (1 GB/s each way: the link,
// not the wire, sets the rate) drops packets that never waited for a
// descriptor: the two queues' packets come back in bursts, and their
// writes queue for the link behind each other. An unlimited buffer drops
// none.
TEST(PcieNic, PacketsWhoseWritesQueueForTheLinkFillTheRxBuffer) {
  PcieNicConfig a, b;
  a.rx_cache = b.rx_cache = 64;
  a.rx_buffer = 3000;
  Traffic t = flood();
  t.packets = 500;
  const auto r = run(a, b, t, false, pcie::gen(1, 4, 20 * kNs));
  EXPECT_EQ(r[0].waits, 0u);
  EXPECT_GT(r[0].nic_drops, 0u);
  EXPECT_EQ(r[0].received + r[0].dropped, 1000u);
  EXPECT_EQ(r[1].received, 1000u);
  EXPECT_EQ(r[1].dropped, 0u);
}

// Interrupts moderated to one per 20 us per queue, 8 Mpps offered into a
// ring of 128: packets pile up between interrupts, and with 1 KiB of RX
// buffer (16 packets of 64 B) those beyond it are dropped; the latency of
// the others is that of the wait for the interrupt, not of a backlog.
TEST(PcieNic, ModeratedInterruptsWithASmallRxBufferDrop) {
  PcieNicConfig a, b;
  a.irq_interval = 20 * kUs;
  a.rx_buffer = 1024;
  Traffic t;
  t.ring = 128;
  t.batch = 32;
  t.packet_B = 64;
  t.offered_Mpps = 8;
  t.packets = 4000;
  t.warmup = 100;
  const auto r = run(a, b, t, true);
  EXPECT_GT(r[0].dropped, 0u);
  EXPECT_EQ(r[0].dropped, r[0].nic_drops);
  EXPECT_LT(r[0].received, 4000u);  // timed packets received
  EXPECT_EQ(r[1].received, 4000u);
  EXPECT_EQ(r[1].dropped, 0u);
  EXPECT_LT(r[0].median_ns, 25000.0);
}

// A store to a BAR offset that is no queue's register stops the run, named.
TEST(PcieNic, AWriteToNoRegisterIsAnError) {
  PcieNicConfig a;
  Rig rig(a, a);
  rig.nic0.setup(0, NicQueueSetup{kDram, kDram + 4096, kDram + 8192, kDram + 12288, 64, false});
  rig.cpu.spawn("bad", 0, [&](int core) {
    const std::uint8_t b[4] = {1, 0, 0, 0};
    rig.cpu.mmio_write_bytes(core, kBar[0] + 0x40, b, 4);
  });
  try {
    sc_core::sc_start();
    FAIL() << "no error";
  } catch (const std::exception& e) {  // a SimError, wrapped by the kernel when thrown inside a process
    EXPECT_NE(std::string(e.what()).find("no queue's tail"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hx::nic
