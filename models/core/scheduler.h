// A per-module time-ordered action queue driven by one sc_event and one
// SC_METHOD. This is how every transaction-level model here spends at most
// one kernel event per hop (DESIGN.md section 9): senders compute arrival
// times analytically and post them to the receiver's queue; the receiver's
// method wakes once for all actions due at that time.
#pragma once
#include <systemc>
#include <cstdint>
#include <string>
#include <vector>

#include "models/core/tick.h"

namespace hx {

class Actor {
 public:
  virtual ~Actor() = default;
  virtual void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) = 0;
};

class Scheduler {
 public:
  explicit Scheduler(const std::string& name);
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  // Run `target->on_action(kind, arg, ptr)` at absolute time t (t >= now).
  void at(Tick t, Actor* target, std::uint32_t kind, std::uint64_t arg = 0, void* ptr = nullptr);
  static std::uint64_t actions_dispatched();

 private:
  struct Item {
    Tick t;
    std::uint64_t seq;
    Actor* target;
    std::uint32_t kind;
    std::uint64_t arg;
    void* ptr;
  };
  struct Later {
    bool operator()(const Item& a, const Item& b) const {
      return a.t != b.t ? a.t > b.t : a.seq > b.seq;
    }
  };
  void run();
  void arm(Tick t);

  sc_core::sc_event m_event;
  std::vector<Item> m_heap;
  std::uint64_t m_seq = 0;
  Tick m_armed = kNever;
  bool m_running = false;
};

}  // namespace hx
