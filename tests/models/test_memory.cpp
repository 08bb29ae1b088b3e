// Host memory alone (models/memory): the DRAM channel servers and their
// partial-line read-modify-write, the socket interconnect, the LLC's tags
// and the sparse backing store, each against hand-worked figures or a
// reference model. Memory needs no fabric: no port, no TLP, no YAML.
#include <gtest/gtest.h>
#include <systemc>

#include <cstdint>
#include <map>
#include <random>
#include <tuple>
#include <vector>

#include "models/core/payload.h"
#include "models/memory/memory.h"

namespace hx {
namespace {

// Two channels of 6.4 GB/s: a 64 B line occupies its channel 10 ns.
mem::MemoryConfig plain() {
  mem::MemoryConfig c;
  c.read_latency = 80 * kNs;
  c.write_latency = 40 * kNs;
  c.channel_GBps = 6.4;
  c.channels = 2;
  c.rmw_extra = 15 * kNs;
  c.partial_rmw = true;
  return c;
}

// The asynchronous path is the synchronous one with a callback: a read at
// 0 is done at the read latency, a read behind it on the same channel a
// line time later, a whole-line write on the other channel at the write
// latency; each answers its requester, with its tag, at that time.
TEST(MemoryController, AsynchronousRequestsAnswerTheirRequesterWhenDone) {
  mem::MemoryController m("mem", plain());
  struct Client : mem::MemoryClient {
    std::vector<std::tuple<std::uint16_t, std::uint64_t, Tick>> got;
    void memory_done(const mem::MemRequest& r, Tick at) override { got.emplace_back(r.requester, r.tag, at); }
  } c;
  m.request({mem::MemOp::ReadLine, 0x10, 64, 7, 100}, 0, c);  // any address in the line
  m.request({mem::MemOp::ReadLine, 128, 64, 8, 200}, 0, c);   // channel 0 again
  m.request({mem::MemOp::Write, 64, 64, 9, 300}, 0, c);       // channel 1
  EXPECT_EQ(m.requests_pending(), 3u);
  sc_core::sc_start();
  using G = std::tuple<std::uint16_t, std::uint64_t, Tick>;
  EXPECT_EQ(c.got, (std::vector<G>{G{9, 300, 40 * kNs}, G{7, 100, 80 * kNs}, G{8, 200, 90 * kNs}}));
  EXPECT_EQ(m.requests_pending(), 0u);
  EXPECT_EQ(m.lines_read.value, 2u);
  EXPECT_EQ(m.lines_written.value, 1u);
}

// Lines interleave over the channels: two lines on one channel take turns,
// lines on different channels go at once.
TEST(MemoryController, ReadsQueueOnTheirLinesChannel) {
  mem::MemoryController m("mem", plain());
  EXPECT_EQ(m.read_line(0, 0), 80 * kNs);
  EXPECT_EQ(m.read_line(64, 0), 80 * kNs);    // channel 1
  EXPECT_EQ(m.read_line(128, 0), 90 * kNs);   // channel 0 again: behind line 0
  EXPECT_EQ(m.read_line(256, 5 * kNs), 100 * kNs);
  EXPECT_EQ(m.lines_read.value, 4u);
}

// A whole-line write commits write_latency after its slot; a partial one
// is a read-modify-write: it holds the channel for a read, a write and
// rmw_extra (35 ns: four 10 ns slots) and commits after both latencies.
TEST(MemoryController, APartialLineWriteIsAReadModifyWrite) {
  mem::MemoryController m("mem", plain());
  EXPECT_EQ(m.write(0, 64, 0), 40 * kNs);
  EXPECT_EQ(m.write(128 + 8, 16, 0), 10 * kNs + 80 * kNs + 40 * kNs);  // channel 0, after line 0's slot
  EXPECT_EQ(m.read_line(256, 0), 50 * kNs + 80 * kNs);  // channel 0 free after the four RMW slots
  EXPECT_EQ(m.partial_writes.value, 1u);
  // A write across a line boundary is two partial lines; the later commit counts.
  // Line 64 (channel 1, idle) commits at 0 + 120 ns; line 128 (channel 0,
  // busy until 60 ns with the three accesses above) at 60 + 120 ns.
  EXPECT_EQ(m.write(64 + 32, 64, 0), 60 * kNs + 120 * kNs);
  EXPECT_EQ(m.lines_written.value, 4u);
}

// With DDIO (partial_rmw false) the LLC merges partial lines: no read.
TEST(MemoryController, WithDdioAPartialWriteCostsOneLine) {
  mem::MemoryConfig c = plain();
  c.partial_rmw = false;
  mem::MemoryController m("mem", c);
  EXPECT_EQ(m.write(8, 16, 0), 40 * kNs);
  EXPECT_EQ(m.partial_writes.value, 0u);
}

// An LLC of 4 lines: a DMA read that misses pays llc_miss and does not
// allocate; a write allocates (DDIO), and so does the host's warm().
TEST(MemoryController, LlcMissesPayMoreAndOnlyWritesAllocate) {
  mem::MemoryConfig c = plain();
  c.llc_size = 4 * 64;
  c.llc_ways = 4;
  c.llc_miss = 30 * kNs;
  mem::MemoryController m("mem", c);
  EXPECT_EQ(m.read_line(0, 0), 110 * kNs);
  EXPECT_EQ(m.read_line(0, 200 * kNs), 310 * kNs);  // still a miss: reads do not allocate
  m.write(0, 64, 400 * kNs);
  EXPECT_EQ(m.read_line(0, 600 * kNs), 680 * kNs);  // now a hit
  m.warm(1024, 4 * 64);                              // four lines: line 0 is evicted
  EXPECT_EQ(m.read_line(0, 800 * kNs), 910 * kNs);
  EXPECT_EQ(m.read_line(1024, 1000 * kNs), 1080 * kNs);
  EXPECT_EQ(m.llc_misses.value, 3u);
}

// DDIO's share of the LLC (ddio_ways): one set of four ways, a DMA write
// that misses may take way 0 only. The host's lines fill ways 0-2; each
// DMA write that misses evicts the line in way 0; one that hits stays in
// its way. dma_written() leaves the caches as write() does, at no time.
TEST(MemoryController, DdioWritesAllocateInTheirWaysOnly) {
  mem::MemoryConfig c = plain();
  c.llc_size = 4 * 64;
  c.llc_ways = 4;
  c.llc_miss = 30 * kNs;
  c.ddio_ways = 1;
  const std::uint64_t a = 0, b = 64, d = 128, x = 1024, y = 2048;
  auto hits = [](mem::MemoryController& m, std::uint64_t line) {
    const Tick t = 100 * kUs * static_cast<Tick>(m.lines_read.value + 1);  // channels idle by then
    return m.read_line(line, t) - t == 80 * kNs;
  };
  for (bool timed : {true, false}) {
    SCOPED_TRACE(timed ? "write" : "dma_written");
    mem::MemoryController m(timed ? "ddio_timed" : "ddio_untimed", c);
    m.warm(a, 3 * 64);  // a, b, d in ways 0-2
    auto dma = [&](std::uint64_t line) {
      if (timed) m.write(line, 64, 0);
      else m.dma_written(line, 64);
    };
    dma(x);  // evicts a (way 0)
    dma(y);  // evicts x
    dma(b);  // a hit: b stays in way 1
    EXPECT_FALSE(hits(m, a));
    EXPECT_FALSE(hits(m, x));
    EXPECT_TRUE(hits(m, y));
    EXPECT_TRUE(hits(m, b));
    EXPECT_TRUE(hits(m, d));
    EXPECT_EQ(m.lines_written.value, timed ? 3u : 0u);  // untimed: no DRAM write
  }
  // Without a share, DMA writes fill the empty way 3, then replace the least recent line.
  c.ddio_ways = 0;
  mem::MemoryController m("ddio_any_way", c);
  m.warm(a, 3 * 64);
  m.dma_written(x, 64);
  m.dma_written(y, 64);  // evicts a
  EXPECT_FALSE(hits(m, a));
  EXPECT_TRUE(hits(m, x));
  EXPECT_TRUE(hits(m, y));
  EXPECT_TRUE(hits(m, b));
}

// One socket's controller as the other sockets see it (the root complexes
// do the crossing): a read for another socket pays no LLC miss (the home
// starts its memory read as it looks the line up), a snoop that finds the
// line in this LLC sends it on llc_forward after its channel slot, and
// each line read, forwarded or written for another socket is counted.
// Looking a line up for another socket's sake (llc_holds) changes nothing;
// a line another socket took for a write leaves this LLC.
TEST(MemoryController, ItServesOtherSocketsAtOnceAndForwardsWhatItsLlcHolds) {
  mem::MemoryConfig c;
  c.llc_size = 64 * 64;
  c.llc_ways = 4;
  c.llc_miss = 50 * kNs;
  c.llc_forward = 30 * kNs;
  mem::MemoryController m("test_socket_home", c);
  const std::uint64_t held = 4096, cold = 8192;
  m.warm(held, 64);
  EXPECT_EQ(m.read_line(cold, 0), 130 * kNs);  // its own socket's read misses: llc_miss
  EXPECT_EQ(m.llc_misses.value, 1u);
  EXPECT_EQ(m.read_line(cold + 64, 1000 * kNs, true), 1080 * kNs);  // another socket's: at once
  EXPECT_EQ(m.llc_misses.value, 1u);
  EXPECT_TRUE(m.llc_holds(held));
  EXPECT_FALSE(m.llc_holds(cold + 128));
  EXPECT_FALSE(m.llc_holds(cold + 128));  // a look-up fills nothing
  EXPECT_EQ(m.forward_line(held, 2000 * kNs), 2030 * kNs);
  m.write(cold + 192, 64, 3000 * kNs, true);
  EXPECT_EQ(m.far_lines.value, 3u);  // the remote read, the forward, the remote write
  m.llc_drop(held);
  EXPECT_FALSE(m.llc_holds(held));
  EXPECT_EQ(m.read_line(held, 4000 * kNs), 4130 * kNs);
}

// One set of four ways: the least recently used line is the one replaced.
TEST(LineCache, ReplacesTheLeastRecentlyUsedLine) {
  mem::LineCache c(4 * 64, 4, 64, cache::Policy::Lru, "llc");
  ASSERT_TRUE(c.enabled());
  for (std::uint64_t l = 0; l < 4; ++l) EXPECT_FALSE(c.access(64 * l));  // fills the empty ways
  EXPECT_TRUE(c.access(0));        // 0 is now the most recent; 1 the least
  EXPECT_FALSE(c.access(64 * 4));  // replaces 1
  EXPECT_FALSE(c.access(64 * 1));  // replaces 2 (0 and 3 were used later)
  EXPECT_TRUE(c.access(0));
  EXPECT_TRUE(c.access(64 * 3));
  EXPECT_FALSE(c.access(64 * 2));
  EXPECT_FALSE(c.access(64 * 9, false));  // a look-up without fill leaves the set as it was
  EXPECT_FALSE(c.access(64 * 9, false));
  EXPECT_TRUE(c.access(64 * 2));
  EXPECT_FALSE(mem::LineCache(0, 16, 64, cache::Policy::Lru, "llc").enabled());
}

TEST(LineCache, HoldsNoMoreLinesThanItsSize) {
  // Two lines of capacity with 20 ways: the third line evicts the first.
  mem::LineCache c(2 * 64, 20, 64, cache::Policy::Lru, "llc");
  EXPECT_FALSE(c.access(0));
  EXPECT_FALSE(c.access(64));
  EXPECT_FALSE(c.access(128));
  EXPECT_TRUE(c.access(128));
  EXPECT_TRUE(c.access(64));
  EXPECT_FALSE(c.access(0));
}

// Sparse host memory against a byte map over the initial pattern: random
// writes (bytes and pattern streams) and reads of any alignment and length,
// across page and chunk boundaries.
TEST(SparseMemory, AgreesWithAByteMap) {
  mem::SparseMemory m;
  std::map<std::uint64_t, std::uint8_t> ref;
  auto expect = [&](std::uint64_t a) {
    auto it = ref.find(a);
    return it != ref.end() ? it->second : pattern_byte(kMemoryStream, a);
  };
  std::mt19937_64 rng(3);
  const std::uint64_t base = 0x10000ff0;  // near a page boundary
  int held = 0;
  for (int r = 0; r < 4000; ++r) {
    const std::uint64_t a = base + rng() % 12000;
    const std::uint32_t len = 1 + static_cast<std::uint32_t>(rng() % (rng() % 4 == 0 ? 5000 : 200));
    std::vector<std::uint8_t> b(len);
    switch (rng() % 4) {
      case 3: {
        // holds_pattern is true exactly when every byte is that pattern's:
        // asked of stretches just written as pattern (true by descriptor),
        // shifted by one byte, or anywhere (mostly false).
        const std::uint64_t stream = 5 + rng() % 3, off = rng() % 1000;
        const int how = static_cast<int>(rng() % 3);
        if (how == 0) {
          m.write_pattern(a, stream, off, len);
          for (std::uint32_t i = 0; i < len; ++i) ref[a + i] = pattern_byte(stream, off + i);
        }
        const std::uint64_t q = how == 1 ? off + 1 : off;
        bool want = true;
        for (std::uint32_t i = 0; i < len && want; ++i) want = expect(a + i) == pattern_byte(stream, q + i);
        ASSERT_EQ(m.holds_pattern(a, stream, q, len), want) << "holds_pattern " << r;
        held += want;
        break;
      }
      case 0:
        for (auto& x : b) x = static_cast<std::uint8_t>(rng());
        m.write(a, b.data(), len);
        for (std::uint32_t i = 0; i < len; ++i) ref[a + i] = b[i];
        break;
      case 1: {
        const std::uint64_t stream = 5 + rng() % 3, off = rng() % 1000;
        m.write_pattern(a, stream, off, len);
        for (std::uint32_t i = 0; i < len; ++i) ref[a + i] = pattern_byte(stream, off + i);
        break;
      }
      default:
        m.read(a, b.data(), len);
        for (std::uint32_t i = 0; i < len; ++i) ASSERT_EQ(b[i], expect(a + i)) << "read " << r << " byte " << i;
        ASSERT_EQ(m.checksum(a, len), bytes_checksum(b.data(), len));
    }
  }
  EXPECT_GT(held, 100);  // both answers were exercised
  // holds_pattern: true exactly where the bytes are that pattern.
  m.write_pattern(base, 21, 100, 3000);
  EXPECT_TRUE(m.holds_pattern(base, 21, 100, 3000));
  EXPECT_TRUE(m.holds_pattern(base + 700, 21, 800, 1000));
  EXPECT_FALSE(m.holds_pattern(base, 21, 101, 3000));
  const std::uint8_t x = static_cast<std::uint8_t>(pattern_byte(21, 100 + 2999) ^ 1);
  m.write(base + 2999, &x, 1);
  EXPECT_FALSE(m.holds_pattern(base, 21, 100, 3000));
  EXPECT_TRUE(m.holds_pattern(base, 21, 100, 2999));
}

}  // namespace
}  // namespace hx
