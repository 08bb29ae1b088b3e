// Lines held by transactions in flight, each until a known tick: the
// address-conflict check of an agent that serves one transaction per line
// at a time (a root complex's reads against its writes). Open addressing
// over a power-of-two table of (line, until) with a multiplicative hash, as
// LineMap; a hold that has ended is a free slot to the next hold that
// passes it, and the table is rebuilt from the holds still running when
// it fills, so it stays as large as what is in flight, whatever the
// footprint of the traffic, and a hold costs a multiply and a probe or two.
#pragma once
#include <cstdint>
#include <vector>

#include "models/core/line_map.h"
#include "models/core/tick.h"

namespace hx {

class LineHolds {
 public:
  // `line` is held until `until` (the later of this and any hold it has).
  void hold(std::uint64_t line, Tick until, Tick now) {
    if (2 * (m_used + 1) > m_slots.size()) rebuild(now);
    std::size_t reuse = kNone;
    for (std::size_t i = home(line);; i = (i + 1) & m_mask) {
      Slot& s = m_slots[i];
      if (s.line == line) {
        if (until > s.until) s.until = until;
        return;
      }
      if (s.line == kEmpty) {
        if (reuse == kNone) {
          reuse = i;
          ++m_used;
        }
        m_slots[reuse] = {line, until};
        return;
      }
      if (reuse == kNone && s.until <= now) reuse = i;  // ended: free, but the line may lie further on
    }
  }
  // The first tick from `at` on at which `line` is free (at >= now).
  Tick free_at(std::uint64_t line, Tick at) const {
    if (m_slots.empty()) return at;
    for (std::size_t i = home(line);; i = (i + 1) & m_mask) {
      const Slot& s = m_slots[i];
      if (s.line == line) return s.until > at ? s.until : at;
      if (s.line == kEmpty) return at;
    }
  }
  // Slots in the table: what it costs in memory.
  std::size_t capacity() const { return m_slots.size(); }

 private:
  static constexpr std::uint64_t kEmpty = ~std::uint64_t{0};
  static constexpr std::size_t kNone = ~std::size_t{0};
  struct Slot {
    std::uint64_t line = kEmpty;
    Tick until = 0;
  };
  std::size_t home(std::uint64_t line) const { return line_home(line, m_shift); }
  // The holds still running, in a table at least eight times their number
  // (so that at least three eighths of it fill before the next rebuild).
  void rebuild(Tick now) {
    std::vector<Slot>& live = m_live;
    live.clear();
    for (const Slot& s : m_slots)
      if (s.line != kEmpty && s.until > now) live.push_back(s);
    std::size_t n = 16;
    unsigned bits = 4;
    while (n < 8 * (live.size() + 1)) {
      n *= 2;
      ++bits;
    }
    m_slots.assign(n, Slot{});
    m_mask = n - 1;
    m_shift = 64 - bits;
    m_used = live.size();
    for (const Slot& s : live) {
      std::size_t i = home(s.line);
      while (m_slots[i].line != kEmpty) i = (i + 1) & m_mask;
      m_slots[i] = s;
    }
  }
  std::vector<Slot> m_slots;
  std::vector<Slot> m_live;  // rebuild's scratch, kept to spare an allocation per rebuild
  std::size_t m_used = 0;  // slots with a line, running or ended
  std::size_t m_mask = 0;
  unsigned m_shift = 64;
};

}  // namespace hx
