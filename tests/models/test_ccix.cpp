// CCIX on PCIe (models/ccix) without YAML: the link layer alone between two
// fake PCIe sides (packing, credits, returns), then a request agent in an
// endpoint and the home behind a root complex on one Gen3 x16 link, where a
// miss and a hit cost the sum of their stages.
#include <gtest/gtest.h>
#include <systemc>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/ccix/home_port.h"
#include "models/ccix/request_agent.h"
#include "models/coherence/checker.h"
#include "models/core/error.h"
#include "models/core/pool.h"
#include "tests/models/port_stub.h"

namespace hx::ccix {
namespace {

using coherence::Msg;
using coherence::MsgType;
using coherence::Packet;
using pcie::run_until;

// A PCIe side that delivers each TLP to the partner end `delay` after it
// is ready, and takes new TLPs only while `open`.
struct FakePcie final : TlpPort, Actor {
  explicit FakePcie(const std::string& n) : sched(n) {}
  pcie::Tlp* new_message() override {
    pcie::Tlp* t = pcie::TlpPool::instance().get();
    t->kind = pcie::TlpKind::MsgD;
    return t;
  }
  bool room() const override { return open; }
  void transmit(pcie::Tlp* t, Tick ready) override {
    sent.push_back(*t);
    sched.at(ready + delay, this, 0, 0, t);
  }
  void on_action(std::uint32_t, std::uint64_t, void* p) override {
    auto* t = static_cast<pcie::Tlp*>(p);
    peer->on_tlp(*t);
    pcie::TlpPool::instance().put(t);
  }
  Scheduler sched;
  CcixLink* peer = nullptr;
  bool open = true;
  Tick delay = 100 * kNs;
  std::vector<pcie::Tlp> sent;
};

// An agent that takes every message it gets at once (or holds them).
struct Taker final : coherence::Receiver, Actor {
  explicit Taker(const std::string& n) : sched(n) {}
  void arrive(coherence::Channel& from, Packet* p, Tick tail) override {
    ch = &from;
    got.push_back({p->msg, tail});
    if (hold) held.push_back(p);
    else sched.at(tail, this, 0, 0, p);
  }
  void on_action(std::uint32_t, std::uint64_t, void* p) override { free(static_cast<Packet*>(p)); }
  void free(Packet* p) {
    ch->release(*p);
    Pool<Packet>::instance().put(p);
  }
  Scheduler sched;
  coherence::Channel* ch = nullptr;
  bool hold = false;
  std::vector<Packet*> held;
  std::vector<std::pair<Msg, Tick>> got;
};

struct LinkRig {
  explicit LinkRig(const CcixConfig& c) : pa("a.pcie"), pb("b.pcie"), a("a", c, pa), b("b", c, pb), ra("ra"), rb("rb") {
    a.bind(ra);
    b.bind(rb);
    pa.peer = &b;
    pb.peer = &a;
    CcixLink::connect(a, b);
  }
  FakePcie pa, pb;
  CcixLink a, b;
  Taker ra, rb;
};

Packet* message(MsgType t, std::uint64_t line) {
  Packet* p = Pool<Packet>::instance().get();
  p->msg.type = t;
  p->msg.line = line;
  p->ready = now_tick();
  return p;
}

// Messages that queue while the PCIe side has no room leave together, in
// one packet, as many as MaxPacketSize holds: 16 B requests, 256 B at most.
TEST(CcixLink, MessagesWaitingForThePcieSideShareOnePacketUpToMaxPacketSize) {
  CcixConfig c;
  c.credits = {{32, 32, 32, 32}};
  LinkRig r(c);
  r.pa.open = false;
  for (int i = 0; i < 20; ++i) r.a.send(message(MsgType::ReadShared, static_cast<std::uint64_t>(i)));
  run_until(10 * kNs);
  EXPECT_TRUE(r.pa.sent.empty());
  r.pa.open = true;
  r.a.on_room();
  sc_core::sc_start();
  ASSERT_EQ(r.pa.sent.size(), 2u);            // 16 of 16 B fill 256 B; 4 more follow
  EXPECT_EQ(r.pa.sent[0].len, 256u);
  EXPECT_EQ(r.pa.sent[1].len, 64u);
  EXPECT_EQ(r.pa.sent[0].vc, 1);
  EXPECT_EQ(r.pa.sent[0].header_B(), 16);     // the PCIe-compatible header
  ASSERT_EQ(r.rb.got.size(), 20u);
  for (std::size_t i = 0; i < 20; ++i) EXPECT_EQ(r.rb.got[i].first.line, i);  // in order
  EXPECT_TRUE(r.a.whole());
  EXPECT_TRUE(r.b.whole());
}

// Without packing each message is a packet; optimised headers are 4 B.
TEST(CcixLink, WithoutPackingEveryMessageIsAPacketAndOptimisedHeadersAreFourBytes) {
  CcixConfig c;
  c.format.packing = false;
  c.format.optimised = true;
  LinkRig r(c);
  r.pa.open = false;
  for (int i = 0; i < 3; ++i) r.a.send(message(MsgType::ReadUnique, static_cast<std::uint64_t>(i)));
  r.pa.open = true;
  r.a.on_room();
  sc_core::sc_start();
  ASSERT_EQ(r.pa.sent.size(), 3u);
  EXPECT_EQ(r.pa.sent[0].len, 16u);
  EXPECT_EQ(r.pa.sent[0].header_B(), 4);
}

// Protocol credits bound what is in flight: with 2 request credits, two
// requests go; the rest wait until the receiver frees its trackers, and
// the returns come back alone (nothing else goes that way) once half the
// grant is owed: every request is then delivered, and every credit is back.
TEST(CcixLink, RequestCreditsBoundTheRequestsInFlightAndComeBackWhenFreed) {
  CcixConfig c;
  c.credits = {{2, 4, 4, 4}};
  c.format.packing = false;
  LinkRig r(c);
  r.rb.hold = true;
  for (int i = 0; i < 5; ++i) r.a.send(message(MsgType::ReadShared, static_cast<std::uint64_t>(i)));
  run_until(1000 * kNs);
  EXPECT_EQ(r.rb.got.size(), 2u);
  EXPECT_NE(r.a.blocked_reason().find("request message(s) wait for CCIX credits"), std::string::npos) << r.a.blocked_reason();
  r.rb.hold = false;
  for (Packet* p : r.rb.held) r.rb.free(p);  // at 1000 ns: one owed of 2 is half: returned at once
  r.rb.held.clear();
  sc_core::sc_start();
  ASSERT_EQ(r.rb.got.size(), 5u);
  // The first return left at 1000 ns and took 100 ns; the third request
  // left then, and arrived 100 ns later.
  EXPECT_EQ(r.rb.got[2].second, 1200 * kNs);
  EXPECT_GE(r.pb.sent.size(), 1u);
  EXPECT_EQ(r.pb.sent[0].len, 4u);  // a credit return alone
  EXPECT_TRUE(r.a.whole());
  EXPECT_TRUE(r.b.whole());
}

// A credit return that nothing carries waits credit_return_delay at most.
TEST(CcixLink, ALoneCreditReturnWaitsTheReturnDelay) {
  CcixConfig c;
  c.credits = {{16, 16, 16, 16}};
  c.credit_return_delay = 250 * kNs;
  LinkRig r(c);
  r.a.send(message(MsgType::ReadShared, 7));
  sc_core::sc_start();
  ASSERT_EQ(r.pb.sent.size(), 1u);
  EXPECT_EQ(r.pb.sent[0].len, 4u);
  // Delivered at 100 ns and freed at once; returned 250 ns later.
  EXPECT_EQ(r.b.tx_credit_only.value, 1u);
  EXPECT_TRUE(r.a.whole());
}

// More credits returned than granted is a protocol error, named.
TEST(CcixLink, CreditsBeyondTheGrantAreAnError) {
  CcixConfig c;
  LinkRig r(c);
  Taker t("t");
  r.rb.hold = true;
  r.a.send(message(MsgType::ReadShared, 1));
  run_until(500 * kNs);
  ASSERT_EQ(r.rb.held.size(), 1u);
  r.rb.free(r.rb.held[0]);
  EXPECT_THROW(r.rb.ch->release(*r.rb.held[0]), SimError);  // released twice
}

// --- a request agent in an endpoint, the home behind a root complex ---

constexpr Tick kLink = 10 * kNs, kEpTx = 50 * kNs, kEpRx = 40 * kNs;

struct Rig {
  explicit Rig(int cores = 0, int sc_lines = 0) {
    host::RootComplexConfig rc;
    rc.memory.read_latency = 80 * kNs;
    rc.memory.channel_GBps = 64000;  // a line holds its channel 1 ps: no slot to wait for
    pcie::PortConfig rp;
    rp.vcs = 2;
    rp.mps = 256;  // a CCIX packet may carry up to max_packet (256 B) of messages: the path's MPS must take it
    rp.infinite_completion_credits();
    rc.ports.push_back(rp);
    rc.routes.resize(1);
    root = std::make_unique<host::RootComplex>("host", rc);
    pcie::EndpointConfig ec;
    ec.port.vcs = 2;
    ec.port.mps = 256;
    ec.rid = 0x0100;
    ec.tx_latency = kEpTx;
    ec.rx_latency = kEpRx;
    ep = std::make_unique<pcie::Endpoint>("fpga", ec);
    RequestAgentConfig ac;
    ac.agent.id = 1;
    ac.agent.home = 0;
    ac.agent.lookup = 2 * kNs;
    ac.axi_latency = 10 * kNs;
    ac.agent.request_latency = 8 * kNs;  // e.g. a translation on the way
    ac.read_return = 6 * kNs;
    ac.write_return = 3 * kNs;
    ac.ccix.latency = 5 * kNs;
    ac.agent.capacity = sc_lines;  // one set of up to 16 ways, or unlimited
    ac.agent.ways = sc_lines > 0 && sc_lines < 16 ? sc_lines : 16;
    ra = std::make_unique<RequestAgent>("fpga.ra", ac);
    ep->set_device(ra.get());
    HomePortConfig hc;
    hc.home.id = 0;
    hc.home.lookup = 10 * kNs;
    hc.ccix.latency = 5 * kNs;
    hc.home.atomic_latency = 7 * kNs;
    hc.cores = cores;  // host cores: agents 2, 3, ...
    hc.first_core = 2;
    hc.core.lookup = 3 * kNs;
    hc.core_link.latency = 4 * kNs;
    home = std::make_unique<HomePort>("host.ccix", hc, *root);
    CcixLink::connect(ra->link(), home->add_agent(1, 0, 0x0100, ac.ccix.format));
    pcie::PciePort::connect(root->root_port(0), ep->upstream(), pcie::gen(3, 16, kLink));
  }
  std::unique_ptr<host::RootComplex> root;
  std::unique_ptr<pcie::Endpoint> ep;
  std::unique_ptr<RequestAgent> ra;
  std::unique_ptr<HomePort> home;
};

// A 64 B read that misses: AXI, SC look-up, ATC, CCIX layer, the request
// packet (16 B header + 16 B message + 8 B framing) through the endpoint's
// TX pipeline and the link; the home's CCIX layer and look-up; memory; the
// grant (16 B + a 4 B credit return + 8 B + 64 B data + 8 B framing) back
// through the root port, the link, the endpoint's RX pipeline and the CCIX
// layer; the SC's look-up; the read data back over AXI. A second read of
// the line hits: AXI, look-up, return. Every credit is back at the end.
TEST(CcixAgents, AReadMissIsTheSumOfItsStagesAndASecondReadHits) {
  Rig r;
  Tick first = 0, second = 0;
  r.ra->transfer(false, (4ull << 30) + 0x40, 64, [&](Tick at) {
    first = at;
    r.ra->transfer(false, (4ull << 30) + 0x40, 64, [&](Tick at2) { second = at2; });
  });
  sc_core::sc_start();
  const Tick req_ready = 10 * kNs + 2 * kNs + 8 * kNs + 5 * kNs;
  const Tick at_rc = req_ready + r.ep->upstream().serialize(40) + kLink + kEpTx;
  const Tick at_home = at_rc + 5 * kNs + 10 * kNs;
  const Tick data = at_home + 80 * kNs;
  const Tick at_ep = data + 5 * kNs + r.root->root_port(0).serialize(100) + kLink;
  const Tick done = at_ep + kEpRx + 5 * kNs + 2 * kNs + 6 * kNs;
  EXPECT_EQ(first, done);
  EXPECT_EQ(second - first, 10 * kNs + 2 * kNs + 6 * kNs);
  // A ReadShared of a line nobody holds is granted unique clean.
  EXPECT_EQ(r.ra->agent().state((4ull << 30) / 64 + 1), coherence::RnState::UC);
  EXPECT_EQ(r.ra->agent().hits.value, 1u);
  EXPECT_TRUE(r.ra->link().whole());
  EXPECT_TRUE(r.home->idle());
}

// The same miss, timed: its ledger accounts for the whole latency, stage
// by stage: the AXI bridge and the return (device); the SC's and the home's
// look-ups, the request's formation and the CCIX layers, twice on each
// side (coherence); the memory read; both endpoint pipelines (hard block),
// the link twice (propagation) and both packets' bytes (serialisation).
// A timed read of four lines is accounted for along the line done last.
TEST(CcixAgents, ATimedMissIsAccountedForStageByStage) {
  Rig r;
  Ledger led;
  led.open(0);
  Tick done = 0;
  r.ra->transfer(false, (4ull << 30) + 0x40, 64, [&](Tick at) { done = at; }, RequestAgent::Keep::Allocate, &led);
  sc_core::sc_start();
  Breakdown b;
  b.add(led, 0, done);  // fails unless the stages add up to the latency exactly
  auto ns = [&](Stage s) { return led.spent[static_cast<std::size_t>(s)]; };
  EXPECT_EQ(ns(Stage::Device), 10 * kNs + 6 * kNs);
  EXPECT_EQ(ns(Stage::Coherence), 2 * kNs + 8 * kNs + 4 * 5 * kNs + 10 * kNs + 2 * kNs);
  EXPECT_EQ(ns(Stage::Memory), 80 * kNs);
  EXPECT_EQ(ns(Stage::HardBlock), kEpTx + kEpRx);
  EXPECT_EQ(ns(Stage::Propagation), 2 * kLink);
  EXPECT_EQ(ns(Stage::Serialisation), r.ep->upstream().serialize(40) + r.root->root_port(0).serialize(100));
  EXPECT_EQ(ns(Stage::Arbitration) + ns(Stage::Credit) + ns(Stage::Translation), 0);

  led.open(done);
  const Tick t0 = done;
  r.ra->transfer(false, (4ull << 30) + 0x1000, 4 * 64, [&](Tick at) { done = at; }, RequestAgent::Keep::Allocate, &led);
  sc_core::sc_start();
  b.add(led, t0, done);
  // The fourth line issues three AXI cycles after the first and, its
  // packets queued behind the others', leaves last.
  EXPECT_GE(ns(Stage::Device), 3 * r.ra->config().issue_interval + 10 * kNs + 6 * kNs);
  EXPECT_EQ(ns(Stage::Memory), 80 * kNs);
  EXPECT_EQ(LedgerPool::instance().live(), 0u);  // every line's ledger went back
  EXPECT_TRUE(r.home->idle());
}

// A timed read of a line a host core holds dirty: the home snoops the core
// and its grant waits for the snoop's answer, which comes after memory's:
// the read is accounted for along the snoop (the core's link twice, its
// look-up) and not the memory read.
TEST(CcixAgents, ATimedReadOfADirtyLineIsAccountedForAlongTheSnoop) {
  coherence::CoherenceChecker::instance().clear();
  Rig r(1);
  coherence::CachingAgent& core = r.home->core(0);
  struct Side : coherence::CoreSide {
    void access_done(std::uint64_t, std::uint64_t, Tick) override {}
  } side;
  const std::uint64_t addr = (4ull << 30) + 0x100, line = addr / 64;
  core.access(true, line, 41, 0, side);
  sc_core::sc_start();
  ASSERT_EQ(core.state(line), coherence::RnState::UD);
  Ledger led;
  const Tick t0 = now_tick();
  led.open(t0);
  Tick done = 0;
  r.ra->transfer(false, addr, 64, [&](Tick at) { done = at; }, RequestAgent::Keep::Allocate, &led);
  sc_core::sc_start();
  Breakdown b;
  b.add(led, t0, done);
  auto ns = [&](Stage s) { return led.spent[static_cast<std::size_t>(s)]; };
  EXPECT_EQ(r.home->home().snoops.value, 1u);
  EXPECT_EQ(ns(Stage::Memory), 0);  // the memory read (80 ns) ended before the snoop's answer came
  // The snoop's way: the core link twice (4 ns each, plus its bytes) and the core's look-up.
  EXPECT_EQ(ns(Stage::Propagation), 2 * kLink + 2 * 4 * kNs);
  EXPECT_EQ(ns(Stage::Coherence), 2 * kNs + 8 * kNs + 4 * 5 * kNs + 10 * kNs + 3 * kNs + 10 * kNs + 2 * kNs);
  EXPECT_EQ(LedgerPool::instance().live(), 0u);
}

// Writes allocate: a store miss takes the line unique (ReadUnique) and a
// later read of it hits; the checker saw every step.
TEST(CcixAgents, AWriteMissTakesTheLineUniqueAndTheCheckerSeesItsValue) {
  Rig r;
  Tick w = 0, rd = 0;
  r.ra->transfer(true, (4ull << 30), 256, [&](Tick at) {
    w = at;
    r.ra->transfer(false, (4ull << 30), 256, [&](Tick at2) { rd = at2; });
  });
  sc_core::sc_start();
  EXPECT_GT(w, 0u);
  EXPECT_GT(rd, w);
  for (std::uint64_t l = 0; l < 4; ++l) EXPECT_EQ(r.ra->agent().state((4ull << 30) / 64 + l), coherence::RnState::UD);
  EXPECT_EQ(r.ra->agent().misses.value, 4u);
  EXPECT_EQ(r.ra->agent().hits.value, 4u);
  EXPECT_TRUE(r.ra->link().whole());
}

// 256 B written, then read back as soon as the write is done, each taking
// the lines as `keep` says; returns the write's and the read's times. The
// SC keeps none of the lines: each of the eight accesses went to the home
// (four whole lines written there, four read from memory), and the read
// found the written values (the checker sees every load).
std::pair<Tick, Tick> write_then_read_kept_nowhere(Rig& r, ccix::RequestAgent::Keep keep) {
  coherence::CoherenceChecker::instance().clear();
  Tick w = 0, rd = 0, rd_at = 0;
  const std::uint64_t base = 4ull << 30;
  r.ra->transfer(true, base, 256, [&](Tick at) {
    w = at;
    rd_at = now_tick();
    r.ra->transfer(false, base, 256, [&](Tick at2) { rd = at2; }, keep);
  }, keep);
  sc_core::sc_start();
  EXPECT_GT(rd, 0u);
  for (std::uint64_t l = 0; l < 4; ++l) EXPECT_EQ(r.ra->agent().state(base / 64 + l), coherence::RnState::I);
  EXPECT_EQ(r.ra->agent().uncached.value, 8u);
  EXPECT_EQ(r.ra->agent().misses.value, 8u);
  EXPECT_EQ(r.home->home().whole_writes.value, 4u);
  EXPECT_EQ(r.home->home().memory_reads.value, 4u);  // the reads' alone
  EXPECT_GE(coherence::CoherenceChecker::instance().checks(), 8u);
  EXPECT_TRUE(r.ra->link().whole());
  EXPECT_TRUE(r.home->idle());
  return {w, rd - rd_at};
}

// Transfers that do not allocate: a read is a ReadOnce per line and a
// write a WriteUnique. The write is done on the home's Comp, with no
// memory read: sooner than the read of the same lines, which waits for
// memory.
TEST(CcixAgents, TransfersThatDoNotAllocateKeepNoCopy) {
  Rig r;
  const auto [w, rd] = write_then_read_kept_nowhere(r, ccix::RequestAgent::Keep::Stream);
  EXPECT_LT(w, rd);
}

// The same to a buffer no agent caches: ReadNoSnp and WriteNoSnp over
// CCIX, served by the home from memory with no snoop.
TEST(CcixAgents, TransfersToANonSnoopableBufferGoStraightToMemory) {
  Rig r;
  const auto [w, rd] = write_then_read_kept_nowhere(r, ccix::RequestAgent::Keep::NoSnoop);
  EXPECT_LT(w, rd);
  EXPECT_EQ(r.home->home().snoops.value, 0u);
}

// A system cache of 16 lines (one set): a 32-line write fills it, and each
// of the last 16 lines written gives up a dirty one, written back over
// CCIX. Reading the 32 lines back, the reads of the 16 lines still held
// hit (they are issued before any miss's line is back), and each of the
// 16 misses, when its line arrives, gives up one of those dirty lines.
// Every load finds the value written, from memory for the lines written
// back (the checker compares each with the last store).
TEST(CcixAgents, AFullSystemCacheWritesItsDirtyVictimsBack) {
  coherence::CoherenceChecker::instance().clear();
  Rig r(0, 16);
  const std::uint64_t base = 4ull << 30;
  bool done = false;
  r.ra->transfer(true, base, 32 * 64, [&](Tick) {
    EXPECT_EQ(r.ra->agent().writebacks.value, 16u);
    r.ra->transfer(false, base, 32 * 64, [&](Tick) { done = true; });
  });
  sc_core::sc_start();
  ASSERT_TRUE(done);
  const coherence::CachingAgent& sc = r.ra->agent();
  EXPECT_EQ(sc.misses.value, 48u);
  EXPECT_EQ(sc.hits.value, 16u);
  EXPECT_EQ(sc.writebacks.value, 32u);
  EXPECT_EQ(sc.evictions.value, 32u);  // all of them dirty
  EXPECT_EQ(r.home->home().memory_writes.value, 32u);  // the written-back lines' data
  EXPECT_GE(coherence::CoherenceChecker::instance().checks(), 64u);
  EXPECT_TRUE(r.ra->link().whole());
  EXPECT_TRUE(r.home->idle());
}

// An AtomicCompare from the generator on a line nobody holds runs at the
// home: the AXI sequence (the operands' write and its response, then the
// read: 10 + 3 + 10 ns), the SC's look-up and the translation on the way,
// the request (a 16 B message and 16 B of operands in one packet), the
// home's look-up, the memory read, the operation (7 ns), and the old
// value (an 8 B message and 8 B of data, with a 4 B credit return) back;
// the result goes to memory and the SC keeps no copy.
TEST(CcixAgents, AnAtomicCompareFromTheDeviceRunsAtTheHome) {
  coherence::CoherenceChecker::instance().clear();
  Rig r;
  Tick at = 0;
  std::uint64_t old = 99;
  coherence::Rmw cas;
  cas.op = coherence::AtomicOp::Compare;
  cas.compare = 0;
  cas.operand = 5;
  const std::uint64_t addr = (4ull << 30) + 0x80;
  r.ra->atomic(addr, cas, [&](Tick t, std::uint64_t v) {
    at = t;
    old = v;
  });
  sc_core::sc_start();
  const Tick req_ready = 10 * kNs + 3 * kNs + 10 * kNs + 2 * kNs + 8 * kNs + 5 * kNs;
  const Tick at_rc = req_ready + r.ep->upstream().serialize(56) + kLink + kEpTx;
  const Tick value = at_rc + 5 * kNs + 10 * kNs + 80 * kNs + 7 * kNs;
  const Tick at_ep = value + 5 * kNs + r.root->root_port(0).serialize(44) + kLink;
  EXPECT_EQ(at, at_ep + kEpRx + 5 * kNs + 2 * kNs + 6 * kNs);
  EXPECT_EQ(old, 0u);
  EXPECT_EQ(r.home->home().line(addr / 64).mem, 5u);
  EXPECT_EQ(r.ra->agent().state(addr / 64), coherence::RnState::I);
  EXPECT_EQ(r.ra->atomics.value, 1u);
  EXPECT_TRUE(r.ra->link().whole());
  EXPECT_TRUE(r.home->idle());
}

// A host core and the device share a line through the one home: the core
// writes it (dirty in its cache), the device's compare-and-swap takes the
// core's dirty value (the home snoops the core), swaps, and the core's next
// load misses and reads the swapped value. Every step passed the checker.
TEST(CcixAgents, AHostCoreAndTheDeviceShareALineThroughTheHome) {
  coherence::CoherenceChecker::instance().clear();
  Rig r(1);
  ASSERT_EQ(r.home->cores(), 1);
  coherence::CachingAgent& core = r.home->core(0);
  struct Side : coherence::CoreSide {
    std::vector<std::uint64_t> values;
    void access_done(std::uint64_t, std::uint64_t v, Tick) override { values.push_back(v); }
  } side;
  const std::uint64_t addr = (4ull << 30) + 0x100, line = addr / 64;
  core.access(true, line, 41, 0, side);
  sc_core::sc_start();
  ASSERT_EQ(core.state(line), coherence::RnState::UD);
  std::uint64_t old = 0;
  coherence::Rmw cas;
  cas.op = coherence::AtomicOp::Compare;
  cas.compare = 41;
  cas.operand = 42;
  r.ra->atomic(addr, cas, [&](Tick, std::uint64_t v) { old = v; });
  sc_core::sc_start();
  EXPECT_EQ(old, 41u);
  EXPECT_EQ(core.state(line), coherence::RnState::I);
  core.access(false, line, 0, 1, side);
  sc_core::sc_start();
  ASSERT_EQ(side.values.size(), 2u);
  EXPECT_EQ(side.values[1], 42u);
  EXPECT_EQ(r.home->home().snoops.value, 1u);
  EXPECT_GT(coherence::CoherenceChecker::instance().checks(), 4u);
  EXPECT_TRUE(r.home->idle());
}

}  // namespace
}  // namespace hx::ccix
