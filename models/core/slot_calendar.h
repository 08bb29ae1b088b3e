// A resource that serves one unit per fixed interval (a pipeline stage, a
// memory channel) and takes reservations for future times. Unlike a single
// "busy until" time, it keeps the gaps: a request that reserves slots far
// ahead does not block another that fits in between. Slots are aligned to
// multiples of the interval from time zero.
#pragma once
#include <deque>

#include "models/core/tick.h"

namespace hx {

class SlotCalendar {
 public:
  explicit SlotCalendar(Tick interval = 0) : m_interval(interval) {}
  Tick interval() const { return m_interval; }
  // Reserve the first run of `n` free slots starting at or after `earliest`
  // (which must not lie before `now`); returns when the run starts.
  Tick reserve(Tick earliest, Tick now, unsigned n = 1);

 private:
  Tick m_interval;
  Tick m_base = 0;            // slot index of m_busy[0]
  std::deque<bool> m_busy;
};

}  // namespace hx
