// Where an address goes: the host's physical address map as ranges, each
// naming its target: DRAM of socket n, a coherence home agent, the MMIO
// window of a root port, the MSI page, or another socket's root complex
// (the windows of its root ports). The root complex decides every
// inbound request by it; coherent agents find a line's home by it.
// Ranges do not overlap: add() refuses one that would.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace hx {

struct AddressTarget {
  enum class Kind : std::uint8_t { None, Dram, Home, Mmio, Msi, Socket };
  Kind kind = Kind::None;
  int index = 0;  // Dram: socket; Home: agent; Mmio: root port; Msi: 0; Socket: the socket whose root complex owns it
  bool operator==(const AddressTarget& o) const { return kind == o.kind && index == o.index; }
};

const char* target_kind_name(AddressTarget::Kind k);

class AddressMap {
 public:
  struct Range {
    std::uint64_t base, size;
    AddressTarget target;
    std::string name;
    bool contains(std::uint64_t a) const { return a >= base && a - base < size; }
  };
  // Maps [base, base+size) to `target`; `name` labels it in errors. Returns
  // an empty string, or why the range cannot be added (empty, wrapping past
  // 2^64, or overlapping the range it names).
  std::string add(std::uint64_t base, std::uint64_t size, AddressTarget target, const std::string& name);
  // The range holding `a`, or nullptr.
  const Range* find(std::uint64_t a) const;
  AddressTarget lookup(std::uint64_t a) const {
    const Range* r = find(a);
    return r ? r->target : AddressTarget{};
  }
  const std::vector<Range>& ranges() const { return m_ranges; }  // by base

 private:
  std::vector<Range> m_ranges;
};

}  // namespace hx
