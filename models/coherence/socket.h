// A multi-socket host as coherent agents: per socket, cores with a
// private cache each (one caching agent: the core's L1/L2), LLC slices each
// with its home agent and directory (the CHA), and the socket's DRAM;
// one to eight sockets, each pair the socket graph joins (every pair, a
// ring, or pairs given) with one to four socket links (UPI-style) on the
// link engine. Every agent runs the one engine (engine.h) with the same tables
// as CCIX's agents; only the transport differs.
//
// The transport is a fabric of channels (transport.h), one per agent:
//  - on a socket, a message crosses the mesh in `mesh_hop` (core to slice,
//    slice to core, either to the socket-link port): a latency, no credits
//    and no contention (the mesh's bandwidth is far above what one socket
//    link carries);
//  - between sockets, it crosses the mesh to the link port, a socket link
//    (its wire time, latency and per-class message credits: the link
//    engine with coherence traits), then the far socket's mesh; it holds
//    the link's receive buffer until its agent takes it. Lines are spread
//    over a pair's links by line number;
//  - between sockets no link joins, it takes the shortest route in socket
//    links (a breadth-first search of the graph, Boost.Graph; of routes as
//    short, the one the search meets first, which follows the order of the
//    pairs); at each socket it passes through it leaves the link's receive
//    buffer once its last byte is in and crosses that socket's mesh to the
//    next link's port (one mesh trip).
// The fabric schedules nothing of its own but a message passing through a
// socket (one action, when its last byte is in): a message costs its
// agent's action (and, across sockets, the link engine's).
// Homes come from the address map: socket s homes the lines of
// [s * socket_bytes, (s + 1) * socket_bytes), its slices interleaved by
// line number. A home that grants data reads its DRAM at once, beside its
// snoops (the speculative read; wasted when a snoop brings the line dirty
// or the owner forwards it).
// A line a core holds unique (clean or dirty) is forwarded: the home's
// snoop names the requester, and the owning core sends the line straight
// to it across the mesh (and the socket link, if the requester is on the
// other socket), as UPI does (SocketSystemConfig::forward; off, the data
// returns through the home).
//
// A core's private cache is unlimited unless l2_lines says otherwise (LRU
// sets; a victim is written back or evicted to its home). An L1 in front
// of it (l1_lines) holds some of its lines, and serves them sooner.
// Simplifications in this version: a socket's mesh has no credits, so a
// message passing through a socket waits for the next link there without
// holding the last one's buffer (routes cannot deadlock on buffers, and
// the mesh's own contention is not modelled); the LLC (llc_lines: each
// slice's home keeps a cache of its lines, HomeCacheConfig) serves a hit
// after a latency, not as a resource a hit occupies; a core's L1 and L2
// share the core's coherence states (the L1 is inclusive); the prefetcher
// is a next-line one (CachingAgentConfig::prefetch), with no stream
// detection.
#pragma once
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/coherence/agents.h"
#include "models/core/divisor.h"

