// Miss status holding registers: the per-line transaction table of a cache,
// a TLB, a home agent or a request agent. One entry per line (or page) with
// a transaction outstanding; a later request to the same line merges into
// that entry as one more target instead of issuing again; a full table, or
// an entry whose targets are full, refuses the request, and the caller
// holds it back (back-pressure, not loss). When the transaction completes,
// the caller takes the entry's targets in arrival order and frees it.
// Entries and targets live in arrays sized at construction: nothing is
// allocated on the hot path. A lookup compares the tags of the entries in
// use, as a CAM does; tables are small (tens of entries).
// Simplifications: no per-entry state beyond what the caller keeps in its
// targets; no priority among targets.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "models/core/error.h"
#include "models/core/stats.h"

namespace hx::cache {

template <class Target>
class MshrTable {
 public:
  enum class Outcome : std::uint8_t {
    Allocated,    // a new entry: the caller issues the transaction
    Merged,       // added to the entry already outstanding for the line
    TableFull,    // no free entry: hold the request back
    TargetsFull,  // the line's entry has no room for another target
  };

  // `name` for statistics and errors; entries >= 1, targets >= 1.
  MshrTable(const std::string& name, unsigned entries, unsigned targets)
      : m_name(name), m_targets_per(targets), m_key(entries, kNoKey), m_used(entries, kFree), m_count(entries, 0),
        m_targets(static_cast<std::size_t>(entries) * targets) {
    if (entries == 0 || targets == 0) throw InputError(name + ": an MSHR table needs at least one entry and one target");
    auto& reg = StatsRegistry::instance();
    reg.add_counter(name + ".allocations", &allocations, "1", "transactions started (an entry allocated)");
    reg.add_counter(name + ".merges", &merges, "1", "requests merged into an outstanding transaction of their line");
    reg.add_counter(name + ".full_stalls", &full_stalls, "1", "requests held back: no free entry, or no free target");
  }

  unsigned capacity() const { return static_cast<unsigned>(m_key.size()); }
  unsigned in_use() const { return m_in_use; }
  bool full() const { return m_in_use == capacity(); }
  bool outstanding(std::uint64_t key) const { return slot_of(key) >= 0; }

  // Allocates an entry for `key` or merges `t` into the one outstanding.
  Outcome request(std::uint64_t key, const Target& t) {
    if (key == kNoKey)
      sim_fail_with(m_name, [] { return std::string("a request for the key that marks a free entry"); });
    int s = slot_of(key);
    if (s >= 0) {
      const auto i = static_cast<std::size_t>(s);
      if (m_count[i] >= m_targets_per) {
        ++full_stalls;
        return Outcome::TargetsFull;
      }
      m_targets[i * m_targets_per + m_count[i]++] = t;
      ++merges;
      return Outcome::Merged;
    }
    if (full()) {
      ++full_stalls;
      return Outcome::TableFull;
    }
    for (std::size_t i = 0; i < m_used.size(); ++i)
      if (m_used[i] == kFree) {
        m_used[i] = kBusy;
        m_key[i] = key;
        m_count[i] = 1;
        m_targets[i * m_targets_per] = t;
        ++m_in_use;
        ++allocations;
        return Outcome::Allocated;
      }
    ++full_stalls;  // the only room is an entry whose targets are being taken
    return Outcome::TableFull;
  }

  // The first target of `key`'s entry (the request that started it), or
  // nullptr if nothing is outstanding for it.
  const Target* first(std::uint64_t key) const {
    const int s = slot_of(key);
    return s < 0 ? nullptr : &m_targets[static_cast<std::size_t>(s) * m_targets_per];
  }

  // The transaction of `key` is done: f(target) for each of its targets in
  // arrival order, then the entry is free. Completing a key with nothing
  // outstanding is a simulator bug.
  template <class F>
  void complete(std::uint64_t key, F&& f) {
    const int s = slot_of(key);
    if (s < 0)
      sim_fail_with(m_name, [] { return std::string("completion for a line with no outstanding transaction"); });
    const auto i = static_cast<std::size_t>(s);
    // The line's transaction is over before its targets are taken: a
    // target's callback may start the next transaction of the same line (a
    // write behind a read), which takes another entry, never this one
    // while its targets are being read.
    m_used[i] = kDraining;
    m_key[i] = kNoKey;
    --m_in_use;
    for (unsigned k = 0; k < m_count[i]; ++k) f(m_targets[i * m_targets_per + k]);
    m_count[i] = 0;
    m_used[i] = kFree;
  }

  Counter allocations, merges, full_stalls;

 private:
  enum : std::uint8_t { kFree, kBusy, kDraining };
  // An entry not busy holds kNoKey, so a look-up compares keys only.
  static constexpr std::uint64_t kNoKey = ~std::uint64_t{0};
  int slot_of(std::uint64_t key) const {
    for (std::size_t i = 0; i < m_key.size(); ++i)
      if (m_key[i] == key) return static_cast<int>(i);
    return -1;
  }
  std::string m_name;
  unsigned m_targets_per;
  std::vector<std::uint64_t> m_key;
  std::vector<std::uint8_t> m_used;
  std::vector<unsigned> m_count;
  std::vector<Target> m_targets;
  unsigned m_in_use = 0;
};

}  // namespace hx::cache
