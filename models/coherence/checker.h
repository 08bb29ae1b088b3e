// The invariants of timed coherent agents, on in every run: every caching
// agent reports each step of each line to the checker, which keeps, per
// line, how many agents may read it and how many may write it, and the
// value of its last store (a golden memory: stores are serialised by the
// single-writer rule). It fails the run, naming the line and the agent,
// when a writer coexists with another copy or a load returns anything but
// the last store's value, and when an atomic reads anything else. Lines
// start at 0, as the home's memory does.
#pragma once
#include <cstdint>

#include "models/coherence/protocol.h"
#include "models/core/line_map.h"

namespace hx::coherence {

class CoherenceChecker {
 public:
  // The process's checker (one system of agents per process, as one
  // SystemC elaboration per process).
  static CoherenceChecker& instance();
  // One step of one agent on one line (its state before and after, and the
  // value it loaded or stored, if it did: a store writes the bits of
  // `mask`), with one look-up of the line.
  void observe(std::uint16_t agent, std::uint64_t line, RnState before, RnState after, bool load, bool store,
               std::uint64_t value, std::uint64_t mask = ~0ull);
  // An atomic read `old` and wrote `now` at once (a near atomic in an
  // agent's cache, or a far one at the home, where no agent may hold the
  // line): `old` must be the last store's value.
  void atomic(std::uint16_t agent, std::uint64_t line, std::uint64_t old, std::uint64_t now, bool at_home);
  // The home wrote agent's whole line `now` over `old` (a WriteUnique; no
  // agent may hold the line): `old` must be the last store's value, as
  // every dirty copy came home first.
  void written_at_home(std::uint16_t agent, std::uint64_t line, std::uint64_t old, std::uint64_t now);
  std::uint64_t checks() const { return m_checks; }
  void clear() { m_lines.clear(); m_checks = 0; }

 private:
  struct Line {
    int readers = 0, writers = 0;
    std::uint64_t golden = 0;
  };
  void replaced(const char* what, std::uint16_t agent, std::uint64_t line, std::uint64_t old, std::uint64_t now, bool at_home);
  void changed(std::uint16_t agent, std::uint64_t line, Line& l, RnState before, RnState after);
  void loaded(std::uint16_t agent, std::uint64_t line, const Line& l, std::uint64_t value);
  LineMap<Line> m_lines;
  std::uint64_t m_checks = 0;
};

}  // namespace hx::coherence
