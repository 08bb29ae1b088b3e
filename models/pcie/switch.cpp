#include "models/pcie/switch.h"

#include <algorithm>

#include "models/core/error.h"

namespace hx::pcie {


Switch::Switch(sc_core::sc_module_name name, const SwitchConfig& cfg)
    : sc_core::sc_module(name), m_cfg(cfg) {
  if (cfg.ports.size() < 2) sim_fail(basename(), "a switch needs an upstream and at least one downstream port");
  for (std::size_t i = 0; i < cfg.ports.size(); ++i) {
    const std::string pn = std::string(name) + (i == 0 ? ".up" : ".down" + std::to_string(i - 1));
    m_ports.push_back(std::make_unique<PciePort>(*this, pn, cfg.ports[i]));
    m_ports.back()->index = static_cast<int>(i);
  }
  for (const auto& pc : cfg.ports) m_vcs = std::max(m_vcs, std::min(pc.vcs, kMaxVcs));
  m_egress.resize(cfg.ports.size());
  for (std::size_t i = 0; i < m_egress.size(); ++i) {
    Egress& e = m_egress[i];
    e.vcs = static_cast<std::size_t>(m_vcs);
    e.q.assign(cfg.ports.size() * e.vcs, {});
    e.per_in.assign(cfg.ports.size(), 0);
    e.busy.assign((cfg.ports.size() + 63) / 64, 0);
    e.rr.assign(static_cast<std::size_t>(m_vcs), 0);
    e.arb = std::make_unique<VcArbiter>(cfg.ports[i].vc_arb, m_vcs);
  }
  for (std::size_t p = 1; p < cfg.routes.size() && p < cfg.ports.size(); ++p) {
    const PortRoute& r = cfg.routes[p];
    for (const auto& w : r.windows) m_addr_claims.push_back(Claim{w.base, w.base + w.size, static_cast<int>(p)});
    if (r.sec_bus >= 0)
      m_id_claims.push_back(Claim{make_rid(r.segment, r.sec_bus), make_rid(r.segment, r.sub_bus) + 0x100, static_cast<int>(p)});
  }
  for (auto* v : {&m_addr_claims, &m_id_claims}) {
    std::sort(v->begin(), v->end(), [](const Claim& a, const Claim& b) { return a.lo < b.lo; });
    for (std::size_t i = 1; i < v->size(); ++i)
      if ((*v)[i].lo < (*v)[i - 1].hi) sim_fail(basename(), "downstream ports claim overlapping windows or bus ranges");
  }
  auto& reg = StatsRegistry::instance();
  reg.add_counter(std::string(name) + ".forwarded", &forwarded, "TLP", "TLPs forwarded");
  reg.add_counter(std::string(name) + ".acs_redirected", &redirected, "TLP", "peer requests redirected upstream by ACS");
}

int Switch::find_claim(const std::vector<Claim>& v, std::uint64_t key) {
  auto it = std::upper_bound(v.begin(), v.end(), key, [](std::uint64_t k, const Claim& c) { return k < c.lo; });
  if (it == v.begin()) return 0;
  --it;
  return key < it->hi ? it->port : 0;
}

int Switch::route(const Tlp& t, int) const {
  if (t.kind == TlpKind::Cpl || t.kind == TlpKind::CplD || t.by_id)
    return find_claim(m_id_claims, t.by_id ? t.target : t.requester);
  return find_claim(m_addr_claims, t.addr);
}

void Switch::rx_arrive(PciePort& p, Tlp* t, Tick head, Tick tail) {
  t->src_port = static_cast<std::uint16_t>(p.index);
  // Cut-through: forwarding may begin `latency` after the header arrived,
  // but the egress must not finish before the tail has arrived. The egress
  // rate is only known after routing; route now (the header is what routing
  // needs) and compute eligibility for that egress.
  int out = route(*t, p.index);
  if (out == p.index) {
    if (p.index == 0) sim_fail(basename(), "request to unclaimed address " + std::to_string(t->addr) + " from upstream");
    sim_fail(basename(), "TLP would be routed back out of its ingress port");
  }
  if (m_cfg.acs_redirect && p.index != 0 && out != 0 && t->kind != TlpKind::Cpl && t->kind != TlpKind::CplD) {
    out = 0;
    ++redirected;
  }
  PciePort& egress = *m_ports[out];
  Tick eligible;
  if (m_cfg.cut_through) {
    const Tick egress_dur = egress.serialize(egress.wire_bytes(*t));
    eligible = std::max(head + m_cfg.latency, tail + m_cfg.latency > egress_dur ? tail + m_cfg.latency - egress_dur : 0);
  } else {
    eligible = tail + m_cfg.latency;
  }
  if (t->ledger) {
    t->ledger->land(eligible - m_cfg.latency);
    t->ledger->charge(Stage::Switch, eligible);
  }
  // Queue it now, selectable from `eligible` on: a busy egress picks it up
  // when its wire frees, so a hop under load costs one action, not two.
  t->ready = eligible;
  t->seq = m_seq++;
  m_egress[out].at(t->src_port, t->vc)[static_cast<int>(t->fc())].push_back(t);
  ++m_egress[out].queued;
  if (m_egress[out].per_in[t->src_port]++ == 0) m_egress[out].busy[t->src_port / 64] |= 1ull << (t->src_port % 64);
  ++m_queued;
  egress.wake_for(*t);
}


std::size_t Switch::Egress::next_busy(std::size_t from) const {
  const std::size_t n = ports();
  std::size_t w = from / 64;
  if (w >= busy.size()) return n;
  std::uint64_t bits = busy[w] & (~0ull << (from % 64));
  for (;;) {
    if (bits) return std::min(n, w * 64 + static_cast<std::size_t>(__builtin_ctzll(bits)));
    if (++w >= busy.size()) return n;
    bits = busy[w];
  }
}

Tlp* Switch::select_vc(PciePort& p, Egress& e, int vc, Tick now, Tick& next_ready) {
  const std::size_t n = e.ports();
  std::size_t& rr = e.rr[static_cast<std::size_t>(vc)];
  // Round robin over the ingress ports with something queued: rr..n-1, then 0..rr-1.
  for (int pass = 0; pass < 2; ++pass) {
    const std::size_t lo = pass == 0 ? rr : 0, hi = pass == 0 ? n : rr;
    for (std::size_t in = e.next_busy(lo); in < hi; in = e.next_busy(in + 1)) {
      auto& qs = e.at(in, static_cast<std::size_t>(vc));
      // Ordering inside one ingress and VC: the oldest eligible head, but a
      // read or completion never passes an older posted write (spec table 2-40).
      auto& P = qs[0];
      const std::uint64_t p_seq = P.empty() ? ~0ull : P.front()->seq;
      int best = -1;
      std::uint64_t best_seq = ~0ull;
      for (int c = 0; c < kFcClasses; ++c) {
        if (qs[c].empty()) continue;
        Tlp* h = qs[c].front();
        if (h->ready > now) {  // still arriving (cut-through) or in the switch pipeline
          next_ready = std::min(next_ready, h->ready);
          continue;
        }
        if (c != 0 && h->seq > p_seq) continue;
        if (h->seq < best_seq && p.can_send(*h)) {
          best = c;
          best_seq = h->seq;
        }
      }
      if (best >= 0) {
        Tlp* t = qs[best].front();
        qs[best].pop_front();
        --m_queued;
        --e.queued;
        if (--e.per_in[in] == 0) e.busy[in / 64] &= ~(1ull << (in % 64));
        rr = in + 1 == n ? 0 : in + 1;
        ++forwarded;
        m_ports[t->src_port]->release(*t);  // leaves the ingress buffer now
        return t;
      }
    }
  }
  return nullptr;
}

Tlp* Switch::tx_select(PciePort& p) {
  Egress& e = m_egress[p.index];
  const Tick now = now_tick();
  Tick next_ready = kNever;
  Tlp* t = nullptr;
  e.arb->pick([&](int vc) { return (t = select_vc(p, e, vc, now, next_ready)) != nullptr; });
  if (t) return t;
  if (next_ready != kNever) p.wake_at(next_ready);
  return nullptr;
}

link::TxOutlook Switch::tx_outlook(const PciePort& p, Tick at, Tick& next_ready) const {
  if (!tx_pending(p)) return link::TxOutlook::Empty;
  const Egress& e = m_egress[p.index];
  for (std::size_t in = e.next_busy(0); in < e.ports(); in = e.next_busy(in + 1))
    for (std::size_t vc = 0; vc < e.vcs; ++vc)
      for (const auto& q : e.q[in * e.vcs + vc])
        if (!q.empty() && p.head_sendable(*q.front(), at, next_ready)) return link::TxOutlook::Maybe;
  return link::TxOutlook::NoneEligible;
}

}  // namespace hx::pcie
