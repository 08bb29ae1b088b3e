// The PCIe switch alone (models/pcie/switch): an upstream and two downstream
// stub partners, routes written by hand (no enumeration, no YAML). Routing,
// ACS redirect, cut-through and store-and-forward timing, round-robin
// arbitration and the ordering rules, against hand-worked figures.
#include <gtest/gtest.h>

#include <memory>

#include "models/core/error.h"
#include "models/pcie/switch.h"
#include "tests/models/port_stub.h"

namespace hx::pcie {
namespace {

constexpr std::uint64_t kWin0 = 0x1000'0000, kWin1 = 0x2000'0000, kWinSize = 1 << 20;

// Ports: 0 up, 1 and 2 down, with windows kWin0 and kWin1 and buses 1 and 2.
struct Rig {
  // `vcs` on every port and link end; `up_arb` at the switch's upstream egress.
  explicit Rig(bool cut_through = true, bool acs = false, PortConfig down0 = PortConfig{}, int vcs = 1,
               VcArbConfig up_arb = VcArbConfig{}) {
    SwitchConfig c;
    c.latency = 100 * kNs;
    c.cut_through = cut_through;
    c.acs_redirect = acs;
    for (auto& pc : {PortConfig{}, PortConfig{}, PortConfig{}}) c.ports.push_back(pc);
    c.ports[1].mps = c.ports[2].mps = c.ports[0].mps = 256;
    for (auto& pc : c.ports) pc.vcs = vcs;
    c.ports[0].vc_arb = up_arb;
    c.routes.resize(3);
    c.routes[1].windows = {AddrRange{kWin0, kWinSize}};
    c.routes[1].sec_bus = c.routes[1].sub_bus = 1;
    c.routes[2].windows = {AddrRange{kWin1, kWinSize}};
    c.routes[2].sec_bus = c.routes[2].sub_bus = 2;
    sw = std::make_unique<Switch>("sw", c);
    PortConfig p;
    p.mps = 256;
    p.vcs = vcs;
    down0.mps = 256;
    down0.vcs = vcs;
    up = std::make_unique<Stub>("host", p);
    d0 = std::make_unique<Stub>("d0", down0);
    d1 = std::make_unique<Stub>("d1", p);
    PciePort::connect(up->port, sw->upstream(), gen(3, 8, 10 * kNs));
    PciePort::connect(sw->downstream(0), d0->port, gen(3, 8, 10 * kNs));
    PciePort::connect(sw->downstream(1), d1->port, gen(3, 8, 10 * kNs));
  }
  std::unique_ptr<Switch> sw;
  std::unique_ptr<Stub> up, d0, d1;
};

TEST(Switch, RoutesByWindowAndCompletionsById) {
  Rig r;
  r.up->send(TlpKind::MemWr, 64, 0, kWin1 + 0x40);
  r.up->send(TlpKind::MemWr, 64, 0, kWin0 + 0x80);
  Tlp* c = r.up->send(TlpKind::CplD, 64);
  c->requester = make_rid(0, 2);  // a completion for a requester on bus 2
  sc_core::sc_start();
  ASSERT_EQ(r.d0->got.size(), 1u);
  EXPECT_EQ(r.d0->got[0].addr, kWin0 + 0x80);
  ASSERT_EQ(r.d1->got.size(), 2u);
  EXPECT_EQ(r.d1->got[0].addr, kWin1 + 0x40);
  EXPECT_EQ(r.d1->got[1].kind, TlpKind::CplD);
  EXPECT_EQ(r.sw->forwarded.value, 3u);
}

TEST(Switch, AnUnclaimedAddressFromUpstreamIsASimulationError) {
  Rig r;
  r.up->send(TlpKind::MemWr, 64, 0, 0x3000'0000);
  try {
    sc_core::sc_start();
    ADD_FAILURE() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("unclaimed address"), std::string::npos) << e.what();
  }
}

TEST(Switch, PeerRequestsGoDirectBetweenDownstreamPorts) {
  Rig r;
  r.d0->send(TlpKind::MemWr, 64, 0, kWin1);
  sc_core::sc_start();
  EXPECT_EQ(r.d1->got.size(), 1u);
  EXPECT_EQ(r.up->got.size(), 0u);
}

TEST(Switch, AcsRedirectSendsPeerRequestsUpstream) {
  Rig r(true, true);
  r.d0->send(TlpKind::MemWr, 64, 0, kWin1);
  sc_core::sc_start();
  EXPECT_EQ(r.d1->got.size(), 0u);
  ASSERT_EQ(r.up->got.size(), 1u);
  EXPECT_EQ(r.sw->redirected.value, 1u);
}

// Equal link rates: cut-through forwards `latency` after the header is in
// (the tail can no longer catch up); store-and-forward `latency` after the tail.
void forwarding_starts_at(bool cut_through) {
  Rig r(cut_through);
  r.up->send(TlpKind::MemWr, 256, 0, kWin0);
  sc_core::sc_start();
  ASSERT_EQ(r.up->tx.size(), 1u);
  ASSERT_EQ(r.d0->rx.size(), 1u);
  const Tick in_head = r.up->tx[0].first + r.up->port.serialize(16) + 10 * kNs;
  const Tick in_tail = r.up->tx[0].second + 10 * kNs;
  const Tick dur = r.up->tx[0].second - r.up->tx[0].first;
  const Tick start = (cut_through ? in_head : in_tail) + 100 * kNs;
  EXPECT_EQ(r.d0->rx[0].second, start + dur + 10 * kNs);
}
TEST(Switch, CutThroughForwardsOnceTheHeaderIsIn) { forwarding_starts_at(true); }
TEST(Switch, StoreAndForwardWaitsForTheTail) { forwarding_starts_at(false); }

// Both downstream ports saturate the upstream link: its egress takes them
// in turn, one TLP each.
TEST(Switch, AnEgressServesItsIngressPortsRoundRobin) {
  Rig r;
  for (int i = 0; i < 8; ++i) {
    r.d0->send(TlpKind::MemWr, 256, 0, 0x8000'0000)->requester = make_rid(0, 1);
    r.d1->send(TlpKind::MemWr, 256, 0, 0x8000'0000)->requester = make_rid(0, 2);
  }
  sc_core::sc_start();
  ASSERT_EQ(r.up->got.size(), 16u);
  for (std::size_t i = 1; i < 16; ++i) EXPECT_NE(r.up->got[i].requester, r.up->got[i - 1].requester) << i;
}

// d0 advertises one posted header credit and never drains: the second write
// waits, and the read behind it must not pass it (PCIe ordering: a read
// never passes an older posted write).
TEST(Switch, AReadNeverPassesAnOlderWrite) {
  {
    PortConfig one_p;
    one_p.credits_hdr = {1, 32, 0};
    Rig r(true, false, one_p);
    r.d0->hold = true;
    r.up->send(TlpKind::MemWr, 64, 0, kWin0);
    r.up->send(TlpKind::MemWr, 64, 0, kWin0 + 64);
    r.up->send(TlpKind::MemRd, 64, 0, kWin0 + 128);
    sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_US));
    ASSERT_EQ(r.d0->got.size(), 1u);
    EXPECT_EQ(r.d0->got[0].kind, TlpKind::MemWr);
    EXPECT_EQ(r.sw->queued(), 2u);
  }
}

// With posted credits free, a write passes a read blocked for non-posted credits.
TEST(Switch, AWriteMayPassAReadBlockedForCredits) {
  PortConfig one_np;
  one_np.credits_hdr = {32, 1, 0};
  Rig r(true, false, one_np);
  r.d0->hold = true;
  r.up->send(TlpKind::MemRd, 64, 0, kWin0);
  r.up->send(TlpKind::MemRd, 64, 0, kWin0 + 64);
  r.up->send(TlpKind::MemWr, 64, 0, kWin0 + 128);
  sc_core::sc_start(sc_core::sc_time(10, sc_core::SC_US));
  ASSERT_EQ(r.d0->got.size(), 2u);
  EXPECT_EQ(r.d0->got[0].kind, TlpKind::MemRd);
  EXPECT_EQ(r.d0->got[1].kind, TlpKind::MemWr);  // past the second read
  EXPECT_EQ(r.sw->queued(), 1u);
}

// VC0 from d0 and VC1 from d1 both saturate the upstream link; the share
// of TLPs each VC gets there is the arbitration's closed form: 1/2 with
// round robin, w1/(w0+w1) weighted, all of VC1 first with strict priority.
std::vector<int> upstream_vcs(const VcArbConfig& arb, int n) {
  Rig r(true, false, PortConfig{}, 2, arb);
  for (int i = 0; i < n; ++i) {
    r.d0->send(TlpKind::MemWr, 256, 0, 0x8000'0000)->vc = 0;
    r.d1->send(TlpKind::MemWr, 256, 0, 0x8000'0000)->vc = 1;
  }
  sc_core::sc_start();
  std::vector<int> vcs;
  for (const Tlp& t : r.up->got) vcs.push_back(t.vc);
  return vcs;
}

TEST(Switch, RoundRobinVcArbitrationGivesEachVcHalf) {
  const auto v = upstream_vcs(VcArbConfig{}, 64);
  ASSERT_EQ(v.size(), 128u);
  // Once both streams are in (the first TLP of d1 arrives one hop later), exactly alternating.
  EXPECT_DOUBLE_EQ(vc1_share(v, 4, 124), 0.5);
}

TEST(Switch, WeightedVcArbitrationGivesVc1ItsWeightsShare) {
  VcArbConfig w;
  w.policy = VcArbitration::Weighted;
  w.weights[0] = 3;
  w.weights[1] = 1;
  const auto v = upstream_vcs(w, 64);
  ASSERT_EQ(v.size(), 128u);
  EXPECT_DOUBLE_EQ(vc1_share(v, 8, 80), 0.25);  // 18 rounds of 3 + 1 while both VCs are backlogged
}

TEST(Switch, StrictVcArbitrationServesTheHighestVcFirst) {
  VcArbConfig s;
  s.policy = VcArbitration::Strict;
  const auto v = upstream_vcs(s, 32);
  ASSERT_EQ(v.size(), 64u);
  // While VC1 has TLPs waiting, no VC0 TLP goes (a VC0 TLP may lead while VC1's first is still arriving).
  std::size_t last_vc1 = 0;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (v[i] == 1) last_vc1 = i;
  EXPECT_LE(last_vc1, 34u);
  EXPECT_GE(vc1_share(v, 0, last_vc1 + 1), 32.0 / 35.0);
}

}  // namespace
}  // namespace hx::pcie
