// The storage of every set-associative structure: the last-level cache, the
// IOMMU's IOTLB and walk caches, a device's ATC, an FPGA's TLBs, and (with
// coherence) snoop filters and directories. `sets` x `ways` entries of a
// caller's type; the caller says which set an address maps to (set_of) and
// which entry of the set is the one it wants (a predicate, so an entry's
// key may be a line number, a page number of one of several page sizes, or
// anything else). Replacement is the configured policy's (replacement.h):
// a new entry takes the entry that already holds it, else the set's first
// empty way, else the policy's victim; a placement may confine a new entry
// to the set's first ways (a refill stays where it is).
// The arrays are zeroed pages (models/core/zeroed_array.h) where the
// entry type allows: a large cache costs memory for the sets a run uses.
// Simplifications: no banking or ports (a lookup costs what its user says).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "models/cache/replacement.h"
#include "models/core/zeroed_array.h"

namespace hx::cache {

template <class Entry>
class TagArray {
 public:
  // `name` seeds the random policy. sets >= 1, ways >= 1.
  TagArray(std::size_t sets, unsigned ways, Policy policy, const std::string& name)
      : m_sets(sets), m_ways(ways), m_pow2((sets & (sets - 1)) == 0), m_entries(sets * ways),
        m_valid(sets * ways), m_policy(make_replacement(policy, sets, ways, name)) {}

  std::size_t sets() const { return m_sets; }
  unsigned ways() const { return m_ways; }
  // The set of an index (a line or page number): index mod sets.
  std::size_t set_of(std::uint64_t index) const {
    return m_pow2 ? static_cast<std::size_t>(index & (m_sets - 1)) : static_cast<std::size_t>(index % m_sets);
  }

  // The valid entry of `set` for which match(entry) holds, or nullptr. A hit
  // counts as a use for replacement if `touch`.
  template <class Match>
  Entry* find(std::size_t set, Match&& match, bool touch = true) {
    const std::size_t base = set * m_ways;
    for (unsigned w = 0; w < m_ways; ++w)
      if (m_valid[base + w] && match(m_entries[base + w])) {
        if (touch) m_policy->touch(set, w);
        return &m_entries[base + w];
      }
    return nullptr;
  }

  // Room for an entry in `set`: the valid entry matching it (a refill), else
  // the first empty way, else the policy's victim. The entry is returned
  // valid, touched and still holding its old content for the caller to
  // overwrite; `*evicts` says whether that content is another valid entry,
  // `*present` whether it was the matching one (a hit, touched as find does).
  // With `fill_ways` (1 to ways()), a new entry goes into one of the set's
  // first `fill_ways` ways only, empty first; 0: any way.
  template <class Match>
  Entry& place(std::size_t set, Match&& match, bool* evicts = nullptr, bool* present = nullptr, unsigned fill_ways = 0) {
    const std::size_t base = set * m_ways;
    const unsigned fill = fill_ways && fill_ways < m_ways ? fill_ways : m_ways;
    unsigned way = m_ways, empty = m_ways;
    for (unsigned w = 0; w < m_ways; ++w) {
      if (!m_valid[base + w]) {
        if (empty == m_ways && w < fill) empty = w;
      } else if (match(m_entries[base + w])) {
        way = w;
        break;
      }
    }
    const bool refill = way != m_ways;
    if (!refill) way = empty != m_ways ? empty : m_policy->victim(set, fill);
    if (evicts) *evicts = !refill && m_valid[base + way];
    if (present) *present = refill;
    m_valid[base + way] = 1;
    m_policy->touch(set, way);
    return m_entries[base + way];
  }

  // Invalidates the valid entry of `set` for which match(entry) holds;
  // returns whether there was one.
  template <class Match>
  bool invalidate(std::size_t set, Match&& match) {
    const std::size_t base = set * m_ways;
    for (unsigned w = 0; w < m_ways; ++w)
      if (m_valid[base + w] && match(m_entries[base + w])) {
        m_valid[base + w] = 0;
        return true;
      }
    return false;
  }

  // Invalidates every valid entry for which pred(entry) holds; returns how many.
  template <class Pred>
  std::size_t invalidate_if(Pred&& pred) {
    std::size_t n = 0;
    for (std::size_t i = 0; i < m_entries.size(); ++i)
      if (m_valid[i] && pred(m_entries[i])) {
        m_valid[i] = 0;
        ++n;
      }
    return n;
  }
  void clear() { m_valid.zero(); }
  std::size_t occupancy() const {
    std::size_t n = 0;
    for (std::uint8_t v : m_valid) n += v;
    return n;
  }

 private:
  std::size_t m_sets;
  unsigned m_ways;
  bool m_pow2;
  std::conditional_t<std::is_trivial<Entry>::value, ZeroedArray<Entry>, std::vector<Entry>> m_entries;
  ZeroedArray<std::uint8_t> m_valid;
  std::unique_ptr<Replacement> m_policy;
};

}  // namespace hx::cache
