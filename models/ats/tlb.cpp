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

Tlb::Tlb(const std::string& name, const TlbConfig& cfg) : m_cfg(cfg), m_name(name) {
  if (const std::string e = geometry_error(cfg); !e.empty()) throw InputError(name + ": " + e);
  m_ways = cfg.ways <= 0 ? static_cast<std::size_t>(cfg.entries) : static_cast<std::size_t>(cfg.ways);
  m_sets = static_cast<std::size_t>(cfg.entries) / m_ways;
  m_e.resize(m_sets * m_ways);
  auto& reg = StatsRegistry::instance();
  reg.add_counter(name + ".misses", &m_misses, "1", "lookups that found no entry");
  reg.add_counter(name + ".fills", &m_fills, "1", "entries installed");
  reg.add_counter(name + ".evictions", &m_evictions, "1", "valid entries replaced");
}

const Tlb::Entry* Tlb::lookup(std::uint64_t va, bool count) {
  for (unsigned s = 0; s < 64; ++s) {
    if (!(m_shifts >> s & 1)) continue;
    const std::uint64_t vpn = va >> s;
    Entry* set = &m_e[set_of(vpn) * m_ways];
    for (std::size_t w = 0; w < m_ways; ++w) {
      Entry& e = set[w];
      if (e.valid && e.shift == s && e.vpn == vpn) {
        e.used = ++m_stamp;
        if (count) ++m_hits[s];
        return &e;
      }
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
  Entry* set = &m_e[set_of(vpn) * m_ways];
  Entry* victim = &set[0];
  for (std::size_t w = 0; w < m_ways; ++w) {
    Entry& e = set[w];
    if (e.valid && e.shift == shift && e.vpn == vpn) {  // refill of a present entry
      victim = &e;
      break;
    }
    if (!e.valid) {
      if (victim->valid) victim = &e;
    } else if (victim->valid && e.used < victim->used) {
      victim = &e;
    }
  }
  if (victim->valid && !(victim->shift == shift && victim->vpn == vpn)) ++m_evictions;
  ++m_fills;
  *victim = Entry{vpn, pa_base, static_cast<std::uint8_t>(shift), true, ready, ++m_stamp};
}

std::size_t Tlb::invalidate(std::uint64_t va, std::uint64_t len) {
  std::size_t n = 0;
  for (Entry& e : m_e) {
    if (!e.valid) continue;
    const std::uint64_t base = e.vpn << e.shift, size = 1ull << e.shift;
    if (base < va + len && va < base + size) {
      e.valid = false;
      ++n;
    }
  }
  return n;
}

void Tlb::flush() {
  for (Entry& e : m_e) e.valid = false;
}

std::size_t Tlb::occupancy() const {
  std::size_t n = 0;
  for (const Entry& e : m_e) n += e.valid;
  return n;
}

std::uint64_t Tlb::hits() const {
  std::uint64_t n = 0;
  for (const auto& c : m_hits) n += c.value;
  return n;
}

}  // namespace hx::ats
