// Two kinds of failure, as gem5 separates fatal() and panic():
//  - InputError: the user's configuration is wrong (exit 2). Raised by src/.
//  - SimError: a simulation invariant broke or the model deadlocked (exit 3).
//    It names the component, the simulated time and the transaction.
#pragma once
#include <stdexcept>
#include <string>

namespace hx {

class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class SimError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An address or other value as 0x... for a message.
std::string hex(std::uint64_t v);

[[noreturn]] void sim_fail(const std::string& component, const std::string& what);

}  // namespace hx
