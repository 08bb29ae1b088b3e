#include "models/coherence/socket.h"

#include <algorithm>
#include <sstream>

#include "models/core/error.h"
#include "models/core/pool.h"

namespace hx::coherence {

namespace {
constexpr int kMaxAgents = 64;  // a home's directory keeps one bit per agent id
}  // namespace

// An agent's channel into the fabric: what it sends is routed by its
// destination. A message that came over a socket link holds that link's
// receive buffer until its agent takes it (releases it); the mesh itself
// has no credits.
class SocketSystem::Attachment final : public Channel {
 public:
  Attachment(SocketSystem& sys, int socket) : m_sys(sys), m_socket(socket) {}
  void send(Packet* p) override {
    p->via = -1;
    m_sys.route(p, m_socket, std::max(p->ready, now_tick()));
  }
  void release(const Packet& p) override {
    if (p.via >= 0) m_sys.m_links[static_cast<std::size_t>(p.via)]->release(p);
  }
  bool pending() const override { return false; }

 private:
  SocketSystem& m_sys;
  int m_socket;
};

SocketSystem::SocketSystem(const std::string& name, const SocketSystemConfig& cfg)
    : m_cfg(cfg), m_name(name), m_sched(name) {
  if (cfg.sockets < 1 || cfg.sockets > 2) sim_fail(name, "a socket system has one or two sockets");
  if (cfg.cores < 1 || cfg.slices < 1) sim_fail(name, "every socket needs a core and an LLC slice");
  if (cfg.sockets * (cfg.cores + cfg.slices) > kMaxAgents)
    sim_fail(name, "more than " + std::to_string(kMaxAgents) + " coherent agents (sockets x (cores + slices))");
  if (cfg.sockets == 2 && (cfg.links < 1 || cfg.links > 4)) sim_fail(name, "two sockets need one to four socket links");
  if (cfg.socket_bytes < kLineB || cfg.socket_bytes % kLineB)
    sim_fail(name, "socket_bytes must be a positive multiple of a line");
  m_socket_lines = Divisor(cfg.socket_bytes / kLineB);
  m_slices = Divisor(static_cast<std::uint64_t>(cfg.slices));
  m_links_per_socket = Divisor(static_cast<std::uint64_t>(std::max(cfg.links, 1)));
  // Agent ids: every core (socket-major), then every slice's home.
  const int ncores = cfg.sockets * cfg.cores;
  m_agents.resize(static_cast<std::size_t>(ncores + cfg.sockets * cfg.slices));
  for (std::size_t id = 0; id < m_agents.size(); ++id) {
    const int i = static_cast<int>(id);
    m_agents[id].socket = i < ncores ? i / cfg.cores : (i - ncores) / cfg.slices;
    m_agents[id].channel = std::make_unique<Attachment>(*this, m_agents[id].socket);
  }
  for (int s = 0; s < cfg.sockets; ++s) {
    mem::MemoryConfig m = cfg.memory;
    m.numa_nodes = 1;  // each socket's DRAM is a controller of its own
    m.far_base = 0;
    m_memory.push_back(std::make_unique<mem::MemoryController>(name + ".s" + std::to_string(s) + ".dram", m));
  }
  for (int s = 0; s < cfg.sockets; ++s)
    for (int k = 0; k < cfg.slices; ++k) {
      HomeAgentConfig h;
      h.id = static_cast<AgentId>(ncores + s * cfg.slices + k);
      h.lookup = cfg.home_lookup;
      h.policy.forward = cfg.forward;
      h.policy.owned = cfg.dirty_sharing;
      m_homes.push_back(std::make_unique<HomeAgent>(name + ".s" + std::to_string(s) + ".cha" + std::to_string(k), h,
                                                    *m_memory[static_cast<std::size_t>(s)]));
      m_agents[h.id].receiver = m_homes.back().get();
      for (int a = 0; a < ncores; ++a) m_homes.back()->attach(static_cast<AgentId>(a), *m_agents[h.id].channel);
    }
  for (int a = 0; a < ncores; ++a) {
    CachingAgentConfig c;
    c.id = static_cast<AgentId>(a);
    c.homes = this;
    c.lookup = cfg.core_lookup;
    c.mshrs = cfg.mshrs;
    c.store_buffer = cfg.store_buffer;
    c.prefetch = cfg.prefetch;
    c.capacity = cfg.l2_lines;
    c.ways = cfg.l2_ways;
    c.victims = cfg.l2_victims;
    const int s = a / cfg.cores;
    m_cores.push_back(std::make_unique<CachingAgent>(
        name + ".s" + std::to_string(s) + ".core" + std::to_string(a % cfg.cores), c, *m_agents[c.id].channel));
    m_agents[c.id].receiver = m_cores.back().get();
  }
  if (cfg.sockets == 2) {
    for (int s = 0; s < 2; ++s)
      for (int l = 0; l < cfg.links; ++l) {
        m_links.push_back(std::make_unique<DirectLink>(*this, name + ".s" + std::to_string(s) + ".link" + std::to_string(l),
                                                       cfg.link_end));
        m_links.back()->port().index = s * cfg.links + l;
      }
    for (int l = 0; l < cfg.links; ++l)
      CohPort::connect(m_links[static_cast<std::size_t>(l)]->port(), m_links[static_cast<std::size_t>(cfg.links + l)]->port(),
                       cfg.link);
  }
  auto& reg = StatsRegistry::instance();
  reg.add_counter(name + ".messages", &messages, "message", "coherence messages delivered to agents");
  reg.add_counter(name + ".link_messages", &link_messages, "message", "messages sent on a socket link");
}

SocketSystem::~SocketSystem() = default;

CachingAgent& SocketSystem::core(int socket, int i) {
  if (socket < 0 || socket >= m_cfg.sockets || i < 0 || i >= m_cfg.cores)
    sim_fail(m_name, "no core " + std::to_string(i) + " on socket " + std::to_string(socket));
  return *m_cores[static_cast<std::size_t>(socket * m_cfg.cores + i)];
}

HomeAgent& SocketSystem::home(int socket, int slice) {
  if (socket < 0 || socket >= m_cfg.sockets || slice < 0 || slice >= m_cfg.slices)
    sim_fail(m_name, "no slice " + std::to_string(slice) + " on socket " + std::to_string(socket));
  return *m_homes[static_cast<std::size_t>(socket * m_cfg.slices + slice)];
}

mem::MemoryController& SocketSystem::memory(int socket) {
  if (socket < 0 || socket >= m_cfg.sockets) sim_fail(m_name, "no socket " + std::to_string(socket));
  return *m_memory[static_cast<std::size_t>(socket)];
}

int SocketSystem::socket_of(std::uint64_t line) const {
  const std::uint64_t s = m_socket_lines.div(line);
  if (s >= static_cast<std::uint64_t>(m_cfg.sockets))
    sim_fail(m_name, "line " + std::to_string(line) + " is beyond the sockets' DRAM");
  return static_cast<int>(s);
}

std::uint64_t SocketSystem::line_at(int socket, std::uint64_t offset) const {
  if (offset >= m_cfg.socket_bytes) sim_fail(m_name, "offset beyond a socket's DRAM");
  return (static_cast<std::uint64_t>(socket) * m_cfg.socket_bytes + offset) / kLineB;
}

AgentId SocketSystem::home_of(std::uint64_t line) const {
  const int s = socket_of(line);
  const int ncores = m_cfg.sockets * m_cfg.cores;
  return static_cast<AgentId>(ncores + s * m_cfg.slices + static_cast<int>(m_slices.mod(line)));
}

// A message leaves an agent (or a socket link's port) on `socket` at `t`
// and crosses that socket's mesh: to its agent, which has it at
// t + mesh_hop, or to the port of the socket link its line uses, which may
// send it from then on. No action of the fabric's own is needed.
void SocketSystem::route(Packet* p, int socket, Tick t) {
  if (p->msg.dst >= m_agents.size()) sim_fail(m_name, "a message to no agent: " + describe(p->msg));
  Agent& to = m_agents[p->msg.dst];
  if (p->ledger) p->ledger->charge(Stage::Propagation, t + m_cfg.mesh_hop);  // the mesh
  if (to.socket == socket) {
    ++messages;
    to.receiver->arrive(*to.channel, p, t + m_cfg.mesh_hop);
    return;
  }
  ++link_messages;
  p->ready = t + m_cfg.mesh_hop;
  const auto l = static_cast<std::size_t>(socket * m_cfg.links) + static_cast<std::size_t>(m_links_per_socket.mod(p->msg.line));
  m_links[l]->send(p);
}

// Across a socket link: from its last byte, the far socket's mesh; the
// link end's buffer is held until the agent takes the message.
void SocketSystem::arrive(Channel& from, Packet* p, Tick tail) {
  const int end = static_cast<DirectLink&>(from).port().index;
  p->via = static_cast<std::int8_t>(end);
  route(p, end < m_cfg.links ? 0 : 1, tail);
}

bool SocketSystem::idle() const {
  for (const auto& h : m_homes)
    if (!h->idle()) return false;
  for (const auto& c : m_cores)
    if (!c->idle()) return false;
  for (const auto& l : m_links)
    if (l->pending()) return false;
  return true;
}

std::string SocketSystem::status() const {
  std::ostringstream os;
  for (int s = 0; s < m_cfg.sockets; ++s) {
    for (int k = 0; k < m_cfg.slices; ++k)
      if (!m_homes[static_cast<std::size_t>(s * m_cfg.slices + k)]->idle())
        os << " socket " << s << " slice " << k << " has a transaction open;";
    for (int c = 0; c < m_cfg.cores; ++c)
      if (!m_cores[static_cast<std::size_t>(s * m_cfg.cores + c)]->idle())
        os << " socket " << s << " core " << c << " has misses outstanding;";
  }
  for (std::size_t l = 0; l < m_links.size(); ++l)
    if (m_links[l]->pending()) os << " socket link end " << l << " holds messages it has no credits for;";
  return os.str();
}

}  // namespace hx::coherence
