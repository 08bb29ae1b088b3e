// Timed coherent agents: a caching agent and a home agent that run the one
// engine (engine.h) and carry its messages on channels (transport.h):
// direct coherence links, or CCIX in PCIe TLPs. Each event costs its
// controller's latency, then the engine's step; a message is one queue entry and at most one dispatcher
// action per hop, as a TLP is.
//  - CachingAgent: the lines a core touches, an MSHR table (models/cache)
//    that merges a core's later accesses to a line with a request
//    outstanding and holds accesses back when it is full. Its channel
//    (transport.h) sends responses and data before snoop responses, and
//    those before requests, each class on its own credits.
//  - HomeAgent: the directory and memory of the lines it homes, one
//    transaction per line (the engine's hazard queue); a request whose
//    grant carries data reads memory at once, in parallel with its snoops
//    (a speculative read), and the grant leaves when the snoops are
//    answered and, unless a snoop brought dirty data, the memory data is
//    there; a snoop's dirty data is written to memory when it arrives, a
//    write-back's or a whole line's when its transaction is served (a
//    stale write-back, whose line a snoop took first, writes nothing); an atomic
//    waits for the line's value the same way, then costs `atomic_latency`
//    and writes its result to memory. A grant waiting for memory is kept
//    by its transaction's number, not its line: an atomic's grant ends its
//    transaction, and the line's next one may start before it leaves.
//    A home may keep a cache of the lines it homes in front of its memory
//    (HomeAgentConfig::cache: an LLC slice's data array, non-inclusive, a
//    victim cache): every line written home (a write-back, a snoop's
//    dirty data, a whole line, an atomic's result) is filled there and
//    reaches memory only when the cache gives it up; a read that hits is
//    served after `hit` without memory, one that misses reads memory
//    without filling. Tags only: the values stay the engine's.
//    Every message the home receives passes its pipeline (`lookup`); with
//    `lookup_interval` the pipeline takes one at most per interval, at the
//    interval's slots, so messages that arrive together queue for it.
// Every step of every caching agent passes the coherence checker
// (checker.h): single writer or many readers per line, and every load the
// value of the line's last store.
// A home set to forward (HomeAgentConfig::policy) has an owner send the
// line straight to the requester; the requester's channel must then reach
// the other caching agents (a socket system's fabric, socket.h).
// A timed access (one given a ledger, models/core/ledger.h) is accounted
// for along its critical path: its look-ups and waits at the caching agent
// and the home (`coherence`), each message's way on its channel, the
// home's wait for its line's earlier transactions (the hazard queue), then
// whichever came last of the snoop responses (each snoop carries a copy of
// the path) and the memory read (`memory`); the answer carries it back.
// A caching agent's capacity is unlimited unless its config sets one
// (CachingAgentConfig::capacity: LRU sets, victims written back or evicted).
// Its replacement buffer (victims given up for room, until the home
// acknowledges them) is unlimited unless CachingAgentConfig::victims sets
// a size. Simplifications in this version: a caching agent has one
// channel; where its lines have several homes (CachingAgentConfig::homes),
// that channel routes by destination (a socket system's fabric, socket.h).
#pragma once
#include <array>
#include <deque>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "models/cache/mshr.h"
#include "models/cache/tag_array.h"
#include "models/coherence/transport.h"
#include "models/core/divisor.h"
#include "models/core/line_map.h"
#include "models/core/scheduler.h"
#include "models/core/slot_calendar.h"
#include "models/memory/memory.h"

