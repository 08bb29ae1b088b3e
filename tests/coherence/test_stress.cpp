// Random stress of the coherence engine against a golden memory: more
// agents and lines than the exhaustive search can cover, real data values
// (every store writes a value never written before), random operations and
// a network that delivers any message in flight next, over many seeds.
// Atomics run too: far (at the home) from a line not held, near (in the
// cache) otherwise; so do accesses that keep no copy (ReadOnce and
// WriteUnique), whole-line stores by MakeUnique and ReadClean, from a line
// not held; with homes that keep dirty lines shared, SD owners; and, with
// homes that grant lines empty, stores of half a line that take it by
// CleanUnique, and the partial lines (UDP) they leave.
// Every load and every atomic must read the golden value
// of its line (the value of the last store, stores being serialised by
// single-writer, a far atomic's by the home), every far atomic's requester
// must get the value the home read, single-writer must
// hold after every step, and every run must drain to rest with the
// directory exact and memory or the one dirty copy holding the last value.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "models/coherence/engine.h"
#include "models/core/rng.h"

namespace hx::coherence {
namespace {

struct Net : Sink {
  std::vector<Msg> q;
  std::vector<std::uint64_t>* golden = nullptr;
  std::vector<std::uint64_t> result;  // per agent x line: the old value a far atomic read at the home
  int lines = 0;
  std::uint64_t far = 0;
  void send(const Msg& m) override { q.push_back(m); }
  void home_atomic(const Msg& req, std::uint64_t old, std::uint64_t now) override {
    std::uint64_t& g = (*golden)[static_cast<std::size_t>(req.line)];
    ASSERT_EQ(old, g) << "a far atomic at the home read a stale value of line " << req.line;
    g = now;
    result[static_cast<std::size_t>(req.src * lines) + req.line] = old;
    ++far;
  }
  std::uint64_t whole_writes = 0;
  void home_write(const Msg& req, std::uint64_t) override {
    (*golden)[static_cast<std::size_t>(req.line)] = req.data;  // the home serialises it
    ++whole_writes;
  }
};

struct System {
  int agents, lines, mshrs;
  std::vector<CacheLine> cl;
  std::vector<HomeLine> home;
  std::vector<std::uint64_t> golden;
  Net net;
  std::uint64_t next_value = 1, loads = 0, stores = 0, ops = 0, near = 0, read_once = 0, make_unique = 0, read_clean = 0;
  std::uint64_t shared_dirty = 0;  // SD owners' copies sent for requesters
  std::uint64_t partial = 0, partial_home = 0;  // half-line stores by StorePtl; partial lines sent home
  bool partial_stores = false;      // the cores store half lines (StorePtl) too
  std::vector<Rmw> pending;         // per agent x line: the near atomic whose request is outstanding
  std::vector<char> near_pending;
  AgentId home_id;
  HomePolicy policy;

