// Component tier: the fabric against closed-form expectations derived by
// hand from the mechanisms. Every TEST elaborates its own platform (one
// process per test under gtest_discover_tests).
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <map>
#include <random>
#include <string>

#include "models/core/error.h"
#include "models/core/scheduler.h"
#include "models/pcie/endpoint.h"
#include "src/config/yaml_util.h"
#include "src/topology/devices.h"
#include "src/topology/topology.h"
#include "tests/sim_fixture.h"

using hx::test::analytic_write_Bps;
using hx::test::simulate;

namespace {

constexpr double kMiB = 1048576.0;

std::string two_devices(int gen, int width, const std::string& extra_switch = "", const std::string& rc = "") {
  return "platform: t\nlink_defaults: {latency: 10ns}\n"
         "defaults:\n"
         "  root_complex: {mps_supported: 512B" + rc + "}\n"
         // Buffers sized for the credit loop at Gen5 x16 (150 ns of switch latency
         // is inside it): 127 headers, 2000 x 16 B of data.
         "  switch: {mps_supported: 512B, latency: 150ns, port: {p_hdr: 127, p_data: 2000}" + extra_switch + "}\n"
         "  endpoint: {device: rosta, mps_supported: 512B, port: {p_hdr: 127, p_data: 2000},\n"
         "             rosta: {clock: 16000MHz}, endpoint: {tx_latency: 100ns, rx_latency: 100ns, bar_size: 2MiB}}\n"
         "nodes: {host: {type: root_complex}, sw: {type: switch}, a: {type: endpoint}, b: {type: endpoint}}\n"
         "links:\n"
         "  - {up: host, down: sw, gen: " + std::to_string(gen) + ", width: " + std::to_string(width) + "}\n"
         "  - {up: sw, down: a, gen: " + std::to_string(gen) + ", width: " + std::to_string(width) + "}\n"
         "  - {up: sw, down: b, gen: " + std::to_string(gen) + ", width: " + std::to_string(width) + "}\n";
}

// The run must end in an error of type E (SimError: it stopped; InputError:
// it was refused before it ran) whose message contains each of `needles`.
template <class E>
void expect_error(const std::string& topo, const std::string& workloads, std::initializer_list<const char*> needles) {
  try {
    simulate(topo, workloads);
    ADD_FAILURE() << "expected an error";
  } catch (const E& e) {
    for (const char* n : needles) EXPECT_NE(std::string(e.what()).find(n), std::string::npos) << e.what();
  }
}
const auto expect_sim_error = expect_error<hx::SimError>;

// The breakdown of latency histogram `hist`: mean ns per stage.
std::map<std::string, double> stages(const nlohmann::json& r, const std::string& hist) {
  std::map<std::string, double> out;
  for (const auto& s : r["breakdowns"][hist]["stages"]) out[s["stage"].get<std::string>()] = s["mean_ns"].get<double>();
  return out;
}
// The breakdown of `hist` is exactly `want` (ns; every other stage 0).
void expect_stages(const nlohmann::json& r, const std::string& hist, const std::map<std::string, double>& want) {
  const auto got = stages(r, hist);
  EXPECT_FALSE(got.empty()) << "no breakdown of " << hist;
  for (const auto& [name, ns] : got) {
    const auto it = want.find(name);
    EXPECT_NEAR(ns, it == want.end() ? 0.0 : it->second, 0.01) << name;
  }
}
const auto expect_input_error = expect_error<hx::InputError>;

}  // namespace

// A saturated link delivers its analytic capacity, for every generation,
// width and payload size.
class SaturatedLink : public ::testing::TestWithParam<std::tuple<int, int, int>> {};

TEST_P(SaturatedLink, DeliversAnalyticCapacity) {
  const auto [gen, width, payload] = GetParam();
  const auto r = simulate(two_devices(gen, width),
                          "[{type: rosta_peer, name: p, pairs: [[a, b]], bytes: 1MiB, payload: " + std::to_string(payload) + "B}]");
  const double sim = r["metrics"]["p.a_to_b.rx_MiB_per_s"].get<double>();
  const double expect = analytic_write_Bps(gen, width, payload) / kMiB;
  EXPECT_NEAR(sim / expect, 1.0, 0.002) << "gen" << gen << " x" << width << " " << payload << " B: " << sim << " vs " << expect;
}

INSTANTIATE_TEST_SUITE_P(Generations, SaturatedLink,
                         ::testing::Combine(::testing::Values(1, 2, 3, 4, 5), ::testing::Values(1, 4, 16),
                                            ::testing::Values(128, 256, 512)));

// A transfer's receive throughput counts the time its bytes take to arrive,
// from the first byte of its first TLP to the last of its last: a transfer
// of one, two or four TLPs arrives at the link's capacity, as a long one
// does (not at zero, or at twice it, as a first-to-last-arrival interval
// gives).
class FewTlps : public ::testing::TestWithParam<int> {};

TEST_P(FewTlps, ArriveAtTheLinkCapacity) {
  const int n = GetParam();
  const auto r = simulate(two_devices(2, 4), "[{type: rosta_peer, name: p, pairs: [[a, b]], bytes: " +
                                                 std::to_string(256 * n) + "B, payload: 256B}]");
  const double expect = analytic_write_Bps(2, 4, 256) / kMiB;
  EXPECT_NEAR(r["metrics"]["p.a_to_b.rx_MiB_per_s"].get<double>() / expect, 1.0, 0.004) << n << " TLPs";
  EXPECT_NEAR(r["metrics"]["p.a_to_b.tx_MiB_per_s"].get<double>() / expect, 1.0, 0.004) << n << " TLPs";
}

INSTANTIATE_TEST_SUITE_P(Tlps, FewTlps, ::testing::Values(1, 2, 4));

// One TLP's latency is the sum of its stages. Store-and-forward switch:
// TX pipeline + serialise + link + switch + serialise + link + RX pipeline.
TEST(OneTlp, LatencyIsSumOfStagesStoreAndForward) {
  const auto r = simulate(two_devices(2, 4, ", cut_through: false"),
                          "[{type: rosta_echo, name: e, from: a, to: b, bytes: 64B, reps: 3}]");
  const double ps_per_B = 8000.0 / (5.0 * 0.8 * 4) / (1.0 - 4.0 / 1538.0);
  const double ser = std::round((12 + 64 + 8) * ps_per_B) / 1000.0;  // ns
  const double expect = 100 + ser + 10 + 150 + ser + 10 + 100;
  EXPECT_NEAR(r["metrics"]["e.one_way_ns"].get<double>(), expect, 0.01);
  expect_stages(r, "e.one_way_ns", {{"hard_block", 200}, {"serialisation", 2 * ser}, {"propagation", 20}, {"switch", 150}});
}

// Cut-through: the egress may start `latency` after the header arrived.
TEST(OneTlp, LatencyIsSumOfStagesCutThrough) {
  const auto r = simulate(two_devices(2, 4), "[{type: rosta_echo, name: e, from: a, to: b, bytes: 64B, reps: 3}]");
  const double ps_per_B = 8000.0 / (5.0 * 0.8 * 4) / (1.0 - 4.0 / 1538.0);
  const double head = std::round((12 + 4) * ps_per_B) / 1000.0;
  const double ser = std::round((12 + 64 + 8) * ps_per_B) / 1000.0;
  const double expect = 100 + head + 10 + 150 + ser + 10 + 100;
  EXPECT_NEAR(r["metrics"]["e.one_way_ns"].get<double>(), expect, 0.01);
  expect_stages(r, "e.one_way_ns", {{"hard_block", 200}, {"serialisation", head + ser}, {"propagation", 20}, {"switch", 150}});
}

// N flows through one egress port each get 1/N of it.
TEST(Arbitration, FlowsShareAnEgressFairly) {
  const std::string topo =
      "platform: t\nlink_defaults: {latency: 10ns, gen: 2, width: 4}\n"
      "defaults:\n"
      "  switch: {latency: 150ns}\n"
      "  endpoint: {device: rosta, rosta: {clock: 16000MHz}, endpoint: {bar_size: 2MiB}}\n"
      "nodes: {host: {type: root_complex}, s1: {type: switch}, s2: {type: switch},\n"
      "        a: {type: endpoint}, b: {type: endpoint}, c: {type: endpoint},\n"
      "        d: {type: endpoint}, e: {type: endpoint}, f: {type: endpoint}}\n"
      "links:\n"
      "  - {up: host, down: s1}\n  - {up: s1, down: s2}\n"
      "  - {up: s1, down: a}\n  - {up: s1, down: b}\n  - {up: s1, down: c}\n"
      "  - {up: s2, down: d}\n  - {up: s2, down: e}\n  - {up: s2, down: f}\n";
  const auto r = simulate(topo, "[{type: rosta_peer, name: p, pairs: [[a, d], [b, e], [c, f]], bytes: 1MiB, payload: 256B}]");
  const double cap = analytic_write_Bps(2, 4, 256) / kMiB;
  const double agg = r["metrics"]["p.aggregate_MiB_per_s"].get<double>();
  EXPECT_NEAR(agg / cap, 1.0, 0.01);
  for (const char* k : {"p.a_to_d.rx_MiB_per_s", "p.b_to_e.rx_MiB_per_s", "p.c_to_f.rx_MiB_per_s"})
    EXPECT_NEAR(r["metrics"][k].get<double>() / (cap / 3), 1.0, 0.02) << k;
}

