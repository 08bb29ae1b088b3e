// Timed coherent agents: a caching agent and a home agent that run the one
// engine (engine.h) and carry its messages on coherence links
// (transport.h). Each event costs its controller's latency, then the
// engine's step; a message is one queue entry and at most one dispatcher
// action per hop, as a TLP is.
//  - CachingAgent: the lines a core touches, an MSHR table (models/cache)
//    that merges a core's later accesses to a line with a request
//    outstanding and holds accesses back when it is full; responses and
//    data leave before snoop responses, and those before requests, each
//    class on its own credits.
//  - HomeAgent: the directory and memory of the lines it homes, one
//    transaction per line (the engine's hazard queue); a request whose
//    grant carries data reads memory at once, in parallel with its snoops
//    (a speculative read), and the grant leaves when the snoops are
//    answered and, unless a snoop brought dirty data, the memory data is
//    there; dirty data and write-backs are written to memory.
// Every step of every caching agent passes the coherence checker
// (checker.h): single writer or many readers per line, and every load the
// value of the line's last store.
// Simplifications in this version: a caching agent holds every line it
// touches (no capacity, so no replacement and no write-back); the home
// snoops and answers through its own links only (no forwarding); one link
// per caching agent, straight to the home.
#pragma once
#include <array>
#include <deque>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/cache/mshr.h"
#include "models/coherence/transport.h"
#include "models/core/scheduler.h"
#include "models/memory/memory.h"

namespace hx::coherence {

// What a core hears back from its caching agent.
class CoreSide {
 public:
  virtual ~CoreSide() = default;
  // The access `tag` is done at `at`: a load read `value`, a store wrote it.
  virtual void access_done(std::uint64_t tag, std::uint64_t value, Tick at) = 0;
};

struct CachingAgentConfig {
  AgentId id = 0;
  AgentId home = 1;
  Tick lookup = 2 * kNs;  // the controller's latency for each access and each message received
  int mshrs = 8;
  int merge = 8;          // accesses one MSHR entry holds
  CohEndConfig port;
};

// Messages waiting for a link, per class, sent responses first.
class ClassQueues {
 public:
  void push(Packet* p) { m_q[static_cast<std::size_t>(CohLinkTraits::cls(*p))].push_back(p); }
  Packet* select(CohPort& port);
  bool empty() const;

 private:
  std::array<std::deque<Packet*>, kMsgClasses> m_q;
};

class CachingAgent final : public CohPortOwner, public Actor, public Sink {
 public:
  CachingAgent(const std::string& name, const CachingAgentConfig& cfg);
  CohPort& port() { return m_port; }
  const CachingAgentConfig& config() const { return m_cfg; }
  // A core access to `line`, issued now; `core` hears when it is done.
  void access(bool store, std::uint64_t line, std::uint64_t value, std::uint64_t tag, CoreSide& core);
  RnState state(std::uint64_t line) const;
  std::uint64_t data(std::uint64_t line) const;
  bool idle() const { return m_mshr.in_use() == 0 && m_blocked.empty() && m_tx.empty(); }

  // link and engine callbacks
  Packet* tx_select(CohPort& p) override { return m_tx.select(p); }
  void rx_arrive(CohPort& p, Packet* u, Tick head, Tick tail) override;
  bool tx_pending(const CohPort&) const override { return !m_tx.empty(); }
  Scheduler& scheduler() override { return m_sched; }
  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;
  void send(const Msg& m) override;

  Counter accesses, hits, misses, merged;

 private:
  struct Access {
    static constexpr const char* kPoolName = "a core access";
    std::uint64_t id = 0;
    bool store = false;
    std::uint64_t line = 0, value = 0, tag = 0;
    CoreSide* core = nullptr;
  };
  void run(const Access& a);
  void receive(Packet* p);
  void check(std::uint64_t line, RnState before, RnState after, const RnStep& r);
  CachingAgentConfig m_cfg;
  Scheduler m_sched;
  CohPort m_port;
  std::string m_name;
  std::unordered_map<std::uint64_t, CacheLine> m_lines;
  cache::MshrTable<Access> m_mshr;
  std::deque<Access> m_blocked;   // accesses that found every MSHR busy, oldest first
  std::vector<Access> m_again, m_retry;  // scratch: accesses to run again after a request retires
  ClassQueues m_tx;
};

struct HomeAgentConfig {
  AgentId id = 0;
  Tick lookup = 10 * kNs;  // directory look-up and pipeline, per message
  std::vector<CohEndConfig> ports;  // one per caching agent, in agent-id order
};

class HomeAgent final : public CohPortOwner, public Actor, public Sink, public mem::MemoryClient {
 public:
  HomeAgent(const std::string& name, const HomeAgentConfig& cfg, mem::MemoryController& memory);
  CohPort& port(AgentId agent) { return *m_ports.at(agent); }
  const HomeLine& line(std::uint64_t l) { return m_lines[l]; }
  bool idle() const;

  Packet* tx_select(CohPort& p) override { return m_tx[static_cast<std::size_t>(p.index)].select(p); }
  void rx_arrive(CohPort& p, Packet* u, Tick head, Tick tail) override;
  bool tx_pending(const CohPort& p) const override { return !m_tx[static_cast<std::size_t>(p.index)].empty(); }
  Scheduler& scheduler() override { return m_sched; }
  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;
  void send(const Msg& m) override;
  void home_row_taken(const HomeRow& row) override;
  void memory_done(const mem::MemRequest& r, Tick at) override;

  Counter requests, snoops, memory_reads, memory_writes;

 private:
  // What the home waits for on a line, beside the engine's state.
  struct Wait {
    bool reading = false;      // a memory read is under way for the transaction
    bool dirty_in = false;     // a snoop brought the line's data
    bool parked = false;       // the grant waits for the memory read
    std::uint64_t seq = 0;     // the transaction's number: a late read of an earlier one is ignored
    Msg grant;
  };
  void transmit(const Msg& m);
  HomeAgentConfig m_cfg;
  Scheduler m_sched;
  mem::MemoryController& m_mem;
  std::vector<std::unique_ptr<CohPort>> m_ports;
  std::vector<ClassQueues> m_tx;
  std::unordered_map<std::uint64_t, HomeLine> m_lines;
  std::unordered_map<std::uint64_t, Wait> m_wait;
  std::uint64_t m_cur_line = 0;  // the line whose message the engine is handling
  std::uint64_t m_seq = 0;
};

}  // namespace hx::coherence
