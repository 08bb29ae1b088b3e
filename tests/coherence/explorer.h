// Exhaustive search of the coherence protocol: every interleaving of every
// core operation and every message delivery, for a few caching agents and
// lines and one or more homes (lines interleaved over them, as a socket
// system's HomeMap spreads them over sockets and slices), over the tables
// and engine the simulator runs
// (models/coherence). The network delivers in any order (no channel is
// assumed FIFO). Data values are kept exact but canonical: per line, the
// value of the last store is 1, and every other value 0, so the state space
// is finite and a stale copy is still told from a fresh one. A line's value
// has two halves (lanes 0-3 and 4-7), each canonical so: a store writes
// both, a partial store (StorePtl) the low one.
//
// Checked in every state reached:
//  - single writer or many readers per line;
//  - every readable copy holds the last store's value, and every load
//    returns it;
//  - the directory lists every agent holding a readable copy, except the
//    requester of a forwarded transaction the home has not yet heard the
//    owner answer (and a write-back still listed holds the last value);
//    at a quiescent line
//    it lists exactly the holders (with silent evictions, at least them),
//    and memory holds the last value unless a unique dirty copy does;
//  - no deadlock: with nothing in flight, no agent waits and no home is
//    busy;
//  - every message meets a row of the tables (the engine throws otherwise);
//  - an atomic at the home reads the last store's value;
//  - a ReadOnce's (and a ReadNoSnp's) snapshot is the last store's value
//    when it arrives.
#pragma once
#include <cstdint>
#include <string>
#include <tuple>
#include <vector>

#include "models/coherence/engine.h"

namespace hx::coherence::test {

// Deliberate faults, so that the tests can show each check catching a
// broken protocol (a check that cannot fail proves nothing).
enum class Mutation {
  None,
  IgnoreInvalidation,  // a sharer answers SnpToI but keeps its copy
  LoseSnoop,           // every SnpToI (and SnpToIFwd) sent is lost
  KeepForwardedLine,   // a unique owner forwards the line unique but keeps its copy
  AtomicKeepsCopy,     // a far atomic's requester installs the old value as a shared copy
  ReadOnceKeepsCopy,   // a ReadOnce's requester keeps the snapshot as a shared copy
  DropDirtyShared,     // a dirty owner asked to share (SnpToS) answers as a clean one: SnpResp_SC, its line left SC
  NoSnpToCachedLine,   // a core issues ReadNoSnp to line 0, which the agents also cache
  DropDirtyLine,       // with silent evictions, a dirty line is dropped silently as a clean one is
  WholePartialLine,    // a partial line's data (WriteBackPtl, SnpRespDataPtl) goes home with every byte enabled
};

struct ExploreConfig {
  int agents = 2;
  int lines = 1;
  int homes = 1;          // line l's home is home l % homes
  int mshrs = 1;          // requests outstanding per agent at once
  bool forward = false;   // the homes forward (HomePolicy): owners send the line to requesters
  bool migratory = false; // the homes serve a ReadShared that finds an owner as a ReadUnique (HomePolicy)
  bool atomics = false;   // the cores also issue far atomics (every kind)
  bool once = false;      // the cores also issue accesses that keep no copy (ReadOnce, WriteUnique)
  bool make_unique = false;  // the cores also issue whole-line stores that take the line by MakeUnique
  bool owned = false;     // the homes keep dirty lines shared (HomePolicy): a dirty owner asked to share stays SD
  bool read_clean = false;  // the cores also issue ReadClean (a read that takes a clean copy only)
  // The last line is one no agent caches: the cores issue only ReadNoSnp and
  // WriteNoSnp to it (and those to no other line).
  bool nosnp = false;
  // The cores also give clean lines up silently (Drop: the home not told).
  // Loads and stores only beside them (the rows serve reads from an agent
  // the directory still lists, not atomics or accesses that keep no copy).
  bool silent = false;
  // Partial lines: the homes grant lines empty (HomePolicy::empty), and the
  // cores also store half a line (its low four lanes) by StorePtl, which
  // takes a line not held by CleanUnique (with silent evictions too).
  bool partial = false;
  std::size_t max_states = 20'000'000;
  Mutation mutation = Mutation::None;
};

struct ExploreResult {
  std::size_t states = 0, transitions = 0;
  std::string error;  // the first violation, with the trace that led to it
  std::vector<int> rn_rows_used, home_rows_used;  // per table row: times taken
  int max_in_flight = 0;
  bool complete = false;  // the whole space was searched
};

ExploreResult explore(const ExploreConfig& cfg);

// A total order of messages, so that the messages in flight, a multiset,
// have one canonical form (sorted) in a searched state's key.
inline bool msg_less(const Msg& a, const Msg& b) {
  return std::tie(a.type, a.src, a.dst, a.line, a.data, a.fwd, a.cmp) < std::tie(b.type, b.src, b.dst, b.line, b.data, b.fwd, b.cmp);
}

}  // namespace hx::coherence::test
