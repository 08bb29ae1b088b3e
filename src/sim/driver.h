// The study driver of `hxsim run`: validates every point before anything is
// written, then hands the points to a pool (pool.h, mpi.h), skips points a
// previous run finished, and gathers results.json and results.csv.
#pragma once
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "src/sim/point.h"
#include "src/sim/pool.h"
#include "src/sim/study.h"

namespace hx::sim {

// Fails (bad input) unless results can go to `dir`, an existing directory or
// one that can be made; `label` starts the message (e.g. "-o DIR").
void check_output_dir(const std::string& dir, const std::string& label);
// The same for a file to be written: its directory, and not a directory itself.
void check_output_file(const std::string& file, const std::string& label);

// Runs a helper program (the plot scripts) with this process's stdio and
// returns its exit code; one that cannot start is bad input (exit 2).
int run_tool(const std::vector<std::string>& args);

// Returns the process exit code.
int run_study(const RunArgs& a, const std::string& self_exe);
// results.json of a study from the text of its finished points (each as
// written by write_point, in point order): byte for byte what dump(2) of
// {"failed", "points", "study"} gives. The streaming form hands it to
// `out` piece by piece, asking for point i's text (of `count`) when it is
// due, so that no more than one point's text is held at a time.
std::string results_json(const std::string& study, std::size_t failed, const std::vector<std::string>& points);
void stream_results_json(const std::function<void(std::string_view)>& out, const std::string& study, std::size_t failed,
                         std::size_t count, const std::function<std::string(std::size_t)>& point_text);
// Sweep points [first, last) parsed and their workloads bound to their
// topology, nothing elaborated or written: bad input throws InputError (that
// of the first bad point). Returns the study name (empty if no point).
// `progress`, if given, is told (points checked, points to check) now and then.
using CheckProgress = std::function<void(std::size_t, std::size_t)>;
std::string check_study(const StudyFiles& f, const Sweep& points, int threads = 1, std::size_t first = 0,
                        std::size_t last = static_cast<std::size_t>(-1), const CheckProgress& progress = {});

}  // namespace hx::sim
