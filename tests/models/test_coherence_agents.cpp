// Timed coherent agents alone (models/coherence/agents): two caching agents
// and a home with its memory, each caching agent on its own coherence link
// to the home; no YAML. Closed forms: a miss served from memory and a miss
// served from another cache are the sums of their stages, a ping-pong of
// one line between two writers has a period of two one-way transfers,
// request credits bound the request rate to credits per round trip, and a
// home's pipeline takes one message per interval.
#include <gtest/gtest.h>
#include <systemc>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "models/coherence/agents.h"
#include "models/coherence/checker.h"
#include "models/core/error.h"

namespace hx::coherence {
namespace {

struct Core : CoreSide {
  std::vector<std::tuple<std::uint64_t, std::uint64_t, Tick>> done;  // tag, value, time
  void access_done(std::uint64_t tag, std::uint64_t value, Tick at) override { done.emplace_back(tag, value, at); }
};

mem::MemoryConfig memory() {
  mem::MemoryConfig m;
  m.read_latency = 80 * kNs;
  m.write_latency = 40 * kNs;
  m.channel_GBps = 12.8;  // a line holds its channel 5 ns
  m.channels = 2;
  return m;
}

// 20 GB/s each way (50 ps a byte): a 16 B header 0.8 ns, a data message
// (16 + 64 B) 4 ns; 20 ns each way; credits go back in headers (a link
// set to return them in packets sends one per freed message, 0.4 ns);
// infinite credits unless a test sets some.
CohLinkConfig link() {
  CohLinkConfig l;
  l.GBps = 20.0;
  l.latency = 20 * kNs;
  l.ack_every = 1 << 20;
  l.ack_timeout = kMs;
  l.fc_update_every = 1;
  return l;
}

CohEndConfig infinite() {
  CohEndConfig c;
  c.credits = {0, 0, 0, 0};
  return c;
}

struct Rig {
  explicit Rig(CohEndConfig home_port0 = infinite(), int prefetch = 0, bool far_atomics = true, Tick store_fill = 0,
               bool make_unique = false, Tick home_interval = 0)
      : mem("mem", memory()), home("home", home_config(home_port0, {}, home_interval), mem),
        a0("a0", agent(0, prefetch, far_atomics, store_fill, make_unique)), a1("a1", agent(1)) {
    CohPort::connect(a0.port(), home.port(0), link());
    CohPort::connect(a1.port(), home.port(1), link());
  }
  Rig(CohEndConfig home_port0, const CohLinkConfig& l)
      : mem("mem", memory()), home("home", home_config(home_port0), mem), a0("a0", agent(0)), a1("a1", agent(1)) {
    CohPort::connect(a0.port(), home.port(0), l);
    CohPort::connect(a1.port(), home.port(1), l);
  }
  explicit Rig(const CachingAgentConfig& c0, const HomePolicy& policy = {})
      : mem("mem", memory()), home("home", home_config(infinite(), policy), mem), a0("a0", c0), a1("a1", agent(1)) {
    CohPort::connect(a0.port(), home.port(0), link());
    CohPort::connect(a1.port(), home.port(1), link());
  }
  static HomeAgentConfig home_config(CohEndConfig port0, const HomePolicy& policy = {}, Tick interval = 0) {
    HomeAgentConfig h;
    h.policy = policy;
    h.id = 2;
    h.lookup = 10 * kNs;
    h.lookup_interval = interval;
    h.atomic_latency = 6 * kNs;
    h.ports = {port0, infinite()};
    return h;
  }
  static CachingAgentConfig agent(AgentId id, int prefetch = 0, bool far_atomics = true, Tick store_fill = 0,
                                  bool make_unique = false) {
    CachingAgentConfig c;
    c.id = id;
    c.make_unique = make_unique;
    c.prefetch = prefetch;
    c.far_atomics = far_atomics;
    c.store_fill = store_fill;
    c.home = 2;
    c.lookup = 2 * kNs;
    c.port = infinite();
    return c;
  }
  mem::MemoryController mem;
  HomeAgent home;
  CachingAgent a0, a1;
  Core c0, c1;
};

constexpr Tick kHdr = 800, kData = 4 * kNs, kLat = 20 * kNs, kRn = 2 * kNs, kHome = 10 * kNs;

Tick next_slot(Tick t, Tick grid) { return (t + grid - 1) / grid * grid; }

Rmw rmw(AtomicOp op, std::uint64_t operand, std::uint64_t compare = 0) {
  Rmw r;
  r.op = op;
  r.operand = operand;
  r.compare = compare;
  return r;
}

// A load of a line nobody holds: the request's trip, the home's look-up,
// the memory read (at its channel's next 5 ns slot), the data's trip, the
// agent's look-up. The line comes back unique (UC), the only copy.
TEST(CoherenceAgents, AMissServedByMemoryIsTheSumOfItsStages) {
  Rig r;
  r.a0.access(false, 5, 0, 1, r.c0);
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 1u);
  const Tick at_home = kRn + kHdr + kLat + kHome;
  const Tick data = next_slot(at_home, 5 * kNs) + 80 * kNs;
  EXPECT_EQ(std::get<2>(r.c0.done[0]), data + kData + kLat + kRn);
  EXPECT_EQ(r.a0.state(5), RnState::UC);
  EXPECT_EQ(r.home.memory_reads.value, 1u);
  EXPECT_TRUE(r.home.idle());
}

// A home whose pipeline takes a message once per 3 ns: two requests that
// arrive together enter it at its first two free slots from their arrival
// on, 3 ns apart, and the second one's look-up ends that much later (one
// wait counted). Memory then serves each at its channel's next 5 ns slot
// (lines 5 and 6 are on different channels). The CompAcks, later, wait
// for nothing.
TEST(CoherenceAgents, AHomePipelineTakesOneMessagePerInterval) {
  Rig r(infinite(), 0, true, 0, false, 3 * kNs);
  r.a0.access(false, 5, 0, 1, r.c0);
  r.a1.access(false, 6, 0, 1, r.c1);
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 1u);
  ASSERT_EQ(r.c1.done.size(), 1u);
  const Tick first = next_slot(kRn + kHdr + kLat, 3 * kNs);
  ASSERT_GT(first, kRn + kHdr + kLat);  // the slot edge after the arrival, not the arrival itself
  const auto done = [](Tick slot) { return next_slot(slot + kHome, 5 * kNs) + 80 * kNs + kData + kLat + kRn; };
  const Tick t0 = std::get<2>(r.c0.done[0]), t1 = std::get<2>(r.c1.done[0]);
  EXPECT_EQ(std::min(t0, t1), done(first));
  EXPECT_EQ(std::max(t0, t1), done(first + 3 * kNs));
  EXPECT_EQ(r.home.pipeline_waits.value, 1u);
  EXPECT_EQ(r.home.requests.value, 2u);
  EXPECT_TRUE(r.home.idle());
}

