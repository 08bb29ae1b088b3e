// `hxsim validate`: every calibration case against published measurements.
#pragma once
#include <string>
#include <vector>

namespace hx::sim {

struct ValidateArgs {
  std::vector<std::string> cases;   // case files; empty = all in cases_dir
  std::string cases_dir;
  std::string report;               // report path without extension (.md and .json are written)
  std::string work_dir;             // where the studies' results go
  std::vector<std::string> sets;
  int jobs = 0;
  bool fresh = false;
};

// Exit code: 0 all inside tolerance, 1 some outside, 2 bad input, 3 a study failed.
int validate(const ValidateArgs& a, const std::string& self_exe);

}  // namespace hx::sim