namespace hx::coherence {

// What a core hears back from its caching agent.
class CoreSide {
 public:
  virtual ~CoreSide() = default;
  // The access `tag` is done at `at`: a load read `value`, a store wrote it.
  virtual void access_done(std::uint64_t tag, std::uint64_t value, Tick at) = 0;
};

// Which home agent serves a line, where an agent's lines have several
// homes (a socket system's LLC slices on either socket).
class HomeMap {
 public:
  virtual ~HomeMap() = default;
  virtual AgentId home_of(std::uint64_t line) const = 0;
  // Whether `agent` gives `line` up without telling its home when the line
  // is clean (RnEvent::Drop: the home's directory keeps listing it).
  virtual bool drops_silently(AgentId, std::uint64_t) const { return false; }
};

// Told when a caching agent's readable copy of a line is taken away (a
// polling loop waits for this instead of spinning on its own copy).
class LineWatcher {
 public:
  virtual ~LineWatcher() = default;
  virtual void line_lost(std::uint64_t line) = 0;
};

struct CachingAgentConfig {
  AgentId id = 0;
  AgentId home = 1;              // every line's home, unless `homes` is set
  const HomeMap* homes = nullptr;  // each line's home (not owned)
  Tick lookup = 2 * kNs;  // the controller's latency for each access and each message received
  Tick request_latency = 0;  // from a miss to its request leaving (e.g. an address translation on the way)
  int mshrs = 8;
  int merge = 8;          // accesses one MSHR entry holds
  // The core's store buffer, in stores (x86-TSO): a core's store completes
  // into it and the buffer commits its stores to this cache in order
  // (CoreThread, core_thread.h); 0: none, a call's stores are done in the
  // cache before it returns.
  int store_buffer = 0;
  // With a store buffer: how many stores behind the oldest it asks for the
  // lines of ahead of their commit (a core's RFO prefetch), at most the
  // MSHRs but one; 0: a store's line is asked for by its commit alone.
  int rfo_ahead = 256;
  // A next-line prefetcher: a core's load or store that misses also reads
  // this many lines after its own (shared), within its 4 KiB page, each not
  // held nor outstanding, while an MSHR stays free for the core; 0: none.
  int prefetch = 0;
  // The private cache's capacity: lines holding data, `ways` to a set (a
  // line's set is its number modulo capacity / ways), least recently used
  // first out; 0: unlimited. A victim is given up as a core's eviction is
  // (Evict clean, WriteBack dirty) and waits in the replacement buffer
  // until the home acknowledges it; a core's access to it waits as well.
  int capacity = 0;
  int ways = 16;
  // A core's access that this cache serves (a load of a line it can read,
  // a store to one it holds unique) is done after `hit` rather than
  // `lookup` (0: lookup, a hit costs what a miss's look-up does).
  Tick hit = 0;
  // The core's L1 in front of this cache: `l1_lines` of the lines this
  // cache holds (0: none), `l1_ways` to a set (a line's set is its number
  // modulo l1_lines / l1_ways), least recently used first out. A line
  // enters it when a core's access to it is done here and leaves it when
  // this cache loses the line (the L1 is inclusive, and its lines are in
  // this cache's states); an access it serves is done after `l1_hit`.
  // Where a served access is done from (L1, this cache, or a miss) is
  // decided when it is issued, and an L1 hit uses its L1 line then: a
  // snoop that takes the line before the access is looked up makes it a
  // miss whose request leaves that much earlier.
  int l1_lines = 0;
  int l1_ways = 8;
  Tick l1_hit = 0;
  // The replacement buffer's entries (with a finite capacity): victims
  // awaiting the home's acknowledgement; 0: unlimited. While every entry is
  // taken, a line that arrives in a full set stays beyond its ways until an
  // entry frees (the fill is not refused), and a miss that would allocate
  // in a full set waits.
  int victims = 0;
  // Clean victims of the lines `homes` says so (HomeMap::drops_silently)
  // are given up without a message (RnEvent::Drop); the agent's requests
  // must then be loads and stores (the rows for a requester the directory
  // still lists).
  bool silent = false;
  // Where a core's atomic runs when the agent holds no copy of its line:
  // at the home (far: the operation travels, the line stays where it is,
  // CCIX/CHI's atomic transactions) or here (near: the line is fetched
  // unique, as for a store). A line the agent holds runs its atomic near.
  bool far_atomics = true;
  // A store of a whole line to a line not held takes the line unique
  // without its data (MakeUnique, protocol.h) rather than reading it
  // (ReadUnique): what a cache that knows the store overwrites the line
  // does. A store of some of a line's bits, or an atomic, still reads it.
  bool make_unique = false;
  // A store of some of a line's bytes (whole lanes, protocol.h) to a line
  // not held takes the line unique without its data (CleanUnique from I):
  // a home that grants lines empty (HomePolicy::empty) leaves it UCE, and
  // the store makes it partial (UDP), whose bytes go home by WriteBackPtl
  // or a snoop's SnpRespDataPtl, merged into memory's; another home sends
  // the data with the grant. A load of the line then asks for the rest.
  bool partial = false;
  // A load of a line not held takes a clean copy only (ReadClean, protocol.h):
  // an agent that must never own dirty data it did not write (a dirty
  // owner it reads from sends the data home rather than keep it shared).
  bool read_clean = false;
  // A store that missed: from its line's arrival (or, by MakeUnique, its
  // grant's) to the store being done
  // (a write-allocate cache that merges the write into the arrived line by
  // passing it through its pipeline again); 0: done on arrival.
  Tick store_fill = 0;
  CohEndConfig port;
};

class CachingAgent final : public Receiver, public Actor, public Sink {
 public:
  // An agent on a direct coherence link to its home (cfg.port; port()).
  CachingAgent(const std::string& name, const CachingAgentConfig& cfg);
  // An agent whose messages `channel` carries (CCIX: models/ccix); it must
  // call arrive() on the agent for every message to it.
  CachingAgent(const std::string& name, const CachingAgentConfig& cfg, Channel& channel);
  CohPort& port();
  const CachingAgentConfig& config() const { return m_cfg; }
  // A core access to `line`, issued now; `core` hears when it is done. A
  // store writes the bits of `mask` of the line (all of it by default).
  // A timed access passes its ledger (models/core/ledger.h), accounted for
  // up to now and kept by the caller: when `core` hears, it is accounted
  // for up to the done time along the access's critical path (its
  // request's messages, snoops and memory read). So do the calls below.
  void access(bool store, std::uint64_t line, std::uint64_t value, std::uint64_t tag, CoreSide& core,
              std::uint64_t mask = ~0ull, Ledger* led = nullptr);
  // A core access that keeps no copy of `line` (a streaming access, or an
  // I/O-coherent agent's): from a line not held, a ReadOnce (the load gets
  // the home's snapshot) or a WriteUnique of the whole line (the store is
  // done once the home has written it); a line held is loaded or stored in
  // the cache, as by access().
  void access_once(bool store, std::uint64_t line, std::uint64_t value, std::uint64_t tag, CoreSide& core,
                   Ledger* led = nullptr);
  // A core access to a line no agent caches (a non-snoopable region): a
  // ReadNoSnp or a WriteNoSnp of the whole line, served from memory with no
  // snoop. The line must not be held here (a SimError) nor anywhere (the
  // home's error).
  void access_nosnp(bool store, std::uint64_t line, std::uint64_t value, std::uint64_t tag, CoreSide& core,
                    Ledger* led = nullptr);
  // A core's atomic on `line`'s value (config().far_atomics says where it
  // runs); `core` hears the old value.
  void atomic(const Rmw& rmw, std::uint64_t line, std::uint64_t tag, CoreSide& core, Ledger* led = nullptr);
  // Give `line` up (an eviction, or a cache-maintenance flush): a clean
  // line is evicted, a dirty one written back; done at once if not held.
  void evict(std::uint64_t line, std::uint64_t tag, CoreSide& core);
  // Tell `w` once, when this agent can no longer read `line` (a snoop took
  // its copy); at once if it cannot now. One watcher per line.
  void watch(std::uint64_t line, LineWatcher& w);
  RnState state(std::uint64_t line) const;
  std::uint64_t data(std::uint64_t line) const;
  bool idle() const { return m_mshr.in_use() == 0 && m_blocked.empty() && m_victims.empty() && !m_channel->pending(); }
  // What it waits for, for a deadlock's report: each line with a request
  // outstanding and its state, and the accesses held back.
  std::string status() const;

