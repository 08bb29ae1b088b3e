// Where one transaction's time goes. A ledger telescopes: it holds a mark
// (the time up to which the transaction is accounted for) and the time
// spent per stage; every component the transaction passes charges the
// interval from the mark to the time it hands the transaction on to the
// stage that interval was spent in, and moves the mark. The stages then add
// up exactly to the time from the ledger's opening to its mark, by
// construction; a charge backwards in time is a simulator bug and fails.
//
// A transaction that fans out (a read cut into requests, a request answered
// by several completions) forks its ledger: each piece carries its own copy
// on from the fork, and the piece that finishes the transaction (its last
// data) gives it its ledger: the breakdown follows the critical path.
//
// Ledgers travel only with the transactions a workload times (a null
// pointer elsewhere costs one test per hop). Pieces in flight take theirs
// from a pool (Pool<Ledger>); the transaction's own one is the workload's.
#pragma once
#include <array>
#include <cstdint>

#include "models/core/pool.h"
#include "models/core/tick.h"

namespace hx {

// The stages in the order a DMA read meets them.
enum class Stage : std::uint8_t {
  Device,         // the device's engine: command handling, TLP formation, data handling after arrival
  HardBlock,      // a PCIe hard block's TX and RX pipelines (endpoint tx_latency / rx_latency)
  Arbitration,    // queued for a transmitter: its wire busy, older units ahead of it
  Credit,         // queued with the receiver out of flow-control credits for it
  Serialisation,  // its bytes on the wire, until the receiver acts on it
  Propagation,    // link latency: PHY, SerDes, flight; an idle transmitter's exit from its power state (ASPM L0s)
  Switch,         // a switch's forwarding pipeline
  RootComplex,    // root-complex pipelines: inbound, line pipeline slots, read trackers, completion formation
  Translation,    // address translation: IOMMU lookups and walks, ATS round trips
  Ordering,       // waits for older posted writes (PCIe ordering rules)
  Coherence,      // coherent agents: cache and directory look-ups, the hazard queue, CCIX layers, atomics at the home
  Memory,         // the memory system: LLC, DRAM, the socket link
  Software,       // a host core's software between the transactions a measurement times: polls, retry waits, a lock's holder
  kCount
};
constexpr int kStages = static_cast<int>(Stage::kCount);
const char* stage_name(Stage s);  // snake_case, as results.json keys it
const char* stage_what(Stage s);

struct Ledger {
  static constexpr const char* kPoolName = "a latency ledger";
  std::uint64_t id = 0;  // the pool's (0 for a workload's own ledger)
  std::array<Tick, kStages> spent{};
  Tick mark = 0;
  // The unit's latest transmission, kept for the receiver's land().
  Tick tx_pipeline = 0, latency = 0;
  // Time it waited for credits in the transmit queue it is in now.
  Tick credit_from = kNever, credit_wait = 0;

  void open(Tick at) {
    spent.fill(0);
    mark = at;
    credit_from = kNever;
    credit_wait = 0;
  }
  // [mark, to) was spent in `s`.
  void charge(Stage s, Tick to);
  // Transmitted at `start` (the link end calls it): the queue wait since
  // the mark is credit wait as far as it was found lacking credits, else
  // arbitration.
  void on_wire(Tick start, Tick pipeline, Tick link_latency);
  // The receiver acts on it at `at`: what passed since the transmission is
  // the transmitter's pipeline, the link latency and, the rest, bytes still
  // arriving (a cut-through receiver acts before the tail).
  void land(Tick at);
  // The transmit queue found it lacking credits at `at` / able to go at `at`.
  void lacked_credits(Tick at) {
    if (credit_from == kNever) credit_from = at;
  }
  void had_credits(Tick at) {
    if (credit_from != kNever && at > credit_from) credit_wait += at - credit_from;
    credit_from = kNever;
  }
  Tick total() const;
  // Appends `seg`, a ledger opened at this one's mark for a stretch of the
  // way shared with other transactions (a CCIX packet's TLP, which carries
  // several messages): its stages become this one's, up to its mark.
  void extend(const Ledger& seg);
  // Everything but the pool's id.
  void copy_from(const Ledger& o) {
    const std::uint64_t keep = id;
    *this = o;
    id = keep;
  }
};

using LedgerPool = Pool<Ledger>;

// The breakdowns of many transactions of one measurement: sums per stage.
// add() holds each transaction to the ledger's promise: accounted for up
// to its done time, and its stages adding up to its latency exactly.
struct Breakdown {
  std::uint64_t count = 0;
  Tick latency = 0;  // summed
  std::array<Tick, kStages> spent{};
  void add(const Ledger& l, Tick opened, Tick done);
  double mean_ns(Stage s) const;
  double mean_latency_ns() const;
};

// A copy of `from` from the pool for a piece of the transaction; nullptr
// when the transaction is not timed.
inline Ledger* fork_ledger(const Ledger* from) {
  if (!from) return nullptr;
  Ledger* l = LedgerPool::instance().get();
  l->copy_from(*from);
  return l;
}
inline void drop_ledger(Ledger*& l) {
  if (!l) return;
  LedgerPool::instance().put(l);
  l = nullptr;
}

}  // namespace hx
