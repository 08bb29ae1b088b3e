// The one coherence engine: it executes the tables of protocol.h for a
// caching agent's line and for a home agent's line. It knows nothing of
// time or transport: an agent model (or the exhaustive search, or a stress
// test's network) hands it events and delivers the messages it sends, and
// times them as its transport does. Every invariant the engine can see on
// its own is checked at each step (a message the table has no row for, a
// response nobody waits for, a snoop count gone wrong) and reported as a
// SimError naming the agent, the line, its state and the message.
// Simplifications: those of the protocol it runs (protocol.h), and no
// timing of its own: a step is instantaneous, and every cost is the agent
// model's or its transport's.
#pragma once
#include <cstdint>
#include <deque>
#include <string>

#include "models/coherence/protocol.h"

namespace hx::coherence {

using AgentId = std::uint16_t;

struct Msg {
  MsgType type = MsgType::None;
  AgentId src = 0, dst = 0;
  AgentId fwd = 0;         // a forwarding snoop's requester, who gets the data
  std::uint64_t line = 0;
  std::uint64_t data = 0;  // the line's value, where the type carries data (an atomic's operand, or its old value)
  std::uint64_t cmp = 0;   // AtomicCompare: the value compared; a partial line's byte enables (msg_partial)
};
static_assert(sizeof(Msg) == 32, "a message's fields packed: every packet and hazard-queue entry carries one");

// How a home serves requests, beyond its tables.
struct HomePolicy {
  // Direct cache-to-cache forwarding: a request that finds a unique owner
  // has the owner send the line (protocol.h). Only where the caching
  // agents can reach each other (a socket system's fabric; not CCIX, whose
  // request agents each talk to their home alone).
  bool forward = false;
  // Migratory sharing: a ReadShared that finds a unique owner takes the
  // line unique (protocol.h, kHomeMigrate). A forwarding or dirty-sharing
  // home ignores it.
  bool migratory = false;
  // Dirty sharing: a ReadShared that finds a dirty owner leaves it the
  // line's owner, shared dirty (SD), and memory stale (protocol.h,
  // kHomeOwned): no memory write, and the owner answers every later read.
  // A forwarding home ignores it.
  bool owned = false;
  // Empty grants: a CleanUnique from a requester that holds no copy is
  // granted unique without data, the line empty at the requester (UCE;
  // protocol.h, kHomeEmpty). With any of the policies above.
  bool empty = false;
};

class Sink {
 public:
  virtual ~Sink() = default;
  virtual void send(const Msg& m) = 0;
  // The home took `row` for the request `req` (statistics per row,
  // coverage; a timed request's ledger).
  virtual void home_row_taken(const HomeRow& row, const Msg& req) {}
  // The home applied the atomic `req` to its line: the value was `old`
  // and is now `now` (equal when a compare failed: nothing was written).
  virtual void home_atomic(const Msg& req, std::uint64_t old, std::uint64_t now) {}
  // The home wrote the whole line of `req` (a WriteUnique) over `old`.
  virtual void home_write(const Msg& req, std::uint64_t old) {}
  // The home wrote the line `req` carried to memory (a write-back, or a
  // whole line written): when its transaction starts or is granted, not
  // when it arrives (it may wait behind the line's transaction in
  // progress, and a stale write-back writes nothing).
  virtual void home_memory_write(const Msg& req) {}
};

// One line at a caching agent.
struct CacheLine {
  RnState state = RnState::I;
  // The lanes of `data` the agent holds: all of them, except in a partial
  // line (rn_partial: UDP and its transients) and an empty one (UCE: none).
  std::uint8_t valid = kAllLanes;
  std::uint64_t data = 0;
};
static_assert(sizeof(CacheLine) == 16, "a line's state and lanes fit beside its value");

// What a step of a caching agent did, for its caller's bookkeeping.
struct RnStep {
  const RnRow* row = nullptr;  // nullptr: a core operation that must wait (no row in this state)
  bool loaded = false;         // a load completed, reading `value`
  bool stored = false;         // a store completed; `value` is the line's value after it
  std::uint64_t value = 0;
  // The bits the store wrote: a partial line's `value` holds only its own
  // lanes' bits, so the store's are those to believe.
  std::uint64_t mask = ~0ull;
  // The access the received message answered is not done: it runs again
  // on the line as it now is (a store whose line was granted empty).
  bool again = false;
  bool rmw = false;            // the store was a near atomic: `old` is the value it read
  std::uint64_t old = 0;
  bool result = false;         // a far atomic completed: `value` is the old value the home returned
};

// Applies the caching agent's table to `l` for event `e` (a core operation,
// or the received message `in`). `store_value` is what a store writes: the
// caller's pending store's value, also when the store completes on a
// received message (a CompData or CompUC for an outstanding write). A
// store writes the bits of `store_mask` only and keeps the line's others
// (a store of some bytes of a line: a field of a descriptor).
// With `rmw`, a store is a near atomic (it writes rmw_apply of the line's
// value, all of it), and a far atomic's request carries its operands.
// A store to a line held empty or partial writes whole lanes (kLanes),
// and every lane written makes it UD; a near atomic needs the whole line
// (its caller fetches it first, by the load's row, and runs it again).
// A message the table has no row for throws SimError.
RnStep rn_step(CacheLine& l, RnEvent e, const Msg* in, AgentId self, AgentId home, std::uint64_t line,
               std::uint64_t store_value, Sink& out, std::uint64_t store_mask = ~0ull, const Rmw* rmw = nullptr);

// One line at its home: the directory, memory's value, the transaction in
// progress and the requests waiting behind it (the hazard queue).
struct HomeLine {
  std::uint64_t sharers = 0;  // bit a: agent a holds the line (the owner included)
  int owner = -1;             // the owner (unique, or SD among sharers), or -1
  std::uint64_t mem = 0;
  // The copy an SD owner sent for the requester (SnpRespData_SD), which the
  // grant carries and memory does not take.
  bool has_copy = false;
  std::uint64_t copy = 0;
  bool busy = false;
  Msg cur;                      // the request being served
  const HomeRow* row = nullptr;
  int snoops_left = 0;
  bool await_ack = false;
  bool forwarded = false;  // the snooped owner sent the requester the data
  bool early_ack = false;  // the requester's CompAck came before the owner's response
  std::deque<Msg> waiting;
  DirState dir() const {
    return owner >= 0 ? (sharers & ~(1ull << owner) ? DirState::O : DirState::U) : sharers ? DirState::S : DirState::I;
  }
  DirCond cond_of(AgentId req) const;
};

// Memory's line `mem` once `m`'s data is written over it: all of it, or a
// partial line's lanes (its byte enables).
std::uint64_t line_written(std::uint64_t mem, const Msg& m);

// A message arrives at the home of its line.
void home_receive(HomeLine& h, const Msg& m, AgentId self, Sink& out, const HomePolicy& policy = {});

// "agent 3 line 0x40 in SM_P" and the like, for errors and reports.
std::string describe(const Msg& m);

}  // namespace hx::coherence
