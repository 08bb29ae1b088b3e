#include "models/host/socket_link.h"

#include "models/core/tick.h"
#include "models/memory/memory.h"

namespace hx::host {

namespace {
Tick link_line_time(double GBps) { return GBps > 0 ? mem::line_time(mem::MemoryConfig::line_B, GBps) : 0; }
}  // namespace

SocketLink::SocketLink(const std::string& name, const SocketLinkConfig& cfg)
    : m_cfg(cfg), m_dir{SlotCalendar(link_line_time(cfg.GBps)), SlotCalendar(link_line_time(cfg.GBps))} {
  auto& reg = StatsRegistry::instance();
  for (int d = 0; d < 2; ++d) {
    const std::string dir = d == 0 ? "0to1" : "1to0";
    reg.add_counter(name + ".lines_" + dir, &lines[d], "line", "cache lines carried from socket " + std::to_string(d));
    if (m_dir[d].interval() > 0)
      reg.add_resource(name + "." + dir, [this, d] { return m_dir[d].busy(); }, 1,
                       "socket link, socket " + std::to_string(d) + " to socket " + std::to_string(1 - d));
  }
}

Tick SocketLink::carry_line(int from, Tick t) {
  ++lines[from];
  SlotCalendar& c = m_dir[from];
  return (c.interval() ? c.reserve(t, now_tick()) : t) + m_cfg.latency;
}

}  // namespace hx::host
