// The clock of co-simulated RTL on the kernel's time grid: its edges fall
// on multiples of the period, and are scheduled only while the design is
// active, so an idle design costs nothing. An input wakes it at the next
// edge; after each cycle the adapter says whether the cycle was active, and
// the clock stops once `idle_cycles` cycles in a row were not (or keeps
// running while `keep` holds: a free-running clock).
#pragma once
#include <cstdint>

#include "models/core/scheduler.h"
#include "models/core/tick.h"

namespace hx::rtl {

class GatedClock {
 public:
  explicit GatedClock(Tick period) : m_period(period) {}
  Tick period() const { return m_period; }
  // Something for the design arrived: clock it from the next edge on.
  void wake(Scheduler& s, Actor* a, std::uint32_t kind) {
    const Tick now = now_tick();
    const Tick edge = (now + m_period - 1) / m_period * m_period;
    m_idle = 0;
    if (m_next <= edge) return;
    m_next = edge;
    s.at(edge, a, kind);
  }
  // On the clock's action: whether it is the edge due now (an earlier
  // wake-up that a nearer one superseded is not).
  bool due() {
    if (now_tick() != m_next) return false;
    m_next = kNever;
    return true;
  }
  // After a cycle: the next edge, while the design was active within the
  // last `idle_cycles` cycles or `keep` holds. True when that edge is now
  // (nothing else was due before it: Scheduler::advance_to): the caller
  // runs the next cycle at once, as its action would have.
  bool after_cycle(bool active, int idle_cycles, bool keep, Scheduler& s, Actor* a, std::uint32_t kind) {
    m_idle = active ? 0 : m_idle + 1;
    if (!keep && m_idle >= idle_cycles) return false;
    const Tick next = now_tick() + m_period;
    if (Scheduler::advance_to(next, a, kind)) return true;
    m_next = next;
    s.at(m_next, a, kind);
    return false;
  }

 private:
  Tick m_period;
  Tick m_next = kNever;
  int m_idle = 0;
};

}  // namespace hx::rtl
