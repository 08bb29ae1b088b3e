// Where the points of a study run: the interface the driver hands points
// to, and the local pool of point servers (`hxsim _serve`) behind it. The
// MPI pool (mpi.h) is the other implementation.
#pragma once
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "src/sim/point.h"

namespace hx::sim {

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
  // (false; -1: no limit); a pool that cannot tell says true.
  virtual bool finished_within(int /*timeout_ms*/) { return true; }
  // The latest progress of each running point that has sent one (a point
  // sends its first after a second of wall time); a pool whose points
  // cannot send any says none.
  struct Running {
    std::size_t index;
    PointProgress progress;
  };
  virtual std::vector<Running> running() const { return {}; }
};

// Starting a point process with stderr captured in `errf` (stdout dropped),
// and its exit code from a wait status (3 if it did not exit).
int spawn_point(const std::vector<std::string>& args, const std::string& errf);
int exit_code(int status);
// `jobs` point servers (`hxsim _serve`), each forking the points of f's
// sweep (`points`) it is sent; a point's files go to DIR/points/.
std::unique_ptr<PointPool> make_local_pool(const RunArgs& a, const std::string& self, const StudyFiles& f,
                                           const Sweep& points, std::uint64_t seed, const std::string& dir, int jobs);
// `hxsim _serve`: one point server of a local sweep (see pool.cpp), on
// the study read without the bytes `without_sweep` (its sweep) if given.
// It ends when the process `driver_pid` (its parent) does.
int run_point_server(const RunArgs& a, const std::string& dir, int cmd_fd, int rep_fd, std::uint64_t study_hash,
                     long driver_pid, const std::optional<cfg::TextSpan>& without_sweep);

}  // namespace hx::sim