  System(int a, int l, int m) : agents(a), lines(l), mshrs(m), cl(static_cast<std::size_t>(a * l)), home(static_cast<std::size_t>(l)),
                             golden(static_cast<std::size_t>(l), 0), home_id(static_cast<AgentId>(a)) {
    net.golden = &golden;
    net.lines = l;
    net.result.assign(static_cast<std::size_t>(a * l), 0);
    pending.resize(static_cast<std::size_t>(a * l));
    near_pending.assign(static_cast<std::size_t>(a * l), 0);
  }
  CacheLine& at(int a, int l) { return cl[static_cast<std::size_t>(a * lines + l)]; }
  int outstanding(int a) {
    int n = 0;
    for (int l = 0; l < lines; ++l) n += !rn_stable(at(a, l).state);
    return n;
  }
  void check_swmr(int l) {
    int readers = 0, writers = 0;
    for (int a = 0; a < agents; ++a) {
      readers += rn_readable(at(a, l).state);
      writers += rn_writable(at(a, l).state);
    }
    ASSERT_FALSE(writers && readers > 1) << "line " << l;
  }
  void apply(const RnStep& r, int l, int a) {
    if (r.rmw) {  // a near atomic: it read the last store's value
      ++near;
      ASSERT_EQ(r.old, golden[static_cast<std::size_t>(l)]) << "a near atomic on line " << l << " read a stale value";
    }
    if (r.result) {
      ASSERT_EQ(r.value, net.result[static_cast<std::size_t>(a * lines + l)]) << "a far atomic's requester got another value than the home read";
    }
    if (r.loaded) {
      ++loads;
      ASSERT_EQ(r.value, golden[static_cast<std::size_t>(l)]) << "a load of line " << l << " returned a stale value";
    }
    if (r.stored) {
      ++stores;
      std::uint64_t& g = golden[static_cast<std::size_t>(l)];
      g = merge_bits(g, r.value, r.mask);
    }
  }
  // One random step: a core operation (when `ops_left`) or a delivery.
  // Returns 1 if it delivered a line an owner forwarded.
  int step(Rng& rng, bool ops_left) {
    const bool deliver = !net.q.empty() && (!ops_left || rng.below(2));
    if (deliver) {
      const std::size_t i = static_cast<std::size_t>(rng.below(net.q.size()));
      const Msg m = net.q[i];
      net.q[i] = net.q.back();
      net.q.pop_back();
      const int l = static_cast<int>(m.line);
      if (m.dst == home_id) {
        shared_dirty += m.type == MsgType::SnpRespData_SD;
        partial_home += msg_partial(m.type);
        home_receive(home[static_cast<std::size_t>(l)], m, home_id, net, policy);
      } else {
        // A store completing on this message writes a value never written
        // before (a near atomic: its operation's value).
        const std::size_t k = static_cast<std::size_t>(m.dst * lines + l);
        const RnStep r = rn_step(at(m.dst, l), rn_event_of(m.type), &m, m.dst, home_id, m.line, next_value++, net, ~0ull,
                                 near_pending[k] ? &pending[k] : nullptr);
        if (r.row->ops & kOpRetire) near_pending[k] = 0;
        read_once += m.type == MsgType::CompDataI;
        apply(r, l, m.dst);
      }
      check_swmr(l);
      return (m.type == MsgType::CompDataSC || m.type == MsgType::CompDataUC) && m.src != home_id;  // from an owner
    }
    const int a = static_cast<int>(rng.below(static_cast<std::uint64_t>(agents)));
    const int l = static_cast<int>(rng.below(static_cast<std::uint64_t>(lines)));
    const std::uint64_t pick = rng.below(partial_stores ? 27 : 24);
    RnEvent e = pick < 10 ? RnEvent::Load : pick < 16 ? RnEvent::Store : pick < 18 ? RnEvent::Replace : pick < 20 ? RnEvent::Count
                : pick < 21 ? RnEvent::ReadOnce : pick < 22 ? RnEvent::WriteUnique : pick < 23 ? RnEvent::StoreLine
                : pick < 24 ? RnEvent::ReadClean : RnEvent::StorePtl;
    const std::uint64_t mask = e == RnEvent::StorePtl ? 0x00000000ffffffffull : ~0ull;  // lanes 0-3
    partial += e == RnEvent::StorePtl && at(a, l).state == RnState::I;
    // From a line held, an access that keeps no copy is a load or store in
    // the cache, and so is a whole-line or partial store.
    e = core_event(e, at(a, l).state);
    // An atomic: far from a line not held, near (a store) otherwise; a
    // compare that succeeds half the time; addends far apart, so that a sum
    // never repeats an earlier value.
    Rmw rmw;
    const bool atomic = e == RnEvent::Count;
    if (atomic) {
      rmw.op = static_cast<AtomicOp>(rng.below(4));
      rmw.operand = rmw.op == AtomicOp::Store || rmw.op == AtomicOp::Load ? next_value++ << 24 : next_value++;
      rmw.compare = rng.below(2) ? golden[static_cast<std::size_t>(l)] : next_value++;
      e = at(a, l).state == RnState::I ? atomic_event(rmw.op) : RnEvent::Store;
    }
    // A near atomic needs the whole line: from a line held empty or
    // partial, the line is fetched (a load) instead.
    const bool fetch = atomic && (at(a, l).state == RnState::UCE || at(a, l).state == RnState::UDP);
    if (fetch) e = RnEvent::Load;
    const RnRow* row = rn_row(at(a, l).state, e);
    if (!row || (row->send != MsgType::None && outstanding(a) >= mshrs)) return 0;  // waits: try another
    ++ops;
    make_unique += e == RnEvent::StoreLine;
    read_clean += e == RnEvent::ReadClean;
    const RnStep r = rn_step(at(a, l), e, nullptr, static_cast<AgentId>(a), home_id, static_cast<std::uint64_t>(l), next_value++,
                             net, mask, atomic && !fetch ? &rmw : nullptr);
    if (atomic && !fetch && e == RnEvent::Store && !r.stored) {  // a near atomic waits for its line
      pending[static_cast<std::size_t>(a * lines + l)] = rmw;
      near_pending[static_cast<std::size_t>(a * lines + l)] = 1;
    }
    apply(r, l, a);
    check_swmr(l);
    return 0;
  }
  void check_at_rest() {
    for (int l = 0; l < lines; ++l) {
      std::uint64_t holders = 0;
      bool dirty = false;
      for (int a = 0; a < agents; ++a) {
        const CacheLine& c = at(a, l);
        ASSERT_TRUE(rn_stable(c.state));
        if (rn_placed(c.state)) holders |= 1ull << a;
        if (rn_readable(c.state)) {
          ASSERT_EQ(c.data, golden[static_cast<std::size_t>(l)]);
        }
        dirty |= rn_dirty(c.state);
      }
      const HomeLine& h = home[static_cast<std::size_t>(l)];
      ASSERT_FALSE(h.busy);
      ASSERT_EQ(h.sharers, holders) << "line " << l;
      if (!dirty) {
        ASSERT_EQ(h.mem, golden[static_cast<std::size_t>(l)]) << "line " << l;
      }
      for (int a = 0; a < agents; ++a) {  // a partial line: its lanes the last stores', memory the others
        const CacheLine& c = at(a, l);
        if (c.state != RnState::UDP) continue;
        const std::uint64_t own = lane_bits(c.valid), g = golden[static_cast<std::size_t>(l)];
        ASSERT_EQ(c.data & own, g & own) << "line " << l;
        ASSERT_EQ(h.mem & ~own, g & ~own) << "line " << l;
      }
    }
  }
};

// 200 seeds x 5000 operations = a million operations, on 4 agents, 3 lines
// (so lines collide constantly) and 2 MSHRs per agent.
void stress(bool forward, bool migratory = false, bool owned = false, bool partial = false) {
  std::uint64_t ops = 0, loads = 0, stores = 0, forwarded = 0, near = 0, far = 0, read_once = 0, whole = 0, make_unique = 0;
  std::uint64_t read_clean = 0, shared_dirty = 0, partial_stores = 0, partial_home = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    System r(4, 3, 2);
    r.policy.forward = forward;
    r.policy.migratory = migratory;
    r.policy.owned = owned;
    r.policy.empty = r.partial_stores = partial;
    Rng rng(seed, "coherence-stress");
    while (r.ops < 5000) {
      forwarded += r.step(rng, true);
      if (::testing::Test::HasFatalFailure()) FAIL() << "seed " << seed;
    }
    for (int guard = 0; !r.net.q.empty(); ++guard) {  // drain: deliveries only
      ASSERT_LT(guard, 1'000'000) << "seed " << seed << ": messages never drain";
      forwarded += r.step(rng, false);
      if (::testing::Test::HasFatalFailure()) FAIL() << "seed " << seed;
    }
    r.check_at_rest();
    if (::testing::Test::HasFatalFailure()) FAIL() << "seed " << seed;
    ops += r.ops;
    loads += r.loads;
    stores += r.stores;
    near += r.near;
    far += r.net.far;
    read_once += r.read_once;
    whole += r.net.whole_writes;
    make_unique += r.make_unique;
    read_clean += r.read_clean;
    shared_dirty += r.shared_dirty;
    partial_stores += r.partial;
    partial_home += r.partial_home;
  }
  EXPECT_EQ(ops, 1'000'000u);
  EXPECT_GT(loads, 100'000u);  // both kinds happened, many times
  EXPECT_GT(stores, 100'000u);
  EXPECT_GT(near, 10'000u);  // atomics ran both near and far, many times
  EXPECT_GT(far, 10'000u);
  EXPECT_GT(read_once, 10'000u);  // snapshots and whole-line writes, many times
  EXPECT_GT(whole, 10'000u);
  EXPECT_GT(make_unique, 10'000u);  // whole-line stores by MakeUnique, many times
  EXPECT_GT(read_clean, 10'000u);   // and ReadCleans
  if (owned && !forward) EXPECT_GT(shared_dirty, 10'000u);  // dirty owners kept their lines shared, many times
  else EXPECT_EQ(shared_dirty, 0u);
  if (forward) EXPECT_GT(forwarded, 10'000u);  // owners did forward, many times
  else EXPECT_EQ(forwarded, 0u);
  if (partial) {  // half-line stores took lines by CleanUnique, and partial lines went home, many times
    EXPECT_GT(partial_stores, 10'000u);
    EXPECT_GT(partial_home, 1'000u);
  } else {
    EXPECT_EQ(partial_home, 0u);
  }
  std::printf("%llu operations: %llu loads checked (%llu ReadOnce), %llu stores (%llu by MakeUnique), %llu WriteUnique, "
              "%llu atomics near and %llu far, %llu lines forwarded, %llu ReadClean, %llu copies from SD owners, "
              "%llu half-line stores from I, %llu partial lines sent home\n",
              static_cast<unsigned long long>(ops), static_cast<unsigned long long>(loads), static_cast<unsigned long long>(read_once),
              static_cast<unsigned long long>(stores), static_cast<unsigned long long>(make_unique), static_cast<unsigned long long>(whole),
              static_cast<unsigned long long>(near), static_cast<unsigned long long>(far), static_cast<unsigned long long>(forwarded),
              static_cast<unsigned long long>(read_clean), static_cast<unsigned long long>(shared_dirty),
              static_cast<unsigned long long>(partial_stores), static_cast<unsigned long long>(partial_home));
}

TEST(CoherenceStress, AMillionRandomOperationsAgainstAGoldenMemory) { stress(false); }

// The same with homes that have owners forward lines to requesters.
TEST(CoherenceStress, AMillionRandomOperationsForwardingAgainstAGoldenMemory) { stress(true); }

// The same with migratory homes (a ReadShared that finds an owner takes the
// line unique).
TEST(CoherenceStress, AMillionRandomOperationsMigratoryAgainstAGoldenMemory) { stress(false, true); }

// The same with homes that keep dirty lines shared (an owner asked to share
// stays SD, and answers the reads after for the stale memory).
TEST(CoherenceStress, AMillionRandomOperationsDirtySharingAgainstAGoldenMemory) { stress(false, false, true); }

// The same with homes that grant lines empty, and cores that store half
// lines (StorePtl): empty lines (UCE), partial ones (UDP) and their loads,
// write-backs and snoops, merged into memory lane by lane; with and
// without forwarding.
TEST(CoherenceStress, AMillionRandomOperationsPartialLinesAgainstAGoldenMemory) { stress(false, false, false, true); }
TEST(CoherenceStress, AMillionRandomOperationsPartialLinesForwardingAgainstAGoldenMemory) { stress(true, false, false, true); }

}  // namespace
}  // namespace hx::coherence
