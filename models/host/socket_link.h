// A link between two sockets as their root complexes' memory traffic sees
// it (QPI/UPI), for a topology with a root complex on each of several
// sockets; a route between sockets no link joins crosses several
// (RootComplex::connect_socket).
// Mechanisms: each direction carries one cache line per 64 B / bandwidth,
// booked on a calendar (a line booked later for an earlier time takes a gap
// left free), and a message arrives `latency` after its slot; a request or
// an acknowledgement carries no line and pays the latency alone.
// Simplifications: no flits, credits or message classes (the coherent
// sockets' links of models/coherence have them); one link between a pair
// of sockets (two QPI links are one of twice the rate).
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
  // The link between sockets a and b (a != b).
  SocketLink(const std::string& name, const SocketLinkConfig& cfg, int a = 0, int b = 1);
  Tick latency() const { return m_cfg.latency; }
  int end(int i) const { return m_end[i]; }  // its sockets: end(0) = a, end(1) = b
  int other(int socket) const { return socket == m_end[0] ? m_end[1] : m_end[0]; }
  // A line sent at `t` from socket `from` (one of its ends) toward the
  // other one: when it arrives there.
  Tick carry_line(int from, Tick t);
  // A core's posted store leaving socket `from` at `t`: when it starts on
  // the wire, in the first slot of that direction no line holds (the lines
  // ready before it go first). The core does not wait for its flight.
  Tick carry_store(int from, Tick t);

  Counter lines[2];  // lines carried from socket a, from socket b

 private:
  SocketLinkConfig m_cfg;
  int m_end[2];
  SlotCalendar m_dir[2];
};

}  // namespace hx::host
