// `hxsim bench`: the simulator's own speed on fixed scenarios, each run in
// a child process (like a sweep point) three times; the median is reported.
#pragma once
#include <string>

namespace hx::sim {

// `only`: run just the scenarios whose name contains it ("" = all).
int bench(const std::string& json_out, int repeats, const std::string& self_exe, const std::string& only = "");
// The coherence scenario, run by `bench` in a child process of its own (one
// SystemC elaboration per process): writes its counts as JSON to `out`.
int bench_coherence(const std::string& out);
// The kernel yardstick where this process runs, for one run of a scenario
// (`bench` starts it in a child just before the run): writes
// {"notifications_per_s": rate} to `out`.
int bench_kernel(const std::string& out);

}  // namespace hx::sim
