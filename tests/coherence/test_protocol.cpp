// The coherence protocol proved on small configurations: every
// interleaving of core operations and message deliveries, in any delivery
// order, over the tables and engine the simulator runs (explorer.h lists
// the invariants checked in every state). Each search must finish, find no
// violation, and take every row of both tables somewhere: a row no search
// takes is dead protocol, and a (state, event) pair without a row is
// proved unreachable by the search never throwing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "models/coherence/protocol.h"
#include "tests/coherence/explorer.h"

namespace hx::coherence::test {
namespace {

ExploreResult run(const ExploreConfig& c) {
  const ExploreResult r = explore(c);
  EXPECT_EQ(r.error, "") << c.agents << " agents, " << c.lines << " lines";
  EXPECT_TRUE(r.complete) << r.states << " states";
  std::printf("%d agents, %d lines, %d homes, %d MSHRs%s%s%s%s%s%s%s%s%s%s: %zu states, %zu transitions, at most %d messages in flight\n",
              c.agents, c.lines, c.homes, c.mshrs, c.silent ? ", silent evictions" : "", c.forward ? ", forwarding" : "", c.migratory ? ", migratory" : "",
              c.owned ? ", dirty sharing" : "", c.atomics ? ", far atomics" : "", c.once ? ", ReadOnce and WriteUnique" : "",
              c.make_unique ? ", MakeUnique" : "", c.read_clean ? ", ReadClean" : "",
              c.nosnp ? ", a non-snoopable line (ReadNoSnp, WriteNoSnp)" : "",
              c.partial ? ", partial lines (empty grants, StorePtl)" : "", r.states, r.transitions, r.max_in_flight);
  return r;
}

ExploreResult run(int agents, int lines, int mshrs, int homes = 1, bool forward = false, bool atomics = false,
                  bool migratory = false, bool once = false, bool make_unique = false) {
  ExploreConfig c;
  c.agents = agents;
  c.lines = lines;
  c.mshrs = mshrs;
  c.homes = homes;
  c.forward = forward;
  c.atomics = atomics;
  c.migratory = migratory;
  c.once = once;
  c.make_unique = make_unique;
  return run(c);
}

// The search with the deliberate fault `m` stops on a violation that
// names `what`.
void expect_found(ExploreConfig c, Mutation m, const std::string& what) {
  c.mutation = m;
  const ExploreResult r = explore(c);
  EXPECT_NE(r.error.find(what), std::string::npos) << r.error;
}

// Loads, stores and evictions under one home policy (dirty sharing,
// forwarding, migratory or none), for `agents` agents.
ExploreConfig policy(int agents, bool forward, bool migratory, bool owned) {
  ExploreConfig c;
  c.agents = agents;
  c.forward = forward;
  c.migratory = migratory;
  c.owned = owned;
  return c;
}

// Every operation a core has, under one home policy.
ExploreConfig everything(int agents, bool forward, bool migratory, bool owned) {
  ExploreConfig c = policy(agents, forward, migratory, owned);
  c.atomics = c.once = c.make_unique = c.read_clean = true;
  return c;
}

// Loads, stores and evictions, clean lines given up silently as well,
// under one home policy.
ExploreConfig silent(int agents, bool forward, bool migratory, bool owned) {
  ExploreConfig c = policy(agents, forward, migratory, owned);
  c.silent = true;
  return c;
}

// Partial lines under one home policy: the home grants lines empty, and
// the cores store half lines (StorePtl) beside loads, stores, evictions,
// MakeUnique (whose snoop meets empty and partial lines) and ReadClean.
ExploreConfig partial(int agents, bool forward, bool migratory, bool owned) {
  ExploreConfig c = policy(agents, forward, migratory, owned);
  c.partial = c.make_unique = c.read_clean = true;
  return c;
}

// Partial stores beside clean lines given up silently: a half-line store's
// CleanUnique from a line the directory still lists meets snoops for it.
// (With two lines, each search passes a million states.)
ExploreConfig silent_partial(int agents, bool forward, bool owned) {
  ExploreConfig c = silent(agents, forward, false, owned);
  c.partial = true;
  return c;
}

// Every row of both tables is taken by one of the searches `rs` (a
// forwarding home takes its own rows in place of some of the others).
void expect_every_row_taken(const std::vector<ExploreResult>& rs) {
  const auto taken = [&rs](std::size_t i, bool home) {
    int n = 0;
    for (const ExploreResult& r : rs) n += (home ? r.home_rows_used : r.rn_rows_used)[i];
    return n;
  };
  int n = 0;
  const RnRow* rn = rn_rows(&n);
  for (int i = 0; i < n; ++i)
    EXPECT_GT(taken(static_cast<std::size_t>(i), false), 0)
        << "caching agent row never taken: " << rn_state_name(rn[i].state) << " x " << rn_event_name(rn[i].event);
  const HomeRow* home = home_rows(&n);
  for (int i = 0; i < n; ++i)
    EXPECT_GT(taken(static_cast<std::size_t>(i), true), 0)
        << "home row never taken: " << msg_name(home[i].req) << " x " << dir_cond_name(home[i].cond)
        << ((home[i].ops & kHomeForward) ? " (forwarding)" : "");
}

TEST(CoherenceExhaustive, TwoAgentsOneLine) { run(2, 1, 1); }

// An access that goes to the home from a line not held is a load or a
// store in the cache from a line held (core_event); a non-snoopable one
// stays what it is (a line held has no row for it).
TEST(CoherenceProtocol, AnAccessToALineHeldIsALoadOrAStoreInTheCache) {
  for (const RnState held : {RnState::SC, RnState::UC, RnState::UD, RnState::SD}) {
    EXPECT_EQ(core_event(RnEvent::ReadOnce, held), RnEvent::Load) << rn_state_name(held);
    EXPECT_EQ(core_event(RnEvent::ReadClean, held), RnEvent::Load) << rn_state_name(held);
    EXPECT_EQ(core_event(RnEvent::WriteUnique, held), RnEvent::Store) << rn_state_name(held);
    EXPECT_EQ(core_event(RnEvent::StoreLine, held), RnEvent::Store) << rn_state_name(held);
    EXPECT_EQ(core_event(RnEvent::ReadNoSnp, held), RnEvent::ReadNoSnp) << rn_state_name(held);
    EXPECT_EQ(rn_row(held, RnEvent::ReadNoSnp), nullptr) << rn_state_name(held);
  }
  for (const RnEvent e : {RnEvent::ReadOnce, RnEvent::ReadClean, RnEvent::WriteUnique, RnEvent::StoreLine, RnEvent::ReadNoSnp})
    EXPECT_EQ(core_event(e, RnState::I), e) << rn_event_name(e);
}

// Three agents, one line, every operation, under each home policy; and a
// non-snoopable line beside a coherent one (ReadNoSnp and WriteNoSnp).
TEST(CoherenceExhaustive, ThreeAgentsOneLineTakeEveryRow) {
  ExploreConfig nosnp;
  nosnp.lines = 2;
  nosnp.nosnp = true;
  expect_every_row_taken({run(everything(3, false, false, false)), run(everything(3, true, false, false)),
                          run(everything(3, false, true, false)), run(everything(3, false, false, true)), run(nosnp),
                          run(silent(3, false, false, false)), run(silent(3, true, false, false)),
                          run(silent(3, false, true, false)), run(silent(3, false, false, true)),
                          run(partial(3, false, false, false)), run(partial(3, true, false, false)),
                          run(partial(3, false, true, false)), run(partial(3, false, false, true)),
                          run(silent_partial(3, false, false)), run(silent_partial(3, true, false)),
                          run(silent_partial(3, false, true))});
}

// Partial lines with two lines, with and without forwarding: an empty
// grant, a half-line store and a partial line's load, write-back and
// snoops meet the other line's traffic and the upgrades that lose their
// copies. (With two requests per agent, the space passes 20 million
// states.)
TEST(CoherenceExhaustive, PartialLinesTwoAgentsTwoLines) {
  for (const bool fwd : {false, true}) {
    ExploreConfig c = partial(2, fwd, false, false);
    c.lines = 2;
    c.make_unique = c.read_clean = false;
    run(c);
  }
}

// The search sees a partial line sent home as a whole one: the lanes it
// does not hold overwrite memory's.
TEST(CoherenceExhaustive, FindsAPartialLineWrittenWhole) {
  expect_found(partial(2, false, false, false), Mutation::WholePartialLine, "stale");
}

// A store of some lanes to a line not held is a CleanUnique from I; to a
// line held, a store in the cache.
TEST(CoherenceProtocol, APartialStoreToALineHeldIsAStore) {
  EXPECT_EQ(core_event(RnEvent::StorePtl, RnState::I), RnEvent::StorePtl);
  EXPECT_EQ(rn_row(RnState::I, RnEvent::StorePtl)->send, MsgType::CleanUnique);
  for (const RnState held : {RnState::SC, RnState::UC, RnState::UD, RnState::SD, RnState::UCE, RnState::UDP})
    EXPECT_EQ(core_event(RnEvent::StorePtl, held), RnEvent::Store) << rn_state_name(held);
  EXPECT_EQ(lanes_of(0x00000000ffffffffull), 0x0f);
  EXPECT_EQ(lanes_of(0x0000000000ff00f0ull), 0x04);  // lane 0 only half covered
  EXPECT_TRUE(lane_aligned(0xffff0000ull));
  EXPECT_FALSE(lane_aligned(0xfff0ull));
  EXPECT_EQ(lane_bits(0x81), 0xff000000000000ffull);
}

// Silent evictions with two lines, forwarding as the sockets do: a clean
// line given up unheard of meets snoops for it, its own agent's requests
// for it again, and the other line's traffic (with two requests per agent
// as well, the space passes 20 million states).
TEST(CoherenceExhaustive, SilentEvictionsTwoAgentsTwoLines) {
  ExploreConfig c = silent(2, true, false, false);
  c.lines = 2;
  run(c);
}

// The search sees a dirty line given up silently: its last store is lost.
TEST(CoherenceExhaustive, FindsADirtyLineDroppedSilently) {
  expect_found(silent(2, false, false, false), Mutation::DropDirtyLine, "stale");
}

// Dirty sharing with two lines and two requests per agent, ReadClean
// beside: an SD owner's upgrade and write-back meet the reads queued ahead
// of them on one line while the agents' requests for the other proceed.
// (With every operation as well, the space passes 20 million states; the
// three-agent searches above take every row with every operation.)
TEST(CoherenceExhaustive, DirtySharingTwoAgentsTwoLinesTwoMshrs) {
  ExploreConfig c;
  c.lines = 2;
  c.mshrs = 2;
  c.owned = c.read_clean = true;
  run(c);
}

// A ReadClean beside ReadShared under dirty sharing, three agents: a clean
// read makes an SD owner send its data home while other sharers keep their
// copies.
TEST(CoherenceExhaustive, DirtySharingThreeAgentsReadClean) {
  ExploreConfig c;
  c.agents = 3;
  c.owned = c.read_clean = true;
  run(c);
}

// The search sees a dirty owner asked to share that answers as a clean
// one (its line left shared clean, nothing sent): the requester is granted
// memory's stale value.
TEST(CoherenceExhaustive, FindsAnOwnerThatDropsItsDirtyLine) {
  ExploreConfig c;
  c.owned = true;
  expect_found(c, Mutation::DropDirtyShared, "a load returned a stale value");
}

// A non-snoopable access to a line an agent caches is a protocol error the
// home names (the search's cores never do it; a core here does).
TEST(CoherenceExhaustive, ANonSnoopableAccessToACachedLineIsAnError) {
  ExploreConfig c;
  c.mutation = Mutation::NoSnpToCachedLine;
  const std::string error = explore(c).error;
  EXPECT_NE(error.find("received ReadNoSnp from agent"), std::string::npos) << error;
  EXPECT_NE(error.find("which the protocol has no row for"), std::string::npos) << error;
}

// Two lines and two requests outstanding per agent, with far atomics
// beside every other operation: an atomic meets owners, sharers,
// write-backs in flight and requests queued at the home.
TEST(CoherenceExhaustive, TwoAgentsTwoLinesTwoMshrs) { run(2, 2, 2, 1, false, true); }

// Accesses that keep no copy beside the caching ones, two lines and two
// requests per agent: a ReadOnce meets an owner it snoops to shared, an
// upgrade and a write-back in flight; a WriteUnique meets owners, sharers
// and the requests queued behind it.
TEST(CoherenceExhaustive, ReadOnceWriteUniqueTwoAgentsTwoLinesTwoMshrs) { run(2, 2, 2, 1, false, false, false, true); }

// Whole-line stores that take the line by MakeUnique beside every caching
// operation, with and without forwarding: an owner's dirty data dropped
// while its write-back is in flight, an upgrade losing its copy to one.
TEST(CoherenceExhaustive, MakeUniqueTwoAgentsTwoLinesTwoMshrs) {
  run(2, 2, 2, 1, false, false, false, false, true);
  run(2, 2, 2, 1, true, false, false, false, true);
}

// Direct cache-to-cache forwarding: an owner sends the line to the
// requester and the home hears of it after (or before) the requester's
// CompAck; an owner with an eviction or write-back in flight declines.
TEST(CoherenceExhaustive, ForwardingTwoAgentsTwoLinesTwoMshrs) { run(2, 2, 2, 1, true, true); }

// The search sees an atomic's requester that keeps the old value as a
// copy: a readable copy of a value the atomic itself has replaced.
TEST(CoherenceExhaustive, FindsAnAtomicThatLeavesACopy) {
  ExploreConfig c;
  c.atomics = true;
  expect_found(c, Mutation::AtomicKeepsCopy, "holds a stale readable copy");
}

// The search sees a ReadOnce's requester that keeps its snapshot: a copy
// the directory does not list.
TEST(CoherenceExhaustive, FindsAReadOnceThatKeepsACopy) {
  ExploreConfig c;
  c.once = true;
  expect_found(c, Mutation::ReadOnceKeepsCopy, "which holds the line");
}

// A home takes the rows of its policy (forwarding, dirty sharing,
// migratory, or none; a home set to several takes the first of these
// alone) and never a row of another policy, nor one its policy's rows
// replace.
TEST(CoherenceExhaustive, AHomeTakesTheRowsOfItsPolicyOnly) {
  int n = 0;
  const HomeRow* home = home_rows(&n);
  for (const bool fwd : {false, true})
    for (const bool mig : {false, true})
      for (const bool own : {false, true}) {
        ExploreConfig c;
        c.agents = 3;
        c.forward = fwd;
        c.migratory = mig;
        c.owned = own;
        c.read_clean = true;
        const ExploreResult r = run(c);
        const ExploreResult quiet = run(silent(3, fwd, mig, own));  // the rows for agents listed after a Drop
        for (int i = 0; i < n; ++i) {
          const auto k = static_cast<std::size_t>(i);
          const bool mine = home_row(home[i].req, home[i].cond, fwd, mig, own) == &home[i];
          const bool policy_row = home[i].ops & (kHomeForward | kHomeMigrate | kHomeOwned);
          const int used = r.home_rows_used[k] + quiet.home_rows_used[k];
          if (!mine) {
            EXPECT_EQ(used, 0) << msg_name(home[i].req) << " x " << dir_cond_name(home[i].cond)
                                              << (fwd ? ", forwarding" : "") << (mig ? ", migratory" : "")
                                              << (own ? ", dirty sharing" : "");
          } else if (policy_row) {
            EXPECT_GT(used, 0) << msg_name(home[i].req) << " x " << dir_cond_name(home[i].cond);
          }
        }
      }
}

// Migratory sharing with two lines and two requests per agent, far atomics
// beside: a ReadShared that takes a line unique meets every other flow.
TEST(CoherenceExhaustive, MigratoryTwoAgentsTwoLinesTwoMshrs) { run(2, 2, 2, 1, false, true, true); }

// The search sees a forwarding owner that keeps its unique copy: once the
// home has its response, the directory no longer lists it (the step before
// the requester's copy breaks single-writer).
TEST(CoherenceExhaustive, FindsAnOwnerThatKeepsALineItForwarded) {
  ExploreConfig c;
  c.forward = true;
  expect_found(c, Mutation::KeepForwardedLine, "the directory does not list agent 0, which holds the line");
}

// The socket system's flows: each line has the home of its socket (line l
// at home l % 2), and a core has requests at both homes at once. The
// search delivers in any order, so it covers whatever order the socket
// links and meshes keep; what it adds to the one-home searches is that
// no row assumes one home for all of an agent's lines.
TEST(CoherenceExhaustive, TwoSocketsTwoCoresALineHomedOnEachSocket) { run(2, 2, 2, 2); }

TEST(CoherenceExhaustive, TwoSocketsForwarding) { run(2, 2, 2, 2, true); }

// With two homes the search still sees a broken protocol: a sharer that
// keeps its copy of the line homed on the other socket.
TEST(CoherenceExhaustive, TwoHomesFindASharerThatIgnoresAnInvalidation) {
  ExploreConfig c;
  c.lines = 2;
  c.homes = 2;
  expect_found(c, Mutation::IgnoreInvalidation, "the directory does not list agent 1, which holds the line");
}

// The search catches a broken protocol: a sharer that keeps its copy after
// an invalidation is found holding a line the directory no longer lists
// (the step before single-writer breaks), and a lost snoop leaves the home
// waiting with nothing in flight.
TEST(CoherenceExhaustive, FindsASharerThatIgnoresAnInvalidation) {
  ExploreConfig c;
  expect_found(c, Mutation::IgnoreInvalidation, "the directory does not list agent 1, which holds the line");
}

TEST(CoherenceExhaustive, FindsTheDeadlockOfALostSnoop) {
  ExploreConfig c;
  expect_found(c, Mutation::LoseSnoop, "deadlock");
}

}  // namespace
}  // namespace hx::coherence::test
