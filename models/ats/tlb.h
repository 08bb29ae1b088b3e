// A translation cache: the IOMMU's IOTLB, the device's ATC, an FPGA MMU's
// TLBs. Set-associative with true LRU replacement; entries of several page
// sizes live in one structure (each entry carries its page size, and a
// lookup probes every size present), which is how the IOTLBs of VT-d and
// SMMU implementations are usually described to software.
// An entry may be filled ahead of time (the walk that produces it is still
// running): its `ready` time says when the translation becomes usable, and a
// lookup that finds it earlier waits for it (a miss merged into the walk in
// flight) instead of starting a second walk.
// Simplifications: no per-PASID/domain tags (one address space per
// structure); replacement is LRU only.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/core/stats.h"
#include "models/core/tick.h"

namespace hx::ats {

struct TlbConfig {
  int entries = 64;
  int ways = 4;      // 0: fully associative
  Tick lookup = 0;   // time of one lookup, hit or miss
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
    bool valid = false;
    Tick ready = 0;             // usable from
    std::uint64_t used = 0;     // LRU stamp
  };

  // `name` registers hits/misses per page size under `<name>.hits.<size>`.
  Tlb(const std::string& name, const TlbConfig& cfg);
  const TlbConfig& config() const { return m_cfg; }

  // The entry covering `va`, or nullptr. A hit refreshes its LRU position.
  // Counts a hit or miss unless `count` is false.
  const Entry* lookup(std::uint64_t va, bool count = true);
  // Installs the translation of the page of `va` (size 2^shift at pa_base),
  // usable from `ready`, evicting the set's least recently used entry.
  void insert(std::uint64_t va, unsigned shift, std::uint64_t pa_base, Tick ready);
  // Removes every entry overlapping [va, va+len); returns how many.
  std::size_t invalidate(std::uint64_t va, std::uint64_t len);
  void flush();
  std::size_t occupancy() const;
  std::uint64_t hits() const;
  std::uint64_t misses() const { return m_misses.value; }

 private:
  std::size_t set_of(std::uint64_t vpn) const { return static_cast<std::size_t>(vpn % m_sets); }
  TlbConfig m_cfg;
  std::string m_name;
  std::size_t m_sets = 1, m_ways = 1;
  std::vector<Entry> m_e;  // m_sets x m_ways
  std::uint64_t m_stamp = 0;
  std::uint64_t m_shifts = 0;  // bit s set: some entry of page size 2^s is (or was) present
  std::array<Counter, 64> m_hits{};
  Counter m_misses, m_evictions, m_fills;
};

// "4KiB", "2MiB", "1GiB" for a page shift.
std::string page_size_name(unsigned shift);

}  // namespace hx::ats