// A write-allocate cache that merges a missing store into the arrived line
// through its pipeline again: the store miss is the load miss's sum and
// `store_fill` more; the line is unique and dirty at the fill. A store that
// hits does not pay it.
TEST(CoherenceAgents, AStoreMissIsDoneItsFillTimeAfterTheLineArrives) {
  Rig r(infinite(), 0, true, 40 * kNs);
  r.a0.access(true, 5, 7, 1, r.c0);
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 1u);
  const Tick at_home = kRn + kHdr + kLat + kHome;
  const Tick arrived = next_slot(at_home, 5 * kNs) + 80 * kNs + kData + kLat + kRn;
  EXPECT_EQ(std::get<2>(r.c0.done[0]), arrived + 40 * kNs);
  EXPECT_EQ(r.a0.state(5), RnState::UD);
  const Tick t1 = sc_core::sc_time_stamp().value();
  r.a0.access(true, 5, 8, 2, r.c0);
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 2u);
  EXPECT_EQ(std::get<2>(r.c0.done[1]), t1 + kRn);
}

// A message alone on an idle link goes out from the send itself, at the
// time a wake would have sent it (the test above): the only actions are
// the access's look-up, one receive per message and the memory's reply.
// A core's accesses issued together run in one action.
TEST(CoherenceAgents, IdleLinksAndIssuedTogetherAccessesCostNoExtraActions) {
  Rig r;
  const std::uint64_t a0 = Scheduler::actions_dispatched();
  r.a0.access(false, 5, 0, 1, r.c0);
  sc_core::sc_start();
  const std::uint64_t messages = r.a0.port().tx_units.value + r.home.port(0).tx_units.value;
  EXPECT_EQ(messages, 3u);  // ReadShared, CompData, CompAck
  EXPECT_EQ(Scheduler::actions_dispatched() - a0, 1 + messages + 1);
  const std::uint64_t a1 = Scheduler::actions_dispatched();
  for (std::uint64_t l = 0; l < 3; ++l) r.a0.access(false, 5, 0, 2 + l, r.c0);  // three hits
  sc_core::sc_start();
  EXPECT_EQ(Scheduler::actions_dispatched() - a1, 1u);
  EXPECT_EQ(r.c0.done.size(), 4u);
}

// A load of a line dirty in the other cache: request, snoop, dirty data
// home, data out; the speculative memory read is overtaken. The owner keeps
// a shared copy; both read the value it wrote.
TEST(CoherenceAgents, AMissServedByAnotherCacheIsTheSumOfItsStages) {
  Rig r;
  r.a1.access(true, 7, 42, 1, r.c1);
  sc_core::sc_start();  // to rest: a1 holds line 7 dirty
  ASSERT_EQ(r.a1.state(7), RnState::UD);
  const Tick t0 = now_tick();
  r.a0.access(false, 7, 0, 2, r.c0);
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 1u);
  const Tick request = kRn + kHdr + kLat + kHome;     // at the home
  const Tick snoop = kHdr + kLat + kRn;               // at the owner
  const Tick dirty = kData + kLat + kHome;            // its data at the home
  const Tick grant = kData + kLat + kRn;              // at the reader
  EXPECT_EQ(std::get<2>(r.c0.done[0]) - t0, request + snoop + dirty + grant);
  EXPECT_EQ(std::get<1>(r.c0.done[0]), 42u);
  EXPECT_EQ(r.a0.state(7), RnState::SC);
  EXPECT_EQ(r.a1.state(7), RnState::SC);
  EXPECT_EQ(r.home.line(7).mem, 42u);  // the dirty data came home
  EXPECT_EQ(r.home.snoops.value, 1u);
}

