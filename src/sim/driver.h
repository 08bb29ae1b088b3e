// The study driver of `hxsim run`: validates every point before anything is
// written, then runs one process per point (-j at a time), skips points a
// previous run finished, and gathers results.json and results.csv.
#pragma once
#include <nlohmann/json.hpp>

#include <functional>
#include <memory>
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

// Where the points of a study run: child processes here, or MPI ranks.
class PointPool {
 public:
  struct Finished {
    std::size_t index;
    int code;
    std::string err;      // stderr of a failed point
    PointTiming timing;   // of a point that finished
  };
  virtual ~PointPool() = default;
  virtual bool can_start() const = 0;
  virtual void start(std::size_t index) = 0;
  virtual Finished wait() = 0;  // the next point to finish; its files are in points/
  // True once wait() would return without blocking, or after `timeout_ms`
  // (false); a pool that cannot tell says true.
  virtual bool finished_within(int /*timeout_ms*/) { return true; }
};

// The pieces a pool needs: starting a process with stderr captured, its
// exit code, and where point K's files go in DIR (DIR/points/K.json + ext).
std::string point_file(const std::string& dir, std::size_t k, const char* ext = "");
std::string point_trace_file(const std::string& dir, std::size_t k);  // DIR/points/K.trace.json
int spawn_point(const std::vector<std::string>& args, const std::string& errf);
int exit_code(int status);
std::uint64_t study_seed(const RunArgs& a, const StudyFiles& f);
StudyFiles prepared(const RunArgs& a);
// `jobs` point servers (`hxsim _serve`), each forking the points it is
// sent from the study in memory; a point's files go to DIR/points/.
std::unique_ptr<PointPool> make_local_pool(const RunArgs& a, const std::string& self, const StudyFiles& f,
                                           std::uint64_t seed, const std::string& dir, int jobs);
// `hxsim _serve`: one point server of a local sweep (see driver.cpp).
// It ends when the process `driver_pid` (its parent) does.
int run_point_server(const RunArgs& a, const std::string& dir, int cmd_fd, int rep_fd, std::uint64_t study_hash,
                     long driver_pid);
std::string read_file(const std::string& p);
// Fails (bad input) unless results can go to `dir`, an existing directory or
// one that can be made; `label` starts the message (e.g. "-o DIR").
void check_output_dir(const std::string& dir, const std::string& label);
// The same for a file to be written: its directory, and not a directory itself.
void check_output_file(const std::string& file, const std::string& label);

// Runs a helper program (the plot scripts) with this process's stdio and
// returns its exit code; one that cannot start is bad input (exit 2).
int run_tool(const std::vector<std::string>& args);

// Runs `body` and maps what it throws to the exit codes of DESIGN.md section
// 6, printing the one error line (2 bad input, 3 simulation error).
int exit_status_of(const std::function<int()>& body);

// Returns the process exit code.
int run_study(const RunArgs& a, const std::string& self_exe);
// results.json of a study from the text of its finished points (each as
// written by write_point, in point order): byte for byte what dump(2) of
// {"failed", "points", "study"} gives.
std::string results_json(const std::string& study, std::size_t failed, const std::vector<std::string>& points);
// The hidden per-point entry (`hxsim _point`, used by MPI ranks and the
// bench): runs point `index` and writes out_file and its wall-clock figures
// in out_file.timing.
int run_one_point(const RunArgs& a, std::size_t index, const std::string& out_file);
// Runs one point of loaded study files with the study seed, writes out_file
// (and, with --trace, its .trace.json) and returns its wall-clock figures.
// The point's settings are applied to f itself (run_point_in_place).
PointTiming write_point(const RunArgs& a, StudyFiles& f, const SweepPoint& point, std::size_t index, std::uint64_t seed,
                        const std::string& out_file);

std::vector<std::pair<std::string, std::string>> split_sets(const std::vector<std::string>& sets);
// Sweep points [first, last) parsed and their workloads bound to their
// topology, nothing elaborated or written: bad input throws InputError (that
// of the first bad point). Returns the study name (empty if no point).
// `progress`, if given, is told (points checked, points to check) now and then.
using CheckProgress = std::function<void(std::size_t, std::size_t)>;
std::string check_study(const StudyFiles& f, const Sweep& points, int threads = 1, std::size_t first = 0,
                        std::size_t last = static_cast<std::size_t>(-1), const CheckProgress& progress = {});

}  // namespace hx::sim
