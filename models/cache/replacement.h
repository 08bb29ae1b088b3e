// Which way of a set to give up when a new entry needs room. One interface,
// three policies chosen by configuration:
// - lru: true least recently used (an access stamp per way);
// - plru: tree pseudo-LRU (ways - 1 bits per set, each pointing away from
//   the more recently used half); with a way count that is not a power of
//   two the tree is built over the next power of two and victims that fall
//   on a missing way are steered to the nearest present one;
// - random: uniform among the ways, from a generator seeded by the study
//   seed and the structure's name (deterministic, see core/rng.h).
// A tag array asks for a victim only when every way of the set is valid:
// empty ways are filled first, lowest first, whatever the policy. A victim
// may be asked among the set's first ways only (an allocation confined to
// part of the cache, as DDIO's to its ways of the LLC).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/core/rng.h"

namespace hx::cache {

enum class Policy { Lru, Plru, Random };

// "lru", "plru", "random"; parse returns false for any other name.
const char* policy_name(Policy p);
bool parse_policy(const std::string& s, Policy* out);

class Replacement {
 public:
  virtual ~Replacement() = default;
  // Way `way` of set `set` was hit or filled.
  virtual void touch(std::size_t set, unsigned way) = 0;
  // The way to replace among ways [0, ways) of a full set (ways >= 1, at
  // most the set's).
  virtual unsigned victim(std::size_t set, unsigned ways) = 0;
};

// A policy for `sets` x `ways`; `name` seeds the random policy.
std::unique_ptr<Replacement> make_replacement(Policy p, std::size_t sets, unsigned ways, const std::string& name);

}  // namespace hx::cache
