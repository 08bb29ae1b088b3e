// A pool of transaction objects: the hot path never allocates. Each object
// handed out gets an id unique in the run; giving it back clears the id, so
// an object returned twice is caught, and the live count is a conservation
// check at the end of a run (every object made was consumed).
// T needs a member `std::uint64_t id`, a default constructor and
// `static constexpr const char* kPoolName` ("a TLP"), which errors name.
// A T with a member `release_parts()` has it called as it is given back
// (a TLP's latency ledger goes back to its own pool).
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "models/core/error.h"

namespace hx {

template <class T>
class Pool {
 public:
  // One pool per type and process (a point process runs one simulation).
  static Pool& instance() {
    static Pool p;
    return p;
  }

  T* get() {
    if (m_free.empty()) {
      // Blocks double from 64 objects up to 4096: a short run touches few pages.
      m_blocks.emplace_back(m_blocks.empty() ? 64 : std::min<std::size_t>(2 * m_blocks.back().size(), 4096));
      for (auto& t : m_blocks.back()) m_free.push_back(&t);
    }
    T* t = m_free.back();
    m_free.pop_back();
    fresh(t, 0);
    t->id = m_next_id++;
    ++m_live;
    return t;
  }
  void put(T* t) {
    // An object consumed twice (duplicated somewhere) is a simulator bug.
    if (t->id == 0) throw SimError(std::string(T::kPoolName) + " was consumed twice");
    release_parts(t, 0);
    t->id = 0;
    --m_live;
    m_free.push_back(t);
  }
  std::uint64_t live() const { return m_live; }
  std::uint64_t issued() const { return m_next_id; }
  void reset() {
    m_free.clear();
    m_blocks.clear();
    m_live = 0;
    m_next_id = 1;
  }

 private:
  template <class U>
  static auto release_parts(U* u, int) -> decltype(u->release_parts(), void()) {
    u->release_parts();
  }
  template <class U>
  static void release_parts(U*, long) {}
  // An object taken again starts as a new one: T{}, or its own fresh() (a
  // type whose large parts are written before they are read).
  template <class U>
  static auto fresh(U* u, int) -> decltype(u->fresh(), void()) {
    u->fresh();
  }
  // (Copied from a blank kept for the purpose: building U{} on the stack
  // and copying it stalled on store forwarding, per object taken.)
  template <class U>
  static void fresh(U* u, long) {
    static const U blank{};
    *u = blank;
  }
  std::vector<T*> m_free;
  std::vector<std::vector<T>> m_blocks;
  std::uint64_t m_live = 0;
  std::uint64_t m_next_id = 1;
};

}  // namespace hx
