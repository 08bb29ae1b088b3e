// Deterministic random numbers: one generator per component, seeded from the
// study seed and the component's name, so adding a component never changes
// the streams of the others.
#pragma once
#include <cstdint>
#include <string>

namespace hx {

inline std::uint64_t fnv1a(const std::string& s, std::uint64_t h = 1469598103934665603ull) {
  for (unsigned char c : s) { h ^= c; h *= 1099511628211ull; }
  return h;
}

inline std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

class Rng {
 public:
  Rng(std::uint64_t seed, const std::string& name) : m_state(seed ^ fnv1a(name)) {}
  std::uint64_t next() { return splitmix64(m_state); }
  // Uniform integer in [0, n).
  std::uint64_t below(std::uint64_t n) { return n ? next() % n : 0; }
  double uniform() { return static_cast<double>(next() >> 11) * (1.0 / 9007199254740992.0); }

 private:
  std::uint64_t m_state;
};

// The global study seed, set once before elaboration.
void set_global_seed(std::uint64_t seed);
std::uint64_t global_seed();

}  // namespace hx
