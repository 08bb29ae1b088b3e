#include "models/core/slot_calendar.h"

#include <algorithm>
#include <cstring>

namespace hx {

void SlotCalendar::grow(std::size_t need) {
  std::size_t cap = m_ring.empty() ? 64 : m_ring.size();
  while (cap < need) cap *= 2;
  std::vector<std::uint8_t> r(cap, 0);
  for (std::size_t k = 0; k < m_size; ++k) r[k] = m_ring[(m_head + k) & (m_ring.size() - 1)];
  m_ring.swap(r);
  m_head = 0;
}

Tick SlotCalendar::reserve(Tick earliest, Tick now, unsigned n) {
  if (m_interval == 0 || n == 0) return earliest;
  // Forget the past (once per model time: callers reserve several slots at one now).
  if (now != m_now) {
    m_now = now;
    m_now_slot = slot_of(now);
  }
  const Tick now_slot = m_now_slot;
  if (m_base < now_slot) {
    const std::size_t drop = static_cast<std::size_t>(std::min<Tick>(now_slot - m_base, m_size));
    if (drop) {
      if (drop <= 8) {  // the usual step: cheaper than two calls
        for (std::size_t k = 0; k < drop; ++k) m_ring[(m_head + k) & (m_ring.size() - 1)] = 0;
      } else {
        const std::size_t to_end = std::min(drop, m_ring.size() - m_head);  // the ring wraps at most once
        std::memset(m_ring.data() + m_head, 0, to_end);
        std::memset(m_ring.data(), 0, drop - to_end);
      }
      m_head = (m_head + drop) & (m_ring.size() - 1);
    }
    m_size -= drop;
    m_base = m_size ? m_base + drop : now_slot;
  }
  Tick first = slot_of(earliest + m_interval - 1);
  if (first < m_base) first = m_base;
  std::size_t i = static_cast<std::size_t>(first - m_base);
  for (;;) {
    if (m_ring.size() < i + n) grow(i + n);
    const std::size_t mask = m_ring.size() - 1;
    unsigned k = 0;
    while (k < n && !m_ring[(m_head + i + k) & mask]) ++k;
    if (k == n) break;
    i += k + 1;
  }
  const std::size_t mask = m_ring.size() - 1;
  for (unsigned k = 0; k < n; ++k) m_ring[(m_head + i + k) & mask] = 1;
  m_size = std::max(m_size, i + n);
  m_reserved += n;
  return (m_base + i) * m_interval;
}

}  // namespace hx