// Missing credits cause back-pressure, never loss: a memory slower than the
// link holds the root complex's posted buffer full; credits stop; the device
// slows to the memory's rate; every byte still arrives intact (the run's
// conservation and payload checks would fail otherwise). The buffers on the
// path (~40 KB) let the source finish that much early: 1% of 4 MiB.
TEST(FlowControl, SlowMemoryBackPressuresTheSource) {
  std::string topo = two_devices(2, 4, "", "");
  topo.replace(topo.find("root_complex: {mps_supported: 512B}"), 35,
               "root_complex: {mps_supported: 512B, rc: {posted_buffer: 4, line_interval: 0ns},\n"
               "                 memory: {channel_bw: 0.5GB/s, channels: 1}}");
  const auto r = simulate(topo, "[{type: rosta_dma, name: w, op: write, devices: [a], bytes: 4MiB, payload: 256B}]");
  // 64 B lines at 0.5 GB/s: 128 ns each.
  const double mem = 0.5e9 / kMiB;
  EXPECT_NEAR(r["metrics"]["w.a.write_hw_MiB_per_s"].get<double>() / mem, 1.0, 0.02);
  EXPECT_GT(r["stats"]["a.up.credit_stalls"]["value"].get<double>(), 0);
  EXPECT_EQ(r["stats"]["host.write_bytes"]["value"].get<double>(), 4.0 * 1048576);  // the MSI goes to the interrupt path, not memory
}

// Reads: completions never exceed MPS, respect the RCB, and carry exactly
// the requested bytes (checked against memory by the device).
TEST(RootComplex, SplitsReadCompletionsAtMps) {
  std::string topo = two_devices(2, 4);
  topo.replace(topo.find("root_complex: {mps_supported: 512B}"), 35, "root_complex: {mps_supported: 128B}");
  const auto r = simulate(topo, "[{type: rosta_dma, name: rd, op: read, devices: [a], bytes: 64KiB}]");
  const double cpls = r["stats"]["host.completions"]["value"].get<double>();
  EXPECT_EQ(r["stats"]["host.read_bytes"]["value"].get<double>(), 65536.0);
  EXPECT_GE(cpls, 65536.0 / 128);  // none larger than MPS 128
  EXPECT_LE(cpls, 65536.0 / 64);   // none smaller than the 64 B RCB
}

// ACS P2P Request Redirect sends peer traffic up to the root complex.
TEST(Switch, AcsRedirectsPeerTrafficThroughTheRoot) {
  const auto r = simulate(two_devices(2, 4, ", acs_redirect: true"),
                          "[{type: rosta_peer, name: p, pairs: [[a, b]], bytes: 64KiB, payload: 128B}]");
  EXPECT_EQ(r["stats"]["sw.acs_redirected"]["value"].get<double>(), 512.0);
  EXPECT_EQ(r["stats"]["host.p2p_forwarded"]["value"].get<double>(), 512.0);
}

// ...which needs p2p at the root: without it the study is refused before it runs.
TEST(Switch, AcsWithoutRootP2pIsBadInput) {
  expect_input_error(two_devices(2, 4, ", acs_redirect: true", ", rc: {p2p: false}"),
                     "[{type: rosta_peer, name: p, pairs: [[a, b]], bytes: 64KiB, payload: 128B}]",
                     {"workloads.0.pairs.0: a -> b: switch 'sw' redirects peer requests", "p2p disabled"});
}

// A TLP larger than the receiver's MPS is malformed (exit 3), never delivered.
TEST(Mps, OversizedTlpIsMalformed) {
  std::string topo = two_devices(2, 4);
  topo.replace(topo.find("root_complex: {mps_supported: 512B}"), 35, "root_complex: {mps_supported: 128B}");
  topo.replace(topo.find("a: {type: endpoint}"), 19, "a: {type: endpoint, mps: 256B}");
  expect_sim_error(topo, "[{type: rosta_dma, name: w, op: write, devices: [a], bytes: 64KiB, payload: 256B}]",
                   {"malformed TLP"});
}

// The deadline turns a run that cannot finish in time into exit 3.
TEST(Watchdog, DeadlineExceededIsReported) {
  try {
    hx::sim::StudyFiles f;
    f.study_file = "<test>";
    f.topo_file = "<test>";
    f.topo = YAML::Load(two_devices(2, 4));
    f.study = YAML::Load("study: t\ntopology: inline\ndeadline: 10us\n"
                         "workloads: [{type: rosta_peer, name: p, pairs: [[a, b]], bytes: 4MiB}]");
    hx::sim::run_point(f, hx::sim::SweepPoint{}, 1);
    FAIL() << "expected the deadline to stop the run";
  } catch (const hx::SimError& e) {
    EXPECT_NE(std::string(e.what()).find("did not finish by its deadline"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("workload p"), std::string::npos) << e.what();
  }
}

// A run stopped while back-pressure holds the fabric names, link by link,
// the VC, class and credit type that starved and who holds the credits.
TEST(Watchdog, StarvedLinksNameTheirCreditsAndHolders) {
  try {
    hx::sim::StudyFiles f;
    f.study_file = "<test>";
    f.topo_file = "<test>";
    f.topo = YAML::Load(two_devices(2, 4, "", ", memory: {channel_bw: 100MB/s, channels: 1}, rc: {posted_buffer: 4}"));
    f.study = YAML::Load("study: t\ntopology: inline\ndeadline: 2ms\n"
                         "workloads: [{type: rosta_dma, name: w, op: write, devices: [a], bytes: 4MiB}]");
    hx::sim::run_point(f, hx::sim::SweepPoint{}, 1);
    FAIL() << "expected the deadline to stop the run";
  } catch (const hx::SimError& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("link sw.up -> host.rp0: VC0 P header credits starved (0 header"), std::string::npos) << m;
    EXPECT_NE(m.find("host.rp0 holds 32 TLPs"), std::string::npos) << m;
    EXPECT_NE(m.find("link a.up -> sw.down0: VC0 P header credits starved"), std::string::npos) << m;
  }
}

// Work that reschedules itself at the same instant never lets the deadline
// come: the dispatcher stops it and names the component.
namespace {
struct Spinner final : hx::Actor {
  hx::Scheduler sched{"spinner"};
  void on_action(std::uint32_t, std::uint64_t, void*) override { sched.at(hx::now_tick(), this, 7); }
};
}  // namespace

TEST(Watchdog, WorkThatStopsTimeIsReported) {
  Spinner s;
  s.sched.at(5 * hx::kNs, &s, 7);
  hx::Scheduler::set_horizon(hx::kMs);
  try {
    sc_core::sc_start(sc_core::sc_time::from_value(hx::kMs), sc_core::SC_EXIT_ON_STARVATION);
    FAIL() << "expected the run to be stopped";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("simulated time stands still"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("at 5.000000 ns"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("Spinner"), std::string::npos) << e.what();
  }
}

// Software that loops at one instant (waking others or itself, or waiting
// for no time) never lets the deadline come either: the run is stopped and
// the process named.
TEST(Watchdog, SoftwareThatStopsTimeIsReported) {
  sc_core::sc_event ev;
  sc_core::sc_spawn_options o;
  sc_core::sc_spawn(
      [&ev] {
        sc_core::wait(3, sc_core::SC_NS);
        for (std::uint64_t i = 0;; ++i) {
          if (i % 2) hx::software_step("a zero-length wait");
          else hx::notify_now(ev);
        }
      },
      "looping_driver", &o);
  try {
    sc_core::sc_start(sc_core::sc_time::from_value(hx::kMs), sc_core::SC_EXIT_ON_STARVATION);
    FAIL() << "expected the run to be stopped";
  } catch (const std::exception& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("simulated time stands still: more than 67108864 software wake-ups and zero-length waits at "
                     "3.000000 ns"), std::string::npos) << m;
    EXPECT_NE(m.find("looping_driver"), std::string::npos) << m;
  }
}

// Two virtual channels: traffic on VC1 crosses links that enable it with its
// own credits, at the same capacity; on a link without VC1 it is an error.
TEST(VirtualChannels, Vc1CarriesTrafficWhereEnabled) {
  std::string topo = two_devices(2, 4);
  for (const char* k : {"switch: {mps_supported: 512B, latency: 150ns, port: {", "endpoint: {device: rosta, mps_supported: 512B, port: {"})
    topo.replace(topo.find(k), std::string(k).size(), std::string(k) + "vcs: 2, ");
  const auto r = simulate(topo, "[{type: rosta_peer, name: p, pairs: [[a, b]], bytes: 1MiB, payload: 256B, vc: 1}]");
  EXPECT_NEAR(r["metrics"]["p.a_to_b.rx_MiB_per_s"].get<double>() / (analytic_write_Bps(2, 4, 256) / kMiB), 1.0, 0.002);
}

// Peer writes a -> b on VC0 and c -> d on VC1; a and c on root ports of
// their own, b and d behind a switch on the third: the one place the two
// streams meet is the root complex's egress toward that switch, whose VC
// arbitration shares the link. Weighted 3:1 gives VC0 three
// quarters of b's link and VC1 one; shared transmit queues (FIFO by
// arrival) gave each half whatever the weights.
std::string three_ports(const std::string& arb) {
  const std::string ep = "{type: endpoint, device: rosta, mps_supported: 256B, port: {vcs: 2, p_hdr: 127, p_data: 2000},"
                         " rosta: {clock: 16000MHz}, endpoint: {tx_latency: 100ns, rx_latency: 100ns, bar_size: 2MiB}}";
  return "platform: t\nlink_defaults: {latency: 10ns, gen: 2, width: 4}\n"
         "nodes:\n"
         "  host: {type: root_complex, root_ports: 3, mps_supported: 256B, port: {vcs: 2, p_hdr: 127, p_data: 2000, " + arb + "}}\n"
         "  sw: {type: switch, latency: 150ns, mps_supported: 256B, port: {vcs: 2, p_hdr: 127, p_data: 2000}}\n"
         "  a: " + ep + "\n  b: " + ep + "\n  c: " + ep + "\n  d: " + ep + "\n"
         "links: [{up: host, down: a}, {up: host, down: c}, {up: host, down: sw}, {up: sw, down: b}, {up: sw, down: d}]\n";
}
const char* kTwoVcs = "[{type: rosta_peer, name: v0, pairs: [[a, b]], bytes: 2MiB, payload: 256B, vc: 0},"
                      " {type: rosta_peer, name: v1, pairs: [[c, d]], bytes: 2MiB, payload: 256B, vc: 1}]";