// The same load at a home that keeps dirty lines shared: the same stages
// (the owner's copy overtakes the memory read), but the owner keeps its
// line dirty (SD) and memory is not written. The owner's next store
// upgrades (the reader's copy invalidated, no data), the reader's next load
// is served by the owner again, and only the owner's eviction writes
// memory. An agent set to read clean makes the owner send its data home.
TEST(CoherenceAgents, ADirtyLineReadAtADirtySharingHomeStaysDirtyAtItsOwner) {
  CoherenceChecker::instance().clear();
  HomePolicy owned;
  owned.owned = true;
  Rig r(Rig::agent(0), owned);
  r.a1.access(true, 7, 42, 1, r.c1);
  sc_core::sc_start();
  ASSERT_EQ(r.a1.state(7), RnState::UD);
  const Tick t0 = now_tick();
  r.a0.access(false, 7, 0, 2, r.c0);
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 1u);
  const Tick request = kRn + kHdr + kLat + kHome, snoop = kHdr + kLat + kRn, copy = kData + kLat + kHome, grant = kData + kLat + kRn;
  EXPECT_EQ(std::get<2>(r.c0.done[0]) - t0, request + snoop + copy + grant);
  EXPECT_EQ(std::get<1>(r.c0.done[0]), 42u);
  EXPECT_EQ(r.a0.state(7), RnState::SC);
  EXPECT_EQ(r.a1.state(7), RnState::SD);
  EXPECT_EQ(r.home.line(7).dir(), DirState::O);
  EXPECT_EQ(r.home.line(7).owner, 1);
  EXPECT_EQ(r.home.memory_writes.value, 0u);
  EXPECT_NE(r.home.line(7).mem, 42u);  // memory is stale: the owner holds the line
  // The owner writes again: an upgrade, the reader's copy invalidated.
  r.a1.access(true, 7, 43, 3, r.c1);
  sc_core::sc_start();
  EXPECT_EQ(r.a1.state(7), RnState::UD);
  EXPECT_EQ(r.a0.state(7), RnState::I);
  EXPECT_EQ(r.home.memory_writes.value, 0u);
  r.a0.access(false, 7, 0, 4, r.c0);
  sc_core::sc_start();
  EXPECT_EQ(std::get<1>(r.c0.done.back()), 43u);
  EXPECT_EQ(r.a1.state(7), RnState::SD);
  EXPECT_EQ(r.home.memory_writes.value, 0u);
  // Its eviction writes the line home; the sharer keeps its copy.
  r.a1.evict(7, 5, r.c1);
  sc_core::sc_start();
  EXPECT_EQ(r.home.memory_writes.value, 1u);
  EXPECT_EQ(r.home.line(7).mem, 43u);
  EXPECT_EQ(r.home.line(7).dir(), DirState::S);
  EXPECT_EQ(r.a0.state(7), RnState::SC);
  EXPECT_EQ(r.a1.writebacks.value, 0u);  // (an eviction a core asked for, not one for room)
  EXPECT_TRUE(r.home.idle());
  // A reader set to read clean: the dirty owner sends its line home.
  CoherenceChecker::instance().clear();  // (new agents on the same line)
  CachingAgentConfig clean = Rig::agent(0);
  clean.read_clean = true;
  Rig c(clean, owned);
  c.a1.access(true, 7, 44, 1, c.c1);
  sc_core::sc_start();
  c.a0.access(false, 7, 0, 2, c.c0);
  sc_core::sc_start();
  EXPECT_EQ(std::get<1>(c.c0.done.back()), 44u);
  EXPECT_EQ(c.a1.state(7), RnState::SC);
  EXPECT_EQ(c.home.memory_writes.value, 1u);
  // A load of the line it now holds is a hit, in the cache.
  const std::uint64_t requests = c.home.requests.value;
  c.a0.access(false, 7, 0, 3, c.c0);
  sc_core::sc_start();
  EXPECT_EQ(std::get<1>(c.c0.done.back()), 44u);
  EXPECT_EQ(c.a0.state(7), RnState::SC);
  EXPECT_EQ(c.home.requests.value, requests);
  EXPECT_EQ(c.home.line(7).mem, 44u);
  EXPECT_TRUE(c.home.idle());
}

// A write-back that a read overtakes: the read's snoop finds the line in
// the write-back's buffer and takes its dirty data home (one memory
// write); the write-back, served after, is stale and writes nothing.
TEST(CoherenceAgents, AStaleWriteBackWritesNothing) {
  CoherenceChecker::instance().clear();
  Rig r;
  r.a1.access(true, 7, 42, 1, r.c1);
  sc_core::sc_start();
  ASSERT_EQ(r.a1.state(7), RnState::UD);
  // Issued together: the read's header reaches the home before the
  // write-back's line (0.8 ns against 4 ns on the wire).
  r.a1.evict(7, 2, r.c1);
  r.a0.access(false, 7, 0, 3, r.c0);
  sc_core::sc_start();
  EXPECT_EQ(std::get<1>(r.c0.done.back()), 42u);
  EXPECT_EQ(r.home.snoops.value, 1u);
  EXPECT_EQ(r.home.memory_writes.value, 1u);
  EXPECT_EQ(r.home.line(7).mem, 42u);
  EXPECT_EQ(r.a1.state(7), RnState::I);
  EXPECT_TRUE(r.home.idle());
}

