#include "models/ccix/home_port.h"

#include "models/core/error.h"
#include "models/pcie/message.h"

namespace hx::ccix {

// One request agent's end: its CCIX link, sending on its root port.
struct HomePort::End final : public TlpPort {
  End(const std::string& name, const CcixConfig& cfg, host::RootComplex& rc, int port, pcie::Rid rid)
      : rc(rc), port(port), rid(rid), link(name, cfg, *this) {}
  pcie::Tlp* new_message() override { return rc.make_message(port, rid); }
  bool room() const override { return true; }  // root ports queue without bound
  void transmit(pcie::Tlp* t, Tick ready) override { rc.send_message(port, t, ready); }
  host::RootComplex& rc;
  int port;
  pcie::Rid rid;
  CcixLink link;
};

HomePort::HomePort(const std::string& name, const HomePortConfig& cfg, host::RootComplex& rc)
    : m_name(name), m_cfg(cfg), m_rc(rc) {
  m_home = std::make_unique<coherence::HomeAgent>(name + ".home", cfg.home, rc.memory());
  rc.add_message_handler(pcie::kVendorMsgType1, this);
  // The mesh between a core and the home node: its latency and bandwidth,
  // no link-level acknowledgements and no per-class credits (its buffers
  // are not what S000 measures).
  coherence::CohLinkConfig mesh = cfg.core_link;
  mesh.ack_every = 1 << 30;
  mesh.ack_timeout = kMs;
  coherence::CohEndConfig end;
  end.credits = {0, 0, 0, 0};
  for (int i = 0; i < cfg.cores; ++i) {
    coherence::CachingAgentConfig a = cfg.core;
    a.id = static_cast<coherence::AgentId>(cfg.first_core + i);
    a.home = cfg.home.id;
    a.port = end;
    m_cores.push_back(std::make_unique<coherence::CachingAgent>(name + ".core" + std::to_string(i), a));
    coherence::CohPort::connect(m_cores.back()->port(), m_home->add_port(a.id, end), mesh);
  }
}

HomePort::~HomePort() = default;

CcixLink& HomePort::add_agent(coherence::AgentId agent, int port, pcie::Rid rid, const CcixFormat& format) {
  if (m_by_rid.count(rid)) sim_fail(m_name, "two CCIX request agents in one function");
  CcixConfig c = m_cfg.ccix;  // the home's trackers, latency and return policy
  c.format = format;
  m_ends.push_back(std::make_unique<End>(m_name + ".ra" + std::to_string(agent), c, m_rc, port, rid));
  End& e = *m_ends.back();
  e.link.bind(*m_home);
  m_home->attach(agent, e.link);
  m_by_rid[rid] = &e;
  return e.link;
}

void HomePort::on_message(const pcie::Tlp& t, int) {
  auto it = m_by_rid.find(t.requester);
  if (it == m_by_rid.end()) sim_fail(m_name, "a CCIX packet from a function with no request agent");
  it->second->link.on_tlp(t);
}

bool HomePort::idle() const {
  if (!m_home->idle()) return false;
  for (const auto& c : m_cores)
    if (!c->idle()) return false;
  for (const auto& e : m_ends)
    if (e->link.pending()) return false;
  return true;
}

std::string HomePort::credits() const {
  std::string s;
  for (const auto& e : m_ends)
    if (!e->link.whole()) s += (s.empty() ? "" : "; ") + e->link.credits();
  return s;
}

bool HomePort::whole() const {
  for (const auto& e : m_ends)
    if (!e->link.whole()) return false;
  return true;
}

std::string HomePort::status() const {
  std::string s = m_home->status();
  for (std::size_t i = 0; i < m_cores.size(); ++i)
    if (!m_cores[i]->idle()) s += " host core " + std::to_string(i) + ":" + m_cores[i]->status();
  for (const auto& e : m_ends) {
    const std::string b = e->link.blocked_reason();
    if (!b.empty()) s += (s.empty() ? "" : "; ") + b;
  }
  return s;
}

}  // namespace hx::ccix
