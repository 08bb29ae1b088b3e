// A core's memory port alone (models/host/memory_port.h), on a hand-made
// host: a root complex with an LLC, two cores, no device and no YAML. A
// copy costs the core copy_line each 64 B and leaves its lines in the LLC
// of the core's socket; a value's store or load costs nothing of its own; a
// poll through the port sees a device's write.
#include <gtest/gtest.h>
#include <systemc>

#include <vector>

#include "models/core/payload.h"
#include "models/host/host_cpu.h"
#include "models/host/root_complex.h"
#include "models/memory/memory.h"

namespace hx::host {
namespace {

RootComplexConfig rc_config() {
  RootComplexConfig c;
  c.memory.llc_size = 1 << 20;
  c.memory.llc_ways = 16;
  c.memory.llc_miss = 30 * kNs;
  return c;
}

HostCpuConfig cpu_config() {
  HostCpuConfig c;
  c.cores = 2;
  c.copy_line_cost = 3 * kNs;
  c.poll_period = 0;     // no random phase: every time is exact
  c.poll_miss = 60 * kNs;
  c.os_tick_period = 0;  // no OS noise
  return c;
}

struct Host {
  Host() : rc("host", rc_config()), cpu("cpu", cpu_config(), rc) {}
  std::uint64_t dram() const { return rc.config().dram_base; }
  // Whether a DMA read of the line at `a` now misses the LLC.
  bool dma_read_misses(std::uint64_t a) {
    const std::uint64_t before = rc.memory().llc_misses.value;
    rc.memory().read_line(a, 0);
    return rc.memory().llc_misses.value != before;
  }
  RootComplex rc;
  HostCpu cpu;
};

TEST(MemoryPort, ACopyCostsEach64BAndItsLinesAreInTheLlc) {
  Host h;
  const std::uint64_t a = h.dram() + (1 << 20);
  std::vector<std::uint8_t> data(200);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<std::uint8_t>(i * 7 + 1);
  Tick copy = 0, fill = 0, pattern = 0, value = 0, out = 0;
  std::vector<std::uint8_t> back(data.size());
  h.cpu.spawn("sw", 0, [&](int core) {
    MemoryPort& p = h.cpu.port(core);
    Tick t = h.cpu.now();
    p.copy_in(a, data.data(), data.size());  // 200 B: four lines
    copy = h.cpu.now() - t, t = h.cpu.now();
    p.fill(a + 4096 + 32, 0x5a, 64);  // 64 B, across two lines
    fill = h.cpu.now() - t, t = h.cpu.now();
    p.copy_pattern(a + 8192, 0x77, 128, 640);  // ten lines
    pattern = h.cpu.now() - t, t = h.cpu.now();
    const std::uint8_t d[16] = {1, 2, 3};
    p.store(a + 12288, d, 16);
    EXPECT_EQ(p.load_le(a + 12288, 4), 0x030201u);
    value = h.cpu.now() - t, t = h.cpu.now();
    p.copy_out(a, data.size(), back.data());
    out = h.cpu.now() - t;
  });
  sc_core::sc_start();
  EXPECT_EQ(copy, 4 * 3 * kNs);
  EXPECT_EQ(fill, 1 * 3 * kNs);
  EXPECT_EQ(pattern, 10 * 3 * kNs);
  EXPECT_EQ(value, 0);
  EXPECT_EQ(out, 4 * 3 * kNs);
  EXPECT_EQ(back, data);
  EXPECT_TRUE(h.rc.memory().store().holds_pattern(a + 8192, 0x77, 128, 640));
  std::uint8_t f[64];
  h.rc.memory().store().read(a + 4096 + 32, f, 64);
  for (std::uint8_t b : f) EXPECT_EQ(b, 0x5a);
  // Every line written, copied or stored is in the LLC; a line next to them is not.
  for (std::uint64_t line : {a, a + 192, a + 4096, a + 4160, a + 8192, a + 8192 + 576, a + 12288})
    EXPECT_FALSE(h.dma_read_misses(line)) << std::hex << line;
  EXPECT_TRUE(h.dma_read_misses(a + 256));
  EXPECT_TRUE(h.dma_read_misses(a + 8192 + 640));
}

// A root complex on each of two sockets, a socket link of default
// parameters between them (53 ns each way, 16 GB/s).
struct TwoRootComplexes {
  RootComplexConfig c1 = [] {
    RootComplexConfig c = rc_config();
    c.socket = 1;
    c.dram_base = 1ull << 40;
    return c;
  }();
  RootComplex rc0{"rc0", rc_config()}, rc1{"rc1", c1};
  SocketLink link{"link", SocketLinkConfig{}};
  TwoRootComplexes() {
    rc0.connect_socket(rc1, {{&link, 0}});
    rc1.connect_socket(rc0, {{&link, 1}});
  }
};

TEST(MemoryPort, WithARootComplexOnEachSocketAFarCoresStoresAreInItsSocketsLlc) {
  TwoRootComplexes s;
  RootComplexConfig& c1 = s.c1;
  RootComplex &rc0 = s.rc0, &rc1 = s.rc1;
  rc1.share_store(rc0.memory().store());
  HostCpu cpu("cpu", cpu_config(), rc0);
  cpu.attach_far_rc(rc1);
  cpu.set_far(1, true);
  const std::uint64_t a = c1.dram_base + (1 << 20), b = rc0.config().dram_base + (1 << 20);
  cpu.spawn("far", 1, [&](int core) { cpu.port(core).fill(a, 3, 64); });
  cpu.spawn("near", 0, [&](int core) { cpu.port(core).fill(b, 4, 64); });
  sc_core::sc_start();
  const auto misses = [](RootComplex& rc, std::uint64_t line) {
    const std::uint64_t before = rc.memory().llc_misses.value;
    rc.memory().read_line(line, 0);
    return rc.memory().llc_misses.value != before;
  };
  EXPECT_FALSE(misses(rc1, a));  // the far core's line is in its socket's LLC
  EXPECT_TRUE(misses(rc0, a));   // and not in the near one's
  EXPECT_FALSE(misses(rc0, b));
  EXPECT_TRUE(misses(rc1, b));
  std::uint8_t got = 0;
  rc0.memory().store().read(a, &got, 1);
  EXPECT_EQ(got, 3);
}

TEST(MemoryPort, APollThroughThePortSeesADevicesWrite) {
  Host h;
  const std::uint64_t flag = h.dram() + (2 << 20);
  Tick seen = 0;
  std::uint64_t value = 0;
  h.cpu.spawn("waiter", 0, [&](int core) {
    MemoryPort& p = h.cpu.port(core);
    while (p.load_le(flag, 8) != 42) p.wait_watch(p.arm_watch(flag, 8));
    value = p.load_le(flag, 8);
    seen = h.cpu.now();
  });
  // The device's write, as the root complex reports it: its bytes, then its commit.
  h.cpu.spawn("device", 1, [&](int) {
    h.cpu.compute(1, 1 * kUs);
    const std::uint8_t b[8] = {42};
    h.rc.memory().store().write(flag, b, 8);
    h.cpu.on_memory_write(flag, 8, h.cpu.now(), nullptr);
  });
  sc_core::sc_start();
  EXPECT_EQ(value, 42u);
  EXPECT_EQ(seen, 1 * kUs + 60 * kNs);  // the commit, then the line's fetch
}

TEST(MemoryPort, AStretchChargesItsCopiesWithItsWorkAtItsEnd) {
  Host h;
  const std::uint64_t a = h.dram() + (1 << 20);
  const std::vector<std::uint8_t> data(128, 9);
  Tick inside = kNever, all = 0;
  h.cpu.spawn("sw", 0, [&](int core) {
    MemoryPort& p = h.cpu.port(core);
    const Tick t0 = h.cpu.now();
    p.begin_stretch();
    p.copy_in(a, data.data(), data.size());
    p.copy_out(a, 64);
    inside = h.cpu.now() - t0;
    p.end_stretch(10 * kNs);
    all = h.cpu.now() - t0;
  });
  sc_core::sc_start();
  EXPECT_EQ(inside, 0);
  EXPECT_EQ(all, 3 * 3 * kNs + 10 * kNs);
  std::uint8_t b[128];
  h.rc.memory().store().read(a, b, 128);
  EXPECT_EQ(std::vector<std::uint8_t>(b, b + 128), data);
}

TEST(MemoryPort, AStretchHoldsCopiesOnly) {
  Host h;
  MemoryPort& p = h.cpu.port(0);
  EXPECT_THROW(p.end_stretch(0), SimError);
  p.begin_stretch();
  EXPECT_THROW(p.begin_stretch(), SimError);
  EXPECT_THROW(p.arm_watch(h.dram(), 8), SimError);
  EXPECT_THROW(p.wait_watch(0), SimError);
}

TEST(MemoryPort, ALoadOfMoreThanAWordIsRefused) {
  Host h;
  EXPECT_THROW(h.cpu.port(0).load_le(h.dram(), 9), SimError);
  EXPECT_THROW(h.cpu.port(2), SimError);
}

// With a root complex on each socket, a core of socket 1 fetches a line
// homed on socket 0 across the link and back (53 ns each way, the line in
// a 4 ns slot of 64 B at 16 GB/s), its own socket's lines where they are;
// its posted store toward socket 0 takes the first slot of that direction
// that no line holds, and does not wait for the flight.
TEST(MemoryPort, AFarCoresFetchOfANearLineCrossesTheSocketLinkBothWays) {
  TwoRootComplexes s;
  RootComplex &rc0 = s.rc0, &rc1 = s.rc1;
  SocketLink& link = s.link;
  const std::uint64_t near = rc0.config().dram_base + (1 << 20), far = s.c1.dram_base + (1 << 20);
  const Tick t = 1000 * kNs;
  const Tick fetched = rc1.fetch_line(near, t);
  EXPECT_GE(fetched, t + 106 * kNs);
  EXPECT_LE(fetched, t + 110 * kNs);
  EXPECT_EQ(rc1.fetch_line(far, t), t);
  EXPECT_EQ(rc0.fetch_line(near, t), t);
  EXPECT_EQ(link.lines[0].value, 1u);  // the one line, from socket 0
  // A line from socket 1 takes a slot at 2 us; a store sent then goes in the next one.
  const Tick line_at = link.carry_line(1, 2000 * kNs) - 53 * kNs;
  const Tick store_at = rc1.store_toward(0, 2000 * kNs);
  EXPECT_EQ(store_at, line_at + 4 * kNs);
  EXPECT_EQ(rc1.store_toward(1, 2000 * kNs), 2000 * kNs);
}

}  // namespace
}  // namespace hx::host
