// Routing state that enumeration gives each port: the memory window behind a
// downstream port (base/limit) and its bus range (secondary..subordinate).
#pragma once
#include <cstdint>
#include <vector>

namespace hx::pcie {

struct AddrRange {
  std::uint64_t base = 0, size = 0;
  bool contains(std::uint64_t a) const { return a >= base && a - base < size; }
  bool contains(std::uint64_t a, std::uint64_t len) const {
    return contains(a) && (len == 0 || (a - base) + len <= size);
  }
};

struct PortRoute {
  std::vector<AddrRange> windows;
  int sec_bus = -1, sub_bus = -1;
  bool claims_bus(int bus) const { return bus >= sec_bus && bus <= sub_bus && sec_bus >= 0; }
  bool claims_addr(std::uint64_t a) const {
    for (const auto& w : windows)
      if (w.contains(a)) return true;
    return false;
  }
};

inline int bus_of(std::uint16_t rid) { return rid >> 8; }

}  // namespace hx::pcie
