// The dispatcher's short cut for clocked models (Scheduler::advance_to),
// alone: a clock that goes on to its next edge at once when it may, beside
// other actions before, between and exactly on its edges, runs every action
// in the order the queue gives when the clock schedules each edge.
#include <gtest/gtest.h>
#include <systemc>

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "models/core/scheduler.h"

namespace hx {
namespace {

using Log = std::vector<std::pair<Tick, char>>;

// Ticks every 4 units for `cycles` cycles, from time `base`.
class Clock final : public Actor {
 public:
  Clock(Scheduler& s, Log& log, bool skip, int cycles) : m_s(s), m_log(log), m_skip(skip), m_left(cycles) {}
  void on_action(std::uint32_t, std::uint64_t, void*) override {
    Tick next = 0;
    do {
      m_log.emplace_back(now_tick(), 'c');
      if (--m_left == 0) return;
      next = now_tick() + 4;
    } while (m_skip && Scheduler::advance_to(next, this, 0) && ++skipped);
    m_s.at(next, this, 0);
  }
  int skipped = 0;

 private:
  Scheduler& m_s;
  Log& m_log;
  bool m_skip;
  int m_left;
};

// Logs its actions; the one at `spawn_at` schedules another at the same time.
class Other final : public Actor {
 public:
  Other(Scheduler& s, Log& log) : m_s(s), m_log(log) {}
  void on_action(std::uint32_t kind, std::uint64_t, void*) override {
    m_log.emplace_back(now_tick(), static_cast<char>('a' + kind % 20));
    if (kind == 1) m_s.at(now_tick(), this, 2);  // more at the same instant
  }

 private:
  Scheduler& m_s;
  Log& m_log;
};

Log run(bool skip, int* skipped, std::uint64_t* actions) {
  Scheduler s("test");
  Log log;
  const Tick base = now_tick() + 1000;  // each run on a fresh stretch of time
  Clock clock(s, log, skip, 40);
  Other other(s, log);
  s.at(base, &clock, 0);
  // Before the clock, between its edges, exactly on edges (where the queue
  // puts the one scheduled first first), and a burst at one instant.
  for (const Tick t : {Tick{0}, Tick{2}, Tick{8}, Tick{9}, Tick{13}, Tick{40}, Tick{41}, Tick{100}, Tick{400}})
    s.at(base + t, &other, t == 41 ? 1 : 3);
  const std::uint64_t a0 = Scheduler::actions_dispatched();
  sc_core::sc_start();
  *actions = Scheduler::actions_dispatched() - a0;
  *skipped = clock.skipped;
  for (auto& [t, who] : log) t -= base;
  return log;
}

TEST(Scheduler, AClockThatSkipsTheQueueKeepsEveryActionInItsOrder) {
  int skipped_q = 0, skipped_s = 0;
  std::uint64_t actions_q = 0, actions_s = 0;
  const Log queued = run(false, &skipped_q, &actions_q);
  const Log skipping = run(true, &skipped_s, &actions_s);
  EXPECT_EQ(skipping, queued);
  EXPECT_EQ(actions_s, actions_q);  // each skip counts as the action it replaces
  EXPECT_EQ(skipped_q, 0);
  // Most edges go on at once; the ones with another action at or before
  // them (0, 8, 40, 100) go through the queue.
  EXPECT_GT(skipped_s, 25);
  EXPECT_LT(skipped_s, 39);
  ASSERT_EQ(queued.size(), 40u + 9u + 1u);
}

// Outside the dispatcher (no action running) there is no short cut.
TEST(Scheduler, NoShortCutOutsideAnAction) {
  Scheduler s("test");
  Log log;
  Other other(s, log);
  EXPECT_FALSE(Scheduler::advance_to(now_tick() + 4, &other, 0));
}

}  // namespace
}  // namespace hx