TEST(VirtualChannels, TheRootComplexSharesAnEgressByItsVcWeights) {
  const auto r = simulate(three_ports("vc_arbitration: weighted, vc_weights: [3, 1]"), kTwoVcs);
  const double v0 = r["metrics"]["v0.a_to_b.rx_MiB_per_s"].get<double>(), v1 = r["metrics"]["v1.c_to_d.rx_MiB_per_s"].get<double>();
  const double link = analytic_write_Bps(2, 4, 256) / kMiB;
  // While both stream, 3:1; VC0's 2 MiB ends first, then VC1 has the link
  // alone: VC1's average over its whole transfer is (1/4 of the link for
  // the 2/3 MiB it sends beside VC0's 2 MiB, then all of it).
  EXPECT_NEAR(v0 / link, 0.75, 0.01);
  const double t1 = (2.0 / 0.75 + (2.0 - 2.0 / 3.0)) / 2.0;  // VC1's time per MiB, in link-MiB times
  EXPECT_NEAR(v1 / link, 1.0 / t1, 0.01);
}

TEST(VirtualChannels, RoundRobinAtTheRootComplexGivesEachVcHalf) {
  const auto r = simulate(three_ports("vc_arbitration: rr"), kTwoVcs);
  const double link = analytic_write_Bps(2, 4, 256) / kMiB;
  EXPECT_NEAR(r["metrics"]["v0.a_to_b.rx_MiB_per_s"].get<double>() / link, 0.5, 0.01);
  EXPECT_NEAR(r["metrics"]["v1.c_to_d.rx_MiB_per_s"].get<double>() / link, 0.5, 0.01);
}

TEST(VirtualChannels, Vc1OnALinkWithoutItIsBadInput) {
  expect_input_error(two_devices(2, 4), "[{type: rosta_peer, name: p, pairs: [[a, b]], bytes: 64KiB, vc: 1}]",
                     {"VC1 is not enabled on link sw - a (port.vcs: 1 at sw, 1 at a)"});
}

// Per-port MPS on a switch: the port toward b keeps 128 B, so a 256 B peer
// write from a is malformed there, while the switch's other ports allow 256.
TEST(Mps, SwitchPortMpsAppliesPerPort) {
  std::string topo = two_devices(2, 4);
  topo.replace(topo.find("sw: {type: switch}"), 18, "sw: {type: switch, mps: 256B, port_mps: {down1: 128B}}");
  topo.replace(topo.find("a: {type: endpoint}"), 19, "a: {type: endpoint, mps: 256B}");
  topo.replace(topo.find("b: {type: endpoint}"), 19, "b: {type: endpoint, mps: 256B}");
  expect_sim_error(topo, "[{type: rosta_peer, name: p, pairs: [[a, b]], bytes: 64KiB, payload: 256B}]",
                   {"sw.down1", "MPS 128"});
}

// Receive buffers that cannot hold one MPS-sized TLP are bad input (the
// spec's minimum), found before anything runs.
TEST(FlowControl, CreditsBelowOneMaximumTlpAreBadInput) {
  std::string topo = two_devices(2, 4);
  const std::string from = "port: {p_hdr: 127, p_data: 2000}";
  topo.replace(topo.find(from), from.size(), "port: {p_hdr: 127, p_data: 2000, cpl_data: 16}");
  expect_input_error(topo, "[{type: rosta_dma, name: rd, op: read, devices: [a], bytes: 64KiB}]",
                     {"nodes.sw.port.cpl_data", "cpl_data 16 credits (256 B) on VC0 cannot hold one 512 B TLP"});
}

// A switch with small completion buffers back-pressures the root complex's
// completions; the read still completes with every byte checked.
TEST(FlowControl, SmallCompletionBuffersBackPressureTheRoot) {
  std::string topo = two_devices(2, 4);
  const std::string from = "port: {p_hdr: 127, p_data: 2000}";
  // 512 B of completion data: one TLP at MPS 512, the least a receiver may advertise.
  topo.replace(topo.find(from), from.size(), "port: {p_hdr: 127, p_data: 2000, cpl_hdr: 2, cpl_data: 32}");
  const auto r = simulate(topo, "[{type: rosta_dma, name: rd, op: read, devices: [a], bytes: 64KiB}]");
  EXPECT_EQ(r["stats"]["host.read_bytes"]["value"].get<double>(), 65536.0);
  EXPECT_GT(r["stats"]["host.rp0.credit_stalls"]["value"].get<double>(), 0);
  EXPECT_GT(r["metrics"]["rd.a.read_hw_MiB_per_s"].get<double>(), 0);
}

namespace {
// A host with the IOMMU on (one walker, no lookup cost) and two pcie-bench
// style engines on their own root ports: one kept on a warm page, one
// touching a fresh page every time (one simulation per test process).
std::string iommu_host(const std::string& bench = "") {
  const std::string nic = "{type: endpoint, device: bench, endpoint: {tx_latency: 50ns, rx_latency: 50ns},\n"
                          "        bench: {cmd_latency: 10ns, done_latency: 0ns" + bench + "}}\n";
  return "platform: t\nlink_defaults: {latency: 10ns}\n"
         "nodes:\n"
         "  host: {type: root_complex, root_ports: 2, rc: {line_interval: 1ns, read_line_interval: 0ns},\n"
         "         memory: {read_latency: 80ns},\n"
         "         iommu: {enabled: true, walkers: 1, walk_overhead: 100ns, pte_read: 20ns, miss_latency: 0ns}}\n"
         "  warm: " + nic + "  cold: " + nic +
         "links: [{up: host, down: warm, gen: 3, width: 8}, {up: host, down: cold, gen: 3, width: 8}]\n";
}
// The same host with the IOMMU off.
std::string plain_host(const std::string& bench = "") {
  std::string topo = iommu_host(bench);
  topo.replace(topo.find("enabled: true"), 13, "enabled: false");
  return topo;
}
std::string pair(const std::string& op, int reps, const std::string& size = "64B") {
  const std::string r = std::to_string(reps);
  return "[{type: bench_lat, name: hit, device: warm, op: " + op + ", size: " + size + ", window: 4KiB, reps: " + r + "},"
         " {type: bench_lat, name: miss, device: cold, op: " + op + ", size: " + size + ", pattern: fresh, reps: " + r + "}]";
}
double median(const nlohmann::json& r, const std::string& w) { return r["metrics"][w + ".median_ns"].get<double>(); }
}  // namespace

// A first access to a page pays one IOTLB miss: with the upper levels in the
// walk caches, one leaf-entry read (20 ns) plus the walker overhead (100 ns).
TEST(Iommu, AMissAddsExactlyOneWalkToARead) {
  const auto r = simulate(iommu_host(), pair("rd", 50));
  EXPECT_NEAR(median(r, "miss") - median(r, "hit"), 120.0, 2.0);
  EXPECT_EQ(r["stats"]["host.iommu.walks"]["value"].get<int>(), 51);  // 50 fresh pages and the warm one
}

// Posted writes leave the translation stage in order and reads do not pass
// them: the read of a write-then-read to a fresh page waits for the write's
// walk (merging with it) and the pair costs one walk, not two.
TEST(Iommu, AReadWaitsForTheWalkOfTheWriteBeforeIt) {
  const auto r = simulate(iommu_host(), pair("wrrd", 20));
  EXPECT_NEAR(median(r, "miss") - median(r, "hit"), 120.0, 2.0);
  EXPECT_EQ(r["stats"]["host.iommu.walks"]["value"].get<int>(), 21);
  EXPECT_EQ(r["stats"]["host.iommu.merged"]["value"].get<int>(), 21);  // and the warm page's first pair
}

// A read that missed is replayed into the read pipeline (miss_latency) after
// its walk; a posted write that missed goes on when the walk ends, and the
// read behind it merges with that walk and pays no replay.
TEST(Iommu, AMissedReadIsReplayed) {
  std::string topo = iommu_host();
  topo.replace(topo.find("miss_latency: 0ns"), 17, "miss_latency: 50ns");
  const auto r = simulate(topo, pair("rd", 40));
  EXPECT_NEAR(median(r, "miss") - median(r, "hit"), 120.0 + 50.0, 2.0);
}

// The replay takes the request's lines one per line interval: a missed
// 256 B read pays three intervals more than a missed 64 B one.
TEST(Iommu, AMissedReadIsReplayedLineByLine) {
  std::string topo = iommu_host();
  topo.replace(topo.find("miss_latency: 0ns"), 17, "miss_latency: 50ns");
  topo.replace(topo.find("line_interval: 1ns"), 18, "line_interval: 10ns");
  const auto r = simulate(topo, pair("rd", 40, "256B"));
  EXPECT_NEAR(median(r, "miss") - median(r, "hit"), 120.0 + 50.0 + 3 * 10.0, 2.0);
}

