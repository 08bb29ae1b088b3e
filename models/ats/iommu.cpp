#include "models/ats/iommu.h"

#include <algorithm>

#include "models/core/error.h"

namespace hx::ats {

Iommu::Iommu(const std::string& name, const IommuConfig& cfg, mem::SparseMemory& store, std::uint64_t table_base,
             LineReader read_line)
    : walk_latency(200'000),
      m_name(name),
      m_cfg(cfg),
      m_pt(store, table_base, cfg.table_region),
      m_read_line(std::move(read_line)),
      m_iotlb(name + ".iotlb", cfg.iotlb),
      m_walker_free(static_cast<std::size_t>(std::max(1, cfg.walkers)), 0) {
  m_pwc.resize(5);
  for (int level = 4; level >= 2; --level)
    m_pwc[static_cast<std::size_t>(level)] =
        std::make_unique<Tlb>(name + ".pwc_l" + std::to_string(level), TlbConfig{std::max(1, cfg.pwc_entries), 0, 0});
  auto& reg = StatsRegistry::instance();
  reg.add_counter(name + ".walks", &walks, "1", "page-table walks");
  reg.add_counter(name + ".walk_reads", &walk_reads, "1", "page-table entries read from memory by walks");
  reg.add_counter(name + ".merged", &merged, "1", "misses that waited for a walk already in flight for their page");
  reg.add_counter(name + ".ats_requests", &ats_requests, "1", "ATS translation requests served");
  reg.add_counter(name + ".invalidations", &invalidations, "1", "invalidation requests");
  reg.add_histogram(name + ".walk_latency", &walk_latency, "ns", "walk start to translation usable");
  reg.add_resource(name + ".walkers", [this] { return m_walker_busy; }, std::max(1, cfg.walkers), "IOMMU page-table walkers");
}

unsigned Iommu::mapping_shift(std::uint64_t addr, std::uint64_t len, unsigned backing_shift) const {
  if (!m_cfg.superpages) return 12;
  for (unsigned s = std::min(backing_shift, 63u); s > 12; --s) {
    if (!(m_cfg.page_sizes >> s & 1)) continue;
    const std::uint64_t p = 1ull << s;
    if (addr % p == 0 && len % p == 0) return s;
  }
  return 12;
}

void Iommu::map_buffer(std::uint64_t addr, std::uint64_t len, unsigned backing_shift) {
  const std::uint64_t a = addr / 4096 * 4096;
  const std::uint64_t e = (addr + len + 4095) / 4096 * 4096;
  const unsigned s = mapping_shift(a, e - a, backing_shift);
  m_pt.map(a, a, e - a, s);
}

Iommu::Result Iommu::translate(std::uint64_t va, Tick now) {
  const Tick looked = now + m_cfg.iotlb.lookup;
  if (const Tlb::Entry* e = m_iotlb.lookup(va)) {
    if (e->ready > looked) ++merged;
    return {std::max(looked, e->ready), e->pa_base + (va & ((1ull << e->shift) - 1)), e->pa_base, e->shift, false};
  }
  const PageTable::Walk w = m_pt.walk(va);
  if (!w.present) {
    char b[24];
    std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(va));
    sim_fail(m_name, std::string("DMA remapping fault: IOVA ") + b + " is not mapped");
  }
  // The first walker free; walks start in arrival order.
  auto it = std::min_element(m_walker_free.begin(), m_walker_free.end());
  const Tick start = std::max(looked, *it);
  // The deepest walk-cache hit names the table to start from.
  int level = 4;
  for (int l = 2; l <= 4; ++l) {
    const Tlb::Entry* pe = m_pwc[static_cast<std::size_t>(l)]->lookup(va);
    if (pe && pe->ready <= start && l > w.leaf_level) {
      level = l - 1;
      break;
    }
  }
  Tick t = start;
  for (int l = level; l >= w.leaf_level; --l) {
    t = m_read_line(w.entry_addr[static_cast<std::size_t>(l)] / 64 * 64, t, m_cfg.tables_in_llc);
    ++walk_reads;
    if (l > w.leaf_level)  // the entry read points at the next table: cache it
      m_pwc[static_cast<std::size_t>(l)]->insert(va, kLevelShift[l], w.table[static_cast<std::size_t>(l - 1)], t);
  }
  t += m_cfg.walk_overhead;
  m_walker_busy += t - start;
  *it = t;
  ++walks;
  walk_latency.add(static_cast<double>(t - start) / static_cast<double>(kNs));
  m_iotlb.insert(va, w.shift, w.pa_base, t);
  return {t, w.pa_base + (va & ((1ull << w.shift) - 1)), w.pa_base, w.shift, true};
}

std::size_t Iommu::invalidate(std::uint64_t va, std::uint64_t len) {
  ++invalidations;
  std::size_t n = m_iotlb.invalidate(va, len);
  for (int l = 2; l <= 4; ++l) n += m_pwc[static_cast<std::size_t>(l)]->invalidate(va, len);
  return n;
}

}  // namespace hx::ats
