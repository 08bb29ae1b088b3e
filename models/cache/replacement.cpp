#include "models/cache/replacement.h"

#include "models/core/zeroed_array.h"

namespace hx::cache {

const char* policy_name(Policy p) {
  switch (p) {
    case Policy::Lru: return "lru";
    case Policy::Plru: return "plru";
    case Policy::Random: return "random";
  }
  return "?";
}

bool parse_policy(const std::string& s, Policy* out) {
  for (Policy p : {Policy::Lru, Policy::Plru, Policy::Random})
    if (s == policy_name(p)) {
      *out = p;
      return true;
    }
  return false;
}

namespace {

// Stamps from one counter per structure: the smallest stamp in a set is its
// least recently used way.
class Lru final : public Replacement {
 public:
  Lru(std::size_t sets, unsigned ways) : m_ways(ways), m_used(sets * ways) {}
  void touch(std::size_t set, unsigned way) override { m_used[set * m_ways + way] = ++m_clock; }
  unsigned victim(std::size_t set, unsigned ways) override {
    const std::uint64_t* u = &m_used[set * m_ways];
    unsigned v = 0;
    for (unsigned w = 1; w < ways; ++w)
      if (u[w] < u[v]) v = w;
    return v;
  }

 private:
  unsigned m_ways;
  ZeroedArray<std::uint64_t> m_used;
  std::uint64_t m_clock = 0;
};

// Node n of a set's tree (1-based heap order, leaves at [leaves, 2*leaves))
// holds one bit: 0 sends the victim search left, 1 right. A touch sets
// every node on the way's path to point to the other child.
class Plru final : public Replacement {
 public:
  Plru(std::size_t sets, unsigned ways) {
    while (m_leaves < ways) m_leaves <<= 1;
    m_bits = ZeroedArray<std::uint8_t>(sets * m_leaves);
  }
  void touch(std::size_t set, unsigned way) override {
    std::uint8_t* b = &m_bits[set * m_leaves];
    for (unsigned n = m_leaves + way; n > 1; n >>= 1) b[n >> 1] = (n & 1) ? 0 : 1;
  }
  unsigned victim(std::size_t set, unsigned ways) override {
    const std::uint8_t* b = &m_bits[set * m_leaves];
    unsigned n = 1;
    while (n < m_leaves) {
      unsigned next = 2 * n + b[n];
      // A subtree holding no way to choose from (ways not a power of two,
      // or the search confined to the first ways): the other. The left one
      // starts where its parent does, so it always holds one.
      if (first_leaf(next) >= ways) next ^= 1;
      n = next;
    }
    return n - m_leaves;
  }

 private:
  unsigned first_leaf(unsigned n) const {
    while (n < m_leaves) n <<= 1;
    return n - m_leaves;
  }
  unsigned m_leaves = 1;
  ZeroedArray<std::uint8_t> m_bits;  // m_leaves per set (node 0 unused)
};

class RandomPolicy final : public Replacement {
 public:
  explicit RandomPolicy(const std::string& name) : m_rng(global_seed(), name + ".replacement") {}
  void touch(std::size_t, unsigned) override {}
  unsigned victim(std::size_t, unsigned ways) override { return static_cast<unsigned>(m_rng.below(ways)); }

 private:
  Rng m_rng;
};

}  // namespace

std::unique_ptr<Replacement> make_replacement(Policy p, std::size_t sets, unsigned ways, const std::string& name) {
  switch (p) {
    case Policy::Plru: return std::make_unique<Plru>(sets, ways);
    case Policy::Random: return std::make_unique<RandomPolicy>(name);
    case Policy::Lru: break;
  }
  return std::make_unique<Lru>(sets, ways);
}

}  // namespace hx::cache