TEST(Iommu, AMissedWriteIsNotReplayed) {
  std::string topo = iommu_host();
  topo.replace(topo.find("miss_latency: 0ns"), 17, "miss_latency: 50ns");
  const auto r = simulate(topo, pair("wrrd", 40));
  EXPECT_NEAR(median(r, "miss") - median(r, "hit"), 120.0, 2.0);
}

// With two read trackers, each held from a read's arrival through its memory
// read (80 ns) to its completion, reads run at no more than 2 / 80 ns
// however many the engine keeps in flight; those that find no tracker wait
// (holding their credits) and none is lost.
TEST(RootComplex, ReadTrackersBoundTheReadRate) {
  std::string topo = plain_host();
  topo.replace(topo.find("read_line_interval: 0ns"), 23, "read_line_interval: 0ns, read_trackers: 2");
  const auto r = simulate(topo, "[{type: bench_bw, name: rd, device: warm, op: rd, size: 64B, transactions: 4000}]");
  const double rate = r["metrics"]["rd.transactions_per_s"].get<double>();
  EXPECT_LE(rate, 2 / 80e-9);
  EXPECT_GE(rate, 2 / 100e-9);  // the hold is the memory read and little else
  EXPECT_GT(r["stats"]["host.tracker_waits"]["value"].get<double>(), 1000);
  EXPECT_EQ(r["stats"]["host.reads"]["value"].get<double>(), 4000);
  EXPECT_EQ(r["stats"]["host.read_bytes"]["value"].get<double>(), 4000 * 64);
}

// With ATS, a missed page costs one translation round trip plus the ATC's
// miss handling; requests then carry translated addresses and never look up
// the IOTLB themselves.
TEST(Ats, TranslatedRequestsBypassTheIommu) {
  const auto r = simulate(iommu_host(", ats: true, atc_entries: 8, atc_miss: 300ns"), pair("rd", 30));
  const double rtt = r["metrics"]["miss.ats_rtt_ns"].get<double>();
  EXPECT_NEAR(median(r, "miss") - median(r, "hit"), rtt + 300.0, 4.0);  // the read leaves on the next free transmit slot
  EXPECT_NEAR(r["metrics"]["miss.atc_ns"].get<double>(), 300.0, 0.01);
  const auto& s = r["stats"];
  EXPECT_EQ(s["host.iommu.ats_requests"]["value"].get<int>(), 31);
  EXPECT_EQ(s["host.iommu.iotlb.misses"]["value"].get<int>(), 31);  // the ATS requests' lookups only
  EXPECT_EQ(s["host.iommu.iotlb.hits.4KiB"]["value"].get<int>(), 0);
  EXPECT_EQ(s["cold.bench.atc.misses"]["value"].get<int>(), 30);
  // The breakdown puts the round trip and the ATC's own handling under
  // translation: every access of the cold engine (the round trip's mean,
  // whose first walk misses the walk caches too, a little above its
  // median), and one access in 30 of the engine kept on its page.
  EXPECT_NEAR(stages(r, "miss.LAT_DMA_RD_ns").at("translation"), rtt + 300.0, 10.0);
  EXPECT_NEAR(30 * stages(r, "hit.LAT_DMA_RD_ns").at("translation"), rtt + 300.0, 0.15 * (rtt + 300.0));
}

TEST(Ats, WithoutTheIommuIsBadInput) {
  std::string topo = plain_host(", ats: true");
  EXPECT_THROW(simulate(topo, pair("rd", 2)), hx::InputError);
}

// The pcie-bench engine's write path: a write command takes at least
// `write_interval`, however small (16 B writes at 50 ns: 20 M/s, far below
// the link's and the per-byte limits), and writes are cut into TLPs of
// `write_payload` under a larger MPS (the default 256 B; 1 KiB writes: 8
// TLPs of 128 B).
TEST(BenchDma, WriteCommandPeriodAndPayload) {
  const std::string engine = ", issue_interval: 5ns, write_byte_time: 10ps, write_interval: 50ns, write_payload: 128B";
  std::string topo = plain_host(engine);
  const auto r = simulate(topo, "[{type: bench_bw, name: small, device: warm, op: wr, size: 16B, transactions: 2000},"
                                " {type: bench_bw, name: big, device: cold, op: wr, size: 1KiB, transactions: 200}]");
  EXPECT_NEAR(r["metrics"]["small.transactions_per_s"].get<double>(), 20e6, 20e6 * 0.01);
  EXPECT_EQ(r["stats"]["cold.up.tx_tlps"]["value"].get<int>(), 200 * 8);
  EXPECT_EQ(r["stats"]["warm.up.tx_tlps"]["value"].get<int>(), 2000);
}

// The write path forms one TLP at a time: each TLP of a write command after
// its first adds `write_tlp_interval` to the command's period, whatever its
// size. With 128 B TLPs, 129 B writes (128 B and 1 B) take 80 ns and 257 B
// ones 110 ns, far above their link and per-byte times (`write_interval`
// alone: 50 ns, as BenchDma.WriteCommandPeriodAndPayload shows): 12.5 and
// 9.09 M writes/s.
TEST(BenchDma, EachWriteTlpAfterTheFirstAddsItsInterval) {
  const std::string engine = ", issue_interval: 5ns, write_interval: 50ns, write_tlp_interval: 30ns, write_payload: 128B";
  std::string topo = plain_host(engine);
  const auto r = simulate(topo, "[{type: bench_bw, name: two, device: warm, op: wr, size: 129B, transactions: 2000},"
                                " {type: bench_bw, name: three, device: cold, op: wr, size: 257B, transactions: 2000}]");
  EXPECT_NEAR(r["metrics"]["two.transactions_per_s"].get<double>(), 12.5e6, 12.5e6 * 0.01);
  EXPECT_NEAR(r["metrics"]["three.transactions_per_s"].get<double>(), 1e9 / 110, 1e9 / 110 * 0.01);
  EXPECT_EQ(r["stats"]["warm.up.tx_tlps"]["value"].get<int>(), 2000 * 2);
  EXPECT_EQ(r["stats"]["cold.up.tx_tlps"]["value"].get<int>(), 2000 * 3);
}

// A read whose length ends in part of a 4-byte word holds the command path
// for `read_partial_interval`: 63 B reads at one per 40 ns (25 M/s), where
// 64 B reads, on the same path, run at least 50% faster.
TEST(BenchDma, AReadEndingInPartOfAWordTakesItsInterval) {
  std::string topo = plain_host(", issue_interval: 5ns, read_partial_interval: 40ns");
  const auto r = simulate(topo, "[{type: bench_bw, name: part, device: warm, op: rd, size: 63B, transactions: 2000},"
                                " {type: bench_bw, name: whole, device: cold, op: rd, size: 64B, transactions: 2000}]");
  EXPECT_NEAR(r["metrics"]["part.transactions_per_s"].get<double>(), 25e6, 25e6 * 0.01);
  EXPECT_GT(r["metrics"]["whole.transactions_per_s"].get<double>(), 1.5 * 25e6);
}

// An engine that retires commands in issue order holds a fast write behind
// the slower read before it: with two commands in flight, reads and writes
// alternating, they retire in pairs, one pair per read's turnaround (the
// other engine measures that turnaround alone), where out of order the
// write slot would keep cycling. BW_DMA_RW counts pairs, as pcie-bench
// does (half the transactions: one direction's bytes), and its total both.
TEST(BenchDma, InOrderRetirementHoldsYoungerCommands) {
  std::string topo = plain_host(", max_outstanding: 2, retire_in_order: true");
  const auto r = simulate(topo, "[{type: bench_lat, name: lat, device: warm, op: rd, size: 64B, window: 4KiB, reps: 50},"
                                " {type: bench_bw, name: rw, device: cold, op: rw, size: 64B, transactions: 2000}]");
  const double pair_rate = 1 / (median(r, "lat") * 1e-9);
  const double rate = r["metrics"]["rw.transactions_per_s"].get<double>();
  EXPECT_DOUBLE_EQ(r["metrics"]["rw.gbit_per_s"].get<double>(), rate * 64 * 8 / 1e9);
  EXPECT_DOUBLE_EQ(r["metrics"]["rw.total_gbit_per_s"].get<double>(), 2 * r["metrics"]["rw.gbit_per_s"].get<double>());
  EXPECT_LE(rate, pair_rate * 1.05);
  EXPECT_GE(rate, pair_rate * 0.8);
  EXPECT_GE(r["stats"]["cold.bench.retire_waits"]["value"].get<double>(), 900);  // about one write per pair
}

// Mixed traffic: every line read or written passes the host's one coherent
// line pipeline, so BW_DMA_RW's reads and writes share its rate. With a
// 20 ns line (25.6 Gb/s, far below either link direction) both directions
// together move 25.6 Gb/s and each direction half, where reads alone or
// writes alone would each have it all. A 1 MiB window keeps reads and
// writes off each other's lines.
TEST(BenchDma, MixedTrafficSharesTheLinePipeline) {
  std::string topo = plain_host(", max_outstanding: 16");
  topo.replace(topo.find("line_interval: 1ns"), 18, "line_interval: 20ns");
  const auto r = simulate(topo, "[{type: bench_bw, name: rw, device: warm, op: rw, size: 1KiB, window: 1MiB, transactions: 2000}]");
  EXPECT_NEAR(r["metrics"]["rw.total_gbit_per_s"].get<double>(), 25.6, 25.6 * 0.02);
  EXPECT_NEAR(r["metrics"]["rw.gbit_per_s"].get<double>(), 12.8, 12.8 * 0.02);
}