// Accesses to a line no agent caches: a WriteNoSnp carries the line to
// memory (no snoop, no memory read), a ReadNoSnp reads it from memory as a
// ReadOnce does; neither leaves a copy. The same to a line some agent holds
// is an error that names it.
TEST(CoherenceAgents, NonSnoopableAccessesGoStraightToMemory) {
  CoherenceChecker::instance().clear();
  Rig r;
  r.a0.access_nosnp(true, 9, 77, 1, r.c0);
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 1u);
  EXPECT_EQ(std::get<1>(r.c0.done[0]), 77u);
  EXPECT_EQ(r.home.line(9).mem, 77u);
  EXPECT_EQ(r.home.memory_writes.value, 1u);
  EXPECT_EQ(r.home.memory_reads.value, 0u);
  const Tick t0 = now_tick();
  r.a1.access_nosnp(false, 9, 0, 2, r.c1);
  sc_core::sc_start();
  ASSERT_EQ(r.c1.done.size(), 1u);
  EXPECT_EQ(std::get<1>(r.c1.done[0]), 77u);
  const Tick at_home = kRn + kHdr + kLat + kHome;
  EXPECT_EQ(std::get<2>(r.c1.done[0]) - t0, next_slot(t0 + at_home, 5 * kNs) - t0 + 80 * kNs + kData + kLat + kRn);
  EXPECT_EQ(r.a0.state(9), RnState::I);
  EXPECT_EQ(r.a1.state(9), RnState::I);
  EXPECT_EQ(r.home.snoops.value, 0u);
  EXPECT_EQ(r.a0.uncached.value + r.a1.uncached.value, 2u);
  EXPECT_TRUE(r.home.idle());
  r.a0.access(false, 9, 0, 3, r.c0);
  sc_core::sc_start();
  std::string error;
  try {
    r.a0.access_nosnp(false, 9, 0, 4, r.c0);
    sc_core::sc_start();
  } catch (const std::exception& e) {
    error = e.what();
  }
  EXPECT_NE(error.find("a ReadNoSnp to line 0x9, which this agent holds (UC)"), std::string::npos) << error;
}

// Two writers take turns on one line, each storing when the other's store
// is done: every turn is one transfer of a dirty line (request, SnpToI,
// dirty data home, data out), so the period of one writer is two of them.
TEST(CoherenceAgents, APingPongPeriodIsTwoOneWayTransfers) {
  Rig r;
  struct Turns : CoreSide {
    Rig* rig;
    int left = 10;
    std::vector<Tick> at;
    void access_done(std::uint64_t tag, std::uint64_t, Tick t) override {
      at.push_back(t);
      if (--left > 0) (tag == 0 ? rig->a1 : rig->a0).access(true, 3, static_cast<std::uint64_t>(left), 1 - tag, *this);
    }
  } turns;
  turns.rig = &r;
  r.a0.access(true, 3, 100, 0, turns);
  sc_core::sc_start();
  ASSERT_EQ(turns.at.size(), 10u);
  const Tick one_way = (kRn + kHdr + kLat + kHome) + (kHdr + kLat + kRn) + (kData + kLat + kHome) + (kData + kLat + kRn);
  for (std::size_t i = 3; i < turns.at.size(); ++i) EXPECT_EQ(turns.at[i] - turns.at[i - 2], 2 * one_way) << i;
  EXPECT_EQ(r.a1.data(3), 1u);  // the last store's value
}

// One request credit at the home: a request may leave only when the credit
// of the one before has come back, freed when the home takes the request
// (after its look-up) and returned over the link: in the reverse
// direction's headers (no wire time), or, on a link set so, in a 0.4 ns
// packet of its own. The requests leave one per round trip: credits per
// round trip.
void expect_one_request_per_round_trip(bool credits_in_header) {
  CohEndConfig one = infinite();
  one.credits[static_cast<std::size_t>(MsgClass::Req)] = 1;
  CohLinkConfig l = link();
  l.credits_in_header = credits_in_header;
  Rig r(one, l);
  for (std::uint64_t k = 0; k < 3; ++k) r.a0.access(false, 100 + k, 0, k, r.c0);
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 3u);
  const Tick credit_packet = credits_in_header ? 0 : 400;
  const Tick round_trip = kHdr + kLat + kHome + credit_packet + kLat;  // 50.8 ns (51.2 in packets)
  for (std::size_t k = 0; k < 3; ++k) {
    const Tick leaves = kRn + static_cast<Tick>(k) * round_trip;
    const Tick data = next_slot(leaves + kHdr + kLat + kHome, 5 * kNs) + 80 * kNs;
    EXPECT_EQ(std::get<2>(r.c0.done[k]), data + kData + kLat + kRn) << k;
  }
  EXPECT_GE(r.a0.port().credit_stalls.value, 1u);
  EXPECT_EQ(r.home.port(0).tx_ctrl.value, credits_in_header ? 0u : 3u);  // packets: one credit return per request
  EXPECT_EQ(r.a0.port().tx_units.value, 6u);                            // three requests, three CompAcks
}

TEST(CoherenceAgents, RequestCreditsBoundTheRequestRate) { expect_one_request_per_round_trip(true); }

TEST(CoherenceAgents, RequestCreditsInPacketsBoundTheRequestRate) { expect_one_request_per_round_trip(false); }

// Stores of some bits of a line keep the others, whichever cache the line
// is in: two agents write their own fields of one line at once (one of them
// twice, the second store merged behind the first's request), each a miss
// that takes the line from the other; then both read it. Every value passes
// the checker, and the line ends with every field's last store.
TEST(CoherenceAgents, AStoreOfSomeBitsKeepsTheOthers) {
  CoherenceChecker::instance().clear();
  Rig r;
  r.a0.access(true, 11, 0x00AA, 1, r.c0, 0x00FF);
  r.a1.access(true, 11, 0xBB00, 2, r.c1, 0xFF00);
  r.a0.access(true, 11, 0xCC0000, 3, r.c0, 0xFF0000);
  sc_core::sc_start();
  r.a0.access(false, 11, 0, 4, r.c0);
  r.a1.access(false, 11, 0, 5, r.c1);
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 3u);
  ASSERT_EQ(r.c1.done.size(), 2u);
  EXPECT_EQ(std::get<1>(r.c0.done[2]), 0xCCBBAAu);
  EXPECT_EQ(std::get<1>(r.c1.done[1]), 0xCCBBAAu);
  EXPECT_GE(r.home.snoops.value, 1u);  // the line moved between the caches
}

