#include "models/ats/page_table.h"

#include <vector>

#include "models/core/error.h"

namespace hx::ats {

namespace {
constexpr std::uint64_t kPresent = 1ull << 0;
constexpr std::uint64_t kWrite = 1ull << 1;
constexpr std::uint64_t kPageSize = 1ull << 7;  // PS: this entry is a leaf above level 1
constexpr std::uint64_t kContig = 1ull << 52;   // part of a run of 16 aligned leaves
constexpr std::uint64_t kAddrMask = 0x000ffffffffff000ull;

std::uint64_t index_at(std::uint64_t va, int level) { return (va >> kLevelShift[level]) & 511u; }

}  // namespace

PageTable::PageTable(mem::SparseMemory& store, std::uint64_t region_base, std::uint64_t region_bytes)
    : m_store(store), m_base(region_base), m_end(region_base + region_bytes), m_next(region_base) {
  if (region_base % 4096) throw InputError("page-table region must be 4 KiB aligned");
  m_root = new_table();
}

std::uint64_t PageTable::new_table() {
  if (m_next + 4096 > m_end) throw InputError("IOMMU page-table region exhausted; raise iommu.table_region");
  const std::uint64_t t = m_next;
  m_next += 4096;
  static const std::vector<std::uint8_t> zero(4096, 0);
  m_store.write(t, zero.data(), 4096);
  ++m_tables;
  return t;
}

std::uint64_t PageTable::read_entry(std::uint64_t addr) const {
  std::uint8_t b[8];
  m_store.read(addr, b, 8);
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = v << 8 | b[i];
  return v;
}

void PageTable::write_entry(std::uint64_t addr, std::uint64_t v) {
  std::uint8_t b[8];
  for (int i = 0; i < 8; ++i) b[i] = static_cast<std::uint8_t>(v >> (8 * i));
  m_store.write(addr, b, 8);
}

void PageTable::map_page(std::uint64_t va, std::uint64_t pa, int leaf_level, bool contig) {
  std::uint64_t table = m_root;
  for (int level = 4; level > leaf_level; --level) {
    const std::uint64_t ea = table + 8 * index_at(va, level);
    std::uint64_t e = read_entry(ea);
    if (!(e & kPresent)) {
      e = new_table() | kPresent | kWrite;
      write_entry(ea, e);
    } else if (e & kPageSize) {
      throw InputError("IOVA " + hex(va) + " is already mapped by a larger page");
    }
    table = e & kAddrMask;
  }
  std::uint64_t leaf = (pa & kAddrMask) | kPresent | kWrite | (contig ? kContig : 0);
  if (leaf_level > 1) leaf |= kPageSize;
  write_entry(table + 8 * index_at(va, leaf_level), leaf);
}

void PageTable::map(std::uint64_t va, std::uint64_t pa, std::uint64_t len, unsigned shift) {
  int leaf_level;
  bool contig = false;
  switch (shift) {
    case 12: leaf_level = 1; break;
    case 16: leaf_level = 1; contig = true; break;
    case 21: leaf_level = 2; break;
    case 25: leaf_level = 2; contig = true; break;
    case 30: leaf_level = 3; break;
    default: throw InputError("unsupported page size 2^" + std::to_string(shift) + " (4KiB, 64KiB, 2MiB, 32MiB, 1GiB)");
  }
  const std::uint64_t page = 1ull << shift;
  if (va % page || pa % page || len % page)
    throw InputError("mapping " + hex(va) + "+" + hex(len) + " is not aligned to its page size");
  const std::uint64_t step = 1ull << kLevelShift[leaf_level];
  for (std::uint64_t off = 0; off < len; off += step) map_page(va + off, pa + off, leaf_level, contig);
}

void PageTable::unmap(std::uint64_t va, std::uint64_t len) {
  for (std::uint64_t a = va; a < va + len;) {
    const Walk w = walk(a);
    if (!w.present) {
      a += 4096;
      continue;
    }
    write_entry(w.entry_addr[static_cast<std::size_t>(w.leaf_level)], 0);
    a = (a >> kLevelShift[w.leaf_level] << kLevelShift[w.leaf_level]) + (1ull << kLevelShift[w.leaf_level]);
  }
}

PageTable::Walk PageTable::walk(std::uint64_t va) const {
  Walk w;
  std::uint64_t table = m_root;
  for (int level = 4; level >= 1; --level) {
    const std::uint64_t ea = table + 8 * index_at(va, level);
    w.entry_addr[static_cast<std::size_t>(level)] = ea;
    w.table[static_cast<std::size_t>(level)] = table;
    const std::uint64_t e = read_entry(ea);
    if (!(e & kPresent)) return w;
    if (level == 1 || (e & kPageSize)) {
      if (level == 4) return w;  // no 512 GiB pages
      unsigned shift = kLevelShift[level];
      if (e & kContig) shift += 4;
      const std::uint64_t leaf_pa = e & kAddrMask & ~((1ull << kLevelShift[level]) - 1);
      const std::uint64_t in_run = va & ((1ull << shift) - 1) & ~((1ull << kLevelShift[level]) - 1);
      w.present = true;
      w.shift = shift;
      w.leaf_level = level;
      w.pa_base = leaf_pa - in_run;
      return w;
    }
    table = e & kAddrMask;
  }
  return w;
}

}  // namespace hx::ats
