// The study driver of `hxsim run`: validates every point before anything is
// written, then runs one process per point (-j at a time), skips points a
// previous run finished, and gathers results.json and results.csv.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "src/sim/study.h"

namespace hx::sim {

struct RunArgs {
  std::string study;
  std::string out_dir;
  int jobs = 0;
  std::vector<std::string> sets;  // "path=value"
  long long seed = -1;
  bool fresh = false;
  bool quiet = false;
  // --trace: each point writes points/K.trace.json (TLPs per link and port),
  // events in [trace_from, trace_to) of simulated time, at most trace_max.
  bool trace = false;
  std::string trace_from = "0ns", trace_to;
  long long trace_max = 200000;
};

// Returns the process exit code.
int run_study(const RunArgs& a, const std::string& self_exe);
// The hidden per-point entry: runs point `index` and writes its files.
int run_one_point(const RunArgs& a, std::size_t index, const std::string& out_file);

std::vector<std::pair<std::string, std::string>> split_sets(const std::vector<std::string>& sets);
// Every sweep point parsed and its workloads bound to its topology, nothing
// elaborated or written: bad input throws InputError. Returns the study name.
std::string check_study(const StudyFiles& f, const std::vector<SweepPoint>& points);

}  // namespace hx::sim