// A compare-and-swap of a line nobody holds runs at the home: its request
// (a 16 B header and 16 B of operands), the home's look-up, the memory
// read, the operation (6 ns), and the old value's way back (a header and
// 8 B). The requester keeps no copy; memory takes the new value.
TEST(CoherenceAgents, AFarAtomicIsTheSumOfItsStages) {
  CoherenceChecker::instance().clear();
  Rig r;
  Rmw cas = rmw(AtomicOp::Compare, 77, 0);
  r.a0.atomic(cas, 5, 1, r.c0);
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 1u);
  const Tick at_home = kRn + 2 * kHdr + kLat + kHome;
  const Tick value = next_slot(at_home, 5 * kNs) + 80 * kNs + 6 * kNs;
  EXPECT_EQ(std::get<2>(r.c0.done[0]), value + kHdr + kHdr / 2 + kLat + kRn);
  EXPECT_EQ(std::get<1>(r.c0.done[0]), 0u);  // the old value
  EXPECT_EQ(r.a0.state(5), RnState::I);
  EXPECT_EQ(r.home.line(5).mem, 77u);
  EXPECT_EQ(r.home.atomics.value, 1u);
  EXPECT_EQ(r.home.memory_writes.value, 1u);
  EXPECT_EQ(r.a0.atomics_far.value, 1u);
  // A compare that fails returns the value and writes nothing.
  cas.compare = 5;
  r.a0.atomic(cas, 5, 2, r.c0);
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 2u);
  EXPECT_EQ(std::get<1>(r.c0.done[1]), 77u);
  EXPECT_EQ(r.home.memory_writes.value, 1u);
  EXPECT_TRUE(r.home.idle());
}

// An atomic of a line dirty in the other cache: the owner is invalidated
// and its dirty data is the value operated on (no wait for memory); the
// old value goes back to the requester. Then a load by the former owner
// reads the atomic's result.
TEST(CoherenceAgents, AFarAtomicTakesTheDirtyValueFromTheOwner) {
  CoherenceChecker::instance().clear();
  Rig r;
  r.a1.access(true, 7, 40, 1, r.c1);
  sc_core::sc_start();
  ASSERT_EQ(r.a1.state(7), RnState::UD);
  const Tick t0 = now_tick();
  r.a0.atomic(rmw(AtomicOp::Load, 2), 7, 2, r.c0);
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 1u);
  const Tick request = kRn + kHdr + kHdr / 2 + kLat + kHome;  // a header and 8 B of operand
  const Tick snoop = kHdr + kLat + kRn;
  const Tick dirty = kData + kLat + kHome;
  const Tick answer = 6 * kNs + kHdr + kHdr / 2 + kLat + kRn;
  EXPECT_EQ(std::get<2>(r.c0.done[0]) - t0, request + snoop + dirty + answer);
  EXPECT_EQ(std::get<1>(r.c0.done[0]), 40u);
  EXPECT_EQ(r.a1.state(7), RnState::I);
  r.a1.access(false, 7, 0, 3, r.c1);
  sc_core::sc_start();
  EXPECT_EQ(std::get<1>(r.c1.done.back()), 42u);
}

// An access that keeps no copy. A ReadOnce of a line nobody holds is a
// load miss's stages, and the line is not kept; one of a line dirty in the
// other cache snoops it to shared, its dirty data the snapshot.
TEST(CoherenceAgents, AReadOnceIsALoadMissThatKeepsNoCopy) {
  CoherenceChecker::instance().clear();
  Rig r;
  r.a0.access_once(false, 5, 0, 1, r.c0);
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 1u);
  const Tick at_home = kRn + kHdr + kLat + kHome;
  EXPECT_EQ(std::get<2>(r.c0.done[0]), next_slot(at_home, 5 * kNs) + 80 * kNs + kData + kLat + kRn);
  EXPECT_EQ(r.a0.state(5), RnState::I);
  EXPECT_EQ(r.home.line(5).sharers, 0u);
  EXPECT_EQ(r.a0.uncached.value, 1u);
  r.a1.access(true, 7, 40, 2, r.c1);
  sc_core::sc_start();
  r.a0.access_once(false, 7, 0, 3, r.c0);
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 2u);
  EXPECT_EQ(std::get<1>(r.c0.done[1]), 40u);
  EXPECT_EQ(r.a0.state(7), RnState::I);
  EXPECT_EQ(r.a1.state(7), RnState::SC);
  EXPECT_EQ(r.home.line(7).mem, 40u);  // the dirty data came home
  // A line held is read in the cache: no request.
  r.a1.access_once(false, 7, 0, 4, r.c1);
  sc_core::sc_start();
  EXPECT_EQ(std::get<1>(r.c1.done.back()), 40u);
  EXPECT_EQ(r.a1.uncached.value, 0u);
  EXPECT_TRUE(r.home.idle());
}

