#include "models/core/address_map.h"

#include <algorithm>
#include <cstdio>

#include "models/core/error.h"

namespace hx {

const char* target_kind_name(AddressTarget::Kind k) {
  switch (k) {
    case AddressTarget::Kind::None: return "nothing";
    case AddressTarget::Kind::Dram: return "DRAM";
    case AddressTarget::Kind::Home: return "a home agent";
    case AddressTarget::Kind::Mmio: return "an MMIO window";
    case AddressTarget::Kind::Msi: return "MSI";
    case AddressTarget::Kind::Socket: return "another socket's root complex";
  }
  return "?";
}

std::string AddressMap::add(std::uint64_t base, std::uint64_t size, AddressTarget target, const std::string& name) {
  if (size == 0) return name + ": an empty range";
  if (base + size < base && base + size != 0) return name + ": the range wraps past the top of the address space";
  const auto it = std::upper_bound(m_ranges.begin(), m_ranges.end(), base, [](std::uint64_t b, const Range& r) { return b < r.base; });
  const std::uint64_t last = base + (size - 1);
  if (it != m_ranges.end() && it->base <= last)
    return name + " [" + hex(base) + ", " + hex(last) + "] overlaps " + it->name + " at " + hex(it->base);
  if (it != m_ranges.begin()) {
    const Range& p = *(it - 1);
    if (p.base + (p.size - 1) >= base)
      return name + " [" + hex(base) + ", " + hex(last) + "] overlaps " + p.name + " at " + hex(p.base);
  }
  m_ranges.insert(it, Range{base, size, target, name});
  return {};
}

const AddressMap::Range* AddressMap::find(std::uint64_t a) const {
  auto it = std::upper_bound(m_ranges.begin(), m_ranges.end(), a, [](std::uint64_t k, const Range& r) { return k < r.base; });
  if (it == m_ranges.begin()) return nullptr;
  --it;
  return it->contains(a) ? &*it : nullptr;
}

}  // namespace hx
