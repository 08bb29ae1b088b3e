#include "src/sim/point.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

#include <systemc>

#include "models/core/error.h"
#include "models/core/stable_hash.h"
#include "models/core/trace.h"
#include "src/config/units.h"
#include "src/topology/devices.h"
#include "src/sim/runner.h"
#include "src/sim/version.h"

namespace hx::sim {

namespace fs = std::filesystem;

std::vector<std::pair<std::string, std::string>> split_sets(const std::vector<std::string>& sets) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0) throw InputError("--set " + s + ": expected path=value");
    out.emplace_back(s.substr(0, eq), s.substr(eq + 1));
  }
  return out;
}

StudyFiles prepared(const RunArgs& a, const std::optional<cfg::TextSpan>& without_sweep) {
  StudyFiles f = load_study_files(a.study, without_sweep.value_or(cfg::TextSpan{}));
  for (const auto& [p, v] : split_sets(a.sets)) {
    if (without_sweep && sets_sweep(p)) continue;
    apply_set(f, p, v, "--set " + p);
    f.sets.emplace_back(p, v);
  }
  return f;
}

std::uint64_t study_seed(const RunArgs& a, const StudyFiles& f) {
  if (a.seed >= 0) return static_cast<std::uint64_t>(a.seed);
  const cfg::Cursor root = f.study_root();
  return root.has("seed") ? static_cast<std::uint64_t>(root.child("seed").integer(0, 1ll << 62)) : 1;
}

// The resolved study and topology, as one number.
std::uint64_t study_hash(const StudyFiles& f) {
  return StableHash().field(emit(f.study)).field(emit(f.topo)).low64();
}

std::string run_fingerprint(const StudyFiles& f, const Sweep& points, std::uint64_t seed,
                            const std::string& self) {
  StableHash h;
  h.field(emit(f.study)).field(emit(f.topo));
  // An RTL device's design files, by content (their paths are in the text).
  h.field(topo::rtl_inputs_digest(f.topo, f.topo_file, &f.topo_origins));
  for (const std::string& t : points.topologies(f)) {
    const std::string text = read_file(t);
    h.field(t).field(text);
    h.field(topo::rtl_inputs_digest(cfg::load_file(t), t));
  }
  // Design files a sweep switches to (rtl.sources, rtl.include_dirs or the
  // whole rtl section of a node), by content: each value applied alone to
  // a copy, as a point applies it.
  for (const auto& set : points.values_under(".rtl")) {
    if (set.path.rfind("topology.", 0) != 0) continue;
    StudyFiles c = copy_without_sweep(f);
    try {
      apply_set(c, set.path, set.value, set.where);
      h.field(set.path).field(topo::rtl_inputs_digest(c.topo, c.topo_file, &c.topo_origins));
    } catch (const InputError&) {
      // A bad value: the point that takes it fails at its place.
    }
  }
  // The build: the binary's size and time, and the commit it was built from.
  std::error_code ec;
  h.field(std::to_string(seed));
  h.field(std::to_string(fs::last_write_time(self, ec).time_since_epoch().count()));
  h.field(std::to_string(fs::file_size(self, ec)));
  h.field(git_revision());
  return h.hex();
}

std::string point_fingerprint(const std::string& run, std::size_t index) {
  return StableHash().field(run).field(std::to_string(index)).hex();
}

std::string read_file(const std::string& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// The --trace window, checked (bad input is exit 2 before anything runs).
std::pair<Tick, Tick> trace_window(const RunArgs& a) {
  std::string why;
  const auto from = cfg::parse_time(a.trace_from, why);
  if (!from) throw InputError("--trace-from " + a.trace_from + ": " + why);
  Tick to = kNever;
  if (!a.trace_to.empty()) {
    const auto t = cfg::parse_time(a.trace_to, why);
    if (!t) throw InputError("--trace-to " + a.trace_to + ": " + why);
    to = *t;
  }
  if (to <= *from) throw InputError("--trace-to must lie after --trace-from");
  return {*from, to};
}

nlohmann::json to_json(const PointTiming& t) {
  return {{"wall_s", t.wall_s}, {"load_s", t.load_s}, {"elaboration_s", t.elaboration_s}, {"tlp_hops_per_s", t.tlp_hops_per_s}};
}

PointTiming timing_from_json(const nlohmann::json& j) {
  PointTiming t;
  if (!j.is_object()) return t;
  t.wall_s = j.value("wall_s", 0.0);
  t.load_s = j.value("load_s", 0.0);
  t.elaboration_s = j.value("elaboration_s", 0.0);
  t.tlp_hops_per_s = j.value("tlp_hops_per_s", 0.0);
  return t;
}

double own_peak_rss_mb() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::strtod(line.c_str() + 6, nullptr) / 1024.0;  // in kB
  return 0;
}

