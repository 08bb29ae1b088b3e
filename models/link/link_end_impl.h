// The link engine's definitions. Include it in exactly one .cpp per
// protocol, which instantiates LinkEnd<Traits> explicitly; everyone else
// sees only link_end.h (and an `extern template` beside the traits).
#pragma once
#include <sstream>

#include "models/core/error.h"
#include "models/core/trace.h"
#include "models/link/link_end.h"

namespace hx::link {

template <class T>
LinkEnd<T>::LinkEnd(Owner<T>& owner, std::string name, const Config& cfg)
    : m_owner(owner), m_name(std::move(name)), m_cfg(cfg), m_sched(m_name) {
  for (int vc = 0; vc < kMaxVcs; ++vc)
    for (int c = 0; c < kClasses; ++c) {
      m_vc[vc].adv_hdr[c] = m_cfg.hdr_credits(vc, c);
      m_vc[vc].adv_data[c] = m_cfg.data_credits(vc, c);
    }
  auto& reg = StatsRegistry::instance();
  reg.add_counter(m_name + "." + T::kUnitStat, &tx_units, T::kUnitUnit, T::kUnitStatDesc);
  reg.add_counter(m_name + ".tx_bytes", &tx_bytes, "B", T::kBytesStatDesc);
  reg.add_counter(m_name + ".tx_payload", &tx_payload, "B", T::kPayloadStatDesc);
  reg.add_counter(m_name + "." + T::kCtrlStat, &tx_ctrl, T::kCtrlUnit, T::kCtrlStatDesc);
  reg.add_counter(m_name + ".busy", &busy_ps, "ps", "time the transmit wire was occupied");
  reg.add_counter(m_name + ".credit_stalls", &credit_stalls, "1",
                  std::string("times a queued ") + T::kUnitUnit + " was found (or foreseen) to lack credits");
}

template <class T>
void LinkEnd<T>::connect(LinkEnd& a, LinkEnd& b, const Link& link) {
  if (a.m_peer || b.m_peer) sim_fail(a.m_name, "port connected twice");
  a.m_peer = &b;
  b.m_peer = &a;
  for (LinkEnd* p : {&a, &b}) {
    LinkEnd* rx = p->m_peer;
    p->m_link = link;
    p->m_wire = T::wire(link, p->m_cfg);
    if (p->m_wire.align == 0 || (p->m_wire.align & (p->m_wire.align - 1)))
      sim_fail(p->m_name, std::string(T::kUnitUnit) + " alignment must be a power of two");
    p->m_ctrl_time = p->serialize(p->m_wire.ctrl_B);
    if (link.idle_exit > 0)
      StatsRegistry::instance().add_counter(p->m_name + ".wakes", &p->wakes, T::kUnitUnit,
                                            "units that found the transmitter in its idle power state and waited for it to leave");
    const int vcs = std::min(p->m_cfg.vcs, rx->m_cfg.vcs);
    for (int vc = 0; vc < kMaxVcs; ++vc) {
      for (int c = 0; c < kClasses; ++c) {
        Credits& cr = p->m_vc[vc].tx[c];
        if (vc >= vcs) {
          cr = Credits{};  // no credits: VC not enabled on this link
          continue;
        }
        cr.hdr = rx->m_vc[vc].adv_hdr[c];
        cr.data = rx->m_vc[vc].adv_data[c];
        cr.inf_hdr = cr.hdr == 0;
        cr.inf_data = cr.data == 0;
      }
    }
  }
}

template <class T>
void LinkEnd<T>::refresh_credits(Tick now) {
  while (!m_credit_inflight.empty() && m_credit_inflight.front().t <= now) {
    const InFlight& f = m_credit_inflight.front();
    Credits& c = m_vc[f.vc].tx[f.cls];
    c.hdr += f.hdr;
    c.data += f.data;
    m_credit_inflight.pop_front();
  }
}

template <class T>
bool LinkEnd<T>::can_send(const Unit& u) {
  refresh_credits(now_tick());
  const Credits& c = m_vc[u.vc].tx[T::cls(u)];
  const bool ok = c.cover(u);
  if (!ok) {
    check_vc(u);
    ++credit_stalls;
    m_blocked = true;
  }
  if (Ledger* l = T::ledger(u)) {
    if (ok) l->had_credits(now_tick());
    else l->lacked_credits(now_tick());
  }
  return ok;
}

template <class T>
void LinkEnd<T>::fail_vc(int vc) const {
  sim_fail(m_name, std::string(T::kUnitUnit) + " on VC" + std::to_string(vc) + " which this link does not enable");
}

template <class T>
void LinkEnd<T>::fail(const char* what) const {
  sim_fail(m_name, what);
}

template <class T>
void LinkEnd<T>::fail_ledger(Tick ready, Tick mark) const {
  sim_fail(m_name, std::string("latency ledger: a ") + T::kUnitUnit + " queued ready at " + std::to_string(ready) +
                       " ps was accounted for only up to " + std::to_string(mark) + " ps");
}

template <class T>
void LinkEnd<T>::fail_unbuffered() const {
  sim_fail(m_name, std::string("released a ") + T::kUnitUnit + " that was not buffered");
}

template <class T>
void LinkEnd<T>::fail_overflow(const char* credits, int cls) const {
  sim_fail(m_name, std::string("receive buffer overflow (") + credits + " credits) on " + T::class_name(cls));
}

template <class T>
void LinkEnd<T>::open_tracks() {
  auto& trace = Trace::instance();
  if (m_trace_tx < 0) m_trace_tx = trace.track("link " + m_name + " -> " + m_peer->m_name);
  if (m_peer->m_trace_rx < 0) m_peer->m_trace_rx = trace.track("in " + m_peer->m_name);
}

template <class T>
void LinkEnd<T>::check_vc(const Unit& u) const {
  if (u.vc >= std::min(m_cfg.vcs, m_peer->m_cfg.vcs)) fail_vc(u.vc);
}

template <class T>
bool LinkEnd<T>::credits_at(const Unit& u, Tick at) const {
  const int cls = T::cls(u);
  Credits c = m_vc[u.vc].tx[cls];
  if (c.cover(u)) return true;  // returns in flight only add
  for (std::size_t i = 0; i < m_credit_inflight.size(); ++i) {
    const InFlight& f = m_credit_inflight[i];
    if (f.t > at) break;
    if (f.vc == u.vc && f.cls == cls) {
      c.hdr += f.hdr;
      c.data += f.data;
    }
  }
  return c.cover(u);
}

// When to try for u: when it is ready and the wire is free; or, if its
// credits could not have come back by then, not at all (the end counts as
// blocked, so a credit return wakes it) unless credits already in flight
// arrive later.
template <class T>
Tick LinkEnd<T>::wake_time_for(const Unit& u) {
  const Tick at = std::max({u.ready, now_tick(), m_wire_free});
  if (credits_at(u, at)) return at;
  check_vc(u);
  ++credit_stalls;
  m_blocked = true;
  if (Ledger* l = T::ledger(u)) l->lacked_credits(at);
  return credit_after(at);
}

template <class T>
Tick LinkEnd<T>::credit_after(Tick at) const {
  for (std::size_t i = 0; i < m_credit_inflight.size(); ++i)
    if (m_credit_inflight[i].t > at) return m_credit_inflight[i].t;
  return kNever;
}

template <class T>
bool LinkEnd<T>::head_sendable(const Unit& h, Tick at, Tick& next_ready) const {
  if (h.ready > at) {
    next_ready = std::min(next_ready, h.ready);
    return false;
  }
  if (credits_at(h, at)) return true;
  if (Ledger* l = T::ledger(h)) l->lacked_credits(at);
  return false;
}

template <class T>
void LinkEnd<T>::wake_for(const Unit& u) {
  if (m_selecting) {
    m_deferred_units.push_back(&u);
    return;
  }
  const Tick w = wake_time_for(u);
  if (w != kNever) wake_at(w);
}

template <class T>
bool LinkEnd<T>::send_if_idle(Unit& u) {
  if (!m_peer || m_selecting) return false;
  const Tick at = std::max(u.ready, now_tick());
  // The unit on the wire at `at` must have started by then: one unit waits
  // behind it at most (the transmit buffer), never a train of them. Its
  // credits must be there when it is ready (a wake then would find them).
  if (m_last_start > at) return false;
  check_vc(u);
  if (!credits_at(u, at)) return false;
  // It goes when the wire frees, after the ACKs due by then; nothing else
  // is transmitted before it, so the credits in flight until then are in.
  Tick go = at;
  for (place_due_acks(go); m_wire_free > go; place_due_acks(go)) go = m_wire_free;
  refresh_credits(go);
  transmit(&u, go);
  return true;
}

template <class T>
void LinkEnd<T>::wake_at(Tick t) {
  if (m_selecting) {  // asked from inside tx_select: decided after the transmission
    m_deferred_wake = std::min(m_deferred_wake, t);
    return;
  }
  const Tick now = now_tick();
  if (t < now) t = now;
  // Nothing can start before the wire frees (try_send would only wake again).
  if (t < m_wire_free) t = m_wire_free;
  if (m_next_wake != kNever && m_next_wake >= now && m_next_wake <= t) return;
  m_next_wake = t;
  m_sched.at(t, this, kWake, t);
}

template <class T>
void LinkEnd<T>::try_send() {
  if (!m_peer) return;
  const Tick now = now_tick();
  place_due_acks(now);
  if (m_wire_free > now) {
    wake_at(m_wire_free);
    return;
  }
  m_blocked = false;
  // Wakes the owner asks for while selecting (a later unit's ready time, say)
  // are held until the wire time of what is selected now is known: a wake
  // inside that transmission would only find the wire busy.
  m_selecting = true;
  m_deferred_wake = kNever;
  m_deferred_units.clear();
  Unit* u = m_owner.tx_select(*this);
  m_selecting = false;
  Tick wake = m_deferred_wake;
  if (!u) {
    if (m_blocked && !m_credit_inflight.empty()) wake = std::min(wake, m_credit_inflight.front().t);
  } else {
    transmit(u, now);
    Tick next_ready = kNever;
    switch (m_owner.tx_outlook(*this, m_wire_free, next_ready)) {
      case TxOutlook::Empty:  // new work wakes the end
        break;
      case TxOutlook::NoneEligible:
        // Trying when the wire frees would fail for credits: set up what
        // that failure would (a wake at the next credit or ready time, and
        // wakes on credit returns) without the attempt.
        m_blocked = true;
        wake = std::min({wake, next_ready, credit_after(m_wire_free)});
        break;
      case TxOutlook::Maybe:
        wake = std::min(wake, m_wire_free);
        break;
    }
  }
  // Units the owner queued while selecting, now that the wire time is known.
  for (const Unit* d : m_deferred_units) wake = std::min(wake, wake_time_for(*d));
  if (wake != kNever) wake_at(wake);
}

template <class T>
void LinkEnd<T>::transmit(Unit* u, Tick now) {
  Credits& c = m_vc[u->vc].tx[T::cls(*u)];
  if (!c.inf_hdr) c.hdr -= 1;
  if (!c.inf_data) c.data -= T::data_credits(*u);
  if (c.hdr < 0 || c.data < 0) fail("flow-control credits went negative");
  T::check_transmit(*this, *u);
  const std::uint32_t bytes = wire_bytes(*u);
  const Tick dur = serialize(bytes);
  // A transmitter idle for idle_entry is in its power-saving state: the unit
  // waits while it leaves it.
  Tick wake = 0;
  if (m_link.idle_exit > 0 && now > m_last_end && now - m_last_end >= m_link.idle_entry) {
    wake = m_link.idle_exit;
    wakes += 1;
  }
  const Tick start = now + wake;
  const Tick end = start + dur;
  m_wire_free = end;
  m_last_start = start;
  m_last_end = end;
  tx_units += 1;
  tx_bytes += bytes;
  tx_payload += u->len;
  busy_ps += dur;
  ++u->hops;
  if (Ledger* l = T::ledger(*u)) {
    // The owner accounts for the unit up to the time it queued it ready.
    if (l->mark < u->ready) fail_ledger(u->ready, l->mark);
    if (wake) {  // the wait to leave the idle state is the physical layer's
      l->on_wire(now, m_cfg.tx_pipeline, m_link.latency);
      l->charge(Stage::Propagation, start);
    }
    l->on_wire(start, m_cfg.tx_pipeline, m_link.latency);
  }
  // The TX pipeline of an endpoint's transaction layer is a constant delay
  // after arbitration: it shifts arrival, not the wire's occupancy.
  const Tick head = start + serialize(T::head_bytes(*u, m_wire)) + m_link.latency + m_cfg.tx_pipeline;
  const Tick tail = end + m_link.latency + m_cfg.tx_pipeline;
  u->rx_start = start + m_link.latency + m_cfg.tx_pipeline;
  auto& trace = Trace::instance();
  if (trace.want(start)) {
    if (m_trace_tx < 0 || m_peer->m_trace_rx < 0) open_tracks();
    trace.span(m_trace_tx, T::name(*u), start, end, u->id, u->len);
    if (trace.want(head)) trace.span(m_peer->m_trace_rx, T::name(*u), head, tail, u->id, u->len);
  }
  m_owner.tx_done(*this, *u, start, end);
  m_peer->on_received(*u, tail);
  m_peer->m_owner.rx_arrive(*m_peer, u, head, tail);
}

// Receiver side: buffer occupancy and the ACK policy.
template <class T>
void LinkEnd<T>::on_received(const Unit& u, Tick tail) {
  const int cls = T::cls(u);
  m_vc[u.vc].rx_hdr[cls] += 1;
  m_vc[u.vc].rx_data[cls] += T::data_credits(u);
  const int adv_h = m_vc[u.vc].adv_hdr[cls], adv_d = m_vc[u.vc].adv_data[cls];
  if (adv_h && m_vc[u.vc].rx_hdr[cls] > adv_h) fail_overflow("header", cls);
  if (adv_d && m_vc[u.vc].rx_data[cls] > adv_d) fail_overflow("data", cls);
  // ACK policy: after ack_every units, or ack_timeout after the last unit of
  // a batch that stopped short (known once the next unit's tail is known).
  if (m_unacked > 0 && tail > m_last_rx_tail + m_link.ack_timeout) {
    m_acks_due.push_back(m_last_rx_tail + m_link.ack_timeout);
    m_unacked = 0;
  }
  m_last_rx_tail = tail;
  if (++m_unacked >= m_link.ack_every) {
    m_unacked = 0;
    m_acks_due.push_back(tail);
  }
}

// Place a control packet due at `due` on this end's wire: in the idle gap
// if the wire was free then, otherwise right behind what was on the wire.
template <class T>
void LinkEnd<T>::place_ctrl(Tick due) {
  m_wire_free = std::max(due, m_wire_free) + m_ctrl_time;
  tx_ctrl += 1;
  tx_bytes += m_wire.ctrl_B;
  busy_ps += m_ctrl_time;
}

template <class T>
void LinkEnd<T>::place_due_acks(Tick now) {
  while (!m_acks_due.empty() && m_acks_due.front() <= now) {
    place_ctrl(m_acks_due.front());
    m_acks_due.pop_front();
  }
  if (m_unacked > 0 && m_last_rx_tail + m_link.ack_timeout <= now) {
    place_ctrl(m_last_rx_tail + m_link.ack_timeout);
    m_unacked = 0;
  }
}

template <class T>
Tick LinkEnd<T>::send_ctrl(Tick at) {
  place_due_acks(at);
  place_ctrl(at);
  return m_wire_free + m_link.latency;  // arrival at the partner
}

template <class T>
void LinkEnd<T>::release(const Unit& u) {
  const int cls = T::cls(u);
  const int vc = u.vc;
  m_vc[vc].rx_hdr[cls] -= 1;
  m_vc[vc].rx_data[cls] -= T::data_credits(u);
  if (m_vc[vc].rx_hdr[cls] < 0 || m_vc[vc].rx_data[cls] < 0) fail_unbuffered();
  const int adv_h = m_vc[vc].adv_hdr[cls], adv_d = m_vc[vc].adv_data[cls];
  const bool inf_h = adv_h == 0, inf_d = adv_d == 0;
  if (inf_h && inf_d) return;  // infinite credits are never returned
  if (m_link.credits_in_header) {
    const Tick arrive = now_tick() + m_link.latency;
    m_peer->m_credit_inflight.push_back(InFlight{arrive, vc, cls, inf_h ? 0 : 1, inf_d ? 0 : T::data_credits(u)});
    if (m_peer->m_blocked) m_peer->wake_at(arrive);
    return;
  }
  if (!inf_h) m_vc[vc].fc_hdr[cls] += 1;
  if (!inf_d) m_vc[vc].fc_data[cls] += T::data_credits(u);
  m_vc[vc].fc_units[cls] += 1;
  // The receiver knows what its partner can still send: advertised minus
  // what it holds unreported. When that would block a maximum-size unit, it
  // returns credits at once; otherwise it batches (PCIe spec 2.6.1.2 leaves
  // the policy to the implementation within the UpdateFC latency limits).
  const int held_h = m_vc[vc].rx_hdr[cls] + m_vc[vc].fc_hdr[cls];
  const int held_d = m_vc[vc].rx_data[cls] + m_vc[vc].fc_data[cls];
  const int max_data = T::max_data_credits(m_cfg);
  const bool starving = (!inf_h && adv_h - held_h < 1) || (!inf_d && adv_d - held_d < max_data);
  if (starving || m_vc[vc].fc_units[cls] >= m_link.fc_update_every) {
    flush_fc(vc, cls);
  } else if (!m_vc[vc].fc_timer[cls]) {
    m_vc[vc].fc_timer[cls] = true;
    m_sched.at(now_tick() + m_link.fc_update_timeout, this, kFcDue, static_cast<std::uint64_t>(vc * kClasses + cls));
  }
}

template <class T>
void LinkEnd<T>::flush_fc(int vc, int cls) {
  if (m_vc[vc].fc_units[cls] == 0) return;
  const Tick arrive = send_ctrl(now_tick());
  m_peer->m_credit_inflight.push_back(InFlight{arrive, vc, cls, m_vc[vc].fc_hdr[cls], m_vc[vc].fc_data[cls]});
  m_vc[vc].fc_hdr[cls] = m_vc[vc].fc_data[cls] = m_vc[vc].fc_units[cls] = 0;
  if (m_peer->m_blocked) m_peer->wake_at(arrive);
}

template <class T>
void LinkEnd<T>::on_action(std::uint32_t kind, std::uint64_t arg, void*) {
  switch (kind) {
    case kWake:
      if (arg == m_next_wake) m_next_wake = kNever;
      try_send();
      break;
    case kFcDue: {
      const int vc = static_cast<int>(arg) / kClasses, cls = static_cast<int>(arg) % kClasses;
      m_vc[vc].fc_timer[cls] = false;
      flush_fc(vc, cls);
      break;
    }
  }
}

template <class T>
bool LinkEnd<T>::has_rx_occupancy() const {
  for (int vc = 0; vc < kMaxVcs; ++vc)
    for (int c = 0; c < kClasses; ++c)
      if (m_vc[vc].rx_hdr[c]) return true;
  return false;
}

template <class T>
std::string LinkEnd<T>::blocked_reason() {
  refresh_credits(now_tick());
  std::ostringstream os;
  // A class is starved when it cannot send one unit of the largest size this
  // link carries: no header credit, or fewer data credits than that takes.
  const int max_data = T::max_data_credits(m_cfg);
  const bool waiting = m_owner.tx_pending(*this);
  for (int vc = 0; vc < std::min(m_cfg.vcs, m_peer ? m_peer->m_cfg.vcs : 1); ++vc)
    for (int c = 0; c < kClasses; ++c) {
      const Credits& cr = m_vc[vc].tx[c];
      const bool no_hdr = !cr.inf_hdr && cr.hdr <= 0;
      const bool few_data = !cr.inf_data && cr.data < max_data;
      if (!no_hdr && !few_data) continue;
      os << " VC" << vc << " " << T::class_name(c) << " " << (no_hdr ? "header" : "data") << " credits starved (";
      if (!cr.inf_hdr) os << cr.hdr << " header";
      if (!cr.inf_hdr && !cr.inf_data) os << ", ";
      if (!cr.inf_data) os << cr.data << " data of the " << max_data << " " << T::kLargestUnit << " takes";
      os << " left";
      if (m_peer) {
        // Who holds them: units the receiver has taken and not released, and
        // credits it freed but has not returned.
        os << "; " << m_peer->m_name << " holds " << m_peer->m_vc[vc].rx_hdr[c] << " " << T::kUnitUnit << "s ("
           << m_peer->m_vc[vc].rx_data[c] << " data credits) unreleased and " << m_peer->m_vc[vc].fc_hdr[c] << " header/"
           << m_peer->m_vc[vc].fc_data[c] << " data credits freed but not yet returned";
      }
      os << (waiting ? std::string("; ") + T::kUnitUnit + "s are waiting to be sent" : std::string()) << ");";
    }
  return os.str();
}

}  // namespace hx::link
