// A two-socket system alone (models/coherence/socket): cores' caching
// agents and LLC slices' homes on two meshes, one or more socket links
// between them; no YAML. Closed forms: every 64 B access of the S002
// experiment is the sum of its stages (core look-ups, mesh trips, home
// look-ups, link crossings, DRAM), a line held Modified on the other socket
// is forwarded by its holder and costs the same two crossings whether it
// is homed at the reader or at its holder (through the home, a mesh trip
// and a home look-up more); a stress of random loads and stores on a few lines from every
// core passes the coherence checker (single writer, last value), and a
// message-passing litmus across the sockets never shows what x86-TSO
// forbids. A timed access's ledger holds those stages by kind. More
// sockets: a ring routes a read to the socket opposite through one of the
// two between (a mesh trip and a link crossing more each way), a full
// graph does not; a stress over a ring of four passes the checker; graphs
// that cannot be are refused; message passing across the ring never shows
// the flag without the data. An LLC keeps the lines written home and
// serves reads from them, giving its victims to DRAM; a stress races them.
#include <gtest/gtest.h>
#include <systemc>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "models/coherence/checker.h"
#include "models/coherence/core_thread.h"
#include "models/coherence/socket.h"
#include "models/core/error.h"

namespace hx::coherence {
namespace {

struct Core : CoreSide {
  std::vector<std::uint64_t> values;
  Tick at = 0;
  void access_done(std::uint64_t, std::uint64_t value, Tick t) override {
    values.push_back(value);
    at = t;
  }
};

constexpr Tick kCore = 2 * kNs, kHome = 8 * kNs, kMesh = 4 * kNs, kLink = 30 * kNs, kDram = 60 * kNs;
// 20 GB/s: a 16 B header 0.8 ns, a data message (16 + 64 B) 4 ns.
constexpr Tick kHdr = 800, kData = 4 * kNs;

SocketSystemConfig config(int links = 1) {
  SocketSystemConfig c;
  c.cores = 2;
  c.slices = 2;
  c.core_lookup = kCore;
  c.home_lookup = kHome;
  c.mesh_hop = kMesh;
  c.socket_bytes = 1ull << 30;
  c.memory.read_latency = kDram;
  c.memory.channel_GBps = 64.0;  // a line holds its channel 1 ns
  c.memory.channels = 1;
  c.links = links;
  c.link.GBps = 20.0;
  c.link.latency = kLink;
  c.link.ack_every = 1 << 20;
  c.link.ack_timeout = kMs;
  return c;
}

Tick next_ns(Tick t) { return (t + kNs - 1) / kNs * kNs; }

// One access from socket 0's core 0, timed from now.
Tick timed(SocketSystem& s, bool store, std::uint64_t line, Core& c) {
  const Tick t0 = now_tick();
  s.core(0, 0).access(store, line, 9, 1, c);
  sc_core::sc_start();
  return c.at - t0;
}

// The line's holder stores to it first (untimed): Modified in its L2.
void modify(SocketSystem& s, int socket, std::uint64_t line) {
  Core c;
  s.core(socket, 1).access(true, line, 42, 1, c);
  sc_core::sc_start();
  ASSERT_EQ(s.core(socket, 1).state(line), RnState::UD);
}

// `line` Modified in core 1 of socket 1, then loaded (or stored) by core 0
// of socket 0: the access's time.
Tick from_remote_l2(SocketSystem& s, bool store, std::uint64_t line, Core& c) {
  modify(s, 1, line);
  return timed(s, store, line, c);
}

TEST(Sockets, HomesFollowTheAddressMapAndSlicesInterleaveByLine) {
  SocketSystem s("sys", config());
  const std::uint64_t l0 = s.line_at(0, 4096), l1 = s.line_at(1, 4096);
  EXPECT_EQ(s.socket_of(l0), 0);
  EXPECT_EQ(s.socket_of(l1), 1);
  // Agents: cores 0-3 (socket-major), then slices 4-5 on socket 0, 6-7 on socket 1.
  EXPECT_EQ(s.home_of(l0), 4);
  EXPECT_EQ(s.home_of(l0 + 1), 5);
  EXPECT_EQ(s.home_of(l1), 6);
  EXPECT_EQ(s.home_of(l1 + 1), 7);
  EXPECT_THROW(s.socket_of(s.line_at(1, 0) * 2), SimError);
}

// Local DRAM: look-up, mesh, home, DRAM (at the channel's next 1 ns slot),
// mesh, look-up. No socket link is used.
TEST(Sockets, ALocalDramReadIsTheSumOfItsStages) {
  SocketSystem s("sys", config());
  Core c;
  const Tick t = timed(s, false, s.line_at(0, 4096), c);
  EXPECT_EQ(t, next_ns(kCore + kMesh + kHome) + kDram + kMesh + kCore);
  EXPECT_EQ(s.link_messages.value, 0u);
  EXPECT_EQ(s.core(0, 0).state(s.line_at(0, 4096)), RnState::UC);
  EXPECT_TRUE(s.idle());
}

// Remote DRAM: the request crosses to the far socket's home and the data
// comes back: two mesh trips and a link crossing more each way (the
// requester's CompAck crosses after it, untimed).
TEST(Sockets, ARemoteDramReadCrossesTheSocketLinkBothWays) {
  SocketSystem s("sys", config());
  Core c;
  const Tick t = timed(s, false, s.line_at(1, 4096), c);
  const Tick at_home = kCore + kMesh + kHdr + kLink + kMesh + kHome;
  EXPECT_EQ(t, next_ns(at_home) + kDram + kMesh + kData + kLink + kMesh + kCore);
  EXPECT_EQ(s.link_messages.value, 3u);  // the request, the data, the requester's CompAck
  EXPECT_EQ(s.home(1, 0).memory_reads.value, 1u);
}

// A line Modified in an L2 of the other socket, homed there: request
// across, a snoop on the far mesh, and the holder forwards the line
// straight to the reader across the link; the dirty data goes home beside
// it (the reader gets a shared copy), and the home's speculative DRAM read
// is wasted.
TEST(Sockets, ARemoteModifiedLineHomedAtItsHolderIsForwarded) {
  SocketSystem s("sys", config());
  const std::uint64_t line = s.line_at(1, 4096);
  Core c;
  const Tick t = from_remote_l2(s, false, line, c);
  const Tick request = kCore + kMesh + kHdr + kLink + kMesh + kHome;
  const Tick snoop = kMesh + kCore;
  const Tick forward = kMesh + kData + kLink + kMesh + kCore;
  EXPECT_EQ(t, request + snoop + forward);
  ASSERT_EQ(c.values.size(), 1u);
  EXPECT_EQ(c.values[0], 42u);
  EXPECT_EQ(s.core(1, 1).state(line), RnState::SC);
  EXPECT_EQ(s.core(1, 1).forwards.value, 1u);
  EXPECT_EQ(s.home(1, 0).forwarded.value, 1u);
  EXPECT_EQ(s.home(1, 0).line(line).mem, 42u);  // the dirty data came home
  EXPECT_TRUE(s.idle());
}

// The same read, timed: its ledger is those stages by kind: the
// look-ups (coherence), the mesh trips and the link's latency
// (propagation), the request's header and the forwarded line's bytes on
// the link (serialisation); the home's wasted memory read is off the path.
TEST(Sockets, ATimedForwardedReadIsAccountedForStageByStage) {
  SocketSystem s("sys", config());
  const std::uint64_t line = s.line_at(1, 4096);
  modify(s, 1, line);
  Core c;
  Ledger led;
  const Tick t0 = now_tick();
  led.open(t0);
  s.core(0, 0).access(false, line, 0, 1, c, ~0ull, &led);
  sc_core::sc_start();
  Breakdown b;
  b.add(led, t0, c.at);  // fails unless the stages add up to the latency exactly
  auto spent = [&](Stage st) { return led.spent[static_cast<std::size_t>(st)]; };
  EXPECT_EQ(spent(Stage::Coherence), 3 * kCore + kHome);
  EXPECT_EQ(spent(Stage::Propagation), 5 * kMesh + 2 * kLink);
  EXPECT_EQ(spent(Stage::Serialisation), kHdr + kData);
  EXPECT_EQ(spent(Stage::Memory), 0);
  EXPECT_EQ(LedgerPool::instance().live(), 0u);
}

// The same line homed at the reader: the snoop and the forwarded line
// cross instead of the request and the data; the same stages in another
// order (the dirty data for the home follows the forwarded line on the
// same link, off the reader's path).
TEST(Sockets, ARemoteModifiedLineHomedAtTheReaderCostsTheSame) {
  SocketSystem s("sys", config());
  const std::uint64_t line = s.line_at(0, 4096);
  Core c;
  const Tick t = from_remote_l2(s, false, line, c);
  const Tick request = kCore + kMesh + kHome;
  const Tick snoop = kMesh + kHdr + kLink + kMesh + kCore;
  const Tick forward = kMesh + kData + kLink + kMesh + kCore;
  EXPECT_EQ(t, request + snoop + forward);
  EXPECT_EQ(c.values.at(0), 42u);
  EXPECT_EQ(s.home(0, 0).memory_reads.value, 2u);  // the holder's fill, then the wasted speculative read
}

// Without forwarding the dirty data goes to the home, which grants: one
// more mesh trip and home look-up, homed at the holder or at the reader.
TEST(Sockets, WithoutForwardingARemoteModifiedLineReturnsThroughTheHome) {
  SocketSystemConfig cfg = config();
  cfg.forward = false;
  for (const int home : {1, 0}) {
    SocketSystem s("sys", cfg);
    const std::uint64_t line = s.line_at(home, 4096);
    Core c;
    const Tick t = from_remote_l2(s, false, line, c);
    const Tick forwarded = 2 * (kCore + kMesh + kLink + kMesh) + kHome + kMesh + kCore + kHdr + kData;
    EXPECT_EQ(t, forwarded + kMesh + kHome) << "homed on socket " << home;
    EXPECT_EQ(c.values.at(0), 42u);
    EXPECT_EQ(s.core(1, 1).forwards.value, 0u);
    EXPECT_EQ(s.home(home, 0).line(line).mem, 42u);
    EXPECT_TRUE(s.idle());
  }
}

// A store to a line Modified on the other socket takes it unique from the
// holder directly; the dirty data is not written home (the new owner holds
// it dirty).
TEST(Sockets, AStoreTakesARemoteModifiedLineFromItsHolder) {
  SocketSystem s("sys", config());
  const std::uint64_t line = s.line_at(1, 4096);
  Core c;
  const Tick t = from_remote_l2(s, true, line, c);
  EXPECT_EQ(t, kCore + kMesh + kHdr + kLink + kMesh + kHome + kMesh + kCore + kMesh + kData + kLink + kMesh + kCore);
  EXPECT_EQ(s.core(0, 0).state(line), RnState::UD);
  EXPECT_EQ(s.core(1, 1).state(line), RnState::I);
  EXPECT_EQ(s.core(0, 0).data(line), 9u);
  EXPECT_EQ(s.home(1, 0).memory_writes.value, 0u);
  EXPECT_TRUE(s.idle());
}

// A store to a line other cores share on both sockets invalidates every
// copy before it completes.
TEST(Sockets, AStoreInvalidatesCopiesOnBothSockets) {
  SocketSystem s("sys", config());
  const std::uint64_t line = s.line_at(1, 64);
  Core c;
  for (int sock = 0; sock < 2; ++sock)
    for (int i = 0; i < 2; ++i) {
      s.core(sock, i).access(false, line, 0, 1, c);
      sc_core::sc_start();
    }
  EXPECT_EQ(s.core(0, 1).state(line), RnState::SC);
  s.core(0, 0).access(true, line, 7, 2, c);
  sc_core::sc_start();
  EXPECT_EQ(s.core(0, 0).state(line), RnState::UD);
  EXPECT_EQ(s.core(0, 1).state(line), RnState::I);
  EXPECT_EQ(s.core(1, 0).state(line), RnState::I);
  EXPECT_EQ(s.core(1, 1).state(line), RnState::I);
  EXPECT_TRUE(s.idle());
}

// Four sockets in a ring (0-1-2-3-0): socket 2 is two links from socket 0
// (through socket 1, the lower of the two between), socket 3 one. A DRAM
// read of a line homed on socket 2 pays, each way, the remote read's
// crossing twice and one more mesh trip (across socket 1, from one link's
// port to the next): request, data and CompAck each cross two links.
TEST(Sockets, ARingRoutesAReadToTheOppositeSocketThroughTheSocketBetween) {
  SocketSystemConfig cfg = config();
  cfg.sockets = 4;
  cfg.graph = SocketGraph::Ring;
  SocketSystem s("sys", cfg);
  EXPECT_EQ(s.hops(0, 1), 1);
  EXPECT_EQ(s.hops(0, 2), 2);
  EXPECT_EQ(s.hops(0, 3), 1);
  EXPECT_EQ(s.hops(3, 1), 2);
  Core c;
  const Tick t = timed(s, false, s.line_at(2, 4096), c);
  const Tick at_home = kCore + kMesh + 2 * (kHdr + kLink + kMesh) + kHome;
  EXPECT_EQ(t, next_ns(at_home) + kDram + kMesh + 2 * (kData + kLink + kMesh) + kCore);
  EXPECT_EQ(s.link_messages.value, 6u);
  EXPECT_EQ(s.passed.value, 3u);
  EXPECT_EQ(s.home(2, 0).memory_reads.value, 1u);
  EXPECT_TRUE(s.idle());
}

// The same read on four fully joined sockets crosses one link each way:
// the two-socket remote read's time.
TEST(Sockets, AFullGraphOfFourSocketsReachesEverySocketInOneCrossing) {
  SocketSystemConfig cfg = config();
  cfg.sockets = 4;
  SocketSystem s("sys", cfg);
  for (int to = 1; to < 4; ++to) EXPECT_EQ(s.hops(0, to), 1) << to;
  Core c;
  const Tick t = timed(s, false, s.line_at(2, 4096), c);
  const Tick at_home = kCore + kMesh + kHdr + kLink + kMesh + kHome;
  EXPECT_EQ(t, next_ns(at_home) + kDram + kMesh + kData + kLink + kMesh + kCore);
  EXPECT_EQ(s.link_messages.value, 3u);
}

// A graph of the pairs given: a chain 0-1-2 routes 0 to 2 through 1. Pairs
// that name no socket, join a socket to itself, come twice or leave a
// socket unreachable are refused, each with what is wrong.
TEST(Sockets, AGraphOfPairsIsRoutedAndABadOneRefused) {
  SocketSystemConfig cfg = config();
  cfg.sockets = 3;
  cfg.graph = SocketGraph::Pairs;
  cfg.pairs = {{0, 1}, {1, 2}};
  SocketSystem chain("sys", cfg);
  EXPECT_EQ(chain.hops(0, 2), 2);
  EXPECT_EQ(chain.hops(2, 0), 2);
  EXPECT_EQ(socket_graph_error(cfg), "");
  const std::vector<std::pair<std::vector<std::array<int, 2>>, std::string>> bad = {
      {{{0, 1}, {1, 3}}, "the socket pair [1, 3] names a socket beyond the 3 (sockets 0 to 2)"},
      {{{0, 1}, {2, 2}}, "the socket pair [2, 2] joins a socket to itself"},
      {{{0, 1}, {1, 2}, {2, 1}}, "the socket pair [2, 1] is given twice"},
      {{{0, 1}}, "no route of socket links joins socket 0 and socket 2"},
  };
  for (const auto& [pairs, why] : bad) {
    cfg.pairs = pairs;
    EXPECT_EQ(socket_graph_error(cfg), why);
    EXPECT_THROW(SocketSystem("bad", cfg), SimError) << why;
  }
  cfg.sockets = 9;
  cfg.graph = SocketGraph::Full;
  EXPECT_EQ(socket_graph_error(cfg), "a socket system has one to 8 sockets");
}

// Every core loads and stores a handful of lines of both sockets at random,
// several accesses in flight each, over two socket links with few credits:
// every step passes the checker, and every access completes. With a
// prefetcher, a miss also reads the next lines, which are among those the
// cores use: prefetches race with stores and snoops.
void stress(int prefetch, bool forward = true, int l2_lines = 0, int l2_victims = 0, bool dirty_sharing = false,
            int sockets = 2, const std::vector<std::array<int, 2>>& pairs = {}, std::uint64_t llc_lines = 0,
            SocketSystemConfig::Silent silent = SocketSystemConfig::Silent::None, int l1_lines = 0) {
  SocketSystemConfig cfg = config(2);
  cfg.l1_lines = l1_lines;
  cfg.l1_ways = 1;
  cfg.l1_hit = kNs;
  cfg.l2_hit = 3 * kNs;
  cfg.llc_lines = llc_lines;
  cfg.silent = silent;
  cfg.llc_ways = 1;
  cfg.sockets = sockets;
  cfg.graph = pairs.empty() ? SocketGraph::Ring : SocketGraph::Pairs;  // two sockets: the one pair
  cfg.pairs = pairs;
  cfg.dirty_sharing = dirty_sharing;
  cfg.link_end.credits = {2, 2, 2, 2};
  cfg.prefetch = prefetch;
  cfg.forward = forward;
  cfg.l2_lines = l2_lines;
  cfg.l2_ways = 2;
  cfg.l2_victims = l2_victims;
  SocketSystem s("sys", cfg);
  CoherenceChecker::instance().clear();
  struct Driver : CoreSide {
    SocketSystem* sys;
    int socket = 0, core = 0, left = 2000;
    std::mt19937_64 rng;
    std::vector<std::uint64_t> lines;
    int done = 0;
    void next() {
      if (left-- <= 0) return;
      const std::uint64_t line = lines[rng() % lines.size()];
      sys->core(socket, core).access(rng() % 3 == 0, line, rng(), 0, *this);
    }
    void access_done(std::uint64_t, std::uint64_t, Tick) override {
      ++done;
      next();
    }
  };
  const int n = 2 * sockets;  // drivers: two cores a socket
  std::vector<Driver> d(static_cast<std::size_t>(n));
  std::vector<std::uint64_t> lines;
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < sockets; ++k) lines.push_back(s.line_at(k, 64u * static_cast<unsigned>(i)));
  for (int i = 0; i < n; ++i) {
    d[i].sys = &s;
    d[i].socket = i / 2;
    d[i].core = i % 2;
    d[i].rng.seed(static_cast<unsigned>(i + 1));
    d[i].lines = lines;
    for (int k = 0; k < 3; ++k) d[i].next();
  }
  sc_core::sc_start();
  for (const Driver& x : d) EXPECT_EQ(x.done, 2000);
  EXPECT_TRUE(s.idle());
  EXPECT_GT(CoherenceChecker::instance().checks(), 2000u * static_cast<unsigned>(n));
  EXPECT_GT(s.link_messages.value, 1250u * static_cast<unsigned>(n));
  std::uint64_t prefetched = 0;
  for (int i = 0; i < n; ++i) prefetched += s.core(i / 2, i % 2).prefetches.value;
  if (sockets > 3) EXPECT_GT(s.passed.value, 250u * static_cast<unsigned>(sockets));  // routes through sockets between
  else EXPECT_EQ(s.passed.value, 0u);
  if (prefetch) EXPECT_GT(prefetched, 100u);
  else EXPECT_EQ(prefetched, 0u);
  std::uint64_t forwarded = 0;
  for (int i = 0; i < n; ++i) forwarded += s.core(i / 2, i % 2).forwards.value;
  if (forward) EXPECT_GT(forwarded, 100u);
  else EXPECT_EQ(forwarded, 0u);
  std::uint64_t evicted = 0, written = 0, waited = 0, dropped = 0;
  for (int i = 0; i < n; ++i) {
    dropped += s.core(i / 2, i % 2).drops.value;
    evicted += s.core(i / 2, i % 2).evictions.value;
    written += s.core(i / 2, i % 2).writebacks.value;
    waited += s.core(i / 2, i % 2).victim_waits.value;
  }
  std::uint64_t dirty_shared = 0;
  for (int s2 = 0; s2 < sockets; ++s2)
    for (int k = 0; k < cfg.slices; ++k) dirty_shared += s.home(s2, k).dirty_shared.value;
  if (dirty_sharing) EXPECT_GT(dirty_shared, 100u);  // owners kept lines dirty while others read them
  else EXPECT_EQ(dirty_shared, 0u);
  if (silent != SocketSystemConfig::Silent::None) EXPECT_GT(dropped, 100u);  // clean lines given up unheard of
  else EXPECT_EQ(dropped, 0u);
  if (l2_victims) EXPECT_GT(waited, 100u);  // misses did wait for the replacement buffer
  else EXPECT_EQ(waited, 0u);
  if (l2_lines) {
    EXPECT_GT(evicted, 100u);
    EXPECT_GT(written, 10u);
  } else {
    EXPECT_EQ(evicted, 0u);
  }
  std::uint64_t llc_hits = 0, llc_fills = 0, dram_writes = 0;
  for (int s2 = 0; s2 < sockets; ++s2)
    for (int k = 0; k < cfg.slices; ++k) {
      llc_hits += s.home(s2, k).cache_hits.value;
      llc_fills += s.home(s2, k).cache_fills.value;
      dram_writes += s.home(s2, k).memory_writes.value;
    }
  std::uint64_t l1_hits = 0;
  for (int i = 0; i < n; ++i) l1_hits += s.core(i / 2, i % 2).l1_hits.value;
  if (l1_lines) EXPECT_GT(l1_hits, 100u);  // accesses the L1s served, between the snoops that took their lines
  else EXPECT_EQ(l1_hits, 0u);
  if (llc_lines) {  // lines came from the LLCs, and they gave lines up to DRAM
    EXPECT_GT(llc_hits, 100u);
    EXPECT_GT(dram_writes, 10u);
    EXPECT_GT(llc_fills, dram_writes);
  } else {
    EXPECT_EQ(llc_hits + llc_fills, 0u);
  }
}

TEST(Sockets, StressAgainstTheGoldenMemory) { stress(0); }

TEST(Sockets, StressThroughTheHomeAgainstTheGoldenMemory) { stress(0, false); }

TEST(Sockets, StressWithAPrefetcherAgainstTheGoldenMemory) { stress(2); }

// Four sockets in a ring, two links a pair with two credits a class: a
// line homed on the socket opposite is reached through a socket between,
// whose mesh carries messages from one link to the next, while every core
// races for every socket's lines.
TEST(Sockets, StressOverARingOfFourSocketsAgainstTheGoldenMemory) { stress(2, true, 4, 0, false, 4); }

// Eight sockets as the corners of a cube (each joined to the three that
// differ from it in one bit of its number): routes of up to three links,
// through one or two sockets between.
TEST(Sockets, StressOverACubeOfEightSocketsAgainstTheGoldenMemory) {
  std::vector<std::array<int, 2>> cube;
  for (int a = 0; a < 8; ++a)
    for (int bit : {1, 2, 4})
      if (a < (a ^ bit)) cube.push_back({a, a ^ bit});
  stress(0, true, 4, 0, false, 8, cube);
}

// Private caches of four lines (two sets of two ways) for six lines: lines
// are given up for room all the time, written back dirty, while snoops,
// forwards and the cores' own accesses race with the evictions.
TEST(Sockets, StressWithTinyPrivateCachesAgainstTheGoldenMemory) { stress(0, true, 4); }
TEST(Sockets, StressWithTinyPrivateCachesAndAPrefetcherAgainstTheGoldenMemory) { stress(2, true, 4); }
// ... and with a replacement buffer of one entry: fills wait beyond their
// sets' ways and misses wait for the buffer, among the same races.
TEST(Sockets, StressWithTinyPrivateCachesAndOneVictimEntryAgainstTheGoldenMemory) { stress(2, true, 4, 1); }
// ... and through homes that keep dirty lines shared: SD owners give their
// lines up for room (written back) while others share them.
TEST(Sockets, StressThroughDirtySharingHomesWithTinyPrivateCachesAgainstTheGoldenMemory) { stress(2, false, 4, 0, true); }
// ... and with LLCs of one line a slice in front of DRAM: written lines
// are filled there and given up to DRAM for the next, while reads hit
// them, miss them, and race with the write-backs that fill them.
TEST(Sockets, StressWithTinyPrivateCachesAndTinyLlcsAgainstTheGoldenMemory) {
  stress(2, true, 4, 0, false, 2, {}, 2);
}
// ... and with clean lines given up silently (those of the other socket,
// or all): homes snoop cores that hold nothing, and those cores ask for
// the lines again while still listed.
// Partial lines (SocketSystemConfig::partial_lines): every core stores
// whole lines and half lines (lanes 0-3), loads, and runs atomics, on a
// handful of lines of both sockets, with private caches of four lines.
// A half store to a line not held takes it empty (CleanUnique) and leaves
// it partial (UDP); loads and near atomics of such lines fetch the rest;
// partial lines are given up for room (WriteBackPtl) and to snoops. Every
// step passes the checker (the golden memory merges each store's lanes),
// every access completes, and the cores were seen holding partial lines.
void partial_stress(bool forward) {
  {
    SocketSystemConfig cfg = config(2);
    cfg.partial_lines = true;
    cfg.forward = forward;
    cfg.link_end.credits = {2, 2, 2, 2};
    cfg.l2_lines = 4;
    cfg.l2_ways = 2;
    SocketSystem s("sys", cfg);
    CoherenceChecker::instance().clear();
    struct Driver : CoreSide {
      SocketSystem* sys;
      int socket = 0, core = 0, left = 2000;
      std::mt19937_64 rng;
      std::vector<std::uint64_t> lines;
      int done = 0, partial_seen = 0;
      std::uint64_t last = 0;
      void next() {
        if (left-- <= 0) return;
        last = lines[rng() % lines.size()];
        CachingAgent& a = sys->core(socket, core);
        switch (rng() % 6) {
          case 0: a.access(true, last, rng(), 0, *this); break;                          // a whole line
          case 1: case 2: a.access(true, last, rng(), 0, *this, 0x00000000ffffffffull); break;  // half a line
          case 3: {
            Rmw rmw;
            rmw.op = AtomicOp::Load;
            rmw.operand = rng() >> 8;
            a.atomic(rmw, last, 0, *this);
            break;
          }
          default: a.access(false, last, 0, 0, *this);
        }
      }
      void access_done(std::uint64_t, std::uint64_t, Tick) override {
        ++done;
        partial_seen += sys->core(socket, core).state(last) == RnState::UDP;
        next();
      }
    };
    std::vector<Driver> d(4);
    std::vector<std::uint64_t> lines;
    for (int i = 0; i < 3; ++i)
      for (int k = 0; k < 2; ++k) lines.push_back(s.line_at(k, 64u * static_cast<unsigned>(i)));
    for (int i = 0; i < 4; ++i) {
      d[i].sys = &s;
      d[i].socket = i / 2;
      d[i].core = i % 2;
      d[i].rng.seed(static_cast<unsigned>(i + 7));
      d[i].lines = lines;
      d[i].next();  // one access at a time: `last` is the line of the access done
    }
    sc_core::sc_start();
    int partial = 0;
    std::uint64_t far = 0, near = 0, written = 0;
    for (const Driver& x : d) {
      EXPECT_EQ(x.done, 2000);
      partial += x.partial_seen;
    }
    for (int i = 0; i < 4; ++i) {
      far += s.core(i / 2, i % 2).atomics_far.value;
      near += s.core(i / 2, i % 2).atomics_near.value;
      written += s.core(i / 2, i % 2).writebacks.value;
    }
    EXPECT_TRUE(s.idle());
    EXPECT_GT(CoherenceChecker::instance().checks(), 8000u);
    EXPECT_GT(partial, 200) << "forward " << forward;  // half stores left lines partial, many times
    EXPECT_GT(far, 100u);
    EXPECT_GT(near, 100u);
    EXPECT_GT(written, 100u);
  }
}
TEST(Sockets, StressWithPartialLinesAgainstTheGoldenMemory) { partial_stress(true); }
TEST(Sockets, StressWithPartialLinesThroughTheHomeAgainstTheGoldenMemory) { partial_stress(false); }

TEST(Sockets, StressWithSilentRemoteEvictionsAgainstTheGoldenMemory) {
  stress(2, true, 4, 0, false, 2, {}, 2, SocketSystemConfig::Silent::Remote);
}
TEST(Sockets, StressWithEverySilentEvictionThroughTheHomeAgainstTheGoldenMemory) {
  stress(2, false, 4, 0, false, 2, {}, 0, SocketSystemConfig::Silent::All);
}
// ... and with L1s of two lines (two sets of one way) in front of the
// private caches: lines enter and leave the L1s as the cores use them and
// as snoops, evictions and silent drops take them from the L2s.
TEST(Sockets, StressWithL1sInFrontOfTinyPrivateCachesAgainstTheGoldenMemory) {
  stress(2, true, 4, 0, false, 2, {}, 2, SocketSystemConfig::Silent::Remote, 2);
}

// A private cache of two sets of two ways: a third line of a set takes the
// place of the least recently used one, which is evicted clean to its home
// (and read from DRAM again after).
TEST(Sockets, APrivateCacheGivesUpItsLeastRecentlyUsedLine) {
  SocketSystemConfig cfg = config();
  cfg.l2_lines = 4;
  cfg.l2_ways = 2;
  SocketSystem s("sys", cfg);
  CachingAgent& c0 = s.core(0, 0);
  const std::uint64_t a = s.line_at(0, 0), b = a + 2, c = a + 4;  // one set (even lines)
  Core k;
  for (const std::uint64_t l : {a, b, a, c}) {
    c0.access(false, l, 0, 1, k);
    sc_core::sc_start();
  }
  EXPECT_EQ(c0.state(a), RnState::UC);
  EXPECT_EQ(c0.state(b), RnState::I);  // least recently used when c came
  EXPECT_EQ(c0.state(c), RnState::UC);
  EXPECT_EQ(c0.evictions.value, 1u);
  EXPECT_EQ(c0.writebacks.value, 0u);
  EXPECT_EQ(c0.hits.value, 1u);
  const Tick t = timed(s, false, b, k);  // from DRAM again
  EXPECT_EQ(t, next_ns(kCore + kMesh + kHome) + kDram + kMesh + kCore);
  EXPECT_EQ(c0.state(a), RnState::I);  // and b took a's place
  EXPECT_TRUE(s.idle());
}

// A dirty victim is written back: its home's memory then holds the value,
// and another core reads it from DRAM with no snoop.
TEST(Sockets, ADirtyVictimIsWrittenBackToItsHome) {
  SocketSystemConfig cfg = config();
  cfg.l2_lines = 2;
  cfg.l2_ways = 1;
  SocketSystem s("sys", cfg);
  CachingAgent& c0 = s.core(0, 0);
  const std::uint64_t a = s.line_at(1, 0), b = a + 2;  // one set, homed on socket 1
  Core k;
  c0.access(true, a, 77, 1, k);
  sc_core::sc_start();
  EXPECT_EQ(c0.state(a), RnState::UD);
  c0.access(false, b, 0, 2, k);
  sc_core::sc_start();
  EXPECT_EQ(c0.state(a), RnState::I);
  EXPECT_EQ(c0.writebacks.value, 1u);
  EXPECT_EQ(s.home(1, 0).line(a).mem, 77u);
  EXPECT_EQ(s.home(1, 0).line(a).dir(), DirState::I);
  const std::uint64_t snoops = s.home(1, 0).snoops.value;
  s.core(1, 0).access(false, a, 0, 3, k);
  sc_core::sc_start();
  EXPECT_EQ(k.values.back(), 77u);
  EXPECT_EQ(s.home(1, 0).snoops.value, snoops);
  EXPECT_TRUE(s.idle());
}

// The LLC as a cache (sockets.llc_size): a slice keeps the lines written
// home and serves a later read from them, after the slice's look-up and
// its hit time, with no DRAM access; a full set gives its least recently
// filled line to DRAM, which serves the next read of it. An LLC of one
// line a slice: a, b and c (one set of the private cache and of slice 0)
// are stored to by socket 0's core 1, each giving up the one before.
TEST(Sockets, AnLlcKeepsTheLinesWrittenHomeAndGivesItsVictimsToDram) {
  constexpr Tick kHit = 6 * kNs;
  SocketSystemConfig cfg = config();
  cfg.l2_lines = 2;
  cfg.l2_ways = 1;
  cfg.llc_lines = 2;
  cfg.llc_ways = 1;
  cfg.llc_hit = kHit;
  SocketSystem s("sys", cfg);
  HomeAgent& h = s.home(0, 0);
  const std::uint64_t a = s.line_at(0, 0), b = a + 2, c = a + 4;
  Core k;
  for (const std::uint64_t l : {a, b, c}) {
    s.core(0, 1).access(true, l, 100 + l, 1, k);
    sc_core::sc_start();
  }
  EXPECT_EQ(s.core(0, 1).writebacks.value, 2u);  // a, then b
  EXPECT_EQ(h.cache_fills.value, 2u);
  EXPECT_EQ(h.memory_writes.value, 1u);  // a, for b
  const std::uint64_t reads = h.memory_reads.value;
  EXPECT_EQ(timed(s, false, b, k), kCore + kMesh + kHome + kHit + kMesh + kCore);
  EXPECT_EQ(k.values.back(), 100 + b);
  EXPECT_EQ(h.cache_hits.value, 1u);
  EXPECT_EQ(h.memory_reads.value, reads);
  const Tick t0 = now_tick();  // DRAM: at the channel's next 1 ns slot
  const Tick dram = next_ns(t0 + kCore + kMesh + kHome) - t0 + kDram + kMesh + kCore;
  EXPECT_EQ(timed(s, false, a, k), dram);
  EXPECT_EQ(k.values.back(), 100 + a);
  EXPECT_EQ(h.memory_reads.value, reads + 1);  // a read that misses is not filled
  EXPECT_EQ(h.cache_fills.value, 2u);
  EXPECT_TRUE(s.idle());
}

// A core's L1 of four lines (two sets of two ways) in front of its L2: an
// access to a line the core used last is done after l1_hit, one the L2
// alone holds after l2_hit (the line enters the L1 in place of the least
// recently used line of its set there), and a line a snoop took from the
// L2 leaves the L1 as well, its way free for the next line.
TEST(Sockets, AnL1ServesTheLinesACoreUsedLastAndLosesThoseItsL2Loses) {
  constexpr Tick kL1 = 1 * kNs, kL2 = 5 * kNs;
  SocketSystemConfig cfg = config();
  cfg.l1_lines = 4;
  cfg.l1_ways = 2;
  cfg.l1_hit = kL1;
  cfg.l2_hit = kL2;
  SocketSystem s("sys", cfg);
  CachingAgent& me = s.core(0, 0);
  const std::uint64_t a = s.line_at(0, 0), b = a + 2, c = a + 4;  // one set of the L1
  Core k;
  timed(s, true, a, k);  // a miss: a is in the L2 and the L1
  EXPECT_EQ(timed(s, false, a, k), kL1);
  EXPECT_EQ(timed(s, true, a, k), kL1);
  EXPECT_GT(timed(s, false, b, k), kL2);  // misses: b joins a in the L1, c takes a's place
  EXPECT_GT(timed(s, false, c, k), kL2);
  EXPECT_EQ(timed(s, false, a, k), kL2);  // from the L2, back into the L1 in b's place
  EXPECT_EQ(timed(s, false, a, k), kL1);
  EXPECT_EQ(me.l1_hits.value, 3u);
  s.core(1, 0).access(true, a, 7, 2, k);  // the other socket's store takes a from both
  sc_core::sc_start();
  EXPECT_EQ(me.state(a), RnState::I);
  EXPECT_EQ(timed(s, false, b, k), kL2);  // into a's free way: c stays
  EXPECT_EQ(timed(s, false, c, k), kL1);
  EXPECT_GT(timed(s, false, a, k), 2 * kLink);  // a miss: forwarded across the link
  EXPECT_EQ(k.values.back(), 7u);
  EXPECT_EQ(timed(s, false, a, k), kL1);
  EXPECT_EQ(me.l1_hits.value, 5u);
  EXPECT_EQ(me.hits.value, 7u);
  EXPECT_TRUE(s.idle());
}

// A clean line of the other socket given up silently (sockets.
// silent_evictions: remote) is still listed at its home, so a store by a
// core of that socket snoops the reader across the socket link, where the
// home that was told grants from DRAM alone. Two systems, on lines apart (the
// checker is one for the process).
TEST(Sockets, ALineGivenUpSilentlyIsStillSnoopedAcrossTheLink) {
  Tick store[2] = {0, 0};
  for (const bool silent : {false, true}) {
    SocketSystemConfig cfg = config();
    cfg.l2_lines = 2;
    cfg.l2_ways = 1;
    cfg.silent = silent ? SocketSystemConfig::Silent::Remote : SocketSystemConfig::Silent::None;
    SocketSystem s(silent ? "quiet" : "told", cfg);
    const std::uint64_t a = s.line_at(1, silent ? 4096 : 0), b = a + 2;  // one set of core 0's cache, homed on socket 1
    Core k;
    for (const std::uint64_t l : {a, b}) {
      s.core(0, 0).access(false, l, 0, 1, k);
      sc_core::sc_start();
    }
    EXPECT_EQ(s.core(0, 0).state(a), RnState::I);
    EXPECT_EQ(s.core(0, 0).drops.value, silent ? 1u : 0u);
    EXPECT_EQ(s.home(1, 0).line(a).dir() == DirState::I, !silent);  // the quiet home still lists core 0
    const std::uint64_t snoops = s.home(1, 0).snoops.value;
    const Tick t0 = now_tick();
    s.core(1, 0).access(true, a, 5, 2, k);
    sc_core::sc_start();
    store[silent] = k.at - t0;
    EXPECT_EQ(s.home(1, 0).snoops.value, snoops + (silent ? 1u : 0u));
    EXPECT_EQ(s.core(1, 0).state(a), RnState::UD);
    EXPECT_TRUE(s.idle());
  }
  // The snoop's round trip across the link, which the home's DRAM read
  // overlaps, is the longer of the two: 27 ns more here.
  EXPECT_GT(store[1], store[0] + 20 * kNs);
}

// Message passing (x86-TSO litmus MP, which is CC-NIC's inline flag): a
// core of socket 0 stores the data, then the flag; a core of socket 1
// loads the flag, then the data. TSO forbids seeing the new flag with the
// old data. Each core issues an access when its previous one is done
// (program order), after a random pause of up to 300 ns (and a random
// start), with the data and flag lines homed on either socket and, before
// the round, shared by the reader or not. All three allowed outcomes must
// appear, the forbidden one never (with the writer's two stores swapped it
// appears in 42 of the 600 rounds: the test can see it).
void message_passing(const SocketSystemConfig& cfg, int reader_socket) {
  SocketSystem s("sys", cfg);
  const auto sockets = static_cast<unsigned>(cfg.sockets);
  std::mt19937_64 rng(7);
  int old_old = 0, new_new = 0, old_new = 0;
  struct Seq : CoreSide {
    sc_core::sc_event done;
    std::uint64_t got = 0;
    void access_done(std::uint64_t, std::uint64_t v, Tick) override {
      got = v;
      notify_now(done);
    }
    // Each access after `pause[k]`, when the one before is done.
    void run(CachingAgent& a, std::vector<std::pair<bool, std::uint64_t>> ops, std::vector<Tick> pause, std::uint64_t value,
             std::vector<std::uint64_t>& out) {
      for (std::size_t k = 0; k < ops.size(); ++k) {
        sc_core::wait(sc_core::sc_time::from_value(pause[k] + 1));
        a.access(ops[k].first, ops[k].second, value, k, *this);
        sc_core::wait(done);
        out.push_back(got);
      }
    }
  };
  for (int round = 0; round < 600; ++round) {
    const auto r = static_cast<unsigned>(round);
    const std::uint64_t data = s.line_at(static_cast<int>(rng() % sockets), 64u * (2u * r + 1000u));
    const std::uint64_t flag = s.line_at(static_cast<int>(rng() % sockets), 64u * (2u * r + 1001u));
    if (rng() % 2) {
      Core warm;
      s.core(reader_socket, 0).access(false, data, 0, 0, warm);
      s.core(reader_socket, 0).access(false, flag, 0, 0, warm);
      sc_core::sc_start();
    }
    auto pause = [&] { return static_cast<Tick>(rng() % 300) * kNs; };
    const std::uint64_t v = r + 1;
    Seq writer, reader;
    std::vector<std::uint64_t> wrote, read;
    const std::vector<Tick> wp = {pause(), pause()}, rp = {pause(), pause()};
    sc_core::sc_spawn([&] { writer.run(s.core(0, 0), {{true, data}, {true, flag}}, wp, v, wrote); });
    sc_core::sc_spawn([&] { reader.run(s.core(reader_socket, 0), {{false, flag}, {false, data}}, rp, 0, read); });
    sc_core::sc_start();
    ASSERT_EQ(read.size(), 2u);
    const bool f = read[0] == v, d = read[1] == v;
    EXPECT_FALSE(f && !d) << "round " << round << ": the flag without the data";
    if (f && d) ++new_new;
    else if (!f && !d) ++old_old;
    else if (!f && d) ++old_new;
  }
  EXPECT_GT(new_new, 0);
  EXPECT_GT(old_old, 0);
  EXPECT_GT(old_new, 0);
  EXPECT_TRUE(s.idle());
}

TEST(Sockets, MessagePassingLitmusNeverShowsTheFlagWithoutTheData) { message_passing(config(2), 1); }

// The same on four sockets in a ring, the reader two links from the
// writer, the data and the flag each homed on any of the four: a line's
// request, snoops and data take routes of zero, one or two links, and
// through a socket between, so they race differently for each pair of homes.
TEST(Sockets, MessagePassingLitmusAcrossARingNeverShowsTheFlagWithoutTheData) {
  SocketSystemConfig cfg = config(2);
  cfg.sockets = 4;
  cfg.graph = SocketGraph::Ring;
  message_passing(cfg, 2);
}

// Store buffering and message passing on timed x86-TSO cores (store buffers
// of 8): each round, core 0 of socket 0 and core 0 of socket 1 each store 1
// to a line of their own (after a random pause) and then load the other's
// (SB); in the same rounds core 1 of socket 0 stores data then a flag and
// core 1 of socket 1 loads the flag then the data (MP). Each pair's lines
// are fresh and homed on either socket. With store buffers SB's both-old
// outcome appears (each store still in its buffer when the other core's
// load reads its line), which blocking cores never show (run apart, with
// no store buffer), and MP never shows the flag without the data: the
// buffer commits in order. Every store is in the cache at the end.
int store_buffering_rounds(int store_buffer, int* mp_forbidden) {
  SocketSystemConfig c = config(2);
  c.store_buffer = store_buffer;
  SocketSystem s("sys", c);
  std::mt19937_64 rng(11);
  int both_old = 0;
  *mp_forbidden = 0;
  for (int round = 0; round < 200; ++round) {
    const auto r = static_cast<unsigned>(round);
    std::uint64_t line[4];
    for (unsigned k = 0; k < 4; ++k) line[k] = s.line_at(static_cast<int>(rng() % 2), 64u * (4u * r + k + 3000u));
    const Tick pause[4] = {static_cast<Tick>(rng() % 200) * kNs, static_cast<Tick>(rng() % 200) * kNs,
                           static_cast<Tick>(rng() % 200) * kNs, static_cast<Tick>(rng() % 200) * kNs};
    std::uint64_t r0 = 9, r1 = 9, flag = 9, data = 9;
    // SB: core 0 of `socket` stores 1 to its line, then loads the other one.
    const auto sb = [&](int socket, std::uint64_t& r) {
      sc_core::sc_spawn([&, socket] {
        CoreThread t(s.core(socket, 0));
        sc_core::wait(sc_core::sc_time::from_value(pause[socket] + 1));
        t.store(line[socket], 1);
        r = t.load(line[1 - socket]);
        t.fence();
      });
    };
    sb(0, r0);
    sb(1, r1);
    sc_core::sc_spawn([&] {
      CoreThread t(s.core(0, 1));
      sc_core::wait(sc_core::sc_time::from_value(pause[2] + 1));
      t.store(line[2], 1);
      t.store(line[3], 1);
      t.fence();
    });
    sc_core::sc_spawn([&] {
      CoreThread t(s.core(1, 1));
      sc_core::wait(sc_core::sc_time::from_value(pause[3] + 1));
      flag = t.load(line[3]);
      data = t.load(line[2]);
    });
    sc_core::sc_start();
    EXPECT_TRUE(r0 <= 1 && r1 <= 1 && flag <= 1 && data <= 1) << "round " << round << ": a thread did not finish";
    both_old += r0 == 0 && r1 == 0;
    *mp_forbidden += flag == 1 && data == 0;
    for (int k = 0; k < 4; ++k) {  // every store in the cache: a fresh load of the line reads 1
      Core got;
      s.core(k < 2 ? 1 - k : 0, 0).access(false, line[k], 0, 0, got);
      sc_core::sc_start();
      EXPECT_EQ(got.values.back(), 1u) << "round " << round << ", line " << k;
    }
  }
  EXPECT_TRUE(s.idle());
  return both_old;
}

TEST(Sockets, StoreBuffersShowStoreBufferingAndKeepMessagePassing) {
  int mp = 0;
  const int with = store_buffering_rounds(8, &mp);
  EXPECT_GT(with, 0) << "store buffers never showed SB's both-old outcome";
  EXPECT_EQ(mp, 0) << "a buffered flag was seen before its data";
}

TEST(Sockets, BlockingCoresNeverShowStoreBuffering) {
  int mp = 0;
  EXPECT_EQ(store_buffering_rounds(0, &mp), 0);
  EXPECT_EQ(mp, 0);
}

// A timed store into a store buffer is timed to its commit: alone in the
// buffer it takes what a blocking core's store of the same line takes, stage
// by stage; behind an older store of a remote line it waits for that
// store's commit (TSO's order), which its ledger holds as ordering. (The
// three systems use lines of their own: the checker is the process's.)
TEST(Sockets, ABufferedStoreIsTimedToItsCommit) {
  unsigned run = 0;
  const auto timed_store = [&run](int store_buffer, bool behind, Ledger& led) {
    const unsigned at = 1024u * ++run;
    SocketSystemConfig c = config(2);
    c.store_buffer = store_buffer;
    SocketSystem s("sys", c);
    Tick t0 = 0, done = 0;
    sc_core::sc_spawn([&] {
      CoreThread t(s.core(0, 0));
      // Each run from a whole microsecond: DRAM's line slots then fall alike.
      sc_core::wait(sc_core::sc_time::from_value(1000 * kNs - now_tick() % (1000 * kNs)));
      if (behind) t.store(s.line_at(1, 64u * (at + 7u)), 1);  // homed on the other socket: a slow commit
      t0 = now_tick();
      led.open(t0);
      t.time_next(&led);
      t.store(s.line_at(1, 64u * (at + 9u)), 2);
      t.fence();
      done = t.done_at();
    });
    sc_core::sc_start();
    EXPECT_TRUE(s.idle());
    EXPECT_EQ(led.mark, done) << "the ledger stops short of the store's commit";
    Tick sum = 0;
    for (Tick v : led.spent) sum += v;
    EXPECT_EQ(sum, done - t0) << "the stages do not add up to the store's latency";
    return done - t0;
  };
  Ledger blocking, alone, behind;
  const Tick b = timed_store(0, false, blocking), a = timed_store(8, false, alone);
  EXPECT_EQ(a, b);
  EXPECT_EQ(alone.spent, blocking.spent);
  EXPECT_EQ(alone.spent[static_cast<std::size_t>(Stage::Ordering)], Tick{0});
  const Tick w = timed_store(8, true, behind);
  EXPECT_GT(w, a);
  EXPECT_GT(behind.spent[static_cast<std::size_t>(Stage::Ordering)], Tick{0}) << "the wait behind the older store is not ordering";
}

// A store buffer asks for the lines of the stores behind the oldest ahead
// of their commit (sockets.rfo_ahead, up to the MSHRs but one): four
// stores to lines of the other socket then drain in little more than one
// remote fetch; with rfo_ahead 1 the fetches overlap in pairs, and with 0
// each waits for the commit before it, one fetch after another.
TEST(Sockets, AStoreBufferAsksForItsLinesAheadOfTheirCommits) {
  unsigned run = 0;
  const auto drain = [&run](int rfo_ahead) {
    const unsigned at = 1024u * ++run;
    SocketSystemConfig c = config(2);
    c.store_buffer = 8;
    c.rfo_ahead = rfo_ahead;
    SocketSystem s("sys", c);
    Tick t = 0;
    sc_core::sc_spawn([&] {
      CoreThread core(s.core(0, 0));
      sc_core::wait(sc_core::sc_time::from_value(1000 * kNs - now_tick() % (1000 * kNs)));
      const Tick t0 = now_tick();
      for (unsigned i = 0; i < 4; ++i) core.store(s.line_at(1, 64u * (at + 3u * i)), i + 1);
      core.fence();
      t = now_tick() - t0;
    });
    sc_core::sc_start();
    EXPECT_TRUE(s.idle());
    return t;
  };
  const Tick ahead = drain(256), pairs = drain(1), none = drain(0);
  const Tick one = kCore + 2 * (kMesh + kLink + kMesh) + kHome + kDram;  // about one remote fetch
  EXPECT_LT(ahead, 2 * one);
  EXPECT_GT(pairs, ahead);
  EXPECT_GT(none, pairs);
  EXPECT_GT(none, 4 * one);  // four fetches one after another
}

}  // namespace
}  // namespace hx::coherence
