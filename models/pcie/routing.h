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

// A requester/completer ID: PCI segment (domain) above bus:dev.fn. A host
// has one segment unless its root ports each head their own (topology
// `segment_per_root_port`), which lifts the limit of 256 buses per host.
using Rid = std::uint32_t;
inline int bus_of(Rid rid) { return (rid >> 8) & 0xff; }
inline int segment_of(Rid rid) { return static_cast<int>(rid >> 16); }
inline Rid make_rid(int segment, int bus) { return static_cast<Rid>(segment) << 16 | static_cast<Rid>(bus) << 8; }

struct PortRoute {
  std::vector<AddrRange> windows;
  int segment = 0;
  int sec_bus = -1, sub_bus = -1;
  bool claims_id(Rid rid) const {
    const int bus = bus_of(rid);
    return sec_bus >= 0 && segment_of(rid) == segment && bus >= sec_bus && bus <= sub_bus;
  }
  bool claims_addr(std::uint64_t a) const {
    for (const auto& w : windows)
      if (w.contains(a)) return true;
    return false;
  }
};

}  // namespace hx::pcie