// A WriteUnique of a line dirty in the other cache: the line travels with
// the request, the owner is invalidated (its dirty data comes home and is
// written over), and the Comp leaves once the snoop is answered, with no
// memory read and no atomic's operation time. The former owner then reads
// the written line.
TEST(CoherenceAgents, AWriteUniqueIsDoneWhenTheHomeHasInvalidatedEveryCopy) {
  CoherenceChecker::instance().clear();
  Rig r;
  r.a1.access(true, 7, 40, 1, r.c1);
  sc_core::sc_start();
  ASSERT_EQ(r.a1.state(7), RnState::UD);
  const std::uint64_t reads = r.home.memory_reads.value;
  const Tick t0 = now_tick();
  r.a0.access_once(true, 7, 99, 2, r.c0);
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 1u);
  const Tick request = kRn + kData + kLat + kHome;  // a header and the line
  const Tick snoop = kHdr + kLat + kRn;
  const Tick dirty = kData + kLat + kHome;
  const Tick comp = kHdr + kLat + kRn;
  EXPECT_EQ(std::get<2>(r.c0.done[0]) - t0, request + snoop + dirty + comp);
  EXPECT_EQ(std::get<1>(r.c0.done[0]), 99u);
  EXPECT_EQ(r.a0.state(7), RnState::I);
  EXPECT_EQ(r.a1.state(7), RnState::I);
  EXPECT_EQ(r.home.line(7).mem, 99u);
  EXPECT_EQ(r.home.memory_reads.value, reads);
  EXPECT_EQ(r.home.whole_writes.value, 1u);
  EXPECT_EQ(r.home.atomics.value, 0u);
  r.a1.access(false, 7, 0, 3, r.c1);
  sc_core::sc_start();
  EXPECT_EQ(std::get<1>(r.c1.done.back()), 99u);
  EXPECT_TRUE(r.home.idle());
}

// A whole-line store by MakeUnique, of a line dirty in the other cache:
// the owner is invalidated and drops its dirty data (a header back, no
// data), the grant carries none, memory is neither read nor written, and
// the store is done its fill time after the grant. A store of some bits
// still reads the line (ReadUnique), as it must keep the others.
TEST(CoherenceAgents, AWholeLineStoreByMakeUniqueReadsNothing) {
  CoherenceChecker::instance().clear();
  Rig r(infinite(), 0, true, 40 * kNs, true);
  r.a1.access(true, 7, 40, 1, r.c1);
  sc_core::sc_start();
  ASSERT_EQ(r.a1.state(7), RnState::UD);
  const std::uint64_t reads = r.home.memory_reads.value, writes = r.home.memory_writes.value;
  const Tick t0 = now_tick();
  r.a0.access(true, 7, 99, 2, r.c0);
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 1u);
  const Tick request = kRn + kHdr + kLat + kHome;
  const Tick snoop = kHdr + kLat + kRn;
  const Tick answer = kHdr + kLat + kHome;
  const Tick grant = kHdr + kLat + kRn;
  EXPECT_EQ(std::get<2>(r.c0.done[0]) - t0, request + snoop + answer + grant + 40 * kNs);
  EXPECT_EQ(r.a0.state(7), RnState::UD);
  EXPECT_EQ(r.a0.data(7), 99u);
  EXPECT_EQ(r.a1.state(7), RnState::I);
  EXPECT_EQ(r.home.memory_reads.value, reads);
  EXPECT_EQ(r.home.memory_writes.value, writes);
  r.a1.access(false, 7, 0, 3, r.c1);  // the new owner's value, forwarded through the home
  sc_core::sc_start();
  EXPECT_EQ(std::get<1>(r.c1.done.back()), 99u);
  const std::uint64_t reads2 = r.home.memory_reads.value;
  r.a0.access(true, 9, 5, 4, r.c0, 0xff);
  sc_core::sc_start();
  EXPECT_EQ(r.home.memory_reads.value, reads2 + 1);
  EXPECT_TRUE(r.home.idle());
}

// A private cache of one set of four lines and a replacement buffer of
// `victims` entries (0: unlimited): four lines read in, then two misses
// into the full set at t0, then, 170 ns later (both lines in, the first
// victim's WBAck not yet back), a third. Returns that miss's time from t0.
// The buffer never holds more than its entries (the agent fails the run if
// it does).
// Runs a callback at a model time (an access issued while others are in flight).
struct Later final : Actor {
  Scheduler sched{"later"};
  std::function<void()> run;
  void on_action(std::uint32_t, std::uint64_t, void*) override { run(); }
};

Tick third_miss(int victims, std::uint64_t* waits, Tick* t0_out) {
  CachingAgentConfig c = Rig::agent(0);
  c.capacity = 4;
  c.ways = 4;
  c.victims = victims;
  Rig r(c);
  for (std::uint64_t l = 0; l < 4; ++l) r.a0.access(false, l, 0, l, r.c0);
  sc_core::sc_start();
  const Tick t0 = now_tick();
  *t0_out = t0;
  r.a0.access(false, 4, 0, 4, r.c0);
  r.a0.access(false, 5, 0, 5, r.c0);
  Later later;
  later.run = [&] {
    EXPECT_EQ(r.c0.done.size(), 6u);
    EXPECT_EQ(r.a0.evictions.value, victims ? 1u : 2u);  // one entry: the second fill waits beyond its set's ways
    r.a0.access(false, 6, 0, 6, r.c0);
  };
  later.sched.at(t0 + 170 * kNs, &later, 0);
  sc_core::sc_start();
  EXPECT_EQ(r.c0.done.size(), 7u);
  EXPECT_EQ(r.a0.evictions.value, 3u);
  EXPECT_TRUE(r.a0.idle());
  EXPECT_TRUE(r.home.idle());
  std::size_t held = 0;
  for (std::uint64_t l = 0; l < 7; ++l) held += rn_readable(r.a0.state(l));
  EXPECT_EQ(held, 4u);
  *waits = r.a0.victim_waits.value;
  return std::get<2>(r.c0.done.back());
}

