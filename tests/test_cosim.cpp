// Co-simulation tier: the synthesizable DMA engine (models/dma/rtl),
// Verilated, under the SystemC kernel through its adapter. Payload bytes are
// checked by the adapter at every edge (a mismatch is a simulation error),
// so a run that completes has moved every byte correctly.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "models/core/error.h"
#include "models/dma/rtl/calypte_rtl.h"
#include "models/dma/rtl/rtl_checker.h"
#include "tests/sim_fixture.h"

using hx::test::simulate;

namespace {

// The S004 AMD Gen3 x8 platform with a second card: `rtl` runs the RTL
// engine, `beh` the behavioural one, each on its own root port and core.
std::string two_cards(const std::string& rtl_extra = "", const std::string& host_port = "") {
  return "platform: t\nlink_defaults: {latency: 30ns}\n"
         "nodes:\n"
         "  host: {type: root_complex, root_ports: 2, mps_supported: 256B" + host_port + ",\n"
         "         rc: {inbound_latency: 120ns, outbound_latency: 145ns, line_interval: 9ns},\n"
         "         memory: {read_latency: 70ns, write_latency: 100ns, partial_rmw: false},\n"
         "         cpu: {cores: 4, poll_period: 50ns, poll_miss: 70ns, os_tick_period: 0ns}}\n"
         "  rtl: {type: endpoint, device: calypte, mps_supported: 256B, endpoint: {tx_latency: 60ns, rx_latency: 60ns, bar_size: 32MiB},\n"
         "        calypte: {f2h_cycles: 12, h2f_cycles: 12, model: rtl" + rtl_extra + "}}\n"
         "  beh: {type: endpoint, device: calypte, mps_supported: 256B, endpoint: {tx_latency: 60ns, rx_latency: 60ns, bar_size: 32MiB},\n"
         "        calypte: {f2h_cycles: 12, h2f_cycles: 12}}\n"
         "links: [{up: host, down: rtl, gen: 3, width: 8}, {up: host, down: beh, gen: 3, width: 8}]\n";
}

// The RTL engine on an endpoint of its own, no fabric: what needs no host.
struct Bare {
  hx::pcie::EndpointConfig ec = [] {
    hx::pcie::EndpointConfig c;
    c.bars = {{0x80000000ull, 64ull << 20}};
    return c;
  }();
  hx::pcie::Endpoint ep{"ep", ec};
  hx::dma::CalypteRtl rtl{"rtl", {}};
  Bare() { ep.set_device(&rtl); }
};

std::string loops(const std::string& mode, const std::string& size, int reps) {
  const std::string r = std::to_string(reps);
  return "[{type: calypte_loopback, name: r, mode: " + mode + ", device: rtl, size: " + size + ", reps: " + r + ", core: 0},"
         " {type: calypte_loopback, name: b, mode: " + mode + ", device: beh, size: " + size + ", reps: " + r + ", core: 1}]";
}

}  // namespace

// Single packets of 60 .. 1500 B both ways, data checked end to end; the RTL
// engine and its behavioural twin agree within a few RTL cycles (4 ns each).
class RtlPackets : public ::testing::TestWithParam<std::tuple<const char*, const char*>> {};
TEST_P(RtlPackets, MatchTheBehaviouralTwin) {
  const auto [mode, size] = GetParam();
  const auto res = simulate(two_cards(), loops(mode, size, 200));
  const std::string k = std::string(".") + mode + "_p50_us";
  const double rtl = res["metrics"]["r" + k].get<double>(), beh = res["metrics"]["b" + k].get<double>();
  EXPECT_NEAR(rtl * 1000, beh * 1000, 4 * 4.0) << mode << " " << size;
  EXPECT_GT(res["stats"]["rtl.rtl.rtl_tlps"]["value"].get<int>(), 200);
  EXPECT_EQ(res["stats"]["rtl.rtl.h2f_packets"]["value"].get<int>(), 200);
}
INSTANTIATE_TEST_SUITE_P(Sizes, RtlPackets,
                         ::testing::Combine(::testing::Values("fhf", "hfh"), ::testing::Values("60B", "64B", "256B", "1500B")));

// 2000 packets of 1500 B wrap the 1 MiB ring three times; the adapter checks
// every segment lands where the ring says.
TEST(Rtl, RingWrapsAround) {
  const auto res = simulate(two_cards(), loops("fhf", "1500B", 2000));
  EXPECT_EQ(res["stats"]["rtl.rtl.h2f_packets"]["value"].get<int>(), 2000);
}