  // channel and engine callbacks
  void arrive(Channel& from, Packet* p, Tick tail) override;
  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;
  void send(const Msg& m) override;

  Counter accesses, hits, misses, merged;  // an eviction of a line not held counts as a hit
  Counter l1_hits;                          // accesses timed as L1 hits when issued (with CachingAgentConfig::l1_lines)
  Counter prefetches;                       // lines read by the prefetcher
  Counter forwards;                         // lines sent straight to another agent (a forwarding snoop)
  Counter evictions, writebacks, drops;     // lines given up for room (writebacks: dirty ones; drops: clean ones given up silently)
  Counter victim_waits;                     // misses held back while the replacement buffer was full
  Counter atomics_far, atomics_near;        // atomics sent to the home, and run here
  Counter uncached;                         // accesses that kept no copy (ReadOnce, WriteUnique, ReadNoSnp, WriteNoSnp sent)

 private:
  struct Access {
    static constexpr const char* kPoolName = "a core access";
    std::uint64_t id = 0;
    RnEvent op = RnEvent::Load;  // Load, Store, Replace, ReadOnce, WriteUnique, ReadNoSnp or WriteNoSnp; Count: an atomic (`rmw`)
    std::uint64_t line = 0, value = 0, mask = ~0ull, tag = 0;
    Rmw rmw;
    CoreSide* core = nullptr;
    Ledger* led = nullptr;   // a timed access's (its caller's)
    bool l1 = false;         // timed as an L1 hit: that was the L1's use of its line
    Access* next = nullptr;  // the next access of its batch (below)
    void fresh() {}          // taken from its pool: issue() writes every field
  };
  CachingAgent(const std::string& name, const CachingAgentConfig& cfg, Channel* channel);
  Access* issue(RnEvent op, std::uint64_t line, std::uint64_t value, std::uint64_t mask, std::uint64_t tag, CoreSide& core,
                Ledger* led);
  void run(const Access& a);
  void loads_and_stores_only(const char* what) const;  // fails with silent evictions
  void prefetch_after(std::uint64_t line);
  // How long a core's access issued now takes to be looked up: `l1_hit`
  // if the L1 serves it (*in_l1 set), `hit` if this cache does (when set),
  // `lookup` otherwise (CachingAgentConfig).
  Tick lookup_of(RnEvent op, std::uint64_t line, bool* in_l1);
  // The L1's copy of `line`, in `state` here: taken when a core's access to
  // it is done (if this cache can read it), dropped when this cache loses it.
  void l1_fill(std::uint64_t line, RnState state);
  void l1_drop(std::uint64_t line);
  void receive(Packet* p);
  void check(std::uint64_t line, RnState before, RnState after, const RnStep& r);
  // Keeps the private cache's sets in step with a line's change of state
  // (it came to hold data, lost it, or was used), evicting for room.
  void placed(std::uint64_t line, RnState before, RnState after);
  void lost(std::uint64_t line);  // tell the line's watcher, if any
  void retry_blocked();
  // A line's set in the private cache (with a finite capacity).
  std::vector<std::uint64_t>& set_of(std::uint64_t line) { return m_sets[line % m_sets.size()]; }
  // Every replacement-buffer entry is taken (never with an unlimited buffer).
  bool victims_full() const { return m_cfg.victims > 0 && m_victims.size() >= static_cast<std::size_t>(m_cfg.victims); }
  // Filling `line` would need a victim's entry, and none is free: its set
  // is full and so is the replacement buffer.
  bool no_room_for(std::uint64_t line) { return victims_full() && set_of(line).size() >= static_cast<std::size_t>(m_cfg.ways); }
  // Gives up the least recently used line of `set` that has no request
  // outstanding, keeping `keep`; false if none can go.
  bool evict_from(std::vector<std::uint64_t>& set, std::uint64_t keep);
  void evict_overfull();  // sets beyond their ways, while the buffer has room
  AgentId home_of(std::uint64_t line) const { return m_cfg.homes ? m_cfg.homes->home_of(line) : m_cfg.home; }
  // The event of a load (a core's or the prefetcher's) of a line not held:
  // a ReadClean where the agent is set to read clean, a ReadShared's Load otherwise.
  RnEvent read_load() const { return m_cfg.read_clean ? RnEvent::ReadClean : RnEvent::Load; }
  CachingAgentConfig m_cfg;
  Scheduler m_sched;
  std::unique_ptr<DirectLink> m_direct;  // when the agent has its own link
  Channel* m_channel;
  std::string m_name;
  LineMap<CacheLine> m_lines;
  cache::MshrTable<Access> m_mshr;
  std::deque<Access> m_blocked;   // accesses that found every MSHR busy, oldest first
  std::vector<Access> m_again, m_retry;  // scratch: accesses to run again after a request retires
  std::unordered_map<std::uint64_t, LineWatcher*> m_watch;
  // The private cache's sets when its capacity is finite: per set, the
  // lines holding data, least recently used first.
  std::vector<std::vector<std::uint64_t>> m_sets;
  std::unique_ptr<cache::TagArray<std::uint64_t>> m_l1;  // line numbers; none without CachingAgentConfig::l1_lines
  std::unordered_set<std::uint64_t> m_victims;  // the replacement buffer: evictions the home has not acknowledged
  std::deque<std::uint64_t> m_overfull;         // lines whose sets went beyond their ways while the buffer was full
  // Accesses a core issues one after another for the same time, with
  // nothing else posted between them, run in one action, in order: what
  // their actions would have done, one action instead of several.
  Access* m_batch_tail = nullptr;
  Tick m_batch_at = 0;
  std::uint64_t m_batch_posted = 0;
  // While the engine steps for a timed access or on a timed message: its
  // ledger, which the messages sent then carry on (forked).
  const Ledger* m_step_led = nullptr;
};

// A home's cache of the lines it homes (HomeAgent: 0 lines, none).
struct HomeCacheConfig {
  std::uint64_t lines = 0;
  int ways = 16;
  Tick hit = 0;                // a hit's data, from the home's look-up on
  std::uint64_t interleave = 1;  // homes that share the lines in turn (its sets index line / interleave)
};

struct HomeAgentConfig {
  AgentId id = 0;
  Tick lookup = 10 * kNs;  // directory look-up and pipeline, per message
  // The pipeline takes a message at most once per interval, as a clocked
  // pipeline does (slots at multiples of the interval from time zero): a
  // message enters at the first free slot from its arrival on, then takes
  // `lookup` (0: it takes as many at once as arrive, and `lookup` is a
  // latency only).
  Tick lookup_interval = 0;
  Tick atomic_latency = 0;  // an atomic's operation, once the line's value is here
  HomePolicy policy;       // e.g. direct cache-to-cache forwarding
  HomeCacheConfig cache;   // a cache of the lines it homes in front of memory (none by default)
  // One direct link per caching agent, in agent-id order; agents beyond
  // these are reached through channels given to attach().
  std::vector<CohEndConfig> ports;
};

class HomeAgent final : public Receiver, public Actor, public Sink, public mem::MemoryClient {
 public:
  HomeAgent(const std::string& name, const HomeAgentConfig& cfg, mem::MemoryController& memory);
  CohPort& port(AgentId agent);  // the direct link to `agent`
  // Messages to and from `agent` travel on `channel` (CCIX: models/ccix).
  void attach(AgentId agent, Channel& channel);
  // A direct link to `agent` beyond the configured ones (a core added
  // later, as a CCIX home's host cores): its end here.
  CohPort& add_port(AgentId agent, const CohEndConfig& cfg);
  const HomeLine& line(std::uint64_t l) { return m_lines[l].dir; }
  bool idle() const;
  // Each line with a transaction open: the request served, what it waits
  // for (snoop responses, the CompAck, memory) and the requests behind it.
  std::string status() const;

