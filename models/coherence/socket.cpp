#include "models/coherence/socket.h"

#include <algorithm>
#include <set>
#include <sstream>

#include "models/core/error.h"
#include "models/core/graph_routes.h"
#include "models/core/pool.h"

namespace hx::coherence {

namespace {
constexpr int kMaxAgents = 64;  // a home's directory keeps one bit per agent id
constexpr int kMaxSockets = 8;
}  // namespace

std::vector<std::array<int, 2>> socket_pairs(const SocketSystemConfig& cfg) {
  std::vector<std::array<int, 2>> p;
  const int n = cfg.sockets;
  switch (cfg.graph) {
    case SocketGraph::Full:
      for (int a = 0; a < n; ++a)
        for (int b = a + 1; b < n; ++b) p.push_back({a, b});
      break;
    case SocketGraph::Ring:
      for (int a = 0; a + 1 < n; ++a) p.push_back({a, a + 1});
      if (n > 2) p.push_back({n - 1, 0});
      break;
    case SocketGraph::Pairs:
      p = cfg.pairs;
      break;
  }
  return p;
}

std::string socket_graph_error(const SocketSystemConfig& cfg) {
  const int n = cfg.sockets;
  if (n < 1 || n > kMaxSockets) return "a socket system has one to " + std::to_string(kMaxSockets) + " sockets";
  const auto pairs = socket_pairs(cfg);
  std::set<std::array<int, 2>> seen;
  for (const auto& p : pairs) {
    const std::string what = "the socket pair [" + std::to_string(p[0]) + ", " + std::to_string(p[1]) + "]";
    if (p[0] < 0 || p[0] >= n || p[1] < 0 || p[1] >= n)
      return what + " names a socket beyond the " + std::to_string(n) + " (sockets 0 to " + std::to_string(n - 1) + ")";
    if (p[0] == p[1]) return what + " joins a socket to itself";
    if (!seen.insert({std::min(p[0], p[1]), std::max(p[0], p[1])}).second) return what + " is given twice";
  }
  const std::vector<int> lone = graph_unreachable_from_0(n, pairs);
  if (!lone.empty()) return "no route of socket links joins socket 0 and socket " + std::to_string(lone.front());
  return {};
}

std::vector<int> socket_next_hops(const SocketSystemConfig& cfg) { return graph_next_hops(cfg.sockets, socket_pairs(cfg)); }

// An agent's channel into the fabric: what it sends is routed by its
// destination. A message that came over a socket link holds that link's
// receive buffer until its agent takes it (releases it); the mesh itself
// has no credits.
class SocketSystem::Attachment final : public Channel {
 public:
  Attachment(SocketSystem& sys, int socket) : m_sys(sys), m_socket(socket) {}
  void send(Packet* p) override {
    p->via = Packet::kNoLinkEnd;
    m_sys.route(p, m_socket, std::max(p->ready, now_tick()));
  }
  void release(const Packet& p) override {
    if (p.via != Packet::kNoLinkEnd) m_sys.m_links[static_cast<std::size_t>(p.via)]->release(p);
  }
  bool pending() const override { return false; }

 private:
  SocketSystem& m_sys;
  int m_socket;
};

SocketSystem::SocketSystem(const std::string& name, const SocketSystemConfig& cfg)
    : m_cfg(cfg), m_name(name), m_sched(name) {
  if (const std::string e = socket_graph_error(cfg); !e.empty()) sim_fail(name, e);
  if (cfg.cores < 1 || cfg.slices < 1) sim_fail(name, "every socket needs a core and an LLC slice");
  if (cfg.sockets * (cfg.cores + cfg.slices) > kMaxAgents)
    sim_fail(name, "more than " + std::to_string(kMaxAgents) + " coherent agents (sockets x (cores + slices))");
  if (cfg.sockets > 1 && (cfg.links < 1 || cfg.links > 4)) sim_fail(name, "each pair of sockets joined needs one to four socket links");
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
    m_memory.push_back(std::make_unique<mem::MemoryController>(name + ".s" + std::to_string(s) + ".dram", cfg.memory));
  }
  for (int s = 0; s < cfg.sockets; ++s)
    for (int k = 0; k < cfg.slices; ++k) {
      HomeAgentConfig h;
      h.id = static_cast<AgentId>(ncores + s * cfg.slices + k);
      h.lookup = cfg.home_lookup;
      h.lookup_interval = cfg.home_interval;
      h.policy.forward = cfg.forward;
      h.policy.owned = cfg.dirty_sharing;
      h.policy.empty = cfg.partial_lines;
      h.cache.lines = cfg.llc_lines / static_cast<std::uint64_t>(cfg.slices);
      h.cache.ways = cfg.llc_ways;
      h.cache.hit = cfg.llc_hit;
      h.cache.interleave = static_cast<std::uint64_t>(cfg.slices);
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
    c.rfo_ahead = cfg.rfo_ahead;
    c.prefetch = cfg.prefetch;
    c.capacity = cfg.l2_lines;
    c.ways = cfg.l2_ways;
    c.victims = cfg.l2_victims;
    c.hit = cfg.l2_hit;
    c.l1_lines = cfg.l1_lines;
    c.l1_ways = cfg.l1_ways;
    c.l1_hit = cfg.l1_hit;
    c.silent = cfg.silent != SocketSystemConfig::Silent::None;
    c.partial = cfg.partial_lines;
    const int s = a / cfg.cores;
    m_cores.push_back(std::make_unique<CachingAgent>(
        name + ".s" + std::to_string(s) + ".core" + std::to_string(a % cfg.cores), c, *m_agents[c.id].channel));
    m_agents[c.id].receiver = m_cores.back().get();
  }
  build_links();
  auto& reg = StatsRegistry::instance();
  reg.add_counter(name + ".messages", &messages, "message", "coherence messages delivered to agents");
  reg.add_counter(name + ".link_messages", &link_messages, "message", "messages sent on a socket link");
  bool multi_hop = false;
  for (int a = 0; a < cfg.sockets; ++a)
    for (int b = 0; b < cfg.sockets; ++b) multi_hop = multi_hop || hops(a, b) > 1;
  if (multi_hop)
    reg.add_counter(name + ".passed", &passed, "message", "messages carried across a socket from one socket link to the next");
}

