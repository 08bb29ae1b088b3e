// Counters per (event, state) of a cache-like structure: how often each
// event (a request, a snoop, a fill, an eviction) found a line in each state
// (SST memHierarchy's stateEvent_GetS_I). Registered once at construction
// as `<name>.<event>_<state>` with their unit; on the hot path a count is
// one increment of a flat array, indexed by the caller's enums.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "models/core/error.h"
#include "models/core/stats.h"

namespace hx::cache {

class EventStateCounters {
 public:
  // `events` and `states` name the caller's enum values in order.
  EventStateCounters(const std::string& name, const std::vector<std::string>& events,
                     const std::vector<std::string>& states, const std::string& desc = "times the event found the state")
      : m_states(states.size()), m_c(events.size() * states.size()) {
    if (events.empty() || states.empty()) throw InputError(name + ": event x state counters need events and states");
    auto& reg = StatsRegistry::instance();
    for (std::size_t e = 0; e < events.size(); ++e)
      for (std::size_t s = 0; s < states.size(); ++s)
        reg.add_counter(name + "." + events[e] + "_" + states[s], &m_c[e * m_states + s], "1",
                        events[e] + " in " + states[s] + ": " + desc);
  }
  void count(int event, int state) { ++m_c[static_cast<std::size_t>(event) * m_states + static_cast<std::size_t>(state)]; }
  std::uint64_t get(int event, int state) const {
    return m_c[static_cast<std::size_t>(event) * m_states + static_cast<std::size_t>(state)].value;
  }
  std::uint64_t total() const {
    std::uint64_t n = 0;
    for (const Counter& c : m_c) n += c.value;
    return n;
  }

 private:
  std::size_t m_states;
  std::vector<Counter> m_c;  // never resized: the registry holds pointers into it
};

}  // namespace hx::cache
