// A PCIe endpoint alone (models/pcie/endpoint): a device pushing two
// streams, one per VC, up a link to a stub partner. The endpoint sends
// completions first, then arbitrates VCs by its port's policy and round
// robin among the streams of a VC.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "models/pcie/endpoint.h"
#include "tests/models/port_stub.h"

namespace hx::pcie {
namespace {

// Keeps each of its streams full of 256 B writes, stream k on VC k - 1.
class TwoStreams final : public Device {
 public:
  explicit TwoStreams(int per_stream) : m_left{per_stream, per_stream} {}
  void attach(Endpoint& ep) override {
    Device::attach(ep);
    m_s[0] = ep.add_stream("vc0", 4);
    m_s[1] = ep.add_stream("vc1", 4);
  }
  // Once the link is up.
  void start() {
    for (int k = 0; k < 2; ++k) refill(k);
  }
  void on_write(const Tlp&) override {}
  void on_completion(const Tlp&) override {}
  void on_tx_space(int stream) override {
    for (int k = 0; k < 2; ++k)
      if (m_s[k] == stream) refill(k);
  }
  bool busy() const override { return m_left[0] + m_left[1] > 0; }

 private:
  void refill(int k) {
    while (m_left[k] > 0 && !m_ep->stream_full(m_s[k])) {
      Tlp* t = m_ep->make(TlpKind::MemWr);
      t->addr = 0x1'0000'0000ull;
      t->addr64 = true;
      t->len = 256;
      t->vc = static_cast<std::uint8_t>(k);
      m_ep->push(m_s[k], t);
      --m_left[k];
    }
  }
  int m_s[2] = {-1, -1};
  int m_left[2];
};

std::vector<int> vcs_received(const VcArbConfig& arb, int per_stream) {
  EndpointConfig c;
  c.port.mps = 256;
  c.port.vcs = 2;
  c.port.vc_arb = arb;
  c.tx_latency = 0;
  Endpoint ep("ep", c);
  TwoStreams dev(per_stream);
  ep.set_device(&dev);
  PortConfig up;
  up.mps = 256;
  up.vcs = 2;
  Stub host("host", up);
  PciePort::connect(host.port, ep.upstream(), gen(3, 8));
  dev.start();
  sc_core::sc_start();
  std::vector<int> v;
  for (const Tlp& t : host.got) v.push_back(t.vc);
  return v;
}

TEST(Endpoint, RoundRobinVcArbitrationAlternatesTheVcs) {
  const auto v = vcs_received(VcArbConfig{}, 32);
  ASSERT_EQ(v.size(), 64u);
  EXPECT_DOUBLE_EQ(vc1_share(v, 0, 64), 0.5);
  for (std::size_t i = 1; i < 64; ++i) EXPECT_NE(v[i], v[i - 1]) << i;
}

TEST(Endpoint, WeightedVcArbitrationSendsTheWeightsOfEachVcInTurn) {
  VcArbConfig w;
  w.policy = VcArbitration::Weighted;
  w.weights[0] = 3;
  w.weights[1] = 1;
  const auto v = vcs_received(w, 48);
  ASSERT_EQ(v.size(), 96u);
  EXPECT_DOUBLE_EQ(vc1_share(v, 0, 64), 0.25);  // 16 rounds of 3 + 1 while VC0 lasts
}

TEST(Endpoint, StrictVcArbitrationSendsVc1First) {
  VcArbConfig s;
  s.policy = VcArbitration::Strict;
  const auto v = vcs_received(s, 16);
  ASSERT_EQ(v.size(), 32u);
  EXPECT_DOUBLE_EQ(vc1_share(v, 0, 16), 1.0);
}

}  // namespace
}  // namespace hx::pcie

namespace hx::pcie {
namespace {

// A register read's turnaround grows by reg_read_per_dw for each DW beyond
// the first: a 64 B BAR read is answered 15 x 3 ns later than a 4 B one
// (the two requests take the same wire time; a completion's first byte
// arrives when it starts on the wire plus the link's latency, whatever its
// length).
TEST(EndpointRegisters, ABarReadTakesItsTurnaroundPlusATimePerDwBeyondTheFirst) {
  EndpointConfig c;
  c.tx_latency = 0;
  c.rx_latency = 0;
  c.reg_read_latency = 100 * kNs;
  c.reg_read_per_dw = 3 * kNs;
  c.bars = {AddrRange{0x8000'0000ull, 1 << 20}};
  Endpoint ep("ep", c);
  PortConfig up;
  Stub host("host", up);
  PciePort::connect(host.port, ep.upstream(), gen(3, 8));
  host.send(TlpKind::MemRd, 4, 0, 0x8000'0000ull);
  run_until(2 * kUs);
  host.send(TlpKind::MemRd, 64, 2 * kUs, 0x8000'0040ull);
  sc_core::sc_start();
  ASSERT_EQ(host.got.size(), 2u);
  EXPECT_EQ(host.got[0].len, 4u);
  EXPECT_EQ(host.got[1].len, 64u);
  const Tick small = host.rx[0].first, large = host.rx[1].first - 2 * kUs;
  EXPECT_GT(small, 100 * kNs);
  EXPECT_EQ(large - small, 45 * kNs);
}

}  // namespace
}  // namespace hx::pcie
