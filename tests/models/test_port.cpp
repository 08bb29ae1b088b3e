// A PCIe port pair alone (models/pcie/port): two stub owners, one queue of
// TLPs each, no switch, no root complex, no YAML. Serialisation, credit
// return and ACK placement against hand-worked figures.
#include <gtest/gtest.h>
#include <systemc>


#include "models/core/scheduler.h"
#include "models/pcie/port.h"
#include "tests/models/port_stub.h"

namespace hx::pcie {
namespace {

// A 128 B write on Gen3 x8: 12 B header + 128 B + 8 B framing = 148 B at
// 8 GT/s x 8 lanes x 128/130 = 7.877 B/ns: 18.79 ns; head after 16 B.
TEST(Port, SerialisesAWriteInItsWireBytesAtTheLinkRate) {
  Stub a("a", PortConfig{}), b("b", PortConfig{});
  PciePort::connect(a.port, b.port, gen(3, 8, 10 * kNs));
  a.send(TlpKind::MemWr, 128);
  sc_core::sc_start();
  ASSERT_EQ(a.tx.size(), 1u);
  const double Bpns = 8.0 * 8 * 128.0 / 130.0 / 8.0;
  EXPECT_EQ(a.port.wire_bytes(Tlp{}), 20u);  // an MWr without data: 12 + 8
  EXPECT_NEAR(static_cast<double>(a.tx[0].second - a.tx[0].first), 148 / Bpns * 1000, 1.0);
  ASSERT_EQ(b.rx.size(), 1u);
  EXPECT_NEAR(static_cast<double>(b.rx[0].first), 16 / Bpns * 1000 + 10000, 1.0);   // header + first DW
  EXPECT_NEAR(static_cast<double>(b.rx[0].second), 148 / Bpns * 1000 + 10000, 1.0);  // last byte + latency
}

// Back to back: each TLP starts when the wire frees; on x1 a TLP is whole bytes
// (no 4-byte column alignment), on x4 and wider it occupies whole columns.
TEST(Port, BackToBackTlpsShareTheWireAndAlignToLaneColumns) {
  Stub a("a", PortConfig{}), b("b", PortConfig{});
  PciePort::connect(a.port, b.port, gen(2, 1));
  for (int i = 0; i < 3; ++i) a.send(TlpKind::MemWr, 2);  // 12 + 4 (2 B in a DW) + 8 = 24 B
  sc_core::sc_start();
  ASSERT_EQ(a.tx.size(), 3u);
  const Tick one = a.tx[0].second - a.tx[0].first;
  EXPECT_NEAR(static_cast<double>(one), 24 / (5.0 * 0.8 / 8.0) * 1000, 1.0);
  for (int i = 1; i < 3; ++i) EXPECT_EQ(a.tx[static_cast<std::size_t>(i)].first, a.tx[static_cast<std::size_t>(i) - 1].second);
}

// CCIX ESM: the same TLP at 25 GT/s on a Gen4 link takes 16/25 of its Gen4 time.
TEST(Port, A25GtsLinkSerialisesIn16Of25OfTheGen4Time) {
  Stub a("a", PortConfig{}), b("b", PortConfig{}), c("c", PortConfig{}), d("d", PortConfig{});
  LinkConfig esm = gen(4, 16);
  esm.rate_gts = 25;
  PciePort::connect(a.port, b.port, gen(4, 16));
  PciePort::connect(c.port, d.port, esm);
  const std::uint32_t bytes = 4096;
  const double g4 = static_cast<double>(a.port.serialize(bytes)), e = static_cast<double>(c.port.serialize(bytes));
  EXPECT_NEAR(e / g4, 16.0 / 25.0, 1e-5);
  EXPECT_DOUBLE_EQ(link_bytes_per_ns(esm) / link_bytes_per_ns(gen(4, 16)), 25.0 / 16.0);
  // An encoding named explicitly sets the efficiency and framing.
  LinkConfig e8 = gen(4, 16);
  e8.encoding_set = true;
  e8.encoding = Encoding::k8b10b;
  EXPECT_DOUBLE_EQ(link_bytes_per_ns(e8) / link_bytes_per_ns(gen(4, 16)), 0.8 / (128.0 / 130.0));
}

// Two posted header credits at the receiver, released 1 us after arrival:
// the third write waits for the first UpdateFC (one DLLP on the receiver's
// wire, then the link latency), the fourth for the second.
TEST(Port, ATransmitterWaitsForCreditsReturnedByUpdateFc) {
  PortConfig small;
  small.credits_hdr = {2, 32, 0};
  small.credits_data = {0, 0, 0};
  Stub a("a", PortConfig{}), b("b", small);
  b.drain = kUs;
  const Tick lat = 50 * kNs;
  PciePort::connect(a.port, b.port, gen(3, 8, lat));
  for (int i = 0; i < 4; ++i) a.send(TlpKind::MemWr, 64);
  sc_core::sc_start();
  ASSERT_EQ(a.tx.size(), 4u);
  const Tick dllp = b.port.serialize(8);
  // The first two go back to back; the third once the first's credit is back.
  EXPECT_EQ(a.tx[1].first, a.tx[0].second);
  const Tick freed0 = b.rx[0].second + kUs, freed1 = b.rx[1].second + kUs;
  EXPECT_EQ(a.tx[2].first, freed0 + dllp + lat);
  EXPECT_EQ(a.tx[3].first, std::max(a.tx[2].second, freed1 + dllp + lat));
  EXPECT_GE(a.port.credit_stalls.value, 1u);
  EXPECT_EQ(b.port.tx_ctrl.value, 4u);  // one UpdateFC per freed TLP (fc_update_every 1)
}

// ACK every 2 TLPs: an ACK is due when its second TLP's last byte is in,
// and takes the receiver's wire then if it is idle, or right behind what is
// on it. UpdateFCs wait for their 1 us timer here.
LinkConfig acks_every_two() {
  LinkConfig l = gen(3, 8, 10 * kNs);
  l.ack_every = 2;
  l.fc_update_every = 1 << 20;
  l.fc_update_timeout = kUs;
  return l;
}

TEST(Port, AnAckDueInAnIdleGapTakesTheGap) {
  Stub a("a", PortConfig{}), b("b", PortConfig{});
  PciePort::connect(a.port, b.port, acks_every_two());
  for (int i = 0; i < 4; ++i) a.send(TlpKind::MemWr, 128);
  b.send(TlpKind::MemRd, 64, 500 * kNs);  // long after both ACKs were due
  run_until(600 * kNs);
  EXPECT_EQ(b.port.tx_ctrl.value, 2u);
  ASSERT_EQ(b.tx.size(), 1u);
  EXPECT_EQ(b.tx[0].first, 500 * kNs);  // not delayed: both ACKs went in the gap
  EXPECT_EQ(b.port.tx_bytes.value, 2u * 8u + 20u);
  Scheduler::set_horizon(kNever);
  sc_core::sc_start();
  EXPECT_EQ(b.port.tx_ctrl.value, 3u);  // and the UpdateFC, at its timer
}

TEST(Port, AnAckDueWhileTheWireIsBusyGoesRightBehind) {
  Stub a("a", PortConfig{}), b("b", PortConfig{});
  PciePort::connect(a.port, b.port, acks_every_two());
  for (int i = 0; i < 2; ++i) a.send(TlpKind::MemWr, 128);
  run_until(kNs);
  // The ACK is due at the second write's last byte: b's read is on the
  // wire then, and a second read is ready just as the first ends.
  const Tick due = 2 * a.port.serialize(148) + 10 * kNs;
  const Tick rd = b.port.serialize(20);
  b.send(TlpKind::MemRd, 64, due - rd / 2);
  b.send(TlpKind::MemRd, 64, due - rd / 2 + rd);
  run_until(500 * kNs);
  ASSERT_EQ(b.tx.size(), 2u);
  EXPECT_EQ(b.tx[0].first, due - rd / 2);
  EXPECT_EQ(b.tx[1].first, b.tx[0].second + b.port.serialize(8));  // the ACK went in between
  EXPECT_EQ(b.port.tx_ctrl.value, 1u);
}

// A receiver that never drains: the transmitter stops at the advertised
// buffer and says which credits it starves for.
TEST(Port, AStarvedTransmitterNamesTheCreditItLacks) {
  PortConfig small;
  small.credits_hdr = {3, 32, 0};
  small.credits_data = {0, 0, 0};
  Stub a("a", PortConfig{}), b("b", small);
  b.hold = true;
  PciePort::connect(a.port, b.port, gen(3, 8));
  for (int i = 0; i < 5; ++i) a.send(TlpKind::MemWr, 64);
  sc_core::sc_start();
  EXPECT_EQ(a.tx.size(), 3u);
  EXPECT_EQ(a.q.size(), 2u);
  EXPECT_NE(a.port.blocked_reason().find("VC0 P header credits starved"), std::string::npos) << a.port.blocked_reason();
  EXPECT_TRUE(b.port.has_rx_occupancy());
}

// The static estimate `hxsim topo` prints is the port's own wire model: a
// link's back-to-back 4-DW-header writes, on x1 and on x8 from a
// transmitter with a 32-byte datapath beat (152 wire bytes become 160).
TEST(Port, TheStaticWriteRateIsWhatThePortSerialises) {
  for (const auto& [width, beat] : {std::pair<int, int>{1, 4}, {8, 32}}) {
    LinkConfig l = gen(3, width);
    l.skp = true;
    PortConfig tx;
    tx.tx_align_B = beat;
    Stub a("a" + std::to_string(width), tx), b("b" + std::to_string(width), PortConfig{});
    PciePort::connect(a.port, b.port, l);
    Tlp t;
    t.kind = TlpKind::MemWr;
    t.addr64 = true;
    t.len = 126;  // a payload of whole DWs on the wire: 128 B
    const double per_ns = 126.0 / (static_cast<double>(a.port.wire_bytes(t)) / a.port.bytes_per_ns());
    EXPECT_EQ(a.port.wire_bytes(t), beat == 32 ? 160u : 152u);
    EXPECT_NEAR(write_payload_bytes_per_ns(l, 126, beat) / per_ns, 1.0, 1e-12) << width;
  }
}

// Per-VC buffers: VC1 advertises one posted header credit and the receiver
// never drains: three VC0 writes go on VC0's 32 credits, then VC1 stops
// after one.
TEST(Port, EachVcHasItsOwnCredits) {
  PortConfig two;
  two.vcs = 2;
  PortConfig rx = two;
  rx.vc_credits.resize(2);
  rx.vc_credits[1].hdr[0] = 1;
  Stub a("a", two), b("b", rx);
  b.hold = true;
  PciePort::connect(a.port, b.port, gen(3, 8));
  for (int i = 0; i < 3; ++i) a.send(TlpKind::MemWr, 64)->vc = 0;
  for (int i = 0; i < 3; ++i) a.send(TlpKind::MemWr, 64)->vc = 1;
  sc_core::sc_start();
  ASSERT_EQ(b.got.size(), 4u);
  EXPECT_EQ(b.got[3].vc, 1);
  EXPECT_NE(a.port.blocked_reason().find("VC1 P header credits starved"), std::string::npos) << a.port.blocked_reason();
  EXPECT_EQ(rx.hdr_credits(0, 0), 32);
  EXPECT_EQ(rx.hdr_credits(1, 0), 1);
  EXPECT_EQ(rx.data_credits(1, 0), 256);  // not overridden: the port's value
}

}  // namespace
}  // namespace hx::pcie
