// TLP trace in the Chrome trace-event JSON format (loadable in
// ui.perfetto.dev and chrome://tracing): one track per link direction (a
// span per TLP on the wire, transmitter side) and per receiving port (a span
// from the TLP's first to last byte in). Off unless enabled; bounded by a
// simulated-time window and an event count so a trace stays small. The hot
// path pays one branch when it is off.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "models/core/tick.h"

namespace hx {

class Trace {
 public:
  static Trace& instance();
  void enable(Tick from, Tick to, std::size_t max_events);
  bool enabled() const { return m_enabled; }
  // Whether an event starting at t is kept (counts it as dropped if not).
  bool want(Tick t) {
    if (!m_enabled || t < m_from || t >= m_to) return false;
    if (m_events.size() >= m_max) {
      ++m_dropped;
      return false;
    }
    return true;
  }
  int track(const std::string& name);
  void span(int track, const char* name, Tick start, Tick end, std::uint64_t id, std::uint32_t bytes);
  // Writes the trace (atomically); false if it could not be written.
  bool write(const std::string& path) const;
  std::size_t events() const { return m_events.size(); }
  std::uint64_t dropped() const { return m_dropped; }

 private:
  struct Event {
    int track;
    const char* name;
    Tick start, end;
    std::uint64_t id;
    std::uint32_t bytes;
  };
  bool m_enabled = false;
  Tick m_from = 0, m_to = kNever;
  std::size_t m_max = 0;
  std::uint64_t m_dropped = 0;
  std::vector<std::string> m_tracks;
  std::vector<Event> m_events;
};

}  // namespace hx