// Below 4 GiB a memory request must use the 3-DW header (PCIe sec. 2.2.4.1):
// a 128 B write to DRAM at 1 GiB is 12 + 128 + 8 = 148 B on a Gen3 link.
TEST(BenchDma, RequestsBelow4GiBUseThe3DwHeader) {
  std::string topo = plain_host();
  topo.replace(topo.find("read_line_interval: 0ns"), 23, "read_line_interval: 0ns, dram_base: 1GiB, dram_size: 1GiB");
  const auto r = simulate(topo, "[{type: bench_bw, name: w, device: warm, op: wr, size: 128B, transactions: 100}]");
  const auto& s = r["stats"];
  EXPECT_EQ(s["warm.up.tx_tlps"]["value"].get<int>(), 100);
  EXPECT_EQ(s["warm.up.tx_bytes"]["value"].get<double>() - 8.0 * s["warm.up.tx_dllps"]["value"].get<double>(), 100 * 148.0);
}

// Read requests shorter than `cpl_combine_min` are answered with one
// completion per RCB (64 B) even when the lines are ready together; longer
// ones are combined up to cpl_max (256 B here).
namespace {
int completions_of_reads(const std::string& size, int n) {
  std::string topo = plain_host();
  topo.replace(topo.find("read_line_interval: 0ns"), 23, "read_line_interval: 0ns, cpl_combine_min: 512B");
  const auto r = simulate(topo, "[{type: bench_bw, name: rd, device: warm, op: rd, size: " + size +
                                    ", window: 64KiB, transactions: " + std::to_string(n) + "}]");
  return r["stats"]["host.completions"]["value"].get<int>();
}
}  // namespace
TEST(RootComplex, ShortReadsGetOneCompletionPerLine) { EXPECT_EQ(completions_of_reads("256B", 100), 400); }
TEST(RootComplex, LongReadsGetCombinedCompletions) {
  const int n = completions_of_reads("512B", 100);
  EXPECT_GE(n, 200);
  EXPECT_LT(n, 400);
}
// The rule counts lines: a 511 B read of eight whole lines is combined too.
TEST(RootComplex, CombiningCountsTheLinesARequestTouches) {
  const int n = completions_of_reads("511B", 100);
  EXPECT_GE(n, 200);
  EXPECT_LT(n, 400);
}

// pcie-bench's address layout: the window is cut into units of the size
// rounded up to 64 B, and no transfer crosses a 4 KiB boundary. 768 B
// transfers (MRRS 512 B) are then always two requests, which a 768 B-aligned
// layout would not give (the unit at 3840 B crosses); 63 B transfers each
// touch one line.
namespace {
nlohmann::json bench_reads(const std::string& size, int n) {
  std::string topo = plain_host();
  return simulate(topo, "[{type: bench_bw, name: rd, device: warm, op: rd, size: " + size +
                            ", window: 8KiB, pattern: rand, transactions: " + std::to_string(n) + "}]")["stats"];
}
}  // namespace
TEST(BenchLayout, NoTransferCrossesA4KiBBoundary) { EXPECT_EQ(bench_reads("768B", 500)["host.reads"]["value"].get<int>(), 1000); }
TEST(BenchLayout, UnitsAreWholeLines) { EXPECT_EQ(bench_reads("63B", 500)["host.memory.lines_read"]["value"].get<int>(), 500); }

// The host's LLC: a window the host has just written (host_cache: warm) is
// read at read_latency; a cold one pays llc_miss more on every read, the
// second pass over it too (DMA reads that miss do not allocate).
TEST(HostCache, AColdLineCostsTheMissLatency) {
  std::string topo = plain_host();
  topo.replace(topo.find("memory: {read_latency: 80ns}"), 28,
               "memory: {read_latency: 80ns, llc_size: 64KiB, llc_ways: 16, llc_miss: 100ns}");
  const auto r = simulate(topo, "[{type: bench_lat, name: hit, device: warm, op: rd, size: 64B, window: 16KiB, reps: 50},"
                                " {type: bench_lat, name: miss, device: cold, op: rd, size: 64B, window: 16KiB, reps: 300,"
                                " host_cache: cold}]");
  EXPECT_NEAR(median(r, "miss") - median(r, "hit"), 100.0, 2.0);
  EXPECT_EQ(r["stats"]["host.memory.llc_misses"]["value"].get<int>(), 300);  // 256 lines, then 44 of them again
}

// The Coyote MMU: with memory not mapped by the driver, every page a
// transfer touches for the first time is one interrupt, driver work and
// fill; misses are served one at a time, so the transfer takes at least that
// long per miss. The destination must hold the source's bytes afterwards
// (the workload checks it).
const char* kCoyoteHost =
    "platform: t\nlink_defaults: {latency: 10ns}\n"
    "nodes:\n"
    "  host: {type: root_complex, cpu: {irq_latency: 2us, os_tick_period: 0ns}}\n"
    "  fpga: {type: endpoint, device: coyote, coyote: {driver_miss: 1us}}\n"
    "links: [{up: host, down: fpga, gen: 3, width: 16}]\n";

TEST(CoyoteMmu, EveryNewSmallPageIsADriverRoundTrip) {
  const auto r = simulate(kCoyoteHost, "[{type: coyote_perf, name: p, device: fpga, mode: lat, size: 64KiB, reps: 1,"
                                       " page_size: 4KiB, mapped: false}]");
  const auto& s = r["stats"];
  // 16 source and 16 destination pages (the completion writeback goes to a
  // driver buffer by physical address, untranslated).
  EXPECT_EQ(s["fpga.coyote.tlb_misses"]["value"].get<int>(), 32);
  EXPECT_EQ(s["fpga.coyote.stlb.misses"]["value"].get<int>(), 32);
  EXPECT_EQ(s["host_cpu.irqs"]["value"].get<int>(), 32);
  EXPECT_GT(r["metrics"]["p.latency_us"].get<double>(), 32 * 3.0);
  EXPECT_EQ(s["fpga.coyote.packets"]["value"].get<int>(), 16);
}

// Mapped memory (Coyote's default): the driver installs the buffers'
// translations when it maps them, so the same transfer never misses.
TEST(CoyoteMmu, MappedBuffersDoNotMiss) {
  const auto r = simulate(kCoyoteHost, "[{type: coyote_perf, name: p, device: fpga, mode: lat, size: 64KiB, reps: 1,"
                                       " page_size: 4KiB}]");
  const auto& s = r["stats"];
  EXPECT_EQ(s["fpga.coyote.tlb_misses"]["value"].get<int>(), 0);
  EXPECT_EQ(s["fpga.coyote.stlb.hits.4KiB"]["value"].get<int>(), 32);
  EXPECT_EQ(s["host_cpu.irqs"]["value"].get<int>(), 0);
  EXPECT_LT(r["metrics"]["p.latency_us"].get<double>(), 32 * 3.0);
}

// The shell's user logic stream takes one transfer at a time: back to back,
// a 16 KiB transfer holds it for its 256 beats (64 B a cycle) plus the gap
// before the next transfer, whatever the link and memory could carry
// meanwhile (they take 2.6 us a transfer on this host): 32 transfers take
// 31 such intervals after the first transfer's own latency (under 7 us).
// (One simulation per process: each case is its own test.)
namespace {
double coyote_back_to_back_us(int gap_cycles) {
  std::string topo = kCoyoteHost;
  topo.replace(topo.find("driver_miss: 1us"), 16, "driver_miss: 1us, xfer_gap_cycles: " + std::to_string(gap_cycles));
  const auto r = simulate(topo, "[{type: coyote_perf, name: p, device: fpga, mode: thr, size: 16KiB, reps: 32}]");
  return 32 * 16384 / (r["metrics"]["p.throughput_MiBps"].get<double>() * 1.048576);  // all 32
}
constexpr double kStreamHeldUs = (1500 + 256) * 0.004;  // gap and beats at 250 MHz
}  // namespace

TEST(CoyoteStream, BackToBackTransfersPassOneAtATime) {
  const double us = coyote_back_to_back_us(1500);
  EXPECT_GE(us, 31 * kStreamHeldUs);
  EXPECT_LT(us, 32 * kStreamHeldUs);
}

TEST(CoyoteStream, WithoutAGapTransfersOverlap) { EXPECT_LT(coyote_back_to_back_us(0), 0.6 * 31 * kStreamHeldUs); }

// An ATS invalidation goes down as a message routed by ID, empties the
// device's ATC and comes back as a completion: the next access to the page
// misses again, in the ATC and the IOTLB both.
TEST(Ats, InvalidationMakesTheNextAccessMiss) {
  const std::string topo = iommu_host(", ats: true, atc_entries: 8, atc_miss: 300ns");
  const auto r = simulate(topo, "[{type: bench_lat, name: hit, device: warm, op: rd, size: 64B, window: 4KiB, reps: 10},"
                                " {type: bench_lat, name: miss, device: cold, op: rd, size: 64B, window: 4KiB, reps: 10, invalidate: true}]");
  const auto& s = r["stats"];
  EXPECT_EQ(s["cold.bench.ats_invalidations"]["value"].get<int>(), 10);
  EXPECT_EQ(s["cold.bench.atc.misses"]["value"].get<int>(), 10);
  EXPECT_EQ(s["warm.bench.atc.misses"]["value"].get<int>(), 1);
  EXPECT_EQ(s["host.iommu.invalidations"]["value"].get<int>(), 10);
  EXPECT_EQ(s["host.iommu.walks"]["value"].get<int>(), 11);  // warm once, cold after every invalidation
  EXPECT_NEAR(median(r, "miss") - median(r, "hit"), r["metrics"]["miss.ats_rtt_ns"].get<double>() + 300.0, 4.0);
}