int run_one_point(const RunArgs& a, std::size_t index, const std::string& out_file) {
  StudyFiles f = prepared(a);
  // This point alone: building the whole sweep in every point process made
  // each point of an N-point sweep under MPI cost O(N).
  const auto [point, count] = sweep_point(f, index);
  if (index >= count) throw InputError("point " + std::to_string(index) + " does not exist");
  const PointTiming t = write_point(a, f, point, index, study_seed(a, f), out_file);
  std::ofstream out(out_file + ".timing", std::ios::binary | std::ios::trunc);
  nlohmann::json j = to_json(t);
  j["peak_rss_mb"] = own_peak_rss_mb();  // hxsim bench's figure of this point alone
  out << j.dump(2) << "\n";
  if (!out.flush()) throw InputError(out_file + ".timing: cannot write");
  return 0;
}

namespace {
// A point's seed: derived from the study's seed and the point's index; with
// `point_seeds: common` (the study's, or the point's own value of it), the
// seed the study's point 0 has, for every point; for a
// point that sets `seed` itself (a sweep over seeds, for replicas), that
// value alone, so that equal values give equal results wherever they stand
// in the sweep. (The driver's check read point_seeds as the point does.)
std::uint64_t seed_of(const StudyFiles& f, const SweepPoint& point, std::uint64_t study_seed, std::size_t index) {
  std::string mode;
  if (f.study.IsMap()) {
    const YAML::Node& study = f.study;  // const: looking a key up adds nothing
    const YAML::Node given = study["point_seeds"];
    if (given.IsDefined() && given.IsScalar()) mode = given.Scalar();
  }
  for (const auto& set : point.sets)
    if (set.path == "point_seeds" && set.value.IsScalar()) mode = set.value.Scalar();
  if (mode == "common") index = 0;
  for (const auto& set : point.sets) {
    if (set.path != "seed") continue;
    // Read as the study reads its seed; an error names the sweep value.
    const cfg::Origins given{{set.value, set.where}};
    cfg::Cursor c = cfg::root_cursor(set.value, "", &given);
    c.path = "seed";
    return point_seed(static_cast<std::uint64_t>(c.integer(0, 1ll << 62)), 0);
  }
  return point_seed(study_seed, index);
}
}  // namespace

PointTiming write_point(const RunArgs& a, StudyFiles& f, const SweepPoint& point, std::size_t index, std::uint64_t seed,
                        const std::string& out_file, const ProgressSink& progress) {
  if (a.trace) {
    const auto [from, to] = trace_window(a);
    Trace::instance().enable(from, to, static_cast<std::size_t>(a.trace_max));
  }
  nlohmann::json r = run_point_in_place(f, point, seed_of(f, point, seed, index), progress,
                                        point.sets.empty() ? "" : std::to_string(index));
  if (a.trace) {
    const std::string tf = out_file.substr(0, out_file.size() - 5) + ".trace.json";
    if (!Trace::instance().write(tf)) throw InputError("cannot write the trace " + tf);
  }
  r["point_index"] = index;
  if (!a.fingerprint.empty()) r["meta"]["fingerprint"] = point_fingerprint(a.fingerprint, index);
  const PointTiming timing = timing_from_json(r["timing"]);
  r.erase("timing");
  write_atomic(out_file, r.dump(2) + "\n");
  return timing;
}

// The command line of an internal subcommand that runs points of this study:
// the study, its resolved seed, the --set overrides and the trace options.
std::vector<std::string> worker_args(const RunArgs& a, const std::string& self, const std::string& sub, std::uint64_t seed) {
  std::vector<std::string> args = {self, sub, a.study, "--seed", std::to_string(seed)};
  if (!a.fingerprint.empty()) {
    args.push_back("--fingerprint");
    args.push_back(a.fingerprint);
  }
  for (const auto& s : a.sets) {
    args.push_back("--set");
    args.push_back(s);
  }
  if (a.trace) {
    for (const std::string& x : {std::string("--trace"), std::string("--trace-from"), a.trace_from,
                                 std::string("--trace-max"), std::to_string(a.trace_max)})
      args.push_back(x);
    if (!a.trace_to.empty()) {
      args.push_back("--trace-to");
      args.push_back(a.trace_to);
    }
  }
  return args;
}

std::string point_file(const std::string& dir, std::size_t k, const char* ext) {
  return (fs::path(dir) / "points" / (std::to_string(k) + ".json" + ext)).string();
}

std::string point_trace_file(const std::string& dir, std::size_t k) {
  return (fs::path(dir) / "points" / (std::to_string(k) + ".trace.json")).string();
}

int exit_status_of(const std::function<int()>& body) {
  try {
    return body();
  } catch (const InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 2;
  } catch (const SimError& e) {
    std::fprintf(stderr, "simulation error: %s\n", e.what());
    return 3;
  } catch (const sc_core::sc_report& e) {
    std::fprintf(stderr, "simulation error (SystemC): %s\n", e.what());
    return 3;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "internal error: %s\n", e.what());
    return 3;
  }
}

}  // namespace hx::sim