namespace hx::coherence {

// Which pairs of sockets socket links join.
enum class SocketGraph : std::uint8_t {
  Full,   // every pair (two sockets: the one pair)
  Ring,   // socket s and s + 1, and the last and socket 0
  Pairs,  // SocketSystemConfig::pairs
};

struct SocketSystemConfig {
  int sockets = 2;             // 1 to 8
  int cores = 2;               // cores per socket, each with its private L1/L2 (a caching agent)
  int slices = 1;              // LLC slices per socket, each the home agent of its lines
  Tick core_lookup = 5 * kNs;  // a core's L1/L2: from an access to its miss leaving, and per message received
  Tick l2_hit = 0;             // an access the core's L2 serves (0: core_lookup; CachingAgentConfig::hit)
  int l1_lines = 0;            // each core's L1 in front of its L2, in lines (0: none; CachingAgentConfig::l1_lines)
  int l1_ways = 8;
  Tick l1_hit = 0;             // an access the L1 serves
  Tick home_lookup = 10 * kNs; // a slice's LLC and directory look-up, per message
  Tick home_interval = 0;      // a slice's pipeline takes a message once per interval (HomeAgentConfig::lookup_interval)
  Tick mesh_hop = 5 * kNs;     // one trip across a socket's mesh
  int mshrs = 16;              // outstanding misses per core
  int store_buffer = 0;        // each core's store buffer, in stores (CachingAgentConfig::store_buffer; 0: none)
  int rfo_ahead = 256;         // stores whose lines the buffer asks for ahead of their commit (CachingAgentConfig::rfo_ahead)
  int prefetch = 0;            // lines a core's next-line prefetcher reads after a miss (0: none)
  bool forward = true;         // an owning core sends the line straight to the requester (HomePolicy)
  bool dirty_sharing = false;  // a dirty owner asked to share keeps its line SD (HomePolicy::owned; not with forward)
  // Partial lines: a core's store of some bytes of a line it does not hold
  // takes the line without its data (CachingAgentConfig::partial), and the
  // homes grant such lines empty (HomePolicy::empty; protocol.h).
  bool partial_lines = false;
  int l2_lines = 0;            // each core's private cache, in lines (0: unlimited)
  int l2_ways = 16;
  int l2_victims = 0;          // each core's replacement buffer, in victims awaiting their home's WBAck (0: unlimited)
  // Which clean lines a core gives up for room without telling the home
  // (a silent eviction; the home keeps listing the core and snoops it):
  // none, those homed on another socket, or all.
  enum class Silent : std::uint8_t { None, Remote, All } silent = Silent::None;
  // Each socket's LLC as a cache of data, shared out over its slices
  // (HomeCacheConfig: non-inclusive, filled by the lines written home;
  // 0 lines: none, every read that no core answers goes to DRAM).
  std::uint64_t llc_lines = 0;
  int llc_ways = 16;
  Tick llc_hit = 10 * kNs;     // a hit's data, after the slice's look-up
  std::uint64_t socket_bytes = 64ull << 30;  // DRAM per socket: socket s homes [s, s+1) times this
  mem::MemoryConfig memory;    // each socket's DRAM
  SocketGraph graph = SocketGraph::Full;  // which pairs of sockets socket links join
  std::vector<std::array<int, 2>> pairs;  // with SocketGraph::Pairs: the pairs joined, each once
  int links = 1;               // socket links between each pair the graph joins
  CohLinkConfig link;          // each socket link, one direction
  CohEndConfig link_end;       // each end's receive buffers, per message class
};

// The pairs of sockets that `cfg.graph` joins, in order (a ring's from
// socket 0 on); and what is wrong with them, if anything (a pair outside
// the sockets, a socket paired with itself or a pair twice, sockets no
// route joins), or an empty string.
std::vector<std::array<int, 2>> socket_pairs(const SocketSystemConfig& cfg);
std::string socket_graph_error(const SocketSystemConfig& cfg);
// The routes of a graph without error: [from * sockets + to] is the socket
// a message from `from` to `to` goes to next (`to` itself for a pair
// joined; `from` when from == to). For each destination a breadth-first
// search from it, whose tree gives every other socket its next hop
// (Boost.Graph; of routes as short, the one the search meets first).
std::vector<int> socket_next_hops(const SocketSystemConfig& cfg);
// The sockets a message from `from` to `to` passes on those routes
// (`next`, of `sockets` sockets), both ends included.
std::vector<int> socket_route(const std::vector<int>& next, int sockets, int from, int to);

class SocketSystem final : public Receiver, public HomeMap, public Actor {
 public:
  SocketSystem(const std::string& name, const SocketSystemConfig& cfg);
  ~SocketSystem() override;
  const SocketSystemConfig& config() const { return m_cfg; }
  CachingAgent& core(int socket, int i);
  HomeAgent& home(int socket, int slice);
  mem::MemoryController& memory(int socket);
  // The socket that homes `line`.
  int socket_of(std::uint64_t line) const;
  // The line number of byte `offset` of socket `socket`'s DRAM.
  std::uint64_t line_at(int socket, std::uint64_t offset) const;
  bool idle() const;
  std::string status() const;  // what is not idle, for the deadlock diagnosis

  AgentId home_of(std::uint64_t line) const override;
  bool drops_silently(AgentId agent, std::uint64_t line) const override;
  // socket-link callbacks
  void arrive(Channel& from, Packet* p, Tick tail) override;
  // A message passing through a socket, on its way to the next link.
  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;
  // Socket links a message from socket `from` to socket `to` crosses.
  int hops(int from, int to) const;

  Counter messages, link_messages;
  Counter passed;  // messages carried across a socket from one socket link to the next

 private:
  class Attachment;
  struct Agent {
    int socket = 0;
    Receiver* receiver = nullptr;
    std::unique_ptr<Attachment> channel;
  };
  void route(Packet* p, int socket, Tick t);
  void build_links();
  SocketSystemConfig m_cfg;
  Divisor m_socket_lines, m_slices, m_links_per_socket;  // a socket's lines; slices and links per socket
  std::string m_name;
  Scheduler m_sched;
  std::vector<Agent> m_agents;  // by agent id
  std::vector<std::unique_ptr<mem::MemoryController>> m_memory;
  std::vector<std::unique_ptr<HomeAgent>> m_homes;       // socket-major
  std::vector<std::unique_ptr<CachingAgent>> m_cores;    // socket-major
  std::vector<std::unique_ptr<DirectLink>> m_links;      // link ends: socket 0's, then socket 1's, ...
  std::vector<int> m_end_socket;  // by link end: its socket
  std::vector<int> m_next;        // [from * sockets + to]: the socket a message goes to next
  std::vector<int> m_first_end;   // [from * sockets + next]: the first of from's ends toward next (-1: none)
  std::size_t m_passing = 0;      // messages crossing a socket between two links
};

}  // namespace hx::coherence
