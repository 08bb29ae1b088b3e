// A core's accesses as the software on it sees them: blocking calls from
// the core's SystemC process (one process per core, not per access). Each
// call returns when its accesses are done; several go out at once, in
// order, as many as the caching agent has MSHRs (a core's miss buffers),
// the next when one is done. A poll reads its line and, while the value is
// not what it waits for, waits until the agent loses its copy (a writer's
// store took it), a polling loop's iteration, and reads again: a spinning
// core's coherence traffic, without its spinning.
#pragma once
#include <systemc>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "models/coherence/agents.h"

namespace hx::coherence {

class CoreThread final : public CoreSide, public LineWatcher {
 public:
  explicit CoreThread(CachingAgent& a) : m_a(a) {}
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
    run(lines, nullptr);
    return m_values;
  }
  void store_all(const std::vector<std::uint64_t>& lines, const std::vector<std::uint64_t>& values) { run(lines, &values); }
  // Stores of some bits of each line (`masks[i]` of lines[i]), keeping the
  // others: fields of descriptors that share a line.
  void store_all(const std::vector<std::uint64_t>& lines, const std::vector<std::uint64_t>& values,
                 const std::vector<std::uint64_t>& masks) {
    run(lines, &values, &masks);
  }
  // An atomic on `line` (where the agent's config says it runs); returns
  // the value it read.
  std::uint64_t atomic(std::uint64_t line, const Rmw& rmw) {
    m_values.assign(1, 0);
    m_lines = &m_one;
    m_pending = 1;
    m_next = 1;
    m_a.atomic(rmw, line, 0, *this);
    sc_core::wait(m_ev);
    return m_values[0];
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

  void access_done(std::uint64_t tag, std::uint64_t value, Tick at) override {
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
    for (std::size_t i = 0; i < m_next; ++i) issue(i);
    if (m_pending) sc_core::wait(m_ev);
  }
  void issue(std::size_t i) {
    m_a.access(m_store_values != nullptr, (*m_lines)[i], m_store_values ? (*m_store_values)[i] : 0, i, *this,
               m_masks ? (*m_masks)[i] : ~0ull);
  }
  CachingAgent& m_a;
  std::vector<std::uint64_t> m_one = {0}, m_one_value = {0}, m_values;
  const std::vector<std::uint64_t>* m_lines = nullptr;
  const std::vector<std::uint64_t>* m_store_values = nullptr;
  const std::vector<std::uint64_t>* m_masks = nullptr;
  std::size_t m_pending = 0, m_next = 0;
  Tick m_done_at = 0;
  sc_core::sc_event m_ev, m_lost_ev;
  bool m_lost = false;
};

}  // namespace hx::coherence
