// The host drivers alone (models/host/drivers), each with its device on a
// hand-made host: a root complex with one root port, the device's endpoint
// below it, host cores; no YAML. A Rosta call's setup is the sum of its
// steps' costs and its data lands in host memory; Coyote's miss handler
// answers every MMU miss of a transfer on unmapped pages, which then
// completes with the source's bytes; a Calypte H2F send is its data and
// header's write-combined stores and delivers the packet (one at a time:
// models/dma/calypte_dma.h says why).
#include <gtest/gtest.h>
#include <systemc>

#include <vector>

#include "models/core/payload.h"
#include "models/host/drivers/calypte_driver.h"
#include "models/host/drivers/coyote_driver.h"
#include "models/host/drivers/rosta_driver.h"
#include "models/host/host_cpu.h"
#include "models/host/root_complex.h"
#include "models/pcie/endpoint.h"
#include "tests/models/port_stub.h"

namespace hx::host::drivers {
namespace {

constexpr std::uint64_t kDram = 4ull << 30;
constexpr std::uint64_t kBar = 0xe000'0000ull, kBarBytes = 32ull << 20;

RootComplexConfig rc_config() {
  RootComplexConfig c;
  c.inbound_latency = 100 * kNs;
  c.outbound_latency = 100 * kNs;
  c.memory.read_latency = 80 * kNs;
  pcie::PortConfig rp;
  rp.mps = 256;
  rp.infinite_completion_credits();
  c.ports.push_back(rp);
  pcie::PortRoute r;
  r.windows.push_back({kBar, kBarBytes});
  r.sec_bus = r.sub_bus = 1;
  c.routes.push_back(r);
  return c;
}

HostCpuConfig cpu_config() {
  HostCpuConfig c;
  c.cores = 2;
  c.syscall_cost = 1 * kUs;
  c.pin_page_cost = 100 * kNs;
  c.uc_write_cost = 200 * kNs;
  c.irq_latency = 2 * kUs;
  c.poll_period = 0;     // no random phase: every time is exact
  c.os_tick_period = 0;  // no OS noise
  return c;
}

pcie::EndpointConfig ep_config() {
  pcie::EndpointConfig c;
  c.port.mps = 256;
  c.rid = static_cast<pcie::Rid>(1 << 8);
  c.bars.push_back({kBar, kBarBytes});
  return c;
}

// A host and one device below its root port (Gen3 x8, 20 ns each way).
template <class Dev>
struct Rig {
  template <class Cfg>
  explicit Rig(const Cfg& dev_cfg)
      : rc("host", rc_config()), cpu("cpu", cpu_config(), rc), ep("ep", ep_config()), dev("dev", dev_cfg) {
    ep.set_device(&dev);
    pcie::PciePort::connect(rc.root_port(0), ep.upstream(), pcie::gen(3, 8, 20 * kNs));
  }
  RootComplex rc;
  HostCpu cpu;
  pcie::Endpoint ep;
  Dev dev;
};

TEST(RostaDriver, ACallIsItsStepsThenTheEngineThenItsInterrupt) {
  Rig<dma::RostaDma> rig(dma::RostaConfig{});
  RostaDriver driver(rig.cpu, rig.dev, kBar, RostaDriverConfig{3});
  dma::RostaDma::Job job;
  job.kind = dma::RostaDma::Kind::HostWrite;
  job.stream = 0x1234;
  job.msi_vector = 1;
  const std::uint64_t bytes = 4 * 4096;
  RostaDriver::describe(job, kDram, bytes);
  ASSERT_EQ(job.descs.size(), 4u);
  RostaCallTimes t;
  bool back = false;
  rig.cpu.spawn("call", 0, [&](int core) {
    t = driver.call(core, job);
    back = true;
  });
  sc_core::sc_start();
  ASSERT_TRUE(back);
  // The system call, four pages pinned, 4 x 3 descriptor writes and the doorbell.
  EXPECT_EQ(t.doorbell - t.entered, 1 * kUs + 4 * 100 * kNs + (4 * 3 + 1) * 200 * kNs);
  EXPECT_EQ(rig.cpu.uc_writes.value, 13u);
  // The engine's writes, then its MSI: the thread wakes an interrupt's latency after the MSI at the earliest.
  EXPECT_TRUE(job.done);
  EXPECT_EQ(job.bytes, bytes);
  EXPECT_GT(job.first, t.doorbell);
  EXPECT_GE(t.returned, job.last + 2 * kUs);
  EXPECT_TRUE(rig.rc.memory().store().holds_pattern(kDram, job.stream, 0, bytes));
}

TEST(CoyoteDriver, TheMissHandlerAnswersEveryMissOfATransfer) {
  dma::CoyoteConfig cfg;
  cfg.driver_miss = 1 * kUs;
  Rig<dma::CoyoteDma> rig(cfg);
  CoyoteDriver driver(rig.cpu, rig.dev, kBar, cfg);
  const std::uint64_t src = kDram, dst = kDram + (1 << 20), bytes = 4 * 4096;
  driver.map(src, bytes, 12, 0);  // nothing preloaded: every page misses once
  driver.map(dst, bytes, 12, 0);
  driver.set_writeback(kDram + (2 << 20));
  EXPECT_EQ(driver.writeback_slot(513), kDram + (2 << 20) + 8);
  driver.spawn_miss_handler("miss", 1);
  bool done = false;
  rig.cpu.spawn("app", 0, [&](int core) {
    const int w = rig.cpu.arm_watch(driver.writeback_slot(0), 8, core);
    driver.invoke(core, src, dst, static_cast<std::uint32_t>(bytes));
    rig.cpu.wait_watch(w);
    done = true;
  });
  sc_core::sc_start(1, sc_core::SC_MS);
  ASSERT_TRUE(done);
  EXPECT_EQ(rig.dev.completed(), 1u);
  // Each of the eight pages missed; each miss was an interrupt and one TLB fill.
  EXPECT_EQ(rig.dev.tlb_misses.value, 8u);
  EXPECT_EQ(rig.cpu.irqs.value, 8u);
  EXPECT_EQ(rig.cpu.uc_writes.value, static_cast<std::uint64_t>(cfg.invoke_writes) + 8);
  EXPECT_TRUE(rig.rc.memory().store().holds_pattern(dst, kMemoryStream, src, static_cast<std::uint32_t>(bytes)));
}

TEST(CalypteDriver, AnH2fSendIsItsDataThenItsHeaderAndDeliversThePacket) {
  Rig<dma::CalypteDma> rig(dma::CalypteConfig{});
  CalypteDriver driver(rig.cpu, rig.dev, kBar);
  driver.open_f2h(2, kDram, 1 << 20, kDram + (1 << 20));
  driver.open_h2f(2, kDram + (1 << 20) + 64);
  std::vector<std::uint32_t> got;
  rig.dev.on_h2f_packet = [&](int ch, std::uint32_t bytes, Tick, const Ledger*) {
    EXPECT_EQ(ch, 2);
    got.push_back(bytes);
  };
  Tick spent = 0;
  rig.cpu.spawn("app", 0, [&](int core) {
    const Tick t0 = rig.cpu.now();
    driver.send(core, 2, 256, 0x400, 0, 0);
    spent = rig.cpu.now() - t0;
    while (got.empty()) sc_core::wait(10, sc_core::SC_NS);  // one packet at a time, as the loop workloads send
    driver.send(core, 2, 64, 0x400, 256, 1);
  });
  sc_core::sc_start(1, sc_core::SC_MS);
  EXPECT_EQ(got, (std::vector<std::uint32_t>{256, 64}));
  // Four data lines and a header line, write-combined.
  EXPECT_EQ(rig.cpu.wc_lines.value, 4u + 1 + 1 + 1);
  EXPECT_GE(spent, 5 * cpu_config().wc_line_cost + 2 * cpu_config().fence_cost);
}

}  // namespace
}  // namespace hx::host::drivers