// Back-pressure: a root port advertising one posted header credit holds
// rq_ready low; user logic taking one beat in three holds h2f_ready low.
TEST(Rtl, BackPressureFromPcieAndUserLogic) {
  const auto res = simulate(two_cards(", user_ready_every: 3", ", port: {p_hdr: 1, p_data: 16}"), loops("hfh", "1500B", 50));
  EXPECT_EQ(res["stats"]["rtl.rtl.h2f_packets"]["value"].get<int>(), 50);
  EXPECT_GT(res["stats"]["rtl.up.credit_stalls"]["value"].get<int>(), 0);
}

// Reset, then CSR access through the completer interfaces.
TEST(Rtl, ResetAndCsrAccess) {
  Bare b;
  auto& rtl = b.rtl;
  std::uint64_t id = 0, channels = 0;
  sc_core::sc_spawn([&] {
    rtl.csr_read(0xff0, [&](std::uint64_t v) { id = v; });
    rtl.csr_read(0xff8, [&](std::uint64_t v) { channels = v; });
  });
  sc_core::sc_start();
  EXPECT_EQ(id >> 32, 0x4858444dull);  // "HXDM"
  EXPECT_EQ(channels & 0xffffffffu, 16u);
  EXPECT_EQ(channels >> 32, 256u);
  EXPECT_GT(rtl.cycles(), 0u);
}

// The protocol checker catches what it is there for.
TEST(RtlChecker, CatchesAValidDroppedBeforeReady) {
  hx::dma::StreamChecker c("x", 32, false);
  c.sample({true, false, true, true, 0, 0, 1}, 0);
  EXPECT_THROW(c.sample({false, false, false, false, 0, 0, 0}, 1), hx::SimError);
}
TEST(RtlChecker, CatchesABeatChangedWhileStalled) {
  hx::dma::StreamChecker c("x", 32, false);
  c.sample({true, false, true, true, 0, 0, 1}, 0);
  EXPECT_THROW(c.sample({true, true, true, true, 0, 0, 2}, 1), hx::SimError);
}
TEST(RtlChecker, CatchesBadFramingAndTheFourKiBRule) {
  hx::dma::StreamChecker f("x", 32, true, 256);
  EXPECT_THROW(f.sample({true, true, false, true, 0x1000, 8, 0}, 0), hx::SimError);  // no sop
  hx::dma::StreamChecker g("x", 32, true, 256);
  EXPECT_THROW(g.sample({true, true, true, false, 0x1fc0, 128, 0}, 0), hx::SimError);  // crosses 4 KiB
  hx::dma::StreamChecker h("x", 32, true, 256);
  EXPECT_THROW(h.sample({true, true, true, true, 0x1000, 128, 0}, 0), hx::SimError);  // eop after 32 of 128 B
}
// ...and, wired to the RTL, an injected framing error stops the run.
TEST(RtlChecker, FiresOnAnInjectedViolation) {
  Bare b;
  auto& rtl = b.rtl;
  rtl.set_f2h_ring(0, 0x100000000ull, 1 << 20, 0x100200000ull);
  rtl.inject_violation();
  rtl.send(0, 256, 7, 0);
  try {
    sc_core::sc_start();
    ADD_FAILURE() << "the checker did not fire";
  } catch (const hx::SimError& e) {
    EXPECT_NE(std::string(e.what()).find("rtl checker rtl.rq"), std::string::npos) << e.what();
  } catch (const std::exception& e) {
    // SystemC wraps exceptions thrown inside processes.
    EXPECT_NE(std::string(e.what()).find("rtl checker rtl.rq"), std::string::npos) << e.what();
  }
}

// Waves: a VCD of the RTL's signals, loadable in GTKWave.
TEST(Rtl, WritesWaves) {
  const std::string vcd = ::testing::TempDir() + "hx_rtl_waves.vcd";
  simulate(two_cards(", wave: " + vcd), loops("fhf", "64B", 3));
  std::ifstream f(vcd);
  std::string head((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  EXPECT_NE(head.find("$enddefinitions"), std::string::npos);
  EXPECT_NE(head.find("rq_valid"), std::string::npos);
}

// Back-to-back packets on several channels: every segment lands at its
// channel's ring position (checked by the adapter) and the RTL engine moves
// them at the behavioural twin's rate.
TEST(Rtl, BackToBackPacketsOnSeveralChannels) {
  const auto r = simulate(two_cards(),
                          "[{type: calypte_burst, name: r, device: rtl, channels: 4, size: 1500B, packets: 200, core: 0},"
                          " {type: calypte_burst, name: b, device: beh, channels: 4, size: 1500B, packets: 200, core: 1}]");
  const double rtl = r["metrics"]["r.f2h_MBps"].get<double>(), beh = r["metrics"]["b.f2h_MBps"].get<double>();
  EXPECT_NEAR(rtl / beh, 1.0, 0.05) << rtl << " vs " << beh;
  EXPECT_EQ(r["stats"]["rtl.rtl.rtl_tlps"]["value"].get<int>(), 200 * 12 + 200 + 2);  // 12 segments + update each, marker
}
