// The link between two sockets as their root complexes' memory traffic
// sees it (QPI/UPI), for a topology with a root complex on each socket.
// Mechanisms: each direction carries one cache line per 64 B / bandwidth,
// booked on a calendar (a line booked later for an earlier time takes a gap
// left free), and a message arrives `latency` after its slot; a request or
// an acknowledgement carries no line and pays the latency alone.
// Simplifications: no flits, credits or message classes (the coherent
// sockets' links of models/coherence have them); one link between the two
// sockets; no snoop of the other socket's LLC.
#pragma once
#include <string>

#include "models/core/slot_calendar.h"
#include "models/core/stats.h"
#include "models/core/tick.h"

namespace hx::host {

struct SocketLinkConfig {
  Tick latency = 53 * kNs;  // one way
  double GBps = 16.0;       // line data, each direction (0: not a limit)
};

class SocketLink {
 public:
  SocketLink(const std::string& name, const SocketLinkConfig& cfg);
  Tick latency() const { return m_cfg.latency; }
  // A line sent at `t` from socket `from` (0 or 1) toward the other one:
  // when it arrives there.
  Tick carry_line(int from, Tick t);

  Counter lines[2];  // lines carried from socket 0, from socket 1

 private:
  SocketLinkConfig m_cfg;
  SlotCalendar m_dir[2];
};

}  // namespace hx::host