// Two root ports, each its own PCI segment, with equal bus numbers below
// them: DMA reads (completions routed by ID) and a peer write across the
// root complex reach the right device in each segment.
TEST(Segments, CompletionsAndPeerWritesFindTheirSegment) {
  const std::string topo =
      "platform: seg\nlink_defaults: {latency: 10ns, gen: 3, width: 4}\n"
      "defaults: {endpoint: {device: rosta}}\n"
      "nodes: {host: {type: root_complex, root_ports: 2, segment_per_root_port: true},\n"
      "        s0: {type: switch}, s1: {type: switch}, a0: {type: endpoint}, b0: {type: endpoint},\n"
      "        a1: {type: endpoint}, b1: {type: endpoint}}\n"
      "links: [{up: host, down: s0}, {up: host, down: s1}, {up: s0, down: a0}, {up: s0, down: b0},\n"
      "        {up: s1, down: a1}, {up: s1, down: b1}]\n";
  const auto r = simulate(topo, "[{type: rosta_dma, name: rd, op: read, devices: [a0, a1], count: 2, bytes: 64KiB},"
                                " {type: rosta_peer, name: p, pairs: [[b0, b1]], bytes: 64KiB}]");
  const auto& st = r["stats"];
  // Each reader got its whole 64 KiB back (plus its descriptors): a
  // completion at the wrong device would fail its payload check or leave a
  // read unfinished. The peer write crossed the host into the other segment.
  EXPECT_GE(st["a0.rx_bytes"]["value"].get<double>(), 65536.0);
  EXPECT_GE(st["a1.rx_bytes"]["value"].get<double>(), 65536.0);
  EXPECT_EQ(st["b1.rx_bytes"]["value"].get<double>(), 65536.0);
  EXPECT_GT(r["links"]["host.rp1"]["tx_payload_B"].get<double>(), 2 * 65536.0 - 1);
}

// Property test over random platforms: random switch trees (depth up to 3,
// 2-4 downstream ports), random link generations and widths, endpoints at
// the leaves, and random traffic (host DMA writes or reads on half of them,
// peer writes between the others). Every run must finish with every byte
// delivered and conservation holding (the runner checks it), or stop with a
// diagnosed deadlock; nothing else is acceptable.
class RandomPlatform : public ::testing::TestWithParam<int> {};
TEST_P(RandomPlatform, FinishesOrDiagnosesADeadlock) {
  std::mt19937 rng(static_cast<unsigned>(GetParam()) * 7919u + 17u);
  auto pick = [&](int lo, int hi) { return lo + static_cast<int>(rng() % static_cast<unsigned>(hi - lo + 1)); };
  std::string nodes = "  host: {type: root_complex, root_ports: 4}\n", links;
  std::vector<std::string> eps;
  int nsw = 0;
  const int widths[] = {1, 2, 4, 8, 16};
  std::function<void(const std::string&, int)> grow = [&](const std::string& up, int depth) {
    const int children = up == "host" ? pick(1, 2) : pick(2, 4);
    for (int c = 0; c < children; ++c) {
      const bool sw = depth < 3 && rng() % 3 == 0;
      const std::string name = sw ? "sw" + std::to_string(nsw++) : "ep" + std::to_string(eps.size());
      if (sw) nodes += "  " + name + ": {type: switch, latency: " + std::to_string(pick(50, 200)) + "ns}\n";
      else {
        nodes += "  " + name + ": {type: endpoint, device: rosta}\n";
        eps.push_back(name);
      }
      links += "  - {up: " + up + ", down: " + name + ", gen: " + std::to_string(pick(1, 4)) + ", width: " +
               std::to_string(widths[pick(0, 4)]) + "}\n";
      if (sw) grow(name, depth + 1);
    }
  };
  grow("host", 0);
  const std::string topo = "platform: random\nnodes:\n" + nodes + "links:\n" + links;
  // Traffic: the first half (at least one) DMA to or from the host, the rest
  // write to a peer.
  const std::size_t half = (eps.size() + 1) / 2;
  std::string dev_list, pairs;
  for (std::size_t i = 0; i < half; ++i) dev_list += (i ? ", " : "") + eps[i];
  // Peers in a random ring: each sends once and receives once.
  std::vector<std::string> peers(eps.begin() + static_cast<long>(half), eps.end());
  std::shuffle(peers.begin(), peers.end(), rng);
  if (peers.size() >= 2)
    for (std::size_t i = 0; i < peers.size(); ++i)
      pairs += std::string(i ? ", " : "") + "[" + peers[i] + ", " + peers[(i + 1) % peers.size()] + "]";
  std::string wl = "[{type: rosta_dma, name: h, op: " + std::string(rng() % 2 ? "write" : "read") + ", devices: [" + dev_list +
                  "], count: " + std::to_string(half) + ", bytes: 64KiB}";
  if (!pairs.empty()) wl += ", {type: rosta_peer, name: p, pairs: [" + pairs + "], bytes: 64KiB}";
  wl += "]";
  try {
    const auto r = simulate(topo, wl);
    EXPECT_GT(r["meta"]["tlp_hops"].get<double>(), 0) << topo << wl;
  } catch (const hx::SimError& e) {
    EXPECT_NE(std::string(e.what()).find("deadlock"), std::string::npos) << e.what() << "\n" << topo << wl;
  }
}
INSTANTIATE_TEST_SUITE_P(Seeds, RandomPlatform, ::testing::Range(0, 24));

// A device kind registered from outside (as a user's RTL endpoint will be):
// the topology accepts it under `device:`, checks its BAR need at the key,
// and elaboration makes its model. Only this process sees the registration.
namespace {
struct ProbeDevice final : public hx::pcie::Device {
  static inline int made = 0;
  void on_write(const hx::pcie::Tlp&) override {}
  void on_completion(const hx::pcie::Tlp&) override {}
  bool busy() const override { return false; }
};
void register_probe() {
  hx::topo::register_device_kind(
      {"probe", "a test device",
       [](const hx::cfg::Cursor& s, hx::topo::DeviceConfigs&) {
         if (s.node && s.is_map()) s.keys({});
       },
       [](const hx::topo::DeviceConfigs&) -> std::uint64_t { return 1u << 20; },
       [](const std::string&, const hx::topo::DeviceConfigs&) -> std::unique_ptr<hx::pcie::Device> {
         ++ProbeDevice::made;
         return std::make_unique<ProbeDevice>();
       }});
}
}  // namespace

std::string with_probe(const std::string& probe) {
  return "platform: t\nlink_defaults: {latency: 10ns, gen: 3, width: 8}\n"
         "nodes: {host: {type: root_complex}, sw: {type: switch}, a: {type: endpoint, device: rosta},\n"
         "        b: {type: endpoint, device: probe" + probe + "}}\n"
         "links: [{up: host, down: sw}, {up: sw, down: a}, {up: sw, down: b}]\n";
}
const char* kOneDma = "[{type: rosta_dma, name: d, devices: [a], op: write, bytes: 64KiB}]";

TEST(DeviceKinds, ARegisteredKindIsParsedCheckedAndElaborated) {
  register_probe();
  simulate(with_probe(", endpoint: {bar_size: 1MiB}"), kOneDma);
  EXPECT_EQ(ProbeDevice::made, 1);
  EXPECT_THROW(hx::topo::register_device_kind({"probe", "", {}, {}, {}}), std::invalid_argument);
  expect_input_error(with_probe(", endpoint: {bar_size: 64KiB}"), kOneDma, {"nodes.b.endpoint.bar_size", "a probe device needs a BAR0 of at least 1024KiB"});
  expect_input_error(with_probe(", endpoint: {bar_size: 1MiB}, probe: {x: 1}"), kOneDma, {"unknown key 'x'"});
  expect_input_error(with_probe(", endpoint: {bar_size: 1MiB}, rosta: {clock: 100MHz}"), kOneDma,
                     {"settings for a 'rosta' device on a 'probe' endpoint"});
  // A null section is how a study removes the old device's settings when it switches the device.
  const YAML::Node removed = YAML::Load(with_probe(", endpoint: {bar_size: 1MiB}, rosta: ~"));
  const auto t = hx::topo::load_topology(hx::cfg::root_cursor(removed, "t.yaml"), "t.yaml");
  EXPECT_EQ(t.node("b").device, "probe");
}

namespace {
// Two pcie-bench engines behind a cut-through switch: `timed` measured,
// `flood` to load the fabric. The root port advertises `np_hdr` non-posted
// header credits.
std::string breakdown_topo(const std::string& host_extra = "", int np_hdr = 32) {
  const std::string nic = "{type: endpoint, device: bench, endpoint: {tx_latency: 50ns, rx_latency: 40ns},\n"
                          "        bench: {cmd_latency: 10ns, done_latency: 5ns}}\n";
  return "platform: t\nlink_defaults: {latency: 10ns}\n"
         "nodes:\n"
         "  host: {type: root_complex, port: {np_hdr: " + std::to_string(np_hdr) + "},\n"
         "         rc: {inbound_latency: 70ns, line_interval: 1ns, read_line_interval: 0ns},\n"
         "         memory: {read_latency: 80ns}" + host_extra + "}\n"
         "  sw: {type: switch, latency: 150ns}\n"
         "  timed: " + nic + "  flood: " + nic +
         "links: [{up: host, down: sw, gen: 3, width: 8}, {up: sw, down: timed, gen: 3, width: 8},"
         " {up: sw, down: flood, gen: 3, width: 8}]\n";
}
double sum_of(const std::map<std::string, double>& m) {
  double t = 0;
  for (const auto& [k, v] : m) t += v;
  return t;
}
}  // namespace

