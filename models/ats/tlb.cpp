#include "models/ats/tlb.h"

#include "models/core/error.h"

namespace hx::ats {

std::string page_size_name(unsigned shift) {
  if (shift >= 30) return std::to_string(1ull << (shift - 30)) + "GiB";
  if (shift >= 20) return std::to_string(1ull << (shift - 20)) + "MiB";
  if (shift >= 10) return std::to_string(1ull << (shift - 10)) + "KiB";
  return std::to_string(1ull << shift) + "B";
}

std::string geometry_error(const TlbConfig& c) {
  if (c.entries < 1) return "a TLB needs at least one entry";
  if (c.ways > 0 && c.entries % c.ways != 0)
    return std::to_string(c.entries) + " entries do not divide into " + std::to_string(c.ways) + " ways";
  return {};
}

namespace {
// The constructor's guard runs before the tag array is made.
const TlbConfig& checked(const std::string& name, const TlbConfig& c) {
  if (const std::string e = geometry_error(c); !e.empty()) throw InputError(name + ": " + e);
  return c;
}
unsigned ways_of(const TlbConfig& c) { return c.ways <= 0 ? static_cast<unsigned>(c.entries) : static_cast<unsigned>(c.ways); }
}  // namespace

Tlb::Tlb(const std::string& name, const TlbConfig& cfg)
    : m_cfg(checked(name, cfg)), m_name(name),
      m_e(static_cast<std::size_t>(cfg.entries) / ways_of(cfg), ways_of(cfg), cfg.replacement, name) {
  auto& reg = StatsRegistry::instance();
  reg.add_counter(name + ".misses", &m_misses, "1", "lookups that found no entry");
  reg.add_counter(name + ".fills", &m_fills, "1", "entries installed");
  reg.add_counter(name + ".evictions", &m_evictions, "1", "valid entries replaced");
}

const Tlb::Entry* Tlb::lookup(std::uint64_t va, bool count) {
  for (unsigned s = 0; s < 64; ++s) {
    if (!(m_shifts >> s & 1)) continue;
    const std::uint64_t vpn = va >> s;
    if (const Entry* e = m_e.find(m_e.set_of(vpn), [&](const Entry& x) { return x.shift == s && x.vpn == vpn; })) {
      if (count) ++m_hits[s];
      return e;
    }
  }
  if (count) ++m_misses;
  return nullptr;
}

void Tlb::insert(std::uint64_t va, unsigned shift, std::uint64_t pa_base, Tick ready) {
  if (shift >= 64) sim_fail(m_name, "page shift out of range");
  if (!(m_shifts >> shift & 1)) {
    m_shifts |= 1ull << shift;
    StatsRegistry::instance().add_counter(m_name + ".hits." + page_size_name(shift), &m_hits[shift], "1",
                                          "lookups served by an entry of this page size");
  }
  const std::uint64_t vpn = va >> shift;
  bool evicts = false;
  Entry& e = m_e.place(m_e.set_of(vpn), [&](const Entry& x) { return x.shift == shift && x.vpn == vpn; }, &evicts);
  if (evicts) ++m_evictions;
  ++m_fills;
  e = Entry{vpn, pa_base, static_cast<std::uint8_t>(shift), ready};
}

std::size_t Tlb::invalidate(std::uint64_t va, std::uint64_t len) {
  return m_e.invalidate_if([&](const Entry& e) {
    const std::uint64_t base = e.vpn << e.shift, size = 1ull << e.shift;
    return base < va + len && va < base + size;
  });
}

void Tlb::flush() { m_e.clear(); }

std::size_t Tlb::occupancy() const { return m_e.occupancy(); }

std::uint64_t Tlb::hits() const {
  std::uint64_t n = 0;
  for (const auto& c : m_hits) n += c.value;
  return n;
}

}  // namespace hx::ats
