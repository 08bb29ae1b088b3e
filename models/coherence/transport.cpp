#include "models/coherence/transport.h"

#include <algorithm>

#include "models/core/error.h"
#include "models/link/link_end_impl.h"

namespace hx::link {
template class LinkEnd<coherence::CohLinkTraits>;
}  // namespace hx::link

namespace hx::coherence {

const char* CohLinkTraits::class_name(int cls) {
  static const char* const n[] = {"Req", "Snp", "Rsp", "Dat"};
  return n[cls];
}

link::Wire CohLinkTraits::wire(const CohLinkConfig& l, const CohEndConfig&) {
  if (l.GBps <= 0) throw InputError("a coherence link needs a positive bandwidth");
  link::Wire w;
  w.ps_per_byte = 1000.0 / l.GBps;
  w.align = 1;
  w.framing_B = static_cast<std::uint32_t>(l.header_B);
  w.ctrl_B = static_cast<std::uint32_t>(l.ctrl_B);
  return w;
}

bool ClassQueues::empty() const {
  for (const auto& q : m_q)
    if (!q.empty()) return false;
  return true;
}

Tick ClassQueues::next_ready() const {
  Tick t = kNever;
  for (const auto& q : m_q)
    if (!q.empty()) t = std::min(t, q.front()->ready);
  return t;
}

DirectLink::DirectLink(Receiver& owner, const std::string& name, const CohEndConfig& cfg)
    : m_owner(owner), m_port(*this, name, cfg) {}

void DirectLink::send(Packet* p) {
  if (m_tx.empty() && m_port.send_if_idle(*p)) return;  // nothing to choose between: no wake needed
  m_tx.push(p);
  m_port.wake_for(*p);
}

// Nothing sendable now while a queue's head becomes ready later: the end
// is woken then (the link engine wakes it for credits, not for ready times).
Packet* DirectLink::tx_select(CohPort& p) {
  Packet* u = m_tx.select(now_tick(), [&](const Packet& x) { return p.can_send(x); });
  if (!u) {
    const Tick r = m_tx.next_ready();
    if (r != kNever && r > now_tick()) p.wake_at(r);
  }
  return u;
}

}  // namespace hx::coherence
