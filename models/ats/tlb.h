// A translation cache: the IOMMU's IOTLB, the device's ATC, an FPGA MMU's
// TLBs. A cache::TagArray (set-associative, replacement by configuration,
// LRU by default); entries of several page
// sizes live in one structure (each entry carries its page size, and a
// lookup probes every size present), which is how the IOTLBs of VT-d and
// SMMU implementations are usually described to software.
// An entry may be filled ahead of time (the walk that produces it is still
// running): its `ready` time says when the translation becomes usable, and a
// lookup that finds it earlier waits for it (a miss merged into the walk in
// flight) instead of starting a second walk.
// Simplifications: no per-PASID/domain tags (one address space per
// structure).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/cache/tag_array.h"
#include "models/core/stats.h"
#include "models/core/tick.h"

namespace hx::ats {

struct TlbConfig {
  int entries = 64;
  int ways = 4;      // 0: fully associative
  Tick lookup = 0;   // time of one lookup, hit or miss
  cache::Policy replacement = cache::Policy::Lru;
};

// Why `c` is not a TLB's geometry (empty if it is): the configuration
// checks call it before anything runs, the constructor as a last guard.
std::string geometry_error(const TlbConfig& c);

class Tlb {
 public:
  struct Entry {
    std::uint64_t vpn = 0;      // virtual address >> shift
    std::uint64_t pa_base = 0;  // physical address of the page
    std::uint8_t shift = 0;     // log2(page size)
    Tick ready = 0;             // usable from
  };

  // `name` registers hits/misses per page size under `<name>.hits.<size>`.
  Tlb(const std::string& name, const TlbConfig& cfg);
  const TlbConfig& config() const { return m_cfg; }

  // The entry covering `va`, or nullptr. A hit counts as a use for replacement.
  // Counts a hit or miss unless `count` is false.
  const Entry* lookup(std::uint64_t va, bool count = true);
  // Installs the translation of the page of `va` (size 2^shift at pa_base),
  // usable from `ready`, evicting the policy's victim if the set is full.
  void insert(std::uint64_t va, unsigned shift, std::uint64_t pa_base, Tick ready);
  // Removes every entry overlapping [va, va+len); returns how many.
  std::size_t invalidate(std::uint64_t va, std::uint64_t len);
  void flush();
  std::size_t occupancy() const;
  std::uint64_t hits() const;
  std::uint64_t misses() const { return m_misses.value; }

 private:
  TlbConfig m_cfg;
  std::string m_name;
  cache::TagArray<Entry> m_e;
  std::uint64_t m_shifts = 0;  // bit s set: some entry of page size 2^s is (or was) present
  std::array<Counter, 64> m_hits{};
  Counter m_misses, m_evictions, m_fills;
};

// "4KiB", "2MiB", "1GiB" for a page shift.
std::string page_size_name(unsigned shift);

}  // namespace hx::ats
