// The host's cores alone (models/host/host_cpu.h), on a hand-made root
// complex with no device and no YAML: a core runs one thread at a time,
// in arrival order; a thread asleep until an interrupt leaves its core to
// another and takes it back, in turn, to wake; a thread that waits for a
// core held by one that never lets go is named in the deadlock's report.
#include <gtest/gtest.h>
#include <systemc>

#include <string>

#include "models/host/host_cpu.h"
#include "models/host/root_complex.h"

namespace hx::host {
namespace {

HostCpuConfig cpu_config() {
  HostCpuConfig c;
  c.cores = 2;
  c.irq_latency = 1 * kUs;
  c.poll_period = 0;     // no random phase: every time is exact
  c.os_tick_period = 0;  // no OS noise
  return c;
}

struct Host {
  Host() : rc("host", RootComplexConfig{}), cpu("cpu", cpu_config(), rc) {}
  RootComplex rc;
  HostCpu cpu;
};

TEST(HostCpu, ThreadsOnOneCoreRunInTurn) {
  Host h;
  Tick a = 0, b = 0, c = 0;
  h.cpu.spawn("a", 0, [&](int core) {
    h.cpu.compute(core, 1 * kUs);
    a = h.cpu.now();
  });
  h.cpu.spawn("b", 0, [&](int core) {
    h.cpu.compute(core, 1 * kUs);
    b = h.cpu.now();
  });
  h.cpu.spawn("c", 1, [&](int core) {
    h.cpu.compute(core, 1 * kUs);
    c = h.cpu.now();
  });
  sc_core::sc_start();
  EXPECT_EQ(a, 1 * kUs);
  EXPECT_EQ(b, 2 * kUs);  // b waited for a's core
  EXPECT_EQ(c, 1 * kUs);  // another core's thread did not
  EXPECT_EQ(h.cpu.status(), "");
}

TEST(HostCpu, AThreadAsleepLeavesItsCoreAndWakesInTurn) {
  Host h;
  Tick woke = 0, other = 0;
  h.cpu.spawn("sleeper", 0, [&](int core) {
    h.cpu.wait_msi(core, 7);
    woke = h.cpu.now();
  });
  h.cpu.spawn("worker", 0, [&](int core) {
    h.cpu.compute(core, 3 * kUs);
    other = h.cpu.now();
  });
  // The interrupt's MSI at 1 us: its wake-up would be due at 2 us, but the
  // worker holds the core until 3 us.
  sc_core::sc_spawn([&] {
    sc_core::wait(sc_core::sc_time::from_value(1 * kUs));
    h.cpu.on_msi(7, 1 * kUs);
  });
  sc_core::sc_start();
  EXPECT_EQ(other, 3 * kUs);  // the worker ran while the sleeper slept
  EXPECT_EQ(woke, 3 * kUs);
  EXPECT_EQ(h.cpu.irqs.value, 1u);
}

TEST(HostCpu, AThreadThatNeverLetsGoIsNamedWithTheOneWaiting) {
  Host h;
  const std::uint64_t flag = h.rc.config().dram_base + (1 << 20);
  bool polled = false, wrote = false;
  // The poller spins on a flag that only the writer, behind it on the same core, would set.
  h.cpu.spawn("poller", 0, [&](int core) {
    MemoryPort& p = h.cpu.port(core);
    while (p.load_le(flag, 8) != 1) p.wait_watch(p.arm_watch(flag, 8));
    polled = true;
  });
  h.cpu.spawn("writer", 0, [&](int core) {
    const std::uint8_t one[8] = {1};
    h.cpu.port(core).store(flag, one, 8);
    wrote = true;
  });
  sc_core::sc_start();
  EXPECT_FALSE(polled);
  EXPECT_FALSE(wrote);
  const std::string s = h.cpu.status();
  EXPECT_NE(s.find("core 0 runs thread 'poller'"), std::string::npos) << s;
  EXPECT_NE(s.find("waiting for it: 'writer'"), std::string::npos) << s;
}

}  // namespace
}  // namespace hx::host
