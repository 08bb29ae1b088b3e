#include "models/core/scheduler.h"

#include <cxxabi.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <typeinfo>

#include "models/core/action_queue.h"
#include "models/core/error.h"

namespace hx {

namespace detail {
bool g_dispatching = false;
Tick g_dispatch_now = 0;
Tick kernel_now() { return sc_core::sc_time_stamp().value(); }
}  // namespace detail

namespace {
std::uint64_t g_seed = 1;
// More steps than this at one simulated instant, by the dispatcher or by
// software, mean that time stands still. No study comes near it (a
// saturated fabric runs a few actions per instant).
constexpr std::uint64_t kMaxStepsAtInstant = std::uint64_t{1} << 26;

// Software's steps at the current instant.
struct SoftwareInstant {
  Tick at = kNever;
  std::uint64_t steps = 0;
};
SoftwareInstant g_software;

struct Action {
  Actor* target;
  std::uint32_t kind;
  std::uint64_t arg;
  void* ptr;
};

// The process-wide dispatcher. While it runs, `now` is the model time (which
// may be ahead of sc_time_stamp()); otherwise the SystemC clock is.
struct Dispatcher {
  sc_core::sc_event ev{"hx_dispatch_ev"};
  ActionQueue<Action> heap;
  std::uint64_t dispatched = 0;
  Tick armed = kNever;     // SystemC time the event is notified for
  Tick& now = detail::g_dispatch_now;      // model time while running
  Tick horizon = kNever;   // end of the current sc_start
  bool& running = detail::g_dispatching;
  bool foreign_dirty = false;  // a SystemC event was notified while running
  // Work that never lets time pass (a component rescheduling itself at the
  // same instant) would loop forever with the deadline never reached: more
  // actions than this at one simulated instant are a simulation error.
  static constexpr std::uint64_t kMaxAtInstant = kMaxStepsAtInstant;
  Tick instant = kNever;
  std::uint64_t at_instant = 0;
  Tick started = 0;        // SystemC time of this run
  Tick limit = kNever;     // the earliest time a SystemC process has something to do
  std::function<void()> heartbeat;

  [[noreturn]] void stuck(const Action& it) {
    int status = 0;
    char* name = abi::__cxa_demangle(typeid(*it.target).name(), nullptr, nullptr, &status);
    const std::string who = status == 0 && name ? name : typeid(*it.target).name();
    std::free(name);
    running = false;
    throw SimError("simulated time stands still: more than " + std::to_string(kMaxAtInstant) + " actions at " +
                   std::to_string(to_ns(now)) + " ns without time passing, the last for a " + who + " (action " +
                   std::to_string(it.kind) + ")");
  }

  Dispatcher() {
    sc_core::sc_spawn_options opts;
    opts.spawn_method();
    opts.set_sensitivity(&ev);
    opts.dont_initialize();
    sc_core::sc_spawn([this] { run(); }, "hx_dispatch", &opts);
  }

  static Tick sc_now() { return sc_core::sc_time_stamp().value(); }

  // Out of line: Scheduler::at calls it only while the loop is not running,
  // and its kernel calls would otherwise weigh on every post.
  [[gnu::noinline]] void arm(Tick t) {
    if (t >= armed) return;
    armed = t;
    const Tick s = sc_now();
    if (t <= s) {
      ev.notify(sc_core::SC_ZERO_TIME);
    } else {
      ev.notify(sc_core::sc_time::from_value(t - s));
    }
  }

  // The earliest time another SystemC process has something to do.
  static Tick foreign_limit(Tick s) {
    if (sc_core::sc_pending_activity_at_current_time()) return s;
    if (!sc_core::sc_pending_activity_at_future_time()) return kNever;
    return s + sc_core::sc_time_to_pending_activity().value();
  }

  // Whether the loop may move model time on to t > now: before the next
  // SystemC process's time and within the horizon.
  bool may_reach(Tick t) {
    if (foreign_dirty) {
      limit = foreign_limit(started);
      foreign_dirty = false;
    }
    // Equal times go back to the kernel so its processes interleave.
    return t < limit && t <= horizon;
  }

