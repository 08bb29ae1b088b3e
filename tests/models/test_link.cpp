// The link engine alone (models/link), with traits of a made-up flit
// protocol that is not PCIe: fixed 80-byte flits (16 B header + 64 B of
// data, or a 16 B header alone), two credit classes (request, data), a
// 10 GB/s wire and 8-byte credit-return packets. Closed forms: a flit's
// wire time and arrival, credit-bound throughput (credits per round trip),
// per-class credits, VC checks and the starvation report.
#include <gtest/gtest.h>
#include <systemc>

#include <deque>
#include <string>
#include <utility>
#include <vector>

#include "models/core/error.h"
#include "models/core/scheduler.h"
#include "models/link/link_end_impl.h"

namespace hx::link {
namespace {

struct Flit {
  std::uint8_t vc = 0;
  bool data = false;  // a data flit (class 1) or a request (class 0)
  std::uint32_t len = 0;
  std::uint64_t id = 0;
  Tick ready = 0, rx_start = 0;
  std::uint16_t hops = 0;
};

struct FlitEndConfig {
  int vcs = 1;
  Tick tx_pipeline = 0;
  std::array<int, 2> hdr{{4, 4}}, data{{0, 16}};  // data credits of 16 B: a data flit takes 4
  int hdr_credits(int, int cls) const { return hdr[static_cast<std::size_t>(cls)]; }
  int data_credits(int, int cls) const { return data[static_cast<std::size_t>(cls)]; }
};

struct FlitTraits {
  using Unit = Flit;
  using EndConfig = FlitEndConfig;
  using Link = LinkLayerConfig;
  static constexpr int kClasses = 2;
  static constexpr const char* kUnitStat = "tx_flits";
  static constexpr const char* kUnitUnit = "flit";
  static constexpr const char* kUnitStatDesc = "flits transmitted";
  static constexpr const char* kPayloadStatDesc = "flit payload bytes transmitted";
  static constexpr const char* kBytesStatDesc = "bytes on the wire";
  static constexpr const char* kCtrlStat = "tx_credit_returns";
  static constexpr const char* kCtrlUnit = "packet";
  static constexpr const char* kCtrlStatDesc = "credit returns and ACKs transmitted";
  static constexpr const char* kLargestUnit = "a data flit";
  static const char* class_name(int cls) { return cls ? "Data" : "Req"; }
  static int cls(const Flit& f) { return f.data ? 1 : 0; }
  static int data_credits(const Flit& f) { return f.data ? 4 : 0; }
  static const char* name(const Flit& f) { return f.data ? "data" : "req"; }
  static Ledger* ledger(const Flit&) { return nullptr; }
  static std::uint32_t head_bytes(const Flit&, const Wire&) { return 16; }
  static Wire wire(const LinkLayerConfig&, const FlitEndConfig&) {
    Wire w;
    w.ps_per_byte = 100.0;  // 10 GB/s
    w.align = 16;
    w.framing_B = 0;
    w.ctrl_B = 8;
    return w;
  }
  static std::uint32_t wire_bytes(const Flit& f, const Wire&) { return f.data ? 80u : 16u; }
  static int max_data_credits(const FlitEndConfig&) { return 4; }
  static void check_transmit(const LinkEnd<FlitTraits>&, const Flit&) {}
};

using End = LinkEnd<FlitTraits>;

class FlitStub final : public Owner<FlitTraits>, public Actor {
 public:
  FlitStub(const std::string& name, const FlitEndConfig& cfg) : sched(name), end(*this, name + ".end", cfg) {}
  Flit* tx_select(End& p) override {
    if (q.empty() || q.front()->ready > now_tick() || !p.can_send(*q.front())) return nullptr;
    Flit* f = q.front();
    q.pop_front();
    return f;
  }
  void rx_arrive(End&, Flit* f, Tick head, Tick tail) override {
    rx.push_back({head, tail});
    if (!hold) sched.at(tail, this, 0, 0, f);
  }
  void tx_done(End&, const Flit&, Tick start, Tick stop) override { tx.push_back({start, stop}); }
  bool tx_pending(const End&) const override { return !q.empty(); }
  void on_action(std::uint32_t, std::uint64_t, void* p) override { end.release(*static_cast<Flit*>(p)); }
  void send(bool data, std::uint8_t vc = 0) {
    flits.push_back(Flit{});
    Flit& f = flits.back();
    f.data = data;
    f.vc = vc;
    f.len = data ? 64 : 0;
    f.id = flits.size();
    q.push_back(&f);
    end.wake_for(f);
  }
  Scheduler sched;
  End end;
  std::deque<Flit> flits;  // stable addresses
  std::deque<Flit*> q;
  std::vector<std::pair<Tick, Tick>> rx, tx;
  bool hold = false;
};

LinkLayerConfig policy(Tick latency) {
  LinkLayerConfig l;
  l.latency = latency;
  l.ack_every = 1 << 20;  // no ACKs: credit returns only
  l.ack_timeout = kMs;
  l.fc_update_every = 1;
  return l;
}

// A data flit: 80 B at 10 GB/s = 8 ns on the wire; its header is in after
// 16 B (1.6 ns) plus the latency, its tail after 8 ns plus the latency.
TEST(LinkEngine, AFlitTakesItsWireBytesAtTheWireRate) {
  FlitStub a("a", {}), b("b", {});
  End::connect(a.end, b.end, policy(20 * kNs));
  a.send(true);
  a.send(false);
  sc_core::sc_start();
  ASSERT_EQ(a.tx.size(), 2u);
  EXPECT_EQ(a.tx[0].first, 0u);
  EXPECT_EQ(a.tx[0].second, 8 * kNs);
  EXPECT_EQ(a.tx[1].first, 8 * kNs);
  EXPECT_EQ(a.tx[1].second, 8 * kNs + 1600);  // a request flit: 16 B
  ASSERT_EQ(b.rx.size(), 2u);
  EXPECT_EQ(b.rx[0].first, 1600 + 20 * kNs);
  EXPECT_EQ(b.rx[0].second, 28 * kNs);
  EXPECT_EQ(a.end.tx_units.value, 2u);
  EXPECT_EQ(a.end.tx_payload.value, 64u);
}

// The idle power state (PCIe's ASPM L0s): with entry after 100 ns idle and
// a 50 ns exit, a flit sent 220 ns after the wire's last one waits 50 ns
// for the exit, the flit queued behind it follows back to back, and one
// sent 70 ns after the wire went idle waits for nothing; the exit is the
// only difference, and the wakes are counted.
TEST(LinkEngine, AnIdleTransmitterWakesBeforeItsFirstUnit) {
  FlitStub a("a", {}), b("b", {});
  LinkLayerConfig l = policy(20 * kNs);
  l.idle_entry = 100 * kNs;
  l.idle_exit = 50 * kNs;
  End::connect(a.end, b.end, l);
  a.send(true);  // at 0: the wire has just come up, not idle
  sc_core::sc_start();
  ASSERT_EQ(a.tx.size(), 1u);
  EXPECT_EQ(a.tx[0].first, 0u);
  const Tick idle_from = a.tx[0].second;
  sc_core::sc_start(sc_core::sc_time::from_value(idle_from + 220 * kNs - now_tick()));
  const Tick t1 = now_tick();
  ASSERT_EQ(t1, idle_from + 220 * kNs);
  a.send(true);
  a.send(false);
  sc_core::sc_start();
  ASSERT_EQ(a.tx.size(), 3u);
  EXPECT_EQ(a.tx[1].first, t1 + 50 * kNs);                    // the exit, then the flit
  EXPECT_EQ(a.tx[1].second, t1 + 50 * kNs + 8 * kNs);
  EXPECT_EQ(a.tx[2].first, a.tx[1].second);                    // back to back: no idle gap
  ASSERT_EQ(b.rx.size(), 3u);
  EXPECT_EQ(b.rx[1].second, t1 + 50 * kNs + 8 * kNs + 20 * kNs);  // arrival shifted by the exit alone
  sc_core::sc_start(sc_core::sc_time::from_value(a.tx[2].second + 70 * kNs - now_tick()));
  const Tick t2 = now_tick();
  a.send(true);
  sc_core::sc_start();
  ASSERT_EQ(a.tx.size(), 4u);
  EXPECT_EQ(a.tx[3].first, t2);  // 70 ns idle: still awake
  EXPECT_EQ(a.end.wakes.value, 1u);
}

// Credit-bound throughput: 16 data credits (four data flits) and 4 header
// credits per class; the receiver frees a flit when its tail is in and
// returns its credits at once in an 8 B packet (0.8 ns) over the 100 ns
// latency. A credit's round trip is 8 + 100 + 0.8 + 100 = 208.8 ns, so data
// flits leave four per round trip, back to back: credits x flit / round trip.
TEST(LinkEngine, CreditBoundThroughputIsCreditsPerRoundTrip) {
  FlitStub a("a", {}), b("b", {});
  End::connect(a.end, b.end, policy(100 * kNs));
  const int n = 10;
  for (int i = 0; i < n; ++i) a.send(true);
  sc_core::sc_start();
  ASSERT_EQ(a.tx.size(), static_cast<std::size_t>(n));
  const Tick rtt = 8 * kNs + 100 * kNs + 800 + 100 * kNs;
  for (int i = 0; i < n; ++i)
    EXPECT_EQ(a.tx[static_cast<std::size_t>(i)].first, static_cast<Tick>(i / 4) * rtt + static_cast<Tick>(i % 4) * 8 * kNs) << i;
  EXPECT_EQ(b.end.tx_ctrl.value, static_cast<std::uint64_t>(n));  // one return per freed flit
  EXPECT_GE(a.end.credit_stalls.value, 1u);
  // Request flits need only a header credit of their own class: four of
  // them go back to back while data waits.
  FlitStub c("c", {}), d("d", {});
  End::connect(c.end, d.end, policy(100 * kNs));
  d.hold = true;
  for (int i = 0; i < 6; ++i) c.send(false);
  sc_core::sc_start();
  EXPECT_EQ(c.tx.size(), 4u);
  for (std::size_t i = 1; i < 4; ++i) EXPECT_EQ(c.tx[i].first, c.tx[i - 1].second);
  const std::string why = c.end.blocked_reason();
  EXPECT_NE(why.find("VC0 Req header credits starved"), std::string::npos) << why;
  EXPECT_NE(why.find("d.end holds 4 flits"), std::string::npos) << why;
  EXPECT_TRUE(d.end.has_rx_occupancy());
}

// Credits in headers: each flit's credits go back as the receiver frees it,
// with no packet of their own and whatever the batching settings (which
// apply to credit packets only), after the 100 ns latency. A credit's round
// trip is 8 + 100 + 100 = 208 ns: four data flits per round trip, no
// control packet sent.
TEST(LinkEngine, CreditsInHeadersComeBackPerFlitWithNoPacket) {
  FlitStub a("a", {}), b("b", {});
  LinkLayerConfig l = policy(100 * kNs);
  l.credits_in_header = true;
  l.fc_update_every = 4;  // no effect: nothing is batched
  l.fc_update_timeout = 200 * kNs;
  End::connect(a.end, b.end, l);
  const int n = 10;
  for (int i = 0; i < n; ++i) a.send(true);
  sc_core::sc_start();
  ASSERT_EQ(a.tx.size(), static_cast<std::size_t>(n));
  const Tick rtt = 8 * kNs + 100 * kNs + 100 * kNs;
  for (int i = 0; i < n; ++i)
    EXPECT_EQ(a.tx[static_cast<std::size_t>(i)].first, static_cast<Tick>(i / 4) * rtt + static_cast<Tick>(i % 4) * 8 * kNs) << i;
  EXPECT_EQ(b.end.tx_ctrl.value, 0u);
  EXPECT_EQ(b.end.busy_ps.value, 0u);  // the reverse wire carried nothing
  EXPECT_GE(a.end.credit_stalls.value, 1u);
}

// A unit on a VC the link does not enable is a simulator error naming it.
TEST(LinkEngine, AUnitOnAVcTheLinkDoesNotEnableFails) {
  FlitStub a("a", {}), b("b", {});
  End::connect(a.end, b.end, policy(0));
  try {
    a.send(false, 1);  // found when queued: it could never have credits
    sc_core::sc_start();
    FAIL() << "no error";
  } catch (const SimError& e) {
    EXPECT_NE(std::string(e.what()).find("flit on VC1 which this link does not enable"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace hx::link
