// The cache substrate alone (models/cache): placement, refill, eviction and
// each replacement policy against a hand-worked sequence.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <vector>

#include "models/cache/event_state.h"
#include "models/cache/mshr.h"
#include "models/cache/tag_array.h"
#include "models/core/rng.h"

namespace hx::cache {
namespace {

using Tags = TagArray<std::uint64_t>;

bool hit(Tags& t, std::uint64_t k) {
  return t.find(t.set_of(k), [k](std::uint64_t e) { return e == k; }) != nullptr;
}
// Places k; returns whether a valid other entry was evicted.
bool fill(Tags& t, std::uint64_t k) {
  bool ev = false;
  t.place(t.set_of(k), [k](std::uint64_t e) { return e == k; }, &ev) = k;
  return ev;
}
std::set<std::uint64_t> held(Tags& t, const std::set<std::uint64_t>& ks) {
  std::set<std::uint64_t> s;
  for (auto k : ks)
    if (t.find(t.set_of(k), [k](std::uint64_t e) { return e == k; }, false)) s.insert(k);
  return s;
}

TEST(TagArray, SetOfIsTheIndexModuloTheSets) {
  Tags a(8, 2, Policy::Lru, "a"), b(6, 2, Policy::Lru, "b");
  EXPECT_EQ(a.set_of(13), 5u);
  EXPECT_EQ(b.set_of(13), 1u);
  EXPECT_EQ(b.set_of(6), 0u);
}

TEST(TagArray, FillsEmptyWaysFirstAndRefillsInPlace) {
  Tags t(1, 4, Policy::Lru, "t");
  EXPECT_FALSE(fill(t, 1));
  EXPECT_FALSE(fill(t, 2));
  EXPECT_FALSE(fill(t, 1));  // a refill takes its own way
  EXPECT_EQ(t.occupancy(), 2u);
  EXPECT_FALSE(fill(t, 3));
  EXPECT_FALSE(fill(t, 4));
  EXPECT_TRUE(fill(t, 5));  // full: 2 goes (the refill made 1 more recent)
  EXPECT_EQ(held(t, {1, 2, 3, 4, 5}), (std::set<std::uint64_t>{1, 3, 4, 5}));
  EXPECT_EQ(t.invalidate_if([](std::uint64_t e) { return e % 2 == 1; }), 3u);
  EXPECT_EQ(t.occupancy(), 1u);
  EXPECT_FALSE(fill(t, 7));  // into an emptied way: nothing evicted
  t.clear();
  EXPECT_EQ(t.occupancy(), 0u);
  EXPECT_FALSE(hit(t, 7));
}

TEST(Replacement, LruReplacesTheLeastRecentlyUsed) {
  Tags t(1, 4, Policy::Lru, "t");
  for (std::uint64_t k : {1, 2, 3, 4}) fill(t, k);
  ASSERT_TRUE(hit(t, 1));  // order of use now 2 3 4 1
  fill(t, 5);              // evicts 2
  EXPECT_EQ(held(t, {1, 2, 3, 4, 5}), (std::set<std::uint64_t>{1, 3, 4, 5}));
  ASSERT_TRUE(hit(t, 3));  // 4 1 5 3
  fill(t, 6);              // evicts 4
  EXPECT_EQ(held(t, {1, 3, 4, 5, 6}), (std::set<std::uint64_t>{1, 3, 5, 6}));
  // A look-up that does not touch leaves the order: 1 5 3 6.
  ASSERT_NE(t.find(0, [](std::uint64_t e) { return e == 1; }, false), nullptr);
  fill(t, 7);  // evicts 1
  EXPECT_EQ(held(t, {1, 3, 5, 6, 7}), (std::set<std::uint64_t>{3, 5, 6, 7}));
}

// Four ways, tree bits b1 (root), b2 (ways 0-1), b3 (ways 2-3); a bit points
// to the half to evict from. Filling ways 0..3 in order leaves b1 -> left
// (3 was last), b2 -> way 0, b3 -> way 2.
TEST(Replacement, TreePlruFollowsTheTree) {
  Tags t(1, 4, Policy::Plru, "t");
  for (std::uint64_t k : {10, 11, 12, 13}) fill(t, k);  // ways 0 1 2 3
  fill(t, 14);  // victim way 0 (10); now b1 -> right, b2 -> way 1
  EXPECT_EQ(held(t, {10, 11, 12, 13, 14}), (std::set<std::uint64_t>{11, 12, 13, 14}));
  fill(t, 15);  // victim in the right half: b3 -> way 2 (12); then b1 -> left, b3 -> way 3
  EXPECT_EQ(held(t, {11, 12, 13, 14, 15}), (std::set<std::uint64_t>{11, 13, 14, 15}));
  ASSERT_TRUE(hit(t, 11));  // way 1: b1 -> right, b2 -> way 0
  fill(t, 16);  // right half, b3 -> way 3 (13)
  EXPECT_EQ(held(t, {11, 13, 14, 15, 16}), (std::set<std::uint64_t>{11, 14, 15, 16}));
}

// Three ways: the tree has four leaves, and the missing fourth is never chosen.
TEST(Replacement, TreePlruWithWaysNotAPowerOfTwoStaysInRange) {
  Tags t(1, 3, Policy::Plru, "t");
  for (std::uint64_t k = 0; k < 200; ++k) {
    fill(t, k);
    EXPECT_LE(t.occupancy(), 3u);
    EXPECT_TRUE(hit(t, k));  // what was just placed is there
  }
  EXPECT_EQ(t.occupancy(), 3u);
}

TEST(Replacement, RandomIsDeterministicPerSeedAndNameAndSpreadsOverTheWays) {
  set_global_seed(7);
  auto victims = [](const std::string& name) {
    Tags t(1, 4, Policy::Random, name);
    for (std::uint64_t k : {0, 1, 2, 3}) fill(t, k);
    std::vector<std::uint64_t> gone;  // the key each fill evicted, in order
    std::set<std::uint64_t> cur{0, 1, 2, 3};
    for (std::uint64_t k = 4; k < 4004; ++k) {
      fill(t, k);
      const std::set<std::uint64_t> now = held(t, cur);
      for (auto b : cur)
        if (!now.count(b)) gone.push_back(b);
      cur = now;
      cur.insert(k);
    }
    return gone;
  };
  const auto a = victims("x"), b = victims("x"), c = victims("y");
  EXPECT_EQ(a, b);
  EXPECT_NE(a, c);
  // How many fills each key survived: with a uniform choice among 4 ways a
  // key is evicted by each later fill with probability 1/4, so it is gone
  // after 4 fills on average, and a quarter of keys go at the very next.
  ASSERT_EQ(a.size(), 4000u);
  std::map<std::uint64_t, std::uint64_t> when;  // key -> index of the fill that evicted it
  for (std::size_t i = 0; i < a.size(); ++i) when[a[i]] = i + 4;
  double sum = 0;
  int next = 0, n = 0;
  for (auto [k, at] : when) {
    if (k < 4) continue;
    sum += static_cast<double>(at - k);
    next += at - k == 1;
    ++n;
  }
  EXPECT_NEAR(sum / n, 4.0, 0.3);
  EXPECT_NEAR(static_cast<double>(next) / n, 0.25, 0.03);
}

// A placement confined to the first ways (DDIO's share of an LLC) evicts
// only there, under every policy; a key already held elsewhere in the set
// is refilled where it is.
TEST(TagArray, AConfinedPlacementStaysInItsWays) {
  for (Policy p : {Policy::Lru, Policy::Plru, Policy::Random}) {
    SCOPED_TRACE(policy_name(p));
    Tags t(1, 6, p, "t");
    for (std::uint64_t k = 0; k < 6; ++k) fill(t, k);  // ways 0..5 hold keys 0..5
    auto confined = [&t](std::uint64_t k) {
      bool ev = false, present = false;
      t.place(0, [k](std::uint64_t e) { return e == k; }, &ev, &present, 2) = k;
      return present;
    };
    EXPECT_TRUE(confined(4));  // held in way 4: refilled there, nothing evicted
    for (std::uint64_t k = 100; k < 300; ++k) {
      EXPECT_FALSE(confined(k));
      EXPECT_TRUE(hit(t, k));
      EXPECT_EQ(held(t, {2, 3, 4, 5}), (std::set<std::uint64_t>{2, 3, 4, 5}));  // ways 2..5 untouched
    }
    EXPECT_EQ(t.occupancy(), 6u);
  }
  // Into an emptied way only if it is one of the first: key 3's way stays empty.
  Tags t(1, 4, Policy::Lru, "t");
  for (std::uint64_t k = 0; k < 4; ++k) fill(t, k);
  t.invalidate(0, [](std::uint64_t e) { return e == 3; });
  t.place(0, [](std::uint64_t e) { return e == 9; }, nullptr, nullptr, 2) = 9;
  EXPECT_EQ(held(t, {0, 1, 2, 9}), (std::set<std::uint64_t>{1, 2, 9}));  // 0, the least recent of ways 0-1, went
  EXPECT_EQ(t.occupancy(), 3u);
}

TEST(Replacement, PolicyNamesParse) {
  Policy p = Policy::Lru;
  EXPECT_TRUE(parse_policy("plru", &p));
  EXPECT_EQ(p, Policy::Plru);
  EXPECT_TRUE(parse_policy("random", &p));
  EXPECT_EQ(p, Policy::Random);
  EXPECT_FALSE(parse_policy("fifo", &p));
  EXPECT_STREQ(policy_name(Policy::Lru), "lru");
}

// Two entries of two targets each: a second request to a line merges, a
// third to it finds its targets full, a third line finds the table full;
// completing a line hands its targets back in arrival order and frees it.
TEST(Mshr, MergesPerLineAndRefusesWhenFull) {
  MshrTable<int> m("mshr", 2, 2);
  using O = MshrTable<int>::Outcome;
  EXPECT_EQ(m.request(0x40, 1), O::Allocated);
  EXPECT_EQ(m.request(0x40, 2), O::Merged);
  EXPECT_EQ(m.request(0x40, 3), O::TargetsFull);
  EXPECT_EQ(m.request(0x80, 4), O::Allocated);
  EXPECT_TRUE(m.full());
  EXPECT_EQ(m.request(0xc0, 5), O::TableFull);
  std::vector<int> got;
  m.complete(0x40, [&](int t) { got.push_back(t); });
  EXPECT_EQ(got, (std::vector<int>{1, 2}));
  EXPECT_FALSE(m.outstanding(0x40));
  EXPECT_EQ(m.in_use(), 1u);
  EXPECT_EQ(m.request(0xc0, 5), O::Allocated);
  EXPECT_EQ(m.allocations.value, 3u);
  EXPECT_EQ(m.merges.value, 1u);
  EXPECT_EQ(m.full_stalls.value, 2u);
  EXPECT_THROW(m.complete(0x100, [](int) {}), SimError);
}

// A target's callback may start the line's next transaction at once: it
// gets an entry of its own, and the targets being handed back stay intact.
TEST(Mshr, ACompletionMayStartTheNextTransactionOfItsLine) {
  MshrTable<int> m("mshr", 2, 4);
  for (int t : {1, 2, 3}) m.request(0x40, t);
  std::vector<int> got;
  m.complete(0x40, [&](int t) {
    got.push_back(t);
    m.request(0x40, 10 + t);  // the first allocates, the others merge
  });
  EXPECT_EQ(got, (std::vector<int>{1, 2, 3}));
  EXPECT_TRUE(m.outstanding(0x40));
  std::vector<int> next;
  m.complete(0x40, [&](int t) { next.push_back(t); });
  EXPECT_EQ(next, (std::vector<int>{11, 12, 13}));
  EXPECT_EQ(m.in_use(), 0u);
}

// A one-entry table whose only entry is handing back its targets has no
// room for another line meanwhile.
TEST(Mshr, AnEntryBeingDrainedIsNotReused) {
  MshrTable<int> m("mshr", 1, 1);
  m.request(0x40, 1);
  MshrTable<int>::Outcome inner{};
  m.complete(0x40, [&](int) { inner = m.request(0x80, 2); });
  EXPECT_EQ(inner, MshrTable<int>::Outcome::TableFull);
  EXPECT_EQ(m.request(0x80, 2), MshrTable<int>::Outcome::Allocated);
}

// Event x state counters are registered once, by name, and count each
// pair apart.
TEST(EventState, CountsEachPairUnderItsOwnName) {
  StatsRegistry::instance().clear();
  EventStateCounters c("l1", {"GetS", "GetM"}, {"I", "S", "M"});
  c.count(0, 0);
  c.count(0, 0);
  c.count(1, 1);
  EXPECT_EQ(c.get(0, 0), 2u);
  EXPECT_EQ(c.get(1, 1), 1u);
  EXPECT_EQ(c.get(1, 2), 0u);
  EXPECT_EQ(c.total(), 3u);
  const auto& e = StatsRegistry::instance().entries();
  ASSERT_EQ(e.count("l1.GetS_I"), 1u);
  EXPECT_EQ(e.at("l1.GetS_I").counter->value, 2u);
  EXPECT_EQ(e.at("l1.GetM_S").counter->value, 1u);
  EXPECT_EQ(e.at("l1.GetM_M").unit, "1");
  EXPECT_EQ(e.size(), 6u);
}

}  // namespace
}  // namespace hx::cache
