#include "models/pcie/port.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "models/core/error.h"
#include "models/core/trace.h"

namespace hx::pcie {

namespace {
// SKP ordered sets: 4 B every 1538 B (S010, pcie_constants.yaml skp_ordered_set).
constexpr double kSkpFraction = 4.0 / 1538.0;
const char* kClassName[] = {"P", "NP", "Cpl"};
}  // namespace

PciePort::PciePort(PortOwner& owner, std::string name, const PortConfig& cfg)
    : m_owner(owner), m_name(std::move(name)), m_cfg(cfg) {
  auto& reg = StatsRegistry::instance();
  reg.add_counter(m_name + ".tx_tlps", &tx_tlps, "TLP", "TLPs transmitted");
  reg.add_counter(m_name + ".tx_bytes", &tx_bytes, "B", "bytes on the wire incl. framing and DLLPs");
  reg.add_counter(m_name + ".tx_payload", &tx_payload, "B", "TLP payload bytes transmitted");
  reg.add_counter(m_name + ".tx_dllps", &tx_dllps, "DLLP", "ACK and UpdateFC DLLPs transmitted");
  reg.add_counter(m_name + ".busy", &busy_ps, "ps", "time the transmit wire was occupied");
  reg.add_counter(m_name + ".credit_stalls", &credit_stalls, "1", "times a queued TLP was found (or foreseen) to lack credits");
}

double lane_gts(const LinkConfig& l) { return l.rate_gts > 0 ? l.rate_gts : generation(l.gen).gts; }

Encoding link_encoding(const LinkConfig& l) { return l.encoding_set ? l.encoding : generation(l.gen).encoding; }

double link_bytes_per_ns(const LinkConfig& l) {
  const Encoding e = link_encoding(l);
  double rate_Bpns = lane_gts(l) * encoding_traits(e).efficiency * l.width / 8.0;
  if (l.skp && e != Encoding::kFlit) rate_Bpns *= (1.0 - kSkpFraction);
  return rate_Bpns;
}

double write_payload_bytes_per_ns(const LinkConfig& l, int payload, int tx_align_B) {
  const auto p = static_cast<std::uint32_t>(payload);
  const std::uint32_t wire = tlp_wire_bytes(16, (p + 3u) & ~3u, static_cast<std::uint32_t>(encoding_traits(link_encoding(l)).tlp_framing_B),
                                            false, static_cast<std::uint32_t>(tlp_align(l, tx_align_B)));
  return link_bytes_per_ns(l) * payload / wire;
}

void PciePort::connect(PciePort& a, PciePort& b, const LinkConfig& link) {
  if (a.m_peer || b.m_peer) sim_fail(a.m_name, "port connected twice");
  a.m_peer = &b;
  b.m_peer = &a;
  for (PciePort* p : {&a, &b}) {
    PciePort* rx = p->m_peer;
    p->m_link = link;
    const EncodingTraits& g = encoding_traits(link_encoding(link));
    p->m_ps_per_byte = 1000.0 / link_bytes_per_ns(link);
    // Gen1/2 start STP on lane 0 (lane 4m on wider links): TLPs occupy whole
    // 4-byte symbol columns on x4 and wider links (spec 4.2.1). The
    // transmitter's datapath beat can be coarser (tx_align_B).
    p->m_align = tlp_align(link, p->m_cfg.tx_align_B);
    if (p->m_align & (p->m_align - 1)) sim_fail(p->m_name, "TLP alignment must be a power of two");
    p->m_framing_B = static_cast<std::uint32_t>(g.tlp_framing_B);
    p->m_dllp_B = static_cast<std::uint32_t>(g.dllp_B);
    p->m_dllp_time = p->serialize(p->m_dllp_B);
    const int vcs = std::min(p->m_cfg.vcs, rx->m_cfg.vcs);
    for (int vc = 0; vc < kMaxVcs; ++vc) {
      for (int c = 0; c < kFcClasses; ++c) {
        Credits& cr = p->m_tx_credits[vc][c];
        if (vc >= vcs) {
          cr = Credits{};  // no credits: VC not enabled on this link
          continue;
        }
        cr.hdr = rx->m_cfg.hdr_credits(vc, c);
        cr.data = rx->m_cfg.data_credits(vc, c);
        cr.inf_hdr = cr.hdr == 0;
        cr.inf_data = cr.data == 0;
      }
    }
  }
}

std::uint32_t PciePort::wire_bytes(const Tlp& t) const {
  return tlp_wire_bytes(t.header_B(), t.payload_wire_B(), m_framing_B, t.ecrc, static_cast<std::uint32_t>(m_align));
}

Tick PciePort::serialize(std::uint32_t bytes) const {
  return static_cast<Tick>(static_cast<double>(bytes) * m_ps_per_byte + 0.5);  // round half up (never negative)
}

void PciePort::refresh_credits(Tick now) {
  while (!m_credit_inflight.empty() && m_credit_inflight.front().t <= now) {
    const InFlight& f = m_credit_inflight.front();
    Credits& c = m_tx_credits[f.vc][f.cls];
    c.hdr += f.hdr;
    c.data += f.data;
    m_credit_inflight.pop_front();
  }
}

bool PciePort::can_send(const Tlp& t) {
  refresh_credits(now_tick());
  const Credits& c = m_tx_credits[t.vc][static_cast<int>(t.fc())];
  const bool ok = (c.inf_hdr || c.hdr >= 1) && (c.inf_data || c.data >= t.data_credits());
  if (!ok) {
    check_vc(t);
    ++credit_stalls;
    m_blocked = true;
  }
  return ok;
}

void PciePort::check_vc(const Tlp& t) const {
  if (t.vc >= std::min(m_cfg.vcs, m_peer->m_cfg.vcs))
    sim_fail(m_name, std::string("TLP on VC") + std::to_string(t.vc) + " which this link does not enable");
}

bool PciePort::credits_at(const Tlp& t, Tick at) const {
  const int cls = static_cast<int>(t.fc());
  Credits c = m_tx_credits[t.vc][cls];
  for (const InFlight& f : m_credit_inflight) {
    if (f.t > at) break;
    if (f.vc == t.vc && f.cls == cls) {
      c.hdr += f.hdr;
      c.data += f.data;
    }
  }
  return (c.inf_hdr || c.hdr >= 1) && (c.inf_data || c.data >= t.data_credits());
}

// When to try for t: when it is ready and the wire is free; or, if its
// credits could not have come back by then, not at all (the port counts as
// blocked, so a credit return wakes it) unless credits already in flight
// arrive later.
Tick PciePort::wake_time_for(const Tlp& t) {
  const Tick at = std::max({t.ready, now_tick(), m_wire_free});
  if (credits_at(t, at)) return at;
  check_vc(t);
  ++credit_stalls;
  m_blocked = true;
  return credit_after(at);
}

Tick PciePort::credit_after(Tick at) const {
  for (const InFlight& f : m_credit_inflight)
    if (f.t > at) return f.t;
  return kNever;
}

bool PciePort::head_sendable(const Tlp& h, Tick at, Tick& next_ready) const {
  if (h.ready > at) {
    next_ready = std::min(next_ready, h.ready);
    return false;
  }
  return credits_at(h, at);
}

void PciePort::wake_for(const Tlp& t) {
  if (m_selecting) {
    m_deferred_tlps.push_back(&t);
    return;
  }
  const Tick w = wake_time_for(t);
  if (w != kNever) wake_at(w);
}

void PciePort::wake_at(Tick t) {
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
  m_owner.scheduler().at(t, this, kWake, t);
}

void PciePort::try_send() {
  if (!m_peer) return;
  const Tick now = now_tick();
  place_due_acks(now);
  if (m_wire_free > now) {
    wake_at(m_wire_free);
    return;
  }
  m_blocked = false;
  // Wakes the owner asks for while selecting (a later TLP's ready time, say)
  // are held until the wire time of what is selected now is known: a wake
  // inside that transmission would only find the wire busy.
  m_selecting = true;
  m_deferred_wake = kNever;
  m_deferred_tlps.clear();
  Tlp* t = m_owner.tx_select(*this);
  m_selecting = false;
  Tick wake = m_deferred_wake;
  if (!t) {
    if (m_blocked && !m_credit_inflight.empty()) wake = std::min(wake, m_credit_inflight.front().t);
  } else {
    transmit(t, now);
    Tick next_ready = kNever;
    if (!m_owner.tx_pending(*this)) {
      // nothing queued: new work wakes the port
    } else if (m_owner.tx_none_eligible(*this, m_wire_free, next_ready)) {
      // Trying when the wire frees would fail for credits: set up what that
      // failure would (a wake at the next credit or ready time, and wakes on
      // credit returns) without the attempt.
      m_blocked = true;
      wake = std::min({wake, next_ready, credit_after(m_wire_free)});
    } else {
      wake = std::min(wake, m_wire_free);
    }
  }
  // TLPs the owner queued while selecting, now that the wire time is known.
  for (const Tlp* d : m_deferred_tlps) wake = std::min(wake, wake_time_for(*d));
  if (wake != kNever) wake_at(wake);
}

void PciePort::transmit(Tlp* t, Tick now) {
  Credits& c = m_tx_credits[t->vc][static_cast<int>(t->fc())];
  if (!c.inf_hdr) c.hdr -= 1;
  if (!c.inf_data) c.data -= t->data_credits();
  if (c.hdr < 0 || c.data < 0) sim_fail(m_name, "flow-control credits went negative");
  if (t->len > static_cast<std::uint32_t>(m_cfg.mps) && carries_data(t->kind))
    sim_fail(m_name, std::string("transmitting a ") + kind_name(t->kind) + " of " + std::to_string(t->len) +
                         " B above this port's MPS " + std::to_string(m_cfg.mps));
  if (carries_data(t->kind) && t->len > static_cast<std::uint32_t>(m_peer->m_cfg.mps))
    sim_fail(m_name, std::string("malformed TLP: a ") + kind_name(t->kind) + " of " + std::to_string(t->len) +
                         " B to a receiver whose MPS is " + std::to_string(m_peer->m_cfg.mps));
  const std::uint32_t bytes = wire_bytes(*t);
  const Tick dur = serialize(bytes);
  const Tick start = now;
  const Tick end = start + dur;
  m_wire_free = end;
  tx_tlps += 1;
  tx_bytes += bytes;
  tx_payload += t->len;
  busy_ps += dur;
  ++t->hops;
  // The TX pipeline of an endpoint's transaction layer is a constant delay
  // after arbitration: it shifts arrival, not the wire's occupancy.
  const Tick head = start + serialize(static_cast<std::uint32_t>(t->header_B() + 4)) + m_link.latency + m_cfg.tx_pipeline;
  const Tick tail = end + m_link.latency + m_cfg.tx_pipeline;
  t->rx_start = start + m_link.latency + m_cfg.tx_pipeline;
  auto& trace = Trace::instance();
  if (trace.want(start)) {
    if (m_trace_tx < 0) m_trace_tx = trace.track("link " + m_name + " -> " + m_peer->m_name);
    if (m_peer->m_trace_rx < 0) m_peer->m_trace_rx = trace.track("in " + m_peer->m_name);
    trace.span(m_trace_tx, kind_name(t->kind), start, end, t->id, t->len);
    if (trace.want(head)) trace.span(m_peer->m_trace_rx, kind_name(t->kind), head, tail, t->id, t->len);
  }
  m_owner.tx_done(*this, *t, start, end);
  m_peer->on_received(*t, tail);
  m_peer->m_owner.rx_tlp(*m_peer, t, head, tail);
}

// Receiver side: buffer occupancy and the ACK policy.
void PciePort::on_received(const Tlp& t, Tick tail) {
  const int cls = static_cast<int>(t.fc());
  m_rx_hdr[t.vc][cls] += 1;
  m_rx_data[t.vc][cls] += t.data_credits();
  const int adv_h = m_cfg.hdr_credits(t.vc, cls), adv_d = m_cfg.data_credits(t.vc, cls);
  if (adv_h && m_rx_hdr[t.vc][cls] > adv_h)
    sim_fail(m_name, "receive buffer overflow (header credits) on " + std::string(kClassName[cls]));
  if (adv_d && m_rx_data[t.vc][cls] > adv_d)
    sim_fail(m_name, "receive buffer overflow (data credits) on " + std::string(kClassName[cls]));
  // ACK policy: after ack_every TLPs, or ack_timeout after the last TLP of
  // a batch that stopped short (known once the next TLP's tail is known).
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

// Place an ACK due at `due` on this port's wire: in the idle gap if the wire
// was free then, otherwise right behind what was on the wire.
void PciePort::place_dllp(Tick due) {
  m_wire_free = std::max(due, m_wire_free) + m_dllp_time;
  tx_dllps += 1;
  tx_bytes += m_dllp_B;
  busy_ps += m_dllp_time;
}

void PciePort::place_due_acks(Tick now) {
  while (!m_acks_due.empty() && m_acks_due.front() <= now) {
    place_dllp(m_acks_due.front());
    m_acks_due.pop_front();
  }
  if (m_unacked > 0 && m_last_rx_tail + m_link.ack_timeout <= now) {
    place_dllp(m_last_rx_tail + m_link.ack_timeout);
    m_unacked = 0;
  }
}

Tick PciePort::send_dllp(Tick at) {
  place_due_acks(at);
  place_dllp(at);
  return m_wire_free + m_link.latency;  // arrival at the partner
}

void PciePort::release(const Tlp& t) {
  const int cls = static_cast<int>(t.fc());
  const int vc = t.vc;
  m_rx_hdr[vc][cls] -= 1;
  m_rx_data[vc][cls] -= t.data_credits();
  if (m_rx_hdr[vc][cls] < 0 || m_rx_data[vc][cls] < 0) sim_fail(m_name, "released a TLP that was not buffered");
  const int adv_h = m_cfg.hdr_credits(vc, cls), adv_d = m_cfg.data_credits(vc, cls);
  const bool inf_h = adv_h == 0, inf_d = adv_d == 0;
  if (inf_h && inf_d) return;  // infinite credits are never returned
  if (!inf_h) m_fc_hdr[vc][cls] += 1;
  if (!inf_d) m_fc_data[vc][cls] += t.data_credits();
  m_fc_tlps[vc][cls] += 1;
  // The receiver knows what its partner can still send: advertised minus
  // what it holds unreported. When that would block a maximum-size TLP, it
  // returns credits at once; otherwise it batches (spec 2.6.1.2 leaves the
  // policy to the implementation within the UpdateFC latency limits).
  const int held_h = m_rx_hdr[vc][cls] + m_fc_hdr[vc][cls];
  const int held_d = m_rx_data[vc][cls] + m_fc_data[vc][cls];
  const int max_tlp_data = (m_cfg.mps + kCreditDataUnit - 1) / kCreditDataUnit;
  const bool starving = (!inf_h && adv_h - held_h < 1) || (!inf_d && adv_d - held_d < max_tlp_data);
  if (starving || m_fc_tlps[vc][cls] >= m_link.fc_update_every) {
    flush_fc(vc, cls);
  } else if (!m_fc_timer[vc][cls]) {
    m_fc_timer[vc][cls] = true;
    m_owner.scheduler().at(now_tick() + m_link.fc_update_timeout, this, kFcDue,
                           static_cast<std::uint64_t>(vc * kFcClasses + cls));
  }
}

void PciePort::flush_fc(int vc, int cls) {
  if (m_fc_tlps[vc][cls] == 0) return;
  const Tick arrive = send_dllp(now_tick());
  m_peer->m_credit_inflight.push_back(InFlight{arrive, vc, cls, m_fc_hdr[vc][cls], m_fc_data[vc][cls]});
  m_fc_hdr[vc][cls] = m_fc_data[vc][cls] = m_fc_tlps[vc][cls] = 0;
  if (m_peer->m_blocked) m_peer->wake_at(arrive);
}

void PciePort::on_action(std::uint32_t kind, std::uint64_t arg, void*) {
  switch (kind) {
    case kWake:
      if (arg == m_next_wake) m_next_wake = kNever;
      try_send();
      break;
    case kFcDue: {
      const int vc = static_cast<int>(arg) / kFcClasses, cls = static_cast<int>(arg) % kFcClasses;
      m_fc_timer[vc][cls] = false;
      flush_fc(vc, cls);
      break;
    }
  }
}

bool PciePort::has_rx_occupancy() const {
  for (int vc = 0; vc < kMaxVcs; ++vc)
    for (int c = 0; c < kFcClasses; ++c)
      if (m_rx_hdr[vc][c]) return true;
  return false;
}

std::string PciePort::blocked_reason() {
  refresh_credits(now_tick());
  std::ostringstream os;
  // A class is starved when it cannot send one TLP of the largest size this
  // link carries: no header credit, or fewer data credits than MPS takes.
  const int mps_data = (m_cfg.mps + kCreditDataUnit - 1) / kCreditDataUnit;
  const bool waiting = m_owner.tx_pending(*this);
  for (int vc = 0; vc < std::min(m_cfg.vcs, m_peer ? m_peer->m_cfg.vcs : 1); ++vc)
    for (int c = 0; c < kFcClasses; ++c) {
      const Credits& cr = m_tx_credits[vc][c];
      const bool no_hdr = !cr.inf_hdr && cr.hdr <= 0;
      const bool few_data = !cr.inf_data && cr.data < mps_data;
      if (!no_hdr && !few_data) continue;
      os << " VC" << vc << " " << kClassName[c] << " " << (no_hdr ? "header" : "data") << " credits starved (";
      if (!cr.inf_hdr) os << cr.hdr << " header";
      if (!cr.inf_hdr && !cr.inf_data) os << ", ";
      if (!cr.inf_data) os << cr.data << " data of the " << mps_data << " an MPS TLP takes";
      os << " left";
      if (m_peer) {
        // Who holds them: TLPs the receiver has taken and not released, and
        // credits it freed but has not returned in an UpdateFC.
        os << "; " << m_peer->m_name << " holds " << m_peer->m_rx_hdr[vc][c] << " TLPs (" << m_peer->m_rx_data[vc][c]
           << " data credits) unreleased and " << m_peer->m_fc_hdr[vc][c] << " header/" << m_peer->m_fc_data[vc][c]
           << " data credits freed but not yet returned";
      }
      os << (waiting ? "; TLPs are waiting to be sent" : "") << ");";
    }
  return os.str();
}

}  // namespace hx::pcie
