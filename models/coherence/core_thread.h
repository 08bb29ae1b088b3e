// A core's accesses as the software on it sees them: blocking calls from
// the core's SystemC process (one process per core, not per access). Each
// call returns when its accesses are done; several go out at once, in
// order, as many as the caching agent has MSHRs (a core's miss buffers),
// the next when one is done. A poll reads its line and, while the value is
// not what it waits for, waits until the agent loses its copy (a writer's
// store took it), a polling loop's iteration, and reads again: a spinning
// core's coherence traffic, without its spinning.
//
// With a store buffer (the agent's CachingAgentConfig::store_buffer > 0:
// an x86-TSO core), a store completes into the buffer and the call goes on
// (it waits only for room); the buffer commits its stores to the cache in
// order, one at a time, so other cores see them in program order, and asks
// for the lines of the stores behind the first one unique ahead of their
// turn (a store of no bits, as a core's RFO prefetch does), as many at once
// as the agent has MSHRs but one (or CachingAgentConfig::rfo_ahead, if
// fewer; 0: none, each line asked for by its store's commit). A load of a line the buffer holds waits
// until the buffer has committed it (TSO allows that: the load then reads
// the core's own store, or a later one), and an atomic, or fence(), waits
// for the buffer to drain (a locked instruction, MFENCE). A CoreThread
// must outlive the stores in its buffer: fence() before it goes.
//
// time_next(led) times the next call on `led` (models/core/ledger.h), if
// that call is of one line: a load, an atomic or a store. Then led's mark
// is done_at() when it returns, or, for a store into the store buffer,
// when fence() returns: the store is timed to its commit, its wait behind
// the buffer's older stores (TSO's order) as ordering (the caller fences
// before its ledger goes). A call of several lines is not timed.
#pragma once
#include <systemc>

#include <algorithm>
#include <cstdint>
#include <deque>
#include <vector>

#include "models/coherence/agents.h"

namespace hx::coherence {

class CoreThread final : public CoreSide, public LineWatcher {
 public:
  explicit CoreThread(CachingAgent& a) : m_a(a), m_sb_cap(static_cast<std::size_t>(std::max(0, a.config().store_buffer))) {}
  std::uint64_t load(std::uint64_t line) {
    m_one[0] = line;
    return load_all(m_one)[0];
  }
  void store(std::uint64_t line, std::uint64_t value) {
    m_one[0] = line;
    m_one_value[0] = value;
    store_all(m_one, m_one_value);
  }
  // The lines' values, in order.
  const std::vector<std::uint64_t>& load_all(const std::vector<std::uint64_t>& lines) {
    while (buffered(lines)) sc_core::wait(m_sb_ev);
    run(lines, nullptr);
    return m_values;
  }
  void store_all(const std::vector<std::uint64_t>& lines, const std::vector<std::uint64_t>& values) {
    if (m_sb_cap) buffer(lines, values, nullptr);
    else run(lines, &values);
  }
  // Stores of some bits of each line (`masks[i]` of lines[i]), keeping the
  // others: fields of descriptors that share a line.
  void store_all(const std::vector<std::uint64_t>& lines, const std::vector<std::uint64_t>& values,
                 const std::vector<std::uint64_t>& masks) {
    if (m_sb_cap) buffer(lines, values, &masks);
    else run(lines, &values, &masks);
  }
  // Waits until every buffered store is in the cache (MFENCE; at once
  // when the buffer is empty). done_at() is then the last one's commit.
  void fence() {
    if (m_sb.empty()) return;
    while (!m_sb.empty()) sc_core::wait(m_sb_ev);
    m_done_at = m_commit_at;
  }
  // An atomic on `line` (where the agent's config says it runs); returns
  // the value it read. Like a locked instruction, it waits for the store
  // buffer to drain first.
  std::uint64_t atomic(std::uint64_t line, const Rmw& rmw) {
    Ledger* led = take_ledger();
    return after_fence([&] { m_a.atomic(rmw, line, 0, *this, led); });
  }
  // Gives `line` up (a cache-maintenance flush: written back if dirty,
  // evicted if clean, nothing if not held); returns when its home has it.
  // Ordered after the buffered stores, as a fence is.
  void give_up(std::uint64_t line) {
    after_fence([&] { m_a.evict(line, 0, *this); });
  }
  // Reads `line` until `ready(value)`; returns that value.
  template <class F>
  std::uint64_t poll(std::uint64_t line, Tick loop, F&& ready) {
    while (true) {
      const std::uint64_t v = load(line);
      if (ready(v)) return v;
      m_lost = false;
      m_a.watch(line, *this);
      if (!m_lost) sc_core::wait(m_lost_ev);
      if (loop) sc_core::wait(sc_core::sc_time::from_value(loop));
    }
  }
  Tick done_at() const { return m_done_at; }  // when the last call's last access was done
  void time_next(Ledger* led) { m_led = led; }

