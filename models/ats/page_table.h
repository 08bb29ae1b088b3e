// I/O page tables as real bytes in host memory: the radix format of x86-64
// paging and VT-d second-level tables (Intel VT-d spec sec. 3.6; SDM vol. 3
// sec. 4.5): four levels of 4 KiB tables of 512 8-byte entries, indexed by
// IOVA bits 47:39, 38:30, 29:21 and 20:12. A leaf sits at level 1 (4 KiB
// page), level 2 (2 MiB, PS bit) or level 3 (1 GiB, PS bit). 64 KiB and
// 32 MiB pages are runs of 16 aligned 4 KiB / 2 MiB leaves marked with a
// contiguous bit, as the Arm VMSA's contiguous hint does, so that a TLB may
// hold the run as one entry.
// The tables live in a reserved region of DRAM, written through the memory
// store; a walk reads them back from there, so a corrupted table or a DMA
// to an unmapped address is caught, not assumed away.
// Simplifications: one table per IOMMU (one domain); buffers are mapped
// with IOVA equal to their physical address (design note 13: the walk's
// reads are what timing needs); every page is mapped present and
// writable, and a walk checks presence only (no read-only pages, no
// accessed or dirty bits written back by a walk).
#pragma once
#include <array>
#include <cstdint>

#include "models/memory/memory.h"

namespace hx::ats {

inline constexpr unsigned kLevelShift[5] = {0, 12, 21, 30, 39};  // IOVA bit where level L's index starts

class PageTable {
 public:
  PageTable(mem::SparseMemory& store, std::uint64_t region_base, std::uint64_t region_bytes);
  // Maps [va, va+len) to [pa, pa+len) with pages of 2^shift bytes (12, 16,
  // 21, 25 or 30); va, pa and len must be aligned to the page.
  void map(std::uint64_t va, std::uint64_t pa, std::uint64_t len, unsigned shift);
  // Clears the leaves covering [va, va+len) (whole pages).
  void unmap(std::uint64_t va, std::uint64_t len);

  struct Walk {
    bool present = false;
    std::uint64_t pa_base = 0;  // of the translated page (or contiguous run)
    unsigned shift = 0;         // its size
    int leaf_level = 0;         // 1..3
    // Address of the entry read at each level (index = level, 4 down to leaf).
    std::array<std::uint64_t, 5> entry_addr{};
    std::array<std::uint64_t, 5> table{};  // the table each level's entry sits in
  };
  Walk walk(std::uint64_t va) const;
  std::uint64_t root() const { return m_root; }
  std::uint64_t tables_used() const { return m_tables; }

 private:
  std::uint64_t read_entry(std::uint64_t addr) const;
  void write_entry(std::uint64_t addr, std::uint64_t v);
  std::uint64_t new_table();
  void map_page(std::uint64_t va, std::uint64_t pa, int leaf_level, bool contig);

  mem::SparseMemory& m_store;
  std::uint64_t m_base, m_end, m_next, m_root;
  std::uint64_t m_tables = 0;
};

}  // namespace hx::ats
