// Simulated time as integer picoseconds. Models compute with Tick and hand
// SystemC an sc_time only when they notify an event; the kernel runs at 1 ps
// resolution, so the conversion is exact.
#pragma once
#include <cstdint>
#include <limits>

namespace hx {

using Tick = std::uint64_t;  // picoseconds
constexpr Tick kNever = std::numeric_limits<Tick>::max();
constexpr Tick kPs = 1;
constexpr Tick kNs = 1000;
constexpr Tick kUs = 1000 * kNs;
constexpr Tick kMs = 1000 * kUs;

// The current model time: the dispatcher's while it runs (it may be ahead
// of the SystemC clock, models/core/scheduler.h), the kernel's otherwise.
namespace detail {
extern bool g_dispatching;
extern Tick g_dispatch_now;
Tick kernel_now();
}  // namespace detail
inline Tick now_tick() { return detail::g_dispatching ? detail::g_dispatch_now : detail::kernel_now(); }

inline double to_ns(Tick t) { return static_cast<double>(t) / 1000.0; }

// Period of a clock in MHz, in ps (rounded to the nearest ps).
inline Tick clock_period(double mhz) { return static_cast<Tick>(1.0e6 / mhz + 0.5); }

}  // namespace hx
