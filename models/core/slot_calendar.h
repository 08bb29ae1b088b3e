// A resource that serves one unit per fixed interval (a pipeline stage, a
// memory channel) and takes reservations for future times. Unlike a single
// "busy until" time, it keeps the gaps: a request that reserves slots far
// ahead does not block another that fits in between. Slots are aligned to
// multiples of the interval from time zero.
#pragma once
#include <cstdint>
#include <vector>

#include "models/core/tick.h"

namespace hx {

class SlotCalendar {
 public:
  explicit SlotCalendar(Tick interval = 0)
      : m_interval(interval), m_inv(interval ? 1.0 / static_cast<double>(interval) : 0.0) {}
  Tick interval() const { return m_interval; }
  // Reserve the first run of `n` free slots starting at or after `earliest`
  // (which must not lie before `now`); returns when the run starts.
  Tick reserve(Tick earliest, Tick now, unsigned n = 1);
  // Time its reserved slots occupy (its busy time, for utilisation).
  Tick busy() const { return m_reserved * m_interval; }
  // x / m_interval without a 64-bit division (a multiply by the reciprocal,
  // then corrected to the exact quotient).
  Tick slot_of(Tick x) const {
    Tick q = static_cast<Tick>(static_cast<double>(x) * m_inv);
    while (q * m_interval > x) --q;
    while ((q + 1) * m_interval <= x) ++q;
    return q;
  }

 private:
  void grow(std::size_t need);

  Tick m_interval;
  double m_inv;
  Tick m_base = 0;  // slot index of the first tracked slot
  // A ring of flags for slots m_base .. m_base+m_size-1; every flag outside
  // that window is clear, so growing the window needs no writes.
  std::vector<std::uint8_t> m_ring;
  std::size_t m_head = 0, m_size = 0;
  Tick m_now = kNever, m_now_slot = 0;  // the last `now` and its slot
  Tick m_reserved = 0;                  // slots reserved so far
};

}  // namespace hx