// A lone read's breakdown is its mechanisms' constants where they are
// constants: both hard-block pipelines (50 + 40 ns), four link hops (4 x
// 10 ns), two switch passes (2 x 150 ns), the inbound pipeline (70 ns),
// the engine's command and done latencies (10 + 5 ns); and its stages add
// up to its latency (every run checks that per transaction: Breakdown::add).
TEST(Breakdown, ALoneReadIsItsStagesConstants) {
  const auto r = simulate(breakdown_topo(), "[{type: bench_lat, name: lat, device: timed, op: rd, size: 64B, window: 4KiB, reps: 20}]");
  const auto s = stages(r, "lat.LAT_DMA_RD_ns");
  EXPECT_EQ(r["breakdowns"]["lat.LAT_DMA_RD_ns"]["transactions"].get<int>(), 20);
  EXPECT_NEAR(s.at("hard_block"), 90.0, 1e-9);
  EXPECT_NEAR(s.at("propagation"), 40.0, 1e-9);
  EXPECT_NEAR(s.at("switch"), 300.0, 1e-9);
  EXPECT_NEAR(s.at("device"), 15.0, 1e-9);
  EXPECT_GE(s.at("root_complex"), 70.0);
  EXPECT_GE(s.at("memory"), 80.0);
  EXPECT_GT(s.at("serialisation"), 0.0);
  for (const char* none : {"arbitration", "credit", "ordering", "translation"}) EXPECT_EQ(s.at(none), 0.0) << none;
  EXPECT_NEAR(sum_of(s), r["metrics"]["lat.mean_ns"].get<double>(), 1e-6);
}

// A write-then-read: the read waits for the write to commit (ordering);
// a read alone never does.
TEST(Breakdown, AReadBehindAWriteWaitsForItsCommit) {
  const auto r = simulate(breakdown_topo(), "[{type: bench_lat, name: lat, device: timed, op: wrrd, size: 64B, window: 4KiB, reps: 20}]");
  const auto s = stages(r, "lat.LAT_DMA_WRRD_ns");
  EXPECT_GT(s.at("ordering"), 0.0);
  EXPECT_NEAR(sum_of(s), r["metrics"]["lat.mean_ns"].get<double>(), 1e-6);
}

// A first access to a page: its IOMMU walk (one leaf read of 20 ns plus
// 100 ns of walker overhead, as in Iommu.AMissAddsExactlyOneWalkToARead) is
// the translation stage, and the other stages are those of a hit.
TEST(Breakdown, AnIommuMissIsTranslation) {
  const std::string iommu = ",\n         iommu: {enabled: true, walkers: 1, walk_overhead: 100ns, pte_read: 20ns, miss_latency: 0ns}";
  const auto r = simulate(breakdown_topo(iommu),
                          "[{type: bench_lat, name: hit, device: timed, op: rd, size: 64B, window: 4KiB, reps: 20},"
                          " {type: bench_lat, name: miss, device: flood, op: rd, size: 64B, pattern: fresh, reps: 20}]");
  auto hit = stages(r, "hit.LAT_DMA_RD_ns"), miss = stages(r, "miss.LAT_DMA_RD_ns");
  EXPECT_NEAR(miss.at("translation") - hit.at("translation"), 120.0, 2.0);
  hit.erase("translation");
  miss.erase("translation");
  EXPECT_NEAR(sum_of(miss), sum_of(hit), 2.0);
}

// With one non-posted header credit at the root port and another engine
// keeping reads in flight, the timed read's request waits at the switch for
// the credit: credit wait, told apart from arbitration.
TEST(Breakdown, ARequestWithoutCreditsWaitsInCredit) {
  const auto r = simulate(breakdown_topo("", 1),
                          "[{type: bench_lat, name: lat, device: timed, op: rd, size: 64B, window: 4KiB, reps: 50},"
                          " {type: bench_bw, name: bw, device: flood, op: rd, size: 64B, window: 4KiB, transactions: 20000}]");
  const auto s = stages(r, "lat.LAT_DMA_RD_ns");
  EXPECT_GT(s.at("credit"), 10.0);
  EXPECT_NEAR(sum_of(s), r["metrics"]["lat.mean_ns"].get<double>(), 1e-6);
}

// A root complex on each of two sockets, a bench device below each, the
// socket link between them with parameters `link`.
std::string two_sockets(const std::string& link = "latency: 60ns, bandwidth: 20GB/s") {
  return R"(platform: two_sockets
nodes:
  cpu0: {type: root_complex}
  cpu1: {type: root_complex, socket: 1, rc: {dram_base: 128GiB}}
  dev0: {type: endpoint, device: bench}
  dev1: {type: endpoint, device: bench}
links:
  - {up: cpu0, down: dev0, gen: 3, width: 8}
  - {up: cpu1, down: dev1, gen: 3, width: 8}
socket_link: {)" + link + "}\n";
}

double stat(const nlohmann::json& r, const std::string& name) { return r["stats"][name]["value"].get<double>(); }

// A device on socket 1 reads memory homed on socket 0 (`node: near`) in
// socket 0's memory controller: the request crosses (60 ns), the line comes
// back (its 3.2 ns slot, aligned, and 60 ns); its own socket's memory
// (`node: far`) is read where it is, as socket 0's device reads socket 0's.
TEST(TwoSockets, ReadsGoToTheirHomeAcrossTheSocketLink) {
  const auto r = simulate(two_sockets(),
                          "[{type: bench_lat, name: home0, device: dev1, op: rd, size: 64B, window: 8KiB, reps: 100, node: near},"
                          " {type: bench_lat, name: home1, device: dev1, op: rd, size: 64B, window: 8KiB, reps: 100, node: far},"
                          " {type: bench_lat, name: local, device: dev0, op: rd, size: 64B, window: 8KiB, reps: 100, node: near}]");
  const double far = r["metrics"]["home0.median_ns"].get<double>(), near = r["metrics"]["home1.median_ns"].get<double>();
  EXPECT_GE(far - near, 120.0);
  EXPECT_LE(far - near, 123.2);
  EXPECT_DOUBLE_EQ(near, r["metrics"]["local.median_ns"].get<double>());
  EXPECT_EQ(stat(r, "socket_link.lines_0to1"), 100);  // home0's lines, back to socket 1
  EXPECT_EQ(stat(r, "socket_link.lines_1to0"), 0);
  EXPECT_EQ(stat(r, "cpu0.memory.lines_read"), 200);  // its own device's and socket 1's
  EXPECT_EQ(stat(r, "cpu1.memory.lines_read"), 100);
}

// Lines of the other socket stream at the socket link's rate when it is
// the narrowest: 4 GB/s is 32 Gb/s of a Gen3 x8 link's ~57, while socket
// 0's own device reads the same memory at its link's rate meanwhile.
TEST(TwoSockets, TheSocketLinkBoundsReadsOfTheOtherSocket) {
  const auto r = simulate(two_sockets("latency: 60ns, bandwidth: 4GB/s"),
                          "[{type: bench_bw, name: far, device: dev1, op: rd, size: 256B, window: 1MiB, transactions: 20000},"
                          " {type: bench_bw, name: near, device: dev0, op: rd, size: 256B, window: 1MiB, transactions: 20000}]");
  EXPECT_NEAR(r["metrics"]["far.gbit_per_s"].get<double>(), 32.0, 32.0 * 0.02);
  EXPECT_GT(r["metrics"]["near.gbit_per_s"].get<double>(), 50.0);
  EXPECT_EQ(stat(r, "socket_link.lines_0to1"), 20000 * 4);
}

// A core's MMIO read of the device below socket 1 crosses the link both ways.
TEST(TwoSockets, MmioToTheOtherSocketCrossesTheLinkBothWays) {
  const auto r = simulate(two_sockets(), "[{type: mmio_lat, name: m0, device: dev0, reps: 20, core: 0},"
                                         " {type: mmio_lat, name: m1, device: dev1, reps: 20, core: 1}]");
  EXPECT_NEAR(r["metrics"]["m1.median_ns"].get<double>() - r["metrics"]["m0.median_ns"].get<double>(), 120.0, 1e-6);
}

// The two sockets with an LLC each (1 MiB; a hit 80 ns, a miss 50 ns
// more; a line a snoop from the other socket finds leaves 30 ns after it
// arrives; a write commits 400 ns after it is taken, so that the read
// behind it waits for it), a bench device below each. Neither the
// memory channels nor the socket link limit the rate, so no slot of theirs
// moves a line to its calendar's grid and every sum below is exact.
std::string two_sockets_with_llcs() {
  const std::string mem = "{llc_size: 1MiB, llc_miss: 50ns, llc_forward: 30ns, partial_rmw: false, write_latency: 400ns, channel_bw: 64000GB/s}";
  return R"(platform: two_sockets_llc
nodes:
  cpu0: {type: root_complex, memory: )" + mem + R"(}
  cpu1: {type: root_complex, socket: 1, rc: {dram_base: 128GiB}, memory: )" + mem + R"(}
  dev0: {type: endpoint, device: bench}
  dev1: {type: endpoint, device: bench}
links:
  - {up: cpu0, down: dev0, gen: 3, width: 8}
  - {up: cpu1, down: dev1, gen: 3, width: 8}
socket_link: {latency: 60ns, bandwidth: 0GB/s}
)";
}

