// One point of a study: the run's arguments, where a point's files go, the
// fingerprint a reused point file must carry, and running a point into its
// file. Used by the driver, the point pools and the MPI ranks alike.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/core/tick.h"
#include "src/sim/runner.h"
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
  bool mpi = false;  // run under mpirun: rank 0 hands out points (running some itself) and gathers them
  // A local sweep that uses every CPU it may run on holds each point server
  // (and the points it forks) to a CPU of its own; false: never.
  bool pin = true;
  // What a point file must carry to be reused (point_fingerprint of this
  // and its index): set by the driver, passed on to the processes that
  // write point files; empty where nothing is to be reused (the bench).
  std::string fingerprint;
};

// The fingerprint of a run's configuration: the resolved study and
// topology, every topology file a sweep switches to, the seed and the
// simulator build. A point file is reused only if it carries
// point_fingerprint(run_fingerprint, its index).
std::string run_fingerprint(const StudyFiles& f, const Sweep& points, std::uint64_t seed,
                            const std::string& self_exe);
std::string point_fingerprint(const std::string& run, std::size_t index);

// The wall-clock figures of one point (they vary run to run, so they stay
// out of the point's results; the driver gathers them into timing.json).
struct PointTiming {
  double wall_s = 0, load_s = 0, elaboration_s = 0, tlp_hops_per_s = 0;
};
nlohmann::json to_json(const PointTiming& t);
PointTiming timing_from_json(const nlohmann::json& j);
// This process's peak resident memory since its program started, in MB
// (the kernel's VmHWM of its address space; 0 where it cannot be read). A
// spawned child's own rusage cannot say it: Linux carries the peak of the
// address space it replaced at exec (here, its parent's) into ru_maxrss.
double own_peak_rss_mb();

// Where point K's files go in DIR: DIR/points/K.json + ext.
std::string point_file(const std::string& dir, std::size_t k, const char* ext = "");
std::string point_trace_file(const std::string& dir, std::size_t k);  // DIR/points/K.trace.json
std::uint64_t study_seed(const RunArgs& a, const StudyFiles& f);
// The study file with the --set overrides applied. With `without_sweep`
// those bytes of the study file are read as blank and the overrides of the
// sweep left out: the study as study_without_sweep gives it.
StudyFiles prepared(const RunArgs& a, const std::optional<cfg::TextSpan>& without_sweep = std::nullopt);
// The resolved study and topology, as one number (a point server checks it
// reads what its driver checked).
std::uint64_t study_hash(const StudyFiles& f);
// The command line of an internal subcommand (`_serve`, `_point`) that runs
// points of this study: the study, its resolved seed, the fingerprint, the
// --set overrides and the trace options.
std::vector<std::string> worker_args(const RunArgs& a, const std::string& self, const std::string& sub, std::uint64_t seed);
std::string read_file(const std::string& p);

// The hidden per-point entry (`hxsim _point`, used by MPI ranks and the
// bench): runs point `index` and writes out_file and its wall-clock figures
// in out_file.timing.
int run_one_point(const RunArgs& a, std::size_t index, const std::string& out_file);

std::vector<std::pair<std::string, std::string>> split_sets(const std::vector<std::string>& sets);
// The --trace window [from, to) of simulated time; a bad one is bad input.
std::pair<Tick, Tick> trace_window(const RunArgs& a);

// Runs one point of loaded study files with the study seed, writes out_file
// (and, with --trace, its .trace.json) and returns its wall-clock figures.
// The point's settings are applied to f itself (run_point_in_place), which
// tells `progress` how far it is now and then.
PointTiming write_point(const RunArgs& a, StudyFiles& f, const SweepPoint& point, std::size_t index, std::uint64_t seed,
                        const std::string& out_file, const ProgressSink& progress = {});

// Runs `body` and maps what it throws to the exit codes of DESIGN.md section
// 6, printing the one error line (2 bad input, 3 simulation error).
int exit_status_of(const std::function<int()>& body);

}  // namespace hx::sim