  void access_done(std::uint64_t tag, std::uint64_t value, Tick at) override {
    if (tag == kCommit) {  // the buffer's oldest store is in the cache
      m_sb.pop_front();
      --m_asked;  // it was asked for (by its commit, if not before)
      m_committing = false;
      m_commit_at = at;
      commit();
      ask_ownership();
      notify_now(m_sb_ev);
      return;
    }
    if (tag == kOwn) {  // a line asked for ahead of its store is here
      --m_asking;
      ask_ownership();
      return;
    }
    m_values[tag] = value;
    m_done_at = at;
    if (m_next < m_lines->size()) issue(m_next++);
    if (--m_pending == 0) notify_now(m_ev);
  }
  void line_lost(std::uint64_t) override {
    m_lost = true;
    notify_now(m_lost_ev);
  }

 private:
  void run(const std::vector<std::uint64_t>& lines, const std::vector<std::uint64_t>* values,
           const std::vector<std::uint64_t>* masks = nullptr) {
    m_values.assign(lines.size(), 0);
    m_lines = &lines;
    m_store_values = values;
    m_masks = masks;
    m_pending = lines.size();
    m_next = std::min<std::size_t>(lines.size(), static_cast<std::size_t>(m_a.config().mshrs));
    Ledger* led = take_ledger();
    if (lines.size() != 1) led = nullptr;  // a call of several lines is not timed
    for (std::size_t i = 0; i < m_next; ++i) issue(i, led);
    if (m_pending) sc_core::wait(m_ev);
  }
  // One access of one line, issued by `issue` (tag 0) once the store
  // buffer has drained; returns its value when it is done.
  template <class F>
  std::uint64_t after_fence(F&& issue) {
    fence();
    m_values.assign(1, 0);
    m_lines = &m_one;
    m_pending = 1;
    m_next = 1;
    issue();
    if (m_pending) sc_core::wait(m_ev);
    return m_values[0];
  }
  void issue(std::size_t i, Ledger* led = nullptr) {
    m_a.access(m_store_values != nullptr, (*m_lines)[i], m_store_values ? (*m_store_values)[i] : 0, i, *this,
               m_masks ? (*m_masks)[i] : ~0ull, led);
  }
  Ledger* take_ledger() {
    Ledger* l = m_led;
    m_led = nullptr;
    return l;
  }

  // The store buffer (see the header comment).
  static constexpr std::uint64_t kCommit = std::uint64_t{1} << 62, kOwn = std::uint64_t{1} << 61;
  struct Buffered {
    std::uint64_t line, value, mask;
    Ledger* led;  // time_next's, for a one-line store
  };
  bool buffered(const std::vector<std::uint64_t>& lines) const {
    for (const Buffered& b : m_sb)
      if (std::find(lines.begin(), lines.end(), b.line) != lines.end()) return true;
    return false;
  }
  void buffer(const std::vector<std::uint64_t>& lines, const std::vector<std::uint64_t>& values,
              const std::vector<std::uint64_t>* masks) {
    Ledger* led = take_ledger();
    if (lines.size() != 1) led = nullptr;  // a call of several lines is not timed
    for (std::size_t i = 0; i < lines.size(); ++i) {
      while (m_sb.size() >= m_sb_cap) sc_core::wait(m_sb_ev);
      m_sb.push_back(Buffered{lines[i], values[i], masks ? (*masks)[i] : ~0ull, led});
      commit();
      ask_ownership();
    }
  }
  // The oldest store goes to the cache, if none is on its way.
  void commit() {
    if (m_committing || m_sb.empty()) return;
    m_committing = true;
    const Buffered& h = m_sb.front();
    m_asked = std::max<std::size_t>(m_asked, 1);
    if (h.led) h.led->charge(Stage::Ordering, now_tick());  // behind the buffer's older stores
    m_a.access(true, h.line, h.value, kCommit, *this, h.mask, h.led);
  }
  // The lines of the stores behind it, asked for unique (a store of no bits)
  // in order, with an MSHR left for the commit and the core's loads. The
  // stores asked for are always the buffer's first m_asked.
  void ask_ownership() {
    const int limit = std::max(0, std::min(m_a.config().mshrs - 1, m_a.config().rfo_ahead));
    for (; m_asking < limit && m_asked < m_sb.size(); ++m_asked) {
      ++m_asking;
      m_a.access(true, m_sb[m_asked].line, 0, kOwn, *this, 0);
    }
  }

  CachingAgent& m_a;
  std::vector<std::uint64_t> m_one = {0}, m_one_value = {0}, m_values;
  const std::vector<std::uint64_t>* m_lines = nullptr;
  const std::vector<std::uint64_t>* m_store_values = nullptr;
  const std::vector<std::uint64_t>* m_masks = nullptr;
  std::size_t m_pending = 0, m_next = 0;
  Tick m_done_at = 0;
  Ledger* m_led = nullptr;  // time_next's
  sc_core::sc_event m_ev, m_lost_ev;
  bool m_lost = false;
  const std::size_t m_sb_cap;
  std::deque<Buffered> m_sb;
  bool m_committing = false;
  std::size_t m_asked = 0;  // the buffer's first stores whose lines were asked for (ahead, or by the commit)
  Tick m_commit_at = 0;     // when the last buffered store was committed
  int m_asking = 0;      // ownership requests in flight
  sc_core::sc_event m_sb_ev;
};

}  // namespace hx::coherence
