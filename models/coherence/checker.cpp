#include "models/coherence/checker.h"

#include <string>

#include "models/core/error.h"

namespace hx::coherence {

namespace {
// The checks' failures, out of line: the checks run on every step of every
// agent, and a message built in place would weigh on each call.
[[noreturn, gnu::cold, gnu::noinline]] void single_writer_broken(std::uint16_t agent, std::uint64_t line, RnState after,
                                                                 int readers, int writers) {
  sim_fail("coherence checker", "line " + std::to_string(line) + ": agent " + std::to_string(agent) + " went to " +
                                    rn_state_name(after) + " while " + std::to_string(readers) + " agents hold it (" +
                                    std::to_string(writers) + " writable): single writer broken");
}
[[noreturn, gnu::cold, gnu::noinline]] void stale_load(std::uint16_t agent, std::uint64_t line, std::uint64_t value,
                                                       std::uint64_t golden) {
  sim_fail("coherence checker", "line " + std::to_string(line) + ": agent " + std::to_string(agent) + " loaded " +
                                    std::to_string(value) + ", the last store wrote " + std::to_string(golden));
}
}  // namespace

CoherenceChecker& CoherenceChecker::instance() {
  static CoherenceChecker c;
  return c;
}

void CoherenceChecker::observe(std::uint16_t agent, std::uint64_t line, RnState before, RnState after, bool load,
                               bool store, std::uint64_t value, std::uint64_t mask) {
  if (before == after && !load && !store) return;
  Line& l = m_lines[line];
  if (before != after) changed(agent, line, l, before, after);
  if (load) loaded(agent, line, l, value);
  if (store) l.golden = merge_bits(l.golden, value, mask);
}

void CoherenceChecker::atomic(std::uint16_t agent, std::uint64_t line, std::uint64_t old, std::uint64_t now, bool at_home) {
  replaced("an atomic", agent, line, old, now, at_home);
}

void CoherenceChecker::written_at_home(std::uint16_t agent, std::uint64_t line, std::uint64_t old, std::uint64_t now) {
  replaced("a whole-line write", agent, line, old, now, true);
}

void CoherenceChecker::replaced(const char* what, std::uint16_t agent, std::uint64_t line, std::uint64_t old, std::uint64_t now,
                                bool at_home) {
  Line& l = m_lines[line];
  ++m_checks;
  if (at_home && l.readers > 0)
    sim_fail("coherence checker", "line " + std::to_string(line) + ": " + what + " of agent " + std::to_string(agent) +
                                      " ran at the home while " + std::to_string(l.readers) + " agents hold the line");
  if (old != l.golden)
    sim_fail("coherence checker", "line " + std::to_string(line) + ": " + what + " of agent " + std::to_string(agent) + " found " +
                                      std::to_string(old) + ", the last store wrote " + std::to_string(l.golden));
  l.golden = now;
}

void CoherenceChecker::changed(std::uint16_t agent, std::uint64_t line, Line& l, RnState before, RnState after) {
  l.readers += static_cast<int>(rn_readable(after)) - static_cast<int>(rn_readable(before));
  l.writers += static_cast<int>(rn_writable(after)) - static_cast<int>(rn_writable(before));
  ++m_checks;
  if (l.writers > 1 || (l.writers == 1 && l.readers > 1))
    single_writer_broken(agent, line, after, l.readers, l.writers);
}

void CoherenceChecker::loaded(std::uint16_t agent, std::uint64_t line, const Line& l, std::uint64_t value) {
  ++m_checks;
  if (value != l.golden) stale_load(agent, line, value, l.golden);
}

}  // namespace hx::coherence