// Socket 0's LLC serves a line it holds whatever its home: socket 1's
// memory, warmed by a core of socket 0, reads as socket 0's own warm
// memory. A line of socket 1 that socket 0's LLC lacks is read at its home
// across the link (the request 60 ns, the line 60 ns back), cold or warm
// there alike: the home starts its memory read as
// it looks the line up, so no LLC miss is paid, unlike socket 0's own cold
// memory (50 ns more).
TEST(TwoSockets, AnLlcServesLinesOfAnyHomeAndAHomeReadsForAnotherSocketAtOnce) {
  const auto r = simulate(two_sockets_with_llcs(),
                          "[{type: bench_lat, name: local, device: dev0, op: rd, size: 64B, window: 8KiB, reps: 100},"
                          " {type: bench_lat, name: local_cold, device: dev0, op: rd, size: 64B, window: 8KiB, reps: 100, host_cache: cold},"
                          " {type: bench_lat, name: far_held_here, device: dev0, op: rd, size: 64B, window: 8KiB, reps: 100, node: far, host_node: near},"
                          " {type: bench_lat, name: far_warm, device: dev0, op: rd, size: 64B, window: 8KiB, reps: 100, node: far},"
                          " {type: bench_lat, name: far_cold, device: dev0, op: rd, size: 64B, window: 8KiB, reps: 100, node: far, host_cache: cold}]");
  const auto median = [&](const char* n) { return r["metrics"][std::string(n) + ".median_ns"].get<double>(); };
  const double local = median("local");
  EXPECT_DOUBLE_EQ(median("local_cold") - local, 50.0);
  EXPECT_DOUBLE_EQ(median("far_held_here"), local);
  for (const char* n : {"far_warm", "far_cold"}) EXPECT_DOUBLE_EQ(median(n) - local, 120.0) << n;
  EXPECT_EQ(stat(r, "socket_link.lines_1to0"), 200);  // far_warm's and far_cold's lines
  EXPECT_EQ(stat(r, "cpu0.memory.llc_misses"), 100);  // local_cold's: the home's reads for socket 0 pay none
}

// A line of socket 0's memory that only socket 1's LLC holds (a core of
// socket 1 wrote it) is snooped there: the snoop crosses (60 ns), the line
// leaves 30 ns after it arrives and comes back (60 ns): 150 ns where a hit
// in socket 0's LLC takes its read latency (80 ns).
TEST(TwoSockets, ALineOnlyTheOtherSocketsLlcHoldsIsForwardedFromThere) {
  const auto r = simulate(two_sockets_with_llcs(),
                          "[{type: bench_lat, name: local, device: dev0, op: rd, size: 64B, window: 8KiB, reps: 100},"
                          " {type: bench_lat, name: snooped, device: dev0, op: rd, size: 64B, window: 8KiB, reps: 100, host_node: far}]");
  EXPECT_DOUBLE_EQ(r["metrics"]["snooped.median_ns"].get<double>() - r["metrics"]["local.median_ns"].get<double>(), 70.0);
  EXPECT_EQ(stat(r, "socket_link.lines_1to0"), 100);
  EXPECT_EQ(stat(r, "cpu0.memory.llc_misses"), 0);
  EXPECT_EQ(stat(r, "cpu1.memory.lines_read"), 0);  // forwarded from the LLC, not read from memory
}

// A DMA write goes into the writer's socket's LLC (DDIO). A line homed on
// the other socket first takes its ownership there (a request over the
// link and an acknowledgement back, 120 ns, no line carried): the device of
// socket 1 writing socket 0's memory, then reading it back (the read waits
// for the write's commit), takes 120 ns longer than socket 0's device
// doing the same, and the line stays in socket 1's LLC.
TEST(TwoSockets, AWriteOfAnotherSocketsLineTakesItsOwnershipFirst) {
  const auto r = simulate(two_sockets_with_llcs(),
                          "[{type: bench_lat, name: own, device: dev0, op: wrrd, size: 64B, window: 8KiB, reps: 100, host_cache: cold},"
                          " {type: bench_lat, name: other, device: dev1, op: wrrd, size: 64B, window: 8KiB, reps: 100, host_cache: cold}]");
  EXPECT_DOUBLE_EQ(r["metrics"]["other.median_ns"].get<double>() - r["metrics"]["own.median_ns"].get<double>(), 120.0);
  EXPECT_EQ(stat(r, "socket_link.lines_0to1") + stat(r, "socket_link.lines_1to0"), 0);
  EXPECT_EQ(stat(r, "cpu0.memory.lines_written"), 100);  // the own writes'; the other's went into socket 1's LLC
  EXPECT_EQ(stat(r, "cpu1.memory.lines_written"), 100);
}

// Ownership is taken once: after a long run's untimed writes socket 0's
// LLC holds socket 1's lines, and a write-then-read of them takes as long
// as socket 1's device takes on its own memory. A write also leaves the
// other socket's LLC: socket 1's lines that socket 0's core had written
// are gone from socket 0's LLC once socket 1's device writes them, and the
// read behind the write hits socket 1's LLC rather than the snoop.
TEST(TwoSockets, OwnershipIsTakenOnceAndAWriteLeavesTheOtherLlc) {
  const auto r = simulate(two_sockets_with_llcs(),
                          "[{type: bench_lat, name: owned, device: dev0, op: wrrd, size: 64B, window: 8KiB, reps: 100, node: far, host_cache: cold, untimed: 128},"
                          " {type: bench_lat, name: own, device: dev1, op: wrrd, size: 64B, window: 8KiB, reps: 100, node: far, host_node: near}]");
  EXPECT_DOUBLE_EQ(r["metrics"]["owned.median_ns"].get<double>(), r["metrics"]["own.median_ns"].get<double>());
  EXPECT_EQ(stat(r, "socket_link.lines_0to1") + stat(r, "socket_link.lines_1to0"), 0);
}

// Root complexes on three sockets in a line, 0 - 1 - 2 (no link joins 0
// and 2), a bench device below each.
std::string three_sockets() {
  return R"(platform: three_sockets
nodes:
  cpu0: {type: root_complex}
  cpu1: {type: root_complex, rc: {dram_base: 128GiB}}
  cpu2: {type: root_complex, rc: {dram_base: 256GiB}}
  dev0: {type: endpoint, device: bench}
  dev1: {type: endpoint, device: bench}
  dev2: {type: endpoint, device: bench}
links:
  - {up: cpu0, down: dev0, gen: 3, width: 8}
  - {up: cpu1, down: dev1, gen: 3, width: 8}
  - {up: cpu2, down: dev2, gen: 3, width: 8}
socket_links:
  - {sockets: [0, 1], latency: 60ns, bandwidth: 20GB/s}
  - {sockets: [1, 2], latency: 60ns, bandwidth: 20GB/s}
)";
}

// A device on socket 2 reads socket 0's memory through socket 1: the
// request crosses both links (120 ns), the line comes back over both (a
// 3.2 ns slot, aligned, and 60 ns each), twice what one crossing costs the
// device on socket 1; its own socket's memory (`node: 2`) it reads where
// it is, as socket 0's device reads socket 0's.
TEST(ThreeSockets, AReadOfMemoryTwoSocketsAwayCrossesBothLinksBothWays) {
  const auto r = simulate(three_sockets(),
                          "[{type: bench_lat, name: two, device: dev2, op: rd, size: 64B, window: 8KiB, reps: 100, node: near},"
                          " {type: bench_lat, name: one, device: dev1, op: rd, size: 64B, window: 8KiB, reps: 100, node: near},"
                          " {type: bench_lat, name: own, device: dev2, op: rd, size: 64B, window: 8KiB, reps: 100, node: 2},"
                          " {type: bench_lat, name: local, device: dev0, op: rd, size: 64B, window: 8KiB, reps: 100, node: near}]");
  const double local = r["metrics"]["local.median_ns"].get<double>();
  const double one = r["metrics"]["one.median_ns"].get<double>() - local, two = r["metrics"]["two.median_ns"].get<double>() - local;
  EXPECT_GE(one, 120.0);
  EXPECT_LE(one, 123.2);
  EXPECT_GE(two, 240.0);
  EXPECT_LE(two, 246.4);
  EXPECT_DOUBLE_EQ(r["metrics"]["own.median_ns"].get<double>(), local);
  EXPECT_EQ(stat(r, "socket_link_0_1.lines_0to1"), 200);  // both remote readers' lines leave socket 0
  EXPECT_EQ(stat(r, "socket_link_1_2.lines_1to2"), 100);  // socket 2's pass socket 1 on
  EXPECT_EQ(stat(r, "socket_link_1_2.lines_2to1"), 0);
  EXPECT_EQ(stat(r, "cpu2.memory.lines_read"), 100);
}

// A core's MMIO read of the device below socket 2 crosses both links, both
// ways.
TEST(ThreeSockets, MmioToADeviceTwoSocketsAwayCrossesBothLinksBothWays) {
  const auto r = simulate(three_sockets(), "[{type: mmio_lat, name: m0, device: dev0, reps: 20, core: 0},"
                                           " {type: mmio_lat, name: m2, device: dev2, reps: 20, core: 1}]");
  EXPECT_NEAR(r["metrics"]["m2.median_ns"].get<double>() - r["metrics"]["m0.median_ns"].get<double>(), 240.0, 1e-6);
}

// DMA writes from socket 2 to socket 0's memory carry their lines over
// both links toward socket 0, and none back.
TEST(ThreeSockets, WritesTwoSocketsAwayCarryTheirLinesOverBothLinks) {
  const auto w = simulate(three_sockets(), "[{type: bench_bw, name: w, device: dev2, op: wr, size: 256B, window: 64KiB, transactions: 1000}]");
  EXPECT_EQ(stat(w, "socket_link_1_2.lines_2to1"), 1000 * 4);
  EXPECT_EQ(stat(w, "socket_link_0_1.lines_1to0"), 1000 * 4);
  EXPECT_EQ(stat(w, "socket_link_0_1.lines_0to1"), 0);
}
