#include "models/host/socket_link.h"

#include "models/core/error.h"
#include "models/core/scheduler.h"
#include "models/core/tick.h"
#include "models/memory/memory.h"

namespace hx::host {

namespace {
Tick link_line_time(double GBps) { return GBps > 0 ? mem::line_time(mem::MemoryConfig::line_B, GBps) : 0; }
}  // namespace

SocketLink::SocketLink(const std::string& name, const SocketLinkConfig& cfg, int a, int b)
    : m_cfg(cfg), m_end{a, b}, m_dir{SlotCalendar(link_line_time(cfg.GBps)), SlotCalendar(link_line_time(cfg.GBps))} {
  if (a == b || a < 0 || b < 0) throw SimError(name + ": a socket link joins two different sockets");
  auto& reg = StatsRegistry::instance();
  for (int d = 0; d < 2; ++d) {
    const std::string from = std::to_string(m_end[d]), to = std::to_string(m_end[1 - d]);
    const std::string dir = from + "to" + to;
    reg.add_counter(name + ".lines_" + dir, &lines[d], "line", "cache lines carried from socket " + from);
    if (m_dir[d].interval() > 0)
      reg.add_resource(name + "." + dir, [this, d] { return m_dir[d].busy(); }, 1, "socket link, socket " + from + " to socket " + to);
  }
}

Tick SocketLink::carry_line(int from, Tick t) {
  if (from != m_end[0] && from != m_end[1])
    sim_fail("socket link", "a line from socket " + std::to_string(from) + ", which this link does not join");
  const int d = from == m_end[0] ? 0 : 1;
  ++lines[d];
  SlotCalendar& c = m_dir[d];
  return (c.interval() ? c.reserve(t, now_tick()) : t) + m_cfg.latency;
}

Tick SocketLink::carry_store(int from, Tick t) {
  if (from != m_end[0] && from != m_end[1])
    sim_fail("socket link", "a store from socket " + std::to_string(from) + ", which this link does not join");
  SlotCalendar& c = m_dir[from == m_end[0] ? 0 : 1];
  return c.interval() ? c.reserve(t, now_tick()) : t;
}

}  // namespace hx::host
