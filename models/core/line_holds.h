// Lines held by transactions in flight, each until a known tick: the
// address-conflict check of an agent that serves one transaction per line
// at a time (a root complex's reads against its writes). Entries are
// dropped once their tick has passed, so the table holds only what is in
// flight (and what ended behind a longer hold), whatever the footprint of
// the traffic.
#pragma once
#include <cstdint>
#include <deque>
#include <unordered_map>
#include <utility>

#include "models/core/tick.h"

namespace hx {

class LineHolds {
 public:
  // `line` is held until `until` (the later of this and any hold it has).
  void hold(std::uint64_t line, Tick until, Tick now) {
    forget(now);
    Tick& t = m_until[line];
    if (until > t) {
      t = until;
      m_order.emplace_back(until, line);
    }
  }
  // The first tick from `at` on at which `line` is free, asked at `now`
  // (at >= now: holds that ended by `now` are forgotten).
  Tick free_at(std::uint64_t line, Tick at, Tick now) {
    forget(now);
    const auto it = m_until.find(line);
    return it == m_until.end() || it->second < at ? at : it->second;
  }
  std::size_t held() const { return m_until.size(); }

 private:
  // Drops the holds that have ended, in the order they were made: one that
  // ended behind a longer one still running stays until that one ends
  // (free_at reads its tick, so it costs memory only).
  void forget(Tick now) {
    while (!m_order.empty() && m_order.front().first <= now) {
      const auto it = m_until.find(m_order.front().second);
      if (it != m_until.end() && it->second <= now) m_until.erase(it);
      m_order.pop_front();
    }
  }
  std::unordered_map<std::uint64_t, Tick> m_until;
  std::deque<std::pair<Tick, std::uint64_t>> m_order;  // (until, line) as holds were made
};

}  // namespace hx