// With an unlimited buffer the third miss leaves at once: a miss's stages
// from 170 ns.
TEST(CoherenceAgents, AnUnlimitedReplacementBufferHoldsNoMissBack) {
  std::uint64_t waits = 0;
  Tick t0 = 0;
  const Tick t = third_miss(0, &waits, &t0);
  const Tick at_home = t0 + 170 * kNs + kRn + kHdr + kLat + kHome;
  EXPECT_EQ(t, next_slot(at_home, 5 * kNs) + 80 * kNs + kData + kLat + kRn);
  EXPECT_EQ(waits, 0u);
}

// With one entry, the second fill stays beyond its set's ways until the
// first victim's WBAck frees the entry; the set then gives up its next
// line, which takes the entry again; the third miss leaves only at that
// one's WBAck: two Evict round trips after the first fill's, not at 170 ns.
TEST(CoherenceAgents, AFullReplacementBufferHoldsBackAMissIntoAFullSet) {
  std::uint64_t waits = 0;
  Tick t0 = 0;
  const Tick t = third_miss(1, &waits, &t0);
  const Tick fill = next_slot(t0 + kRn + kHdr + kLat + kHome, 5 * kNs) + 80 * kNs + kData + kLat + kRn;  // line 4's
  const Tick evict = kHdr + kLat + kHome + kHdr + kLat + kRn;  // an Evict sent at a fill, to its WBAck received
  const Tick leaves = fill + 2 * evict;
  EXPECT_GT(leaves, t0 + 170 * kNs);
  const Tick at_home = leaves + kHdr + kLat + kHome;
  EXPECT_EQ(t, next_slot(at_home, 5 * kNs) + 80 * kNs + kData + kLat + kRn);
  EXPECT_GE(waits, 1u);
}

// Two far atomics on one line at once: the home serves them one after the
// other, each grant waiting for its own memory read even once the next
// transaction has started (an atomic's grant ends its transaction), and
// each requester gets the value before its own addition.
TEST(CoherenceAgents, TwoFarAtomicsOnOneLineAtOnceAreServedInTurn) {
  CoherenceChecker::instance().clear();
  Rig r;
  r.a0.atomic(rmw(AtomicOp::Load, 1), 9, 1, r.c0);
  r.a1.atomic(rmw(AtomicOp::Load, 10), 9, 2, r.c1);
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 1u);
  ASSERT_EQ(r.c1.done.size(), 1u);
  const std::uint64_t v0 = std::get<1>(r.c0.done[0]), v1 = std::get<1>(r.c1.done[0]);
  EXPECT_TRUE((v0 == 0 && v1 == 1) || (v1 == 0 && v0 == 10)) << v0 << " " << v1;
  EXPECT_EQ(r.home.line(9).mem, 11u);
  EXPECT_EQ(r.home.atomics.value, 2u);
  EXPECT_EQ(r.home.memory_writes.value, 2u);
  EXPECT_TRUE(r.home.idle());
}

// Set to run atomics near, an agent fetches the line unique and operates
// on it in its cache: the time of a store's miss, and the line stays dirty
// here with the result. A far agent that holds the line runs it near too.
TEST(CoherenceAgents, ANearAtomicIsAStoreMissThatReturnsTheOldValue) {
  CoherenceChecker::instance().clear();
  Rig r(infinite(), 0, false);
  const Rmw swap = rmw(AtomicOp::Swap, 9);
  r.a0.atomic(swap, 5, 1, r.c0);
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 1u);
  const Tick at_home = kRn + kHdr + kLat + kHome;
  EXPECT_EQ(std::get<2>(r.c0.done[0]), next_slot(at_home, 5 * kNs) + 80 * kNs + kData + kLat + kRn);
  EXPECT_EQ(std::get<1>(r.c0.done[0]), 0u);
  EXPECT_EQ(r.a0.state(5), RnState::UD);
  EXPECT_EQ(r.a0.data(5), 9u);
  EXPECT_EQ(r.home.atomics.value, 0u);
  EXPECT_EQ(r.a0.atomics_near.value, 1u);
  r.a1.access(false, 6, 0, 2, r.c1);  // a1 holds line 6 (UC): its atomic runs near, a hit
  sc_core::sc_start();
  const Tick t1 = now_tick();
  r.a1.atomic(swap, 6, 3, r.c1);
  sc_core::sc_start();
  EXPECT_EQ(std::get<2>(r.c1.done.back()) - t1, kRn);
  EXPECT_EQ(r.a1.atomics_near.value, 1u);
  EXPECT_EQ(r.a1.data(6), 9u);
}