  void arrive(Channel& from, Packet* p, Tick tail) override;
  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;
  void send(const Msg& m) override;
  void home_row_taken(const HomeRow& row, const Msg& req) override;
  void home_atomic(const Msg& req, std::uint64_t old, std::uint64_t now) override;
  void home_write(const Msg& req, std::uint64_t old) override;
  void home_memory_write(const Msg& req) override;
  void memory_done(const mem::MemRequest& r, Tick at) override;

  Counter requests, snoops, memory_reads, memory_writes;
  Counter forwarded;  // transactions whose data an owner sent the requester (the memory read wasted)
  Counter atomics;    // atomics executed here
  Counter whole_writes;  // WriteUniques and WriteNoSnps: lines written by agents that keep no copy
  Counter dirty_shared;  // reads served from the copy of an owner that kept its line dirty (SD)
  Counter pipeline_waits;  // messages that found their first slot taken (HomeAgentConfig::lookup_interval)
  Counter cache_hits;    // grants' lines read from the home's cache instead of memory
  Counter cache_fills;   // lines written home into the home's cache (memory_writes: those it gave up)

 private:
  // What the home waits for on a line, beside the engine's state.
  struct Wait {
    Ledger* led = nullptr;     // a timed transaction's (from its request), until the transaction ends
    bool reading = false;      // a memory read is under way for the transaction
    bool dirty_in = false;     // a snoop brought the line's data
    bool atomic = false;       // the transaction is an atomic (its grant costs the operation)
    bool atomic_write = false; // an atomic's result that memory must take (not a failed compare)
    std::uint64_t seq = 0;     // the transaction's number: a late read of an earlier one is ignored
  };
  // A grant waiting for its transaction's memory read. It outlives the
  // transaction when the grant ends it (an atomic's: no CompAck), and the
  // line's next transaction may start meanwhile.
  struct Parked {
    Msg grant;
    bool atomic = false;
    bool atomic_write = false;
    Ledger* led = nullptr;  // the grant's, when its transaction is timed
  };
  void transmit(const Msg& m, bool atomic, bool atomic_write, Ledger* led);
  // A line written home at `at`: into the home's cache if it has one (its
  // victim, if any, to memory), else to memory (its channel occupied).
  void memory_write(std::uint64_t line, Tick at);
  // Whether the home's cache holds `line` (a hit counts as a use), and the
  // set it goes in (its line number among the homes sharing the lines).
  bool cache_holds(std::uint64_t line);
  std::size_t cache_set(std::uint64_t line) const;
  Wait& wait_of(std::uint64_t line);
  Channel& channel(AgentId agent);
  HomeAgentConfig m_cfg;
  std::string m_name;
  Scheduler m_sched;
  mem::MemoryController& m_mem;
  std::unique_ptr<cache::TagArray<std::uint64_t>> m_cache;  // line numbers; none without HomeCacheConfig::lines
  Divisor m_interleave;  // HomeCacheConfig::interleave
  SlotCalendar m_pipe;    // the pipeline's slots (HomeAgentConfig::lookup_interval)
  // Hits whose data is not there yet, (line, transaction number), oldest
  // first: each is due `hit` after it was taken, so they come in order.
  std::deque<std::pair<std::uint64_t, std::uint64_t>> m_cache_reads;
  std::vector<std::unique_ptr<DirectLink>> m_direct;
  std::vector<Channel*> m_channels;  // by agent id
  struct Line {
    HomeLine dir;  // the engine's state of the line
    Wait wait;
  };
  LineMap<Line> m_lines;
  std::uint64_t m_cur_line = 0;  // the line whose message the engine is handling
  Line* m_cur = nullptr;         // its record, while the engine handles it
  std::uint64_t m_seq = 0;
  std::unordered_map<std::uint64_t, Parked> m_parked;  // by transaction number
  // Timed requests received and not yet served, by (line, requester): an
  // agent has one request per line outstanding.
  std::map<std::pair<std::uint64_t, AgentId>, Ledger*> m_timed;
};

}  // namespace hx::coherence
