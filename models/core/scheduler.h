// Time-ordered actions for every transaction-level model in one process-wide
// queue, dispatched by one SystemC method (DESIGN.md section 9, docs/
// design-notes.md note 2). Senders compute arrival times analytically and
// post them to the receiver; the dispatcher runs them in (time, posting
// order). It runs ahead of the SystemC clock while no other SystemC process
// has anything pending before the next action, so a run with only
// transaction-level models costs the kernel almost nothing; software
// threads (SC_THREADs of the host CPU and workloads) and their events
// interleave exactly as before.
#pragma once
#include <systemc>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "models/core/tick.h"

namespace hx {

class Actor {
 public:
  virtual ~Actor() = default;
  virtual void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) = 0;
};

// A module's handle on the dispatcher.
class Scheduler {
 public:
  explicit Scheduler(const std::string& name);
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Run `target->on_action(kind, arg, ptr)` at absolute time t (t >= now).
  void at(Tick t, Actor* target, std::uint32_t kind, std::uint64_t arg = 0, void* ptr = nullptr);
  // An actor that would schedule itself at t and return may instead go on
  // at t at once, when nothing else can happen before: no action due at or
  // before t, no SystemC process before it, t within the horizon. If so,
  // model time is now t and the step counts as the action (target, kind)
  // dispatched, and true is returned; otherwise nothing changes. The order
  // of everything is the same as through the queue, without its cost (a
  // clocked model's cycles, one after another).
  static bool advance_to(Tick t, Actor* target, std::uint32_t kind);
  static std::uint64_t actions_dispatched();
  // Actions posted so far: unchanged between two posts means nothing was
  // posted between them (so actions at one time may be merged, in order).
  static std::uint64_t posted();
  // No action later than t runs in this sc_start (its end time, inclusive).
  static void set_horizon(Tick t);
  // Called every kHeartbeat actions while the dispatcher runs (nullptr: no
  // more): a long run tells how far it is from there. It must not change
  // the model's state, so that results do not depend on it.
  static constexpr std::uint64_t kHeartbeat = std::uint64_t{1} << 16;
  static void set_heartbeat(std::function<void()> beat);
};

// Notify a SystemC event at model time t (>= now). Model code that wakes a
// SystemC process must come through here: the dispatcher may be ahead of
// the SystemC clock, and it must learn that a process now waits at t.
void notify_at(sc_core::sc_event& ev, Tick t);
inline void notify_now(sc_core::sc_event& ev) { notify_at(ev, now_tick()); }

// A step of software (a SystemC thread) that lets no time pass: a wake-up
// (every notify_at counts as one) or a zero-length wait. Software that loops
// at one instant through either never reaches the deadline; more steps than
// the dispatcher's bound at one instant are a simulation error naming the
// process, as the dispatcher names a component that does the same.
void software_step(const char* what);

}  // namespace hx
