#include "models/core/slot_calendar.h"

namespace hx {

Tick SlotCalendar::reserve(Tick earliest, Tick now, unsigned n) {
  if (m_interval == 0 || n == 0) return earliest;
  // Forget the past.
  const Tick now_slot = now / m_interval;
  while (m_base < now_slot && !m_busy.empty()) {
    m_busy.pop_front();
    ++m_base;
  }
  if (m_busy.empty()) m_base = now_slot;
  Tick first = (earliest + m_interval - 1) / m_interval;
  if (first < m_base) first = m_base;
  std::size_t i = static_cast<std::size_t>(first - m_base);
  for (;;) {
    if (m_busy.size() < i + n) m_busy.resize(i + n, false);
    unsigned k = 0;
    while (k < n && !m_busy[i + k]) ++k;
    if (k == n) break;
    i += k + 1;
  }
  for (unsigned k = 0; k < n; ++k) m_busy[i + k] = true;
  return (m_base + i) * m_interval;
}

}  // namespace hx
