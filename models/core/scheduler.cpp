#include "models/core/scheduler.h"

#include <algorithm>

#include "models/core/error.h"

namespace hx {

namespace {
std::uint64_t g_dispatched = 0;
std::uint64_t g_seed = 1;
}  // namespace

Tick now_tick() { return sc_core::sc_time_stamp().value(); }

void set_global_seed(std::uint64_t seed) { g_seed = seed; }
std::uint64_t global_seed() { return g_seed; }

void sim_fail(const std::string& component, const std::string& what) {
  throw SimError(component + " at " + std::to_string(to_ns(now_tick())) + " ns: " + what);
}

Scheduler::Scheduler(const std::string& name) : m_event((name + "_ev").c_str()) {
  sc_core::sc_spawn_options opts;
  opts.spawn_method();
  opts.set_sensitivity(&m_event);
  opts.dont_initialize();
  sc_core::sc_spawn([this] { run(); }, (name + "_sched").c_str(), &opts);
}

std::uint64_t Scheduler::actions_dispatched() { return g_dispatched; }

void Scheduler::arm(Tick t) {
  if (t >= m_armed) return;
  m_armed = t;
  const Tick now = now_tick();
  if (t <= now) {
    m_event.notify(sc_core::SC_ZERO_TIME);
  } else {
    m_event.notify(sc_core::sc_time::from_value(t - now));
  }
}

void Scheduler::at(Tick t, Actor* target, std::uint32_t kind, std::uint64_t arg, void* ptr) {
  const Tick now = now_tick();
  if (t < now) t = now;
  m_heap.push_back(Item{t, m_seq++, target, kind, arg, ptr});
  std::push_heap(m_heap.begin(), m_heap.end(), Later{});
  if (m_running && t <= now) return;  // the running loop picks it up
  arm(t);
}

void Scheduler::run() {
  const Tick now = now_tick();
  m_armed = kNever;
  m_running = true;
  while (!m_heap.empty() && m_heap.front().t <= now) {
    std::pop_heap(m_heap.begin(), m_heap.end(), Later{});
    Item it = m_heap.back();
    m_heap.pop_back();
    ++g_dispatched;
    it.target->on_action(it.kind, it.arg, it.ptr);
  }
  m_running = false;
  if (!m_heap.empty()) arm(m_heap.front().t);
}

}  // namespace hx
