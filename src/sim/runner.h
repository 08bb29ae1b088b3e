// One sweep point, simulated in this process (SystemC elaborates once per
// process): elaborate, run to completion or the deadline, check the
// invariants, and produce the point's results object.
#pragma once
#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <string_view>

#include "src/sim/study.h"

namespace hx::sim {

// How far a running point is: its simulated time, the share of its
// workloads' work done (0 to 1, their mean) and the wall time since its
// simulation began.
struct PointProgress {
  double simulated_ns = 0, done = 0, wall_s = 0;
};
// Told about once a second of wall time while a point runs; what it does
// cannot change the point's results.
using ProgressSink = std::function<void(const PointProgress&)>;

// Throws InputError (exit 2) or SimError (exit 3).
nlohmann::json run_point(const StudyFiles& files, const SweepPoint& point, std::uint64_t seed);
// The same, applying the point's settings to `files` itself rather than to a
// fresh copy read from the files: for a process that runs one point and ends.
// Any copy of `files` sees the change (yaml-cpp nodes are shared).
// `wave_tag` (the point's index in a swept study) goes into the name of
// every wave file a device writes, so that the points do not overwrite one
// another's: card.vcd -> card.3.vcd.
nlohmann::json run_point_in_place(StudyFiles& files, const SweepPoint& point, std::uint64_t seed,
                                  const ProgressSink& progress = {}, const std::string& wave_tag = "");

// Seed of point k, derived from the study seed.
std::uint64_t point_seed(std::uint64_t study_seed, std::size_t index);

// A file written piece by piece that appears whole or not at all: the
// pieces go to a temporary file beside it, which commit() renames over it
// (a temporary file not committed goes with the object). A symbolic link
// is written through; a device or a pipe takes the pieces as they come.
// Failures are InputErrors naming the file and the system's reason.
class AtomicFile {
 public:
  explicit AtomicFile(const std::string& path);
  ~AtomicFile();
  AtomicFile(const AtomicFile&) = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  void write(std::string_view text);
  void commit();

 private:
  [[noreturn]] void fail(const std::string& why, int err);
  void flush();
  std::string m_path, m_target, m_tmp;  // as given, the file it names, the temporary file
  int m_fd = -1;
  std::string m_buf;
};

// Write `text` to `path` through a temporary file and a rename (AtomicFile).
void write_atomic(const std::string& path, const std::string& text);

}  // namespace hx::sim
