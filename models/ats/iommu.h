// The IOMMU in the root complex (Intel VT-d DMA remapping; Arm SMMU stage 2).
// Mechanisms:
//  - every untranslated inbound DMA to DRAM looks up the IOTLB
//    (set-associative, LRU, entries of each supported page size);
//  - a miss takes one of `walkers` page-table walkers (misses beyond that
//    queue for the first walker free) and merges with a walk already in
//    flight for the same page;
//  - a walk reads the page-table entries below the deepest hit in the
//    page-walk caches (one per non-leaf level, fully associative, LRU) from
//    the tables in host memory (page_table.h), one after the other, through
//    the IOMMU's own port (not the root complex's inbound line pipeline:
//    S011's 256 B writes at full miss leave no room for a walk's line in
//    it); the read is served by the LLC (`pte_read`; I/O page tables are
//    small and hot: the leaf entries of 64 MiB of 4 KiB pages fill
//    128 KiB) or, with tables_in_llc off, by the memory controller; then
//    the walk pays a fixed `walk_overhead` (walker pipeline and fill) and
//    the translation is usable when it ends; a posted write that missed
//    goes on then, while a read that missed is replayed into the root
//    complex's read pipeline and goes on `miss_latency` later (the root
//    complex adds it; it does not hold the walker). S011's LAT_DMA_WRRD
//    shows the difference: a write's miss costs the write-then-read ~70 ns
//    less than a read's miss costs LAT_DMA_RD on both hosts;
//  - ATS translation requests from a device use the same lookup and walk and
//    answer with the page's translation and size (PCIe spec sec. 10.2);
//  - invalidation removes IOTLB and walk-cache entries of a range.
// Buffers are mapped IOVA = PA (identity) with the largest page the IOMMU
// supports that the buffer's backing page allows, or with 4 KiB pages only
// when superpages are off (Linux intel_iommu=sp_off).
// Simplifications: one domain (no context-entry or PASID lookup: the
// context cache is assumed warm); no interrupt remapping; faults are
// simulation errors, not reported to software.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/ats/page_table.h"
#include "models/ats/tlb.h"
#include "models/core/stats.h"

namespace hx::ats {

struct IommuConfig {
  bool enabled = false;
  bool superpages = true;
  std::uint64_t page_sizes = (1ull << 12) | (1ull << 21) | (1ull << 30);  // bit s: pages of 2^s supported
  TlbConfig iotlb{64, 4, 0};
  int pwc_entries = 16;  // per non-leaf level
  int walkers = 1;
  Tick walk_overhead = 0;
  Tick miss_latency = 0;      // a missed read's replay after its walk (not holding a walker; writes skip it)
  bool tables_in_llc = true;  // page-table reads hit the LLC (pte_read) instead of going to DRAM
  Tick pte_read = 20 * kNs;
  std::uint64_t table_region = 64ull << 20;  // bytes of DRAM reserved for page tables
};

class Iommu {
 public:
  // `read_line(line_addr, t, from_llc)` reads one cache line of host memory
  // issued no earlier than t and returns when its data is back.
  using LineReader = std::function<Tick(std::uint64_t, Tick, bool)>;
  Iommu(const std::string& name, const IommuConfig& cfg, mem::SparseMemory& store, std::uint64_t table_base,
        LineReader read_line);
  const IommuConfig& config() const { return m_cfg; }

  // Maps a host buffer whose memory is backed by pages of 2^backing_shift.
  void map_buffer(std::uint64_t addr, std::uint64_t len, unsigned backing_shift);
  unsigned mapping_shift(std::uint64_t addr, std::uint64_t len, unsigned backing_shift) const;

  struct Result {
    Tick ready;              // translation usable
    std::uint64_t pa;        // translated address of the request
    std::uint64_t pa_base;   // of its page
    unsigned shift;          // page size
    bool missed;             // this request started a walk
  };
  // Translate `va` for a request that reached the IOMMU at `now`.
  Result translate(std::uint64_t va, Tick now);
  std::size_t invalidate(std::uint64_t va, std::uint64_t len);
  bool mapped(std::uint64_t va) const { return m_pt.walk(va).present; }

  Tlb& iotlb() { return m_iotlb; }
  const PageTable& tables() const { return m_pt; }
  Counter walks, walk_reads, merged, ats_requests, invalidations;
  Histogram walk_latency;

 private:
  std::string m_name;
  IommuConfig m_cfg;
  PageTable m_pt;
  LineReader m_read_line;
  Tlb m_iotlb;
  std::vector<std::unique_ptr<Tlb>> m_pwc;  // [level]: entries for levels 4, 3, 2 (index 4..2)
  std::vector<Tick> m_walker_free;
  Tick m_walker_busy = 0;  // walkers' busy time, summed
};

}  // namespace hx::ats
