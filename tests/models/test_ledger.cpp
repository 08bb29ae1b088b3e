// The latency ledger (models/core/ledger.h) alone: it telescopes, it splits
// a queue wait and a flight by what the link end saw, forks travel apart,
// and it refuses what would make a breakdown disagree with its latency.
#include <gtest/gtest.h>

#include "models/core/error.h"
#include "models/core/ledger.h"
#include "models/pcie/tlp.h"

using namespace hx;

namespace {
Tick at(const Ledger& l, Stage s) { return l.spent[static_cast<int>(s)]; }
}  // namespace

TEST(Ledger, StagesTelescopeToTheTimeAccountedFor) {
  Ledger l;
  l.open(100);
  l.charge(Stage::Device, 150);
  // Queued at 150; found without credits at 160, with them at 180; sent at 200.
  l.lacked_credits(160);
  l.lacked_credits(170);  // still the same wait
  l.had_credits(180);
  l.on_wire(200, 30, 10);
  EXPECT_EQ(at(l, Stage::Credit), 20u);
  EXPECT_EQ(at(l, Stage::Arbitration), 30u);
  // Received at 250: 30 of TX pipeline, 10 of link latency, 10 of bytes.
  l.land(250);
  EXPECT_EQ(at(l, Stage::HardBlock), 30u);
  EXPECT_EQ(at(l, Stage::Propagation), 10u);
  EXPECT_EQ(at(l, Stage::Serialisation), 10u);
  l.charge(Stage::Memory, 250);  // nothing spent: allowed
  EXPECT_EQ(l.mark, 250u);
  EXPECT_EQ(l.total(), 150u);
}

// A cut-through receiver acts on the header: the flight is as long, the
// bytes behind the header are not on the critical path.
TEST(Ledger, ALandingBeforeTheTailCountsOnlyTheBytesIn) {
  Ledger l;
  l.open(0);
  l.on_wire(0, 0, 10);
  l.land(14);
  EXPECT_EQ(at(l, Stage::Propagation), 10u);
  EXPECT_EQ(at(l, Stage::Serialisation), 4u);
}

TEST(Ledger, AChargeBackwardsInTimeFails) {
  Ledger l;
  l.open(100);
  l.charge(Stage::Device, 150);
  EXPECT_THROW(l.charge(Stage::Memory, 149), SimError);
  EXPECT_THROW(l.on_wire(120, 0, 0), SimError);
  EXPECT_THROW(l.land(140), SimError);
}

TEST(Ledger, ForksGoTheirOwnWays) {
  Ledger l;
  l.open(0);
  l.charge(Stage::Device, 10);
  Ledger* a = fork_ledger(&l);
  Ledger* b = fork_ledger(&l);
  a->charge(Stage::Memory, 50);
  b->charge(Stage::Switch, 30);
  EXPECT_EQ(at(*a, Stage::Memory), 40u);
  EXPECT_EQ(at(*a, Stage::Switch), 0u);
  EXPECT_EQ(at(*b, Stage::Switch), 20u);
  EXPECT_EQ(l.mark, 10u);  // the original is untouched
  EXPECT_EQ(fork_ledger(nullptr), nullptr);
  drop_ledger(a);
  drop_ledger(b);
  EXPECT_EQ(a, nullptr);
  EXPECT_EQ(LedgerPool::instance().live(), 0u);
}

// A TLP given back to its pool gives its ledger back to theirs.
TEST(Ledger, AConsumedTlpReturnsItsLedger) {
  Ledger l;
  l.open(0);
  const auto before = LedgerPool::instance().live();
  pcie::Tlp* t = pcie::TlpPool::instance().get();
  t->ledger = fork_ledger(&l);
  EXPECT_EQ(LedgerPool::instance().live(), before + 1);
  pcie::TlpPool::instance().put(t);
  EXPECT_EQ(LedgerPool::instance().live(), before);
}

// A transaction is taken into a breakdown only if it was accounted for up
// to its done time and its stages add up to its latency.
TEST(Ledger, ABreakdownTakesOnlyWhatAddsUp) {
  Breakdown b;
  Ledger l;
  l.open(1000);
  l.charge(Stage::Device, 1500);
  l.charge(Stage::Memory, 3000);
  EXPECT_THROW(b.add(l, 1000, 3100), SimError);  // 100 ps unaccounted for
  EXPECT_THROW(b.add(l, 900, 3000), SimError);   // opened earlier than measured
  b.add(l, 1000, 3000);
  Ledger m;
  m.open(0);
  m.charge(Stage::Memory, 4000);
  b.add(m, 0, 4000);
  EXPECT_EQ(b.count, 2u);
  EXPECT_DOUBLE_EQ(b.mean_latency_ns(), 3.0);
  EXPECT_DOUBLE_EQ(b.mean_ns(Stage::Device), 0.25);
  EXPECT_DOUBLE_EQ(b.mean_ns(Stage::Memory), 2.75);
}
