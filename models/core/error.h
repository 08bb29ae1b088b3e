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

// sim_fail with its message made by what(), out of line and only when it
// fails: for checks on the paths every message or cycle takes, where a
// message built in place would weigh on each call (its temporaries'
// clean-up and the registers they need).
template <class F>
[[noreturn, gnu::cold, gnu::noinline]] void sim_fail_with(const std::string& component, F what) {
  sim_fail(component, what());
}

}  // namespace hx
