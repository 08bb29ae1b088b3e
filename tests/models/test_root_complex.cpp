// The root complex alone (models/host/root_complex): one root port with a
// stub device on its link, memory behind it, no switch, no YAML. AtomicOps
// completed on memory: the original value comes back, memory holds the
// result, and the round trip is the sum of its stages.
#include <gtest/gtest.h>
#include <systemc>

#include <cstdint>
#include <string>
#include <vector>

#include "models/core/error.h"
#include "models/host/root_complex.h"
#include "models/host/socket_link.h"
#include "tests/models/port_stub.h"

namespace hx::host {
namespace {

using pcie::run_until;
using pcie::Stub;
using pcie::TlpKind;

constexpr std::uint64_t kDram = 4ull << 30;  // the root complex's dram_base: 4-DW headers

RootComplexConfig config(bool atomics) {
  RootComplexConfig c;
  c.inbound_latency = 100 * kNs;
  c.completion_latency = 5 * kNs;
  c.line_interval = 5 * kNs;
  c.memory.read_latency = 80 * kNs;
  c.memory.channel_GBps = 10.0;  // a line holds its channel 6.4 ns
  c.atomic_completer = atomics;
  pcie::PortConfig rp;
  rp.infinite_completion_credits();
  c.ports.push_back(rp);
  c.routes.resize(1);
  return c;
}

// A root complex with a stub device on its one root port, over a Gen3 x8
// link of 10 ns each way.
struct Rig {
  explicit Rig(bool atomics) : rc("host", config(atomics)), dev("dev", pcie::PortConfig{}) {
    pcie::PciePort::connect(rc.root_port(0), dev.port, pcie::gen(3, 8, 10 * kNs));
  }
  RootComplex rc;
  Stub dev;
};

std::uint64_t load(RootComplex& rc, std::uint64_t addr, std::uint32_t size) {
  std::uint8_t b[8] = {};
  rc.memory().store().read(addr, b, size);
  std::uint64_t v = 0;
  for (std::uint32_t i = 0; i < size; ++i) v |= static_cast<std::uint64_t>(b[i]) << (8 * i);
  return v;
}

void store(RootComplex& rc, std::uint64_t addr, std::uint64_t v, std::uint32_t size) {
  std::uint8_t b[8];
  for (std::uint32_t i = 0; i < size; ++i) b[i] = static_cast<std::uint8_t>(v >> (8 * i));
  rc.memory().store().write(addr, b, size);
}

pcie::Tlp* atomic(Stub& dev, TlpKind k, std::uint32_t len, std::uint64_t addr, std::uint64_t op0, std::uint64_t op1 = 0) {
  pcie::Tlp* t = dev.send(k, len, 0, addr);
  t->addr64 = pcie::needs_addr64(addr);
  t->operand[0] = op0;
  t->operand[1] = op1;
  return t;
}

// A CAS of 8-byte operands from the device: 16 B header + 16 B + 8 B framing
// = 40 B on the link; 100 ns inbound pipeline; one line read (80 ns, its
// channel idle, at its next slot); 5 ns to build the completion; a 28 B CplD (12 + 8 + 8)
// back over the link. Each stage adds exactly its own time.
TEST(RootComplexAtomics, ACasReturnsTheOldValueUpdatesMemoryAndCostsItsStages) {
  Rig r(true);
  RootComplex& rc = r.rc;
  Stub& dev = r.dev;
  const std::uint64_t a = kDram + 0x1040;
  store(rc, a, 0x1122334455667788ull, 8);
  atomic(dev, TlpKind::Cas, 16, a, 0x1122334455667788ull, 0xcafef00d00000001ull);
  sc_core::sc_start();
  ASSERT_EQ(dev.got.size(), 1u);
  const pcie::Tlp& c = dev.got[0];
  EXPECT_EQ(c.kind, TlpKind::CplD);
  EXPECT_EQ(c.len, 8u);
  EXPECT_EQ(c.operand[0], 0x1122334455667788ull);
  EXPECT_EQ(load(rc, a, 8), 0xcafef00d00000001ull);
  EXPECT_EQ(rc.atomics.value, 1u);
  ASSERT_EQ(dev.tx.size(), 1u);
  EXPECT_EQ(dev.tx[0].second - dev.tx[0].first, dev.port.serialize(40));
  // The line pipeline and the memory channel serve on fixed grids (slot
  // calendars from time zero: 5 ns, and 64 B / 10 GB/s = 6.4 ns): the line
  // waits for the next slot of each.
  const auto next_slot = [](Tick t, Tick grid) { return (t + grid - 1) / grid * grid; };
  const Tick at_rc = dev.tx[0].second + 10 * kNs;                       // the request's tail in
  const Tick line = next_slot(at_rc + 100 * kNs, 5 * kNs);              // inbound pipeline, line slot
  const Tick data = next_slot(line, 6400) + 80 * kNs;                    // channel slot, line read
  const Tick back = data + 5 * kNs + rc.root_port(0).serialize(28) + 10 * kNs;
  EXPECT_EQ(dev.rx[0].second, back);
}

// A CAS whose compare value differs leaves memory alone and still returns
// the value found; FetchAdd and Swap of 4 B operands wrap within 32 bits and
// leave the neighbouring bytes as they were.
TEST(RootComplexAtomics, FailedCasFetchAddAndSwapActOnTheOperandBytesOnly) {
  Rig r(true);
  RootComplex& rc = r.rc;
  Stub& dev = r.dev;
  const std::uint64_t a = kDram + 0x2000;
  store(rc, a, 0xffffffff00000005ull, 8);
  store(rc, a + 8, 0x0123456789abcdefull, 8);
  atomic(dev, TlpKind::Cas, 16, a, 7, 9);              // compare fails
  atomic(dev, TlpKind::FetchAdd, 4, a + 4, 2);         // 0xffffffff + 2 wraps to 1
  atomic(dev, TlpKind::Swap, 4, a, 0x12345678);
  sc_core::sc_start();
  ASSERT_EQ(dev.got.size(), 3u);
  EXPECT_EQ(dev.got[0].operand[0], 0xffffffff00000005ull);
  EXPECT_EQ(dev.got[1].operand[0], 0xffffffffull);
  EXPECT_EQ(dev.got[2].operand[0], 5u);
  EXPECT_EQ(load(rc, a, 8), 0x0000000112345678ull);
  EXPECT_EQ(load(rc, a + 8, 8), 0x0123456789abcdefull);  // the next word untouched
  EXPECT_EQ(rc.atomics.value, 3u);
}

// A root complex that completes no AtomicOps says so, naming the setting.
TEST(RootComplexAtomics, WithoutAtomicCompleterAnAtomicOpIsAnError) {
  Rig r(false);
  Stub& dev = r.dev;
  atomic(dev, TlpKind::FetchAdd, 8, kDram, 1);
  try {
    sc_core::sc_start();
    FAIL() << "no error";
  } catch (const std::exception& e) {  // a SimError, wrapped by the kernel when thrown inside a process
    EXPECT_NE(std::string(e.what()).find("atomic_completer: false"), std::string::npos) << e.what();
  }
}

// Operands of 4 or 8 B only, naturally aligned.
void expect_refused(std::uint32_t len, std::uint64_t addr, const char* why) {
  Rig r(true);
  Stub& dev = r.dev;
  atomic(dev, TlpKind::Swap, len, addr, 1);
  try {
    sc_core::sc_start();
    FAIL() << "no error";
  } catch (const std::exception& e) {  // a SimError, wrapped by the kernel when thrown inside a process
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
}
TEST(RootComplexAtomics, AMisalignedAtomicOpIsAnError) { expect_refused(8, kDram + 4, "not aligned"); }
TEST(RootComplexAtomics, AnAtomicOpOfAnOddSizeIsAnError) { expect_refused(6, kDram, "must be 4 or 8 B"); }

// Real bytes: a device's write of bytes that are no pattern lands in memory
// byte for byte; a read that asks for the bytes gets them back in its
// completions (split at the RCB), each checksummed; a read that does not
// ask gets the checksum alone, as pure traffic does.
TEST(RootComplexPayload, RealBytesAreWrittenAndReadBack) {
  Rig r(false);
  RootComplex& rc = r.rc;
  Stub& dev = r.dev;
  const std::uint64_t a = kDram + 0x3010;  // not line-aligned: a partial line first
  std::vector<std::uint8_t> v(120);  // within the MPS (128 B)
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = static_cast<std::uint8_t>(i * 7 + 3);
  pcie::Tlp* w = dev.send(TlpKind::MemWr, 0, 0, a);
  w->addr64 = true;
  w->set_bytes(v.data(), static_cast<std::uint32_t>(v.size()));
  pcie::Tlp* rd = dev.send(TlpKind::MemRd, 120, 0, a);
  rd->addr64 = true;
  rd->want_bytes = true;
  pcie::Tlp* blind = dev.send(TlpKind::MemRd, 8, 0, a);
  blind->addr64 = true;
  blind->tag = 1;
  sc_core::sc_start();
  std::vector<std::uint8_t> back(v.size());
  rc.memory().store().read(a, back.data(), static_cast<std::uint32_t>(back.size()));
  EXPECT_EQ(back, v);
  std::vector<std::uint8_t> got;
  int tag0 = 0;
  for (std::size_t i = 0; i < dev.got.size(); ++i) {
    const pcie::Tlp& c = dev.got[i];
    ASSERT_EQ(c.kind, TlpKind::CplD);
    if (c.tag == 1) {
      EXPECT_TRUE(dev.data[i].empty());
      EXPECT_EQ(c.checksum, bytes_checksum(v.data(), 8));
      continue;
    }
    ++tag0;
    ASSERT_EQ(dev.data[i].size(), c.len);
    EXPECT_EQ(c.addr, a + got.size());
    EXPECT_EQ(c.checksum, bytes_checksum(dev.data[i].data(), c.len));
    got.insert(got.end(), dev.data[i].begin(), dev.data[i].end());
  }
  EXPECT_GE(tag0, 2);  // 0x3010..0x3088 crosses 64 B RCB boundaries
  EXPECT_EQ(got, v);
}

// One transaction per line: a write to a line an older read is still
// fetching takes the line only when the read has its data, and a younger
// read (ordered behind the write) waits for that too. The same three
// requests twice, the write to another line the first time and to the read
// line the second: the younger read's round trip grows by the rest of the
// older read's fetch (80 ns from its slot, less the ~11 ns the write's TLP
// arrives after it).
TEST(RootComplexOrdering, AWriteToALineBeingReadWaitsForTheRead) {
  Rig r(false);
  Stub& dev = r.dev;
  auto read = [&](Tick at, std::uint64_t addr, std::uint16_t tag) {
    pcie::Tlp* t = dev.send(TlpKind::MemRd, 64, at, addr);
    t->addr64 = true;
    t->tag = tag;
  };
  auto write = [&](Tick at, std::uint64_t addr) {
    pcie::Tlp* t = dev.send(TlpKind::MemWr, 64, at, addr);
    t->addr64 = true;
    t->data_stream = kMemoryStream;
    t->data_off = addr;
    t->checksum = pattern_checksum(kMemoryStream, addr, 64);
  };
  // The link's first exchanges (flow control, acknowledgements) settle first.
  read(0, kDram + 0x2000, 4);
  write(0, kDram + 0x2400);
  read(0, kDram + 0x2800, 5);
  const Tick first = 1000 * kNs, second = 3000 * kNs;
  run_until(first - 500 * kNs);
  ASSERT_EQ(dev.got.size(), 2u);
  dev.got.clear();
  dev.rx.clear();
  read(first, kDram + 0x000, 0);
  write(first, kDram + 0x400);  // another line
  read(first, kDram + 0x800, 1);
  run_until(second - 500 * kNs);
  ASSERT_EQ(dev.got.size(), 2u);
  read(second, kDram + 0x1000, 2);
  write(second, kDram + 0x1000);  // the line being read
  read(second, kDram + 0x1800, 3);
  sc_core::sc_start();
  Tick done[4] = {};
  ASSERT_EQ(dev.got.size(), 4u);
  for (std::size_t i = 0; i < dev.got.size(); ++i) done[dev.got[i].tag] = dev.rx[i].second;
  const Tick apart = (done[3] - second) - (done[1] - first);
  EXPECT_GT(apart, 50 * kNs);
  EXPECT_LT(apart, 80 * kNs);
  // The older reads themselves are not held up by the write (their round
  // trips differ by where the link's acknowledgements fall, a few ns).
  EXPECT_NEAR(static_cast<double>(done[2] - second), static_cast<double>(done[0] - first), 5.0 * kNs);
}

// A byte changed after its producer checksummed it is caught where the
// write lands, with the address.
TEST(RootComplexPayload, ACorruptedByteIsCaught) {
  Rig r(false);
  Stub& dev = r.dev;
  std::uint8_t v[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  pcie::Tlp* w = dev.send(TlpKind::MemWr, 0, 0, kDram + 0x40);
  w->addr64 = true;
  w->set_bytes(v, 16);
  w->bytes->b[5] ^= 0x10;
  try {
    sc_core::sc_start();
    FAIL() << "no error";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("payload check failed on a write to 0x100000040"), std::string::npos) << e.what();
  }
}

// Two sockets, each a root complex with a 1 MiB LLC, socket 1's with no
// device, joined by a socket link: a DMA write from socket 0's device
// takes its line into socket 0's LLC and out of socket 1's, whatever the
// line's home, and so does a long run's untimed write (dma_written).
TEST(RootComplexSockets, ADmaWriteTakesItsLineIntoItsSocketsLlcAndOutOfTheOthers) {
  RootComplexConfig c0 = config(false), c1 = config(false);
  c0.memory.llc_size = c1.memory.llc_size = 1 << 20;
  c1.socket = 1;
  c1.dram_base = 128ull << 30;
  RootComplex rc0("host", c0), rc1("host1", c1);
  Stub dev("dev", pcie::PortConfig{});
  pcie::PciePort::connect(rc0.root_port(0), dev.port, pcie::gen(3, 8, 10 * kNs));
  SocketLink link("socket_link", SocketLinkConfig{}, 0, 1);
  rc0.connect_socket(rc1, {{&link, 0}});
  rc1.connect_socket(rc0, {{&link, 1}});
  const std::uint64_t home0 = kDram + 0x1000, home1 = c1.dram_base + 0x1000, untimed = kDram + 0x2000;
  for (const std::uint64_t a : {home0, home1, untimed}) rc1.memory().warm(a, 64);  // socket 1's core wrote them
  for (const std::uint64_t a : {home0, home1}) {
    pcie::Tlp* w = dev.send(TlpKind::MemWr, 64, 0, a);
    w->addr64 = true;
    w->data_stream = kMemoryStream;
    w->data_off = a;
    w->checksum = pattern_checksum(kMemoryStream, a, 64);
  }
  sc_core::sc_start();
  rc0.dma_written(untimed, 64);
  for (const std::uint64_t a : {home0, home1, untimed}) {
    EXPECT_TRUE(rc0.memory().llc_holds(a)) << std::hex << a;
    EXPECT_FALSE(rc1.memory().llc_holds(a)) << std::hex << a;
  }
  EXPECT_EQ(rc0.memory().lines_written.value, 2u);  // both lines went into socket 0's LLC
  EXPECT_EQ(rc1.memory().lines_written.value, 0u);
}

}  // namespace
}  // namespace hx::host