  // The bookkeeping of one action dispatched at `now`.
  void count(const Action& it) {
    if (++dispatched % Scheduler::kHeartbeat == 0 && heartbeat) heartbeat();
    if (now != instant) {
      instant = now;
      at_instant = 0;
    } else if (++at_instant > kMaxAtInstant) {
      stuck(it);
    }
  }

  void run() {
    const Tick s = sc_now();
    started = s;
    armed = kNever;
    running = true;
    now = s;
    foreign_dirty = false;
    limit = foreign_limit(s);
    while (!heap.empty()) {
      const Tick t = heap.top_time();
      if (t > now) {
        if (!may_reach(t)) break;
        now = t;
      }
      Tick due;
      const Action it = heap.pop(due);
      count(it);
      it.target->on_action(it.kind, it.arg, it.ptr);
    }
    running = false;
    if (!heap.empty()) {
      arm(heap.top_time());
    } else if (now > s) {
      arm(now);  // bring the SystemC clock to the last action's time
    }
  }
};

// Never destroyed: its sc_event must not outlive the SystemC kernel's
// own teardown order at exit.
Dispatcher& dispatcher() {
  static Dispatcher* d = new Dispatcher;
  return *d;
}
Dispatcher* g_disp = nullptr;
}  // namespace

void set_global_seed(std::uint64_t seed) { g_seed = seed; }
std::uint64_t global_seed() { return g_seed; }

std::string hex(std::uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

void sim_fail(const std::string& component, const std::string& what) {
  throw SimError(component + " at " + std::to_string(to_ns(now_tick())) + " ns: " + what);
}

Scheduler::Scheduler(const std::string&) { g_disp = &dispatcher(); }

std::uint64_t Scheduler::actions_dispatched() { return g_disp ? g_disp->dispatched : 0; }

std::uint64_t Scheduler::posted() { return g_disp ? g_disp->heap.posted() : 0; }

void Scheduler::set_horizon(Tick t) { dispatcher().horizon = t; }

void Scheduler::set_heartbeat(std::function<void()> beat) { dispatcher().heartbeat = std::move(beat); }

void Scheduler::at(Tick t, Actor* target, std::uint32_t kind, std::uint64_t arg, void* ptr) {
  Dispatcher& d = *g_disp;
  const Tick now = now_tick();
  if (t < now) t = now;
  Action& a = d.heap.push(t);
  a.target = target;
  a.kind = kind;
  a.arg = arg;
  a.ptr = ptr;
  if (!d.running) d.arm(t);  // while running, the loop picks it up
}

bool Scheduler::advance_to(Tick t, Actor* target, std::uint32_t kind) {
  Dispatcher& d = *g_disp;
  if (!d.running || t <= d.now || (!d.heap.empty() && d.heap.top_time() <= t) || !d.may_reach(t)) return false;
  d.now = t;
  d.count(Action{target, kind, 0, nullptr});
  return true;
}

void software_step(const char* what) {
  const Tick t = now_tick();
  if (t != g_software.at) {
    g_software = {t, 0};
    return;
  }
  if (++g_software.steps <= kMaxStepsAtInstant) return;
  const sc_core::sc_process_handle p = sc_core::sc_get_current_process_handle();
  throw SimError("simulated time stands still: more than " + std::to_string(kMaxStepsAtInstant) +
                 " software wake-ups and zero-length waits at " + std::to_string(to_ns(t)) +
                 " ns without time passing, the last " + what + (p.valid() ? std::string(" in ") + p.name() : std::string()));
}

void notify_at(sc_core::sc_event& ev, Tick t) {
  software_step("a wake-up");
  const Tick s = sc_core::sc_time_stamp().value();
  t = std::max(t, now_tick());
  if (t <= s) {
    ev.notify(sc_core::SC_ZERO_TIME);
  } else {
    ev.notify(sc_core::sc_time::from_value(t - s));
  }
  if (g_disp) g_disp->foreign_dirty = true;
}

}  // namespace hx
