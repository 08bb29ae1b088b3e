// Address translation parameters: the IOMMU, and the page sizes and TLB
// geometries the IOMMU and the devices' translation caches share.
#include "models/ats/tlb.h"
#include "src/config/params/declare.h"
#include "src/config/units.h"

namespace hx::cfg {

unsigned page_shift(const Cursor& v) {
  const std::uint64_t s = v.size();
  for (unsigned sh : {12u, 16u, 21u, 25u, 30u})
    if (s == 1ull << sh) return sh;
  v.fail(v.scalar() + " is not a supported page size (4KiB, 64KiB, 2MiB, 32MiB, 1GiB)");
}

std::uint64_t page_size_set(const Cursor& v) {
  std::uint64_t mask = 0;
  for (const Cursor& it : list_items(v, "page sizes", "[4KiB, 2MiB]")) mask |= 1ull << page_shift(it);
  if (!(mask & (1ull << 12))) v.fail("the page sizes must include 4KiB");
  return mask;
}

namespace {
// A mask of page shifts as `page_sizes:` takes it.
std::string page_size_list(std::uint64_t mask) {
  std::vector<std::uint64_t> sizes;
  for (unsigned shift = 0; shift < 64; ++shift)
    if (mask >> shift & 1) sizes.push_back(std::uint64_t{1} << shift);
  return flow_list(sizes, format_size);
}
}  // namespace

void check_tlb(const Cursor& section, const char* ways_key, const ats::TlbConfig& c) {
  const std::string e = ats::geometry_error(c);
  if (!e.empty()) (section.has(ways_key) ? section.child(ways_key) : section).fail(e);
}

const ParamTable<ats::IommuConfig>& iommu_params() {
  using C = ats::IommuConfig;
  static const ParamTable<C> t = {
      P<C>("enabled", "bool", &C::enabled, {}, "remap inbound DMA through the IOMMU (VT-d / SMMU)",
           [](C& c, const Cursor& v) { c.enabled = v.boolean(); }),
      P<C>("superpages", "bool", &C::superpages, {},
           "map buffers with the largest supported page their backing allows (false: 4 KiB pages only)",
           [](C& c, const Cursor& v) { c.superpages = v.boolean(); }),
      P<C>("page_sizes", "list of size", [](const C& c) { return page_size_list(c.page_sizes); },
           described("4KiB, 64KiB, 2MiB, 32MiB or 1GiB, 4KiB among them"), "page sizes the IOMMU maps with",
           [](C& c, const Cursor& v) { c.page_sizes = page_size_set(v); }),
      P<C>("iotlb_entries", "int", [](const C& c) { return c.iotlb.entries; }, ints(1, 1 << 20), "IOTLB entries",
           [](C& c, const Cursor& v) { c.iotlb.entries = static_cast<int>(v.integer()); }),
      P<C>("iotlb_ways", "int", [](const C& c) { return c.iotlb.ways; }, ints(0, 1 << 20),
           "IOTLB associativity (0 = fully associative); must divide the entries",
           [](C& c, const Cursor& v) { c.iotlb.ways = static_cast<int>(v.integer()); }),
      P<C>("iotlb_replacement", "choice", [](const C& c) { return replacement_word(c.iotlb.replacement); },
           replacement(),
           "IOTLB replacement: lru, plru (tree pseudo-LRU) or random",
           [](C& c, const Cursor& v) { c.iotlb.replacement = replacement_policy(v); }),
      P<C>("lookup", "time", [](const C& c) { return c.iotlb.lookup; }, {}, "IOTLB lookup, hit or miss",
           [](C& c, const Cursor& v) { c.iotlb.lookup = v.time(); }),
      P<C>("pwc_entries", "int", &C::pwc_entries, ints(1, 1 << 16),
           "page-walk cache entries per non-leaf level (fully associative)",
           [](C& c, const Cursor& v) { c.pwc_entries = static_cast<int>(v.integer()); }),
      P<C>("walkers", "int", &C::walkers, ints(1, 1024), "page-table walks in flight at once",
           [](C& c, const Cursor& v) { c.walkers = static_cast<int>(v.integer()); }),
      P<C>("walk_overhead", "time", &C::walk_overhead, {},
           "walker time per walk besides its memory reads (request, pipeline, fill)",
           [](C& c, const Cursor& v) { c.walk_overhead = v.time(); }),
      P<C>("miss_latency", "time", &C::miss_latency, {},
           "extra latency of a read that missed, after its walk, not holding a walker (its replay into the read "
           "pipeline, "
           "plus one rc.line_interval per line after the first; a posted write goes on when its walk ends)",
           [](C& c, const Cursor& v) { c.miss_latency = v.time(); }),
      P<C>("tables_in_llc", "bool", &C::tables_in_llc, {},
           "page-table reads are served by the LLC (false: by DRAM through the memory controller)",
           [](C& c, const Cursor& v) { c.tables_in_llc = v.boolean(); }),
      P<C>("pte_read", "time", &C::pte_read, {}, "one page-table entry read served by the LLC",
           [](C& c, const Cursor& v) { c.pte_read = v.time(); }),
      P<C>("table_region", "size", &C::table_region, bytes(4096, 0), "DRAM reserved at its top for I/O page tables",
           [](C& c, const Cursor& v) { c.table_region = v.size(); }),
  };
  return t;
}

}  // namespace hx::cfg