SocketSystem::~SocketSystem() = default;

// The link ends, socket by socket: on each, toward each partner in the
// order of the pairs, `links` ends (named s<socket>.link<k>, k counting the
// socket's ends); then the routes.
void SocketSystem::build_links() {
  const int n = m_cfg.sockets;
  const auto pairs = socket_pairs(m_cfg);
  m_first_end.assign(static_cast<std::size_t>(n * n), -1);
  for (int s = 0; s < n; ++s) {
    int k = 0;
    for (const auto& p : pairs) {
      if (p[0] != s && p[1] != s) continue;
      const int partner = p[0] == s ? p[1] : p[0];
      m_first_end[static_cast<std::size_t>(s * n + partner)] = static_cast<int>(m_links.size());
      for (int l = 0; l < m_cfg.links; ++l, ++k) {
        m_links.push_back(std::make_unique<DirectLink>(*this, m_name + ".s" + std::to_string(s) + ".link" + std::to_string(k),
                                                       m_cfg.link_end));
        CohPort& end = m_links.back()->port();
        end.index = static_cast<int>(m_links.size() - 1);
        m_end_socket.push_back(s);
        // Each end's transmit wire is a resource of the run, so a point's
        // `resources` and `hxsim explain` can name a socket link the busiest.
        std::string what = "socket link, socket " + std::to_string(s) + " to socket " + std::to_string(partner);
        if (m_cfg.links > 1) what += " (" + std::to_string(l + 1) + " of " + std::to_string(m_cfg.links) + ")";
        StatsRegistry::instance().add_resource(end.name(), [&end] { return end.busy_ps.value; }, 1, what);
      }
    }
  }
  for (const auto& p : pairs)
    for (int l = 0; l < m_cfg.links; ++l)
      CohPort::connect(m_links[static_cast<std::size_t>(m_first_end[static_cast<std::size_t>(p[0] * n + p[1])] + l)]->port(),
                       m_links[static_cast<std::size_t>(m_first_end[static_cast<std::size_t>(p[1] * n + p[0])] + l)]->port(),
                       m_cfg.link);
  m_next = socket_next_hops(m_cfg);
}

std::vector<int> socket_route(const std::vector<int>& next, int sockets, int from, int to) {
  std::vector<int> r{from};
  while (r.back() != to) r.push_back(next[static_cast<std::size_t>(r.back() * sockets + to)]);
  return r;
}

int SocketSystem::hops(int from, int to) const {
  const int n = m_cfg.sockets;
  if (from < 0 || from >= n || to < 0 || to >= n) sim_fail(m_name, "no such socket");
  return static_cast<int>(socket_route(m_next, n, from, to).size()) - 1;
}

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

bool SocketSystem::drops_silently(AgentId agent, std::uint64_t line) const {
  return m_cfg.silent == SocketSystemConfig::Silent::All ||
         (m_cfg.silent == SocketSystemConfig::Silent::Remote && socket_of(line) != m_agents[agent].socket);
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
  const int n = m_cfg.sockets;
  const int next = m_next[static_cast<std::size_t>(socket * n + to.socket)];
  const auto l = static_cast<std::size_t>(m_first_end[static_cast<std::size_t>(socket * n + next)]) +
                 static_cast<std::size_t>(m_links_per_socket.mod(p->msg.line));
  m_links[l]->send(p);
}

// Across a socket link: from its last byte, the far socket's mesh; the
// link end's buffer is held until the agent takes the message. A message
// for another socket leaves the buffer when its last byte is in, for the
// next link.
void SocketSystem::arrive(Channel& from, Packet* p, Tick tail) {
  const int end = static_cast<DirectLink&>(from).port().index;
  const int socket = m_end_socket[static_cast<std::size_t>(end)];
  p->via = static_cast<std::uint8_t>(end);
  if (p->msg.dst < m_agents.size() && m_agents[p->msg.dst].socket != socket) {
    ++passed;
    ++m_passing;
    m_sched.at(tail, this, 0, 0, p);
    return;
  }
  route(p, socket, tail);
}

void SocketSystem::on_action(std::uint32_t, std::uint64_t, void* ptr) {
  Packet* p = static_cast<Packet*>(ptr);
  --m_passing;
  const auto end = static_cast<std::size_t>(p->via);
  m_links[end]->release(*p);
  p->via = Packet::kNoLinkEnd;
  route(p, m_end_socket[end], now_tick());
}

bool SocketSystem::idle() const {
  for (const auto& h : m_homes)
    if (!h->idle()) return false;
  for (const auto& c : m_cores)
    if (!c->idle()) return false;
  for (const auto& l : m_links)
    if (l->pending()) return false;
  return m_passing == 0;
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
  if (m_passing) os << " " << m_passing << " messages are passing through a socket to their next link;";
  return os.str();
}

}  // namespace hx::coherence