// A next-line prefetcher of two lines: a missing load of line 8 also reads
// lines 9 and 10, in the same request's shadow; a later load of 9 hits. A
// miss on a page's last line (63) fetches nothing beyond the page; a store
// merged behind a prefetch runs again when it is done (an upgrade).
TEST(CoherenceAgents, APrefetcherReadsTheNextLinesOfThePage) {
  CoherenceChecker::instance().clear();
  Rig r(infinite(), 2);
  r.a0.access(false, 8, 0, 1, r.c0);
  sc_core::sc_start();
  EXPECT_EQ(r.a0.prefetches.value, 2u);
  EXPECT_EQ(r.a0.state(9), RnState::UC);  // nobody else holds it
  EXPECT_EQ(r.a0.state(10), RnState::UC);
  EXPECT_EQ(r.a0.state(11), RnState::I);
  const std::uint64_t misses = r.a0.misses.value;
  r.a0.access(false, 9, 0, 2, r.c0);
  sc_core::sc_start();
  EXPECT_EQ(r.a0.misses.value, misses);
  r.a0.access(false, 63, 0, 3, r.c0);
  sc_core::sc_start();
  EXPECT_EQ(r.a0.prefetches.value, 2u);  // 64 is the next page's
  r.a1.access(true, 70, 5, 4, r.c1);     // a1 owns 70 dirty
  sc_core::sc_start();
  r.a0.access(false, 69, 0, 5, r.c0);  // prefetches 70 (and 71)
  r.a0.access(true, 70, 6, 6, r.c0);   // merges behind the prefetch of 70
  sc_core::sc_start();
  ASSERT_EQ(r.c0.done.size(), 5u);
  EXPECT_EQ(r.a0.state(70), RnState::UD);
  EXPECT_EQ(r.a1.state(70), RnState::I);
  r.a1.access(false, 70, 0, 7, r.c1);
  sc_core::sc_start();
  EXPECT_EQ(std::get<1>(r.c1.done.back()), 6u);
  EXPECT_TRUE(r.home.idle());
}

// With two MSHRs, one stays free for the core: a miss prefetches nothing.
TEST(CoherenceAgents, APrefetchLeavesAnMshrToTheCore) {
  CachingAgentConfig c = Rig::agent(0, 4);
  c.mshrs = 2;
  c.home = 1;
  CachingAgent a("a3", c);
  HomeAgentConfig h = Rig::home_config(infinite());
  h.id = 1;
  h.ports = {infinite()};
  mem::MemoryController m("m3", memory());
  HomeAgent home("h3", h, m);
  CohPort::connect(a.port(), home.port(0), link());
  Core core;
  a.access(false, 8, 0, 1, core);
  sc_core::sc_start();
  EXPECT_EQ(a.prefetches.value, 0u);
  EXPECT_EQ(core.done.size(), 1u);
}

// Two ends of a coherence link alone: what arrives, and when.
struct Inbox : Receiver {
  explicit Inbox(const std::string& name) : sched(name) {}
  std::vector<std::pair<MsgType, Tick>> got;  // type, tail
  void arrive(Channel& from, Packet* p, Tick tail) override {
    got.emplace_back(p->msg.type, tail);
    from.release(*p);
  }
  Scheduler sched;
};

// A message sent while the wire carries one that has started, with nothing
// queued, takes the one-message transmit buffer: it goes next, with no
// wake, even before a data message sent after it. What finds the buffer
// taken queues, and the queue goes out by class (data first) when the
// wire frees.
TEST(CoherenceLink, TheTransmitBufferHoldsOneMessageAheadOfTheQueue) {
  Inbox a("a"), b("b");
  DirectLink ta(a, "a.port", infinite()), tb(b, "b.port", infinite());
  CohPort::connect(ta.port(), tb.port(), link());
  std::vector<Packet> p(4);
  const MsgType types[] = {MsgType::ReadShared, MsgType::ReadShared, MsgType::ReadShared, MsgType::CompDataUC};
  for (std::size_t i = 0; i < p.size(); ++i) {
    p[i].msg.type = types[i];
    p[i].msg.line = i;
    p[i].len = msg_has_data(types[i]) ? kLineB : 0;
  }
  const std::uint64_t a0 = Scheduler::actions_dispatched();
  for (Packet& x : p) ta.send(&x);  // at 0: on the wire, in the buffer, queued, queued
  EXPECT_TRUE(ta.pending());
  sc_core::sc_start();
  ASSERT_EQ(b.got.size(), 4u);
  // The first at once, the second behind it, then the data (queued last,
  // sent first), then the third request.
  const std::vector<std::pair<MsgType, Tick>> want = {{MsgType::ReadShared, kHdr + kLat},
                                                      {MsgType::ReadShared, 2 * kHdr + kLat},
                                                      {MsgType::CompDataUC, 2 * kHdr + kData + kLat},
                                                      {MsgType::ReadShared, 3 * kHdr + kData + kLat}};
  EXPECT_EQ(b.got, want);
  EXPECT_EQ(Scheduler::actions_dispatched() - a0, 2u);  // a wake for each queued message
  EXPECT_FALSE(ta.pending());
}

// The checker every agent reports to catches what a broken protocol would
// do: a second writable copy, and a load of anything but the last store.
TEST(CoherenceChecker, CatchesASecondWriterAndAStaleLoad) {
  auto& c = CoherenceChecker::instance();
  c.clear();
  c.observe(0, 9, RnState::I, RnState::UC, false, false, 0);
  EXPECT_THROW(c.observe(1, 9, RnState::I, RnState::SC, false, false, 0), SimError);
  c.clear();
  c.observe(0, 4, RnState::UD, RnState::UD, false, true, 7);  // a store
  c.observe(0, 4, RnState::UD, RnState::UD, true, false, 7);  // a load of it
  EXPECT_THROW(c.observe(1, 4, RnState::SC, RnState::SC, true, false, 6), SimError);
}

// The agents' runs above pass it at every step.
TEST(CoherenceChecker, EveryAgentStepIsChecked) {
  CoherenceChecker::instance().clear();
  Rig r;
  r.a1.access(true, 7, 42, 1, r.c1);
  r.a0.access(false, 7, 0, 2, r.c0);
  sc_core::sc_start();
  EXPECT_GE(CoherenceChecker::instance().checks(), 4u);
}

}  // namespace
}  // namespace hx::coherence
