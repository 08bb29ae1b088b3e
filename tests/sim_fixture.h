// Run one simulation from inline YAML through the same path as `hxsim run`
// (parse, elaborate, simulate, check invariants, report). One per process:
// each TEST runs in its own process under gtest_discover_tests.
#pragma once
#include <nlohmann/json.hpp>
#include <yaml-cpp/yaml.h>

#include <string>

#include "src/sim/runner.h"
#include "src/sim/study.h"

namespace hx::test {

inline nlohmann::json simulate(const std::string& topology, const std::string& workloads, std::uint64_t seed = 1) {
  sim::StudyFiles f;
  f.study_file = "<test study>";
  f.topo_file = "<test topology>";
  f.topo = YAML::Load(topology);
  f.study = YAML::Load("study: test\ntopology: inline\nworkloads: " + workloads);
  return sim::run_point(f, sim::SweepPoint{}, seed);
}

// Bytes per second of payload on a saturated link direction, from the spec:
// 3-DW header (12 B) + payload + 8 B framing/DLL, in whole 4-byte symbol
// columns on x4 and wider links, SKP ordered sets 4 B every 1538 B.
inline double analytic_write_Bps(int gen, int width, int payload) {
  static const double gts[] = {0, 2.5, 5.0, 8.0, 16.0, 32.0};
  const double eff = gen <= 2 ? 0.8 : 128.0 / 130.0;
  const int align = width >= 4 ? 4 : width;
  const int wire = (12 + payload + 8 + align - 1) / align * align;
  const double raw = gts[gen] * 1e9 * eff * width / 8.0 * (1.0 - 4.0 / 1538.0);
  return raw * payload / wire;
}

}  // namespace hx::test
