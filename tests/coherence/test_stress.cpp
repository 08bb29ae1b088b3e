// Random stress of the coherence engine against a golden memory: more
// agents and lines than the exhaustive search can cover, real data values
// (every store writes a value never written before), random operations and
// a network that delivers any message in flight next, over many seeds.
// Every load must return the golden value of its line (the value of the
// last store, stores being serialised by single-writer), single-writer must
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
  void send(const Msg& m) override { q.push_back(m); }
};

struct System {
  int agents, lines, mshrs;
  std::vector<CacheLine> cl;
  std::vector<HomeLine> home;
  std::vector<std::uint64_t> golden;
  Net net;
  std::uint64_t next_value = 1, loads = 0, stores = 0, ops = 0;
  AgentId home_id;
  HomePolicy policy;

  System(int a, int l, int m) : agents(a), lines(l), mshrs(m), cl(static_cast<std::size_t>(a * l)), home(static_cast<std::size_t>(l)),
                             golden(static_cast<std::size_t>(l), 0), home_id(static_cast<AgentId>(a)) {}
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
  void apply(const RnStep& r, int l) {
    if (r.loaded) {
      ++loads;
      ASSERT_EQ(r.value, golden[static_cast<std::size_t>(l)]) << "a load of line " << l << " returned a stale value";
    }
    if (r.stored) {
      ++stores;
      golden[static_cast<std::size_t>(l)] = r.value;
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
        home_receive(home[static_cast<std::size_t>(l)], m, home_id, net, policy);
      } else {
        // A store completing on this message writes a value never written before.
        apply(rn_step(at(m.dst, l), rn_event_of(m.type), &m, m.dst, home_id, m.line, next_value++, net), l);
      }
      check_swmr(l);
      return (m.type == MsgType::CompDataSC || m.type == MsgType::CompDataUC) && m.src != home_id;  // from an owner
    }
    const int a = static_cast<int>(rng.below(static_cast<std::uint64_t>(agents)));
    const int l = static_cast<int>(rng.below(static_cast<std::uint64_t>(lines)));
    const RnEvent e = rng.below(10) < 5 ? RnEvent::Load : rng.below(5) < 3 ? RnEvent::Store : RnEvent::Replace;
    const RnRow* row = rn_row(at(a, l).state, e);
    if (!row || (row->send != MsgType::None && outstanding(a) >= mshrs)) return 0;  // waits: try another
    ++ops;
    apply(rn_step(at(a, l), e, nullptr, static_cast<AgentId>(a), home_id, static_cast<std::uint64_t>(l), next_value++, net), l);
    check_swmr(l);
    return 0;
  }
  void check_at_rest() {
    for (int l = 0; l < lines; ++l) {
      std::uint64_t holders = 0;
      bool dirty = false;
      for (int a = 0; a < agents; ++a) {
        ASSERT_TRUE(rn_stable(at(a, l).state));
        if (rn_readable(at(a, l).state)) {
          holders |= 1ull << a;
          ASSERT_EQ(at(a, l).data, golden[static_cast<std::size_t>(l)]);
        }
        dirty |= at(a, l).state == RnState::UD;
      }
      const HomeLine& h = home[static_cast<std::size_t>(l)];
      ASSERT_FALSE(h.busy);
      ASSERT_EQ(h.sharers, holders) << "line " << l;
      if (!dirty) {
        ASSERT_EQ(h.mem, golden[static_cast<std::size_t>(l)]) << "line " << l;
      }
    }
  }
};

// 200 seeds x 5000 operations = a million operations, on 4 agents, 3 lines
// (so lines collide constantly) and 2 MSHRs per agent.
void stress(bool forward) {
  std::uint64_t ops = 0, loads = 0, stores = 0, forwarded = 0;
  for (std::uint64_t seed = 1; seed <= 200; ++seed) {
    System r(4, 3, 2);
    r.policy.forward = forward;
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
  }
  EXPECT_EQ(ops, 1'000'000u);
  EXPECT_GT(loads, 100'000u);  // both kinds happened, many times
  EXPECT_GT(stores, 100'000u);
  if (forward) EXPECT_GT(forwarded, 10'000u);  // owners did forward, many times
  else EXPECT_EQ(forwarded, 0u);
  std::printf("%llu operations: %llu loads checked, %llu stores, %llu lines forwarded\n", static_cast<unsigned long long>(ops),
              static_cast<unsigned long long>(loads), static_cast<unsigned long long>(stores),
              static_cast<unsigned long long>(forwarded));
}

TEST(CoherenceStress, AMillionRandomOperationsAgainstAGoldenMemory) { stress(false); }

// The same with homes that have owners forward lines to requesters.
TEST(CoherenceStress, AMillionRandomOperationsForwardingAgainstAGoldenMemory) { stress(true); }

}  // namespace
}  // namespace hx::coherence
