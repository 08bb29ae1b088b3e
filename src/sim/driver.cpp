#include "src/sim/driver.h"

#include <nlohmann/json.hpp>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
#include <sstream>
#include <thread>

#include "models/core/error.h"
#include "models/core/trace.h"
#include "src/config/units.h"
#include "src/sim/runner.h"
#include "src/sim/mpi.h"
#include "src/sim/study.h"
#include "src/sim/workloads.h"

extern char** environ;

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

StudyFiles prepared(const RunArgs& a) {
  StudyFiles f = load_study_files(a.study);
  for (const auto& [p, v] : split_sets(a.sets)) {
    apply_set(f, p, v, "--set " + p);
    f.sets.emplace_back(p, v);
  }
  return f;
}

std::uint64_t study_seed(const RunArgs& a, const StudyFiles& f) {
  if (a.seed >= 0) return static_cast<std::uint64_t>(a.seed);
  const cfg::Cursor root = cfg::root_cursor(f.study, f.study_file);
  return root.has("seed") ? static_cast<std::uint64_t>(root.child("seed").integer(0, 1ll << 62)) : 1;
}

std::string read_file(const std::string& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

namespace {

std::string csv_escape(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string o = "\"";
  for (char c : s) o += c == '"' ? std::string("\"\"") : std::string(1, c);
  return o + "\"";
}

std::string csv_value(const nlohmann::json& v) {
  if (v.is_number()) {
    char b[64];
    std::snprintf(b, sizeof b, "%.10g", v.get<double>());
    return b;
  }
  if (v.is_string()) return csv_escape(v.get<std::string>());
  return csv_escape(v.dump());
}

}  // namespace

std::string check_study(const StudyFiles& f, const std::vector<SweepPoint>& points, int threads) {
  // Point k is checked by thread k % n on a copy of its own (yaml-cpp trees
  // are not shared between threads); the error reported is that of the
  // first bad point, whatever thread found it.
  const std::size_t n = std::max<std::size_t>(1, std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)),
                                                                       points.size() / 32));
  std::vector<StudyFiles> copies;
  for (std::size_t i = 0; i < n; ++i) copies.push_back(clone(f));
  std::vector<std::pair<std::size_t, std::exception_ptr>> first_error(n, {points.size(), nullptr});
  std::string name;
  auto check = [&](std::size_t i) {
    for (std::size_t k = i; k < points.size(); k += n) {
      try {
        StudyFiles c = clone(copies[i]);
        for (const auto& [path, value] : points[k].sets) apply_set(c, path, value, "sweep " + path);
        Study s = parse_study(c);
        make_workloads(s.workloads, s.topo);  // validated against the topology, not elaborated
        if (i == 0 && k == 0) name = s.name;
      } catch (...) {
        first_error[i] = {k, std::current_exception()};
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t i = 1; i < n; ++i) pool.emplace_back(check, i);
  check(0);
  for (auto& t : pool) t.join();
  const auto worst = std::min_element(first_error.begin(), first_error.end(),
                                      [](const auto& a, const auto& b) { return a.first < b.first; });
  if (worst->second) std::rethrow_exception(worst->second);
  return name;
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

int run_one_point(const RunArgs& a, std::size_t index, const std::string& out_file) {
  StudyFiles f = prepared(a);
  const auto points = expand_sweep(f);
  if (index >= points.size()) throw InputError("point " + std::to_string(index) + " does not exist");
  if (a.trace) {
    const auto [from, to] = trace_window(a);
    Trace::instance().enable(from, to, static_cast<std::size_t>(a.trace_max));
  }
  nlohmann::json r = run_point(f, points[index], point_seed(study_seed(a, f), index));
  if (a.trace) {
    const std::string tf = out_file.substr(0, out_file.size() - 5) + ".trace.json";
    if (!Trace::instance().write(tf)) throw InputError("cannot write the trace " + tf);
  }
  r["point_index"] = index;
  nlohmann::json timing = r["timing"];
  r.erase("timing");
  write_atomic(out_file + ".timing", timing.dump(2) + "\n");
  write_atomic(out_file, r.dump(2) + "\n");
  return 0;
}

std::vector<std::string> point_args(const RunArgs& a, const std::string& self, std::uint64_t seed, std::size_t k,
                                    const std::string& out) {
  std::vector<std::string> args = {self, "_point", a.study, "--index", std::to_string(k), "--out", out,
                                   "--seed", std::to_string(seed)};
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

pid_t spawn_point(const std::vector<std::string>& args_in, const std::string& errf) {
  std::vector<std::string> args = args_in;
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, 2, errf.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid;
  if (posix_spawn(&pid, args[0].c_str(), &fa, nullptr, argv.data(), environ) != 0) throw SimError("cannot start a worker process");
  posix_spawn_file_actions_destroy(&fa);
  return pid;
}

int exit_code(int status) { return WIFEXITED(status) ? WEXITSTATUS(status) : 3; }

namespace {
// Points run as child processes of this one, `jobs` at a time.
class LocalPool final : public PointPool {
 public:
  LocalPool(const RunArgs& a, std::string self, std::uint64_t seed, std::string dir, int jobs)
      : m_a(a), m_self(std::move(self)), m_seed(seed), m_dir(std::move(dir)), m_jobs(jobs) {}
  bool can_start() const override { return static_cast<int>(m_running.size()) < m_jobs; }
  void start(std::size_t k) override {
    const std::string pf = (fs::path(m_dir) / "points" / (std::to_string(k) + ".json")).string();
    m_running[spawn_point(point_args(m_a, m_self, m_seed, k, pf), pf + ".stderr")] = k;
  }
  Finished wait() override {
    for (;;) {
      int status = 0;
      const pid_t pid = ::wait(&status);
      if (pid < 0) throw SimError("lost track of the point processes");
      auto it = m_running.find(pid);
      if (it == m_running.end()) continue;
      Finished f{it->second, exit_code(status), {}};
      m_running.erase(it);
      const std::string errf = (fs::path(m_dir) / "points" / (std::to_string(f.index) + ".json.stderr")).string();
      if (f.code != 0) f.err = read_file(errf);
      else fs::remove(errf);
      return f;
    }
  }

 private:
  const RunArgs& m_a;
  std::string m_self;
  std::uint64_t m_seed;
  std::string m_dir;
  int m_jobs;
  std::map<pid_t, std::size_t> m_running;
};
}  // namespace

int run_study(const RunArgs& a, const std::string& self) {
  // 1. Everything is checked before anything is written.
  if (a.trace) trace_window(a);
  StudyFiles f = prepared(a);
  const auto points = expand_sweep(f);
  const int jobs = a.jobs > 0 ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  const std::string name = check_study(f, points, jobs);
  const std::uint64_t seed = study_seed(a, f);
  const std::string dir = a.out_dir.empty() ? "results/" + name : a.out_dir;
  fs::create_directories(fs::path(dir) / "points");
  write_atomic((fs::path(dir) / "resolved_study.yaml").string(), emit(f.study) + "\n");
  write_atomic((fs::path(dir) / "resolved_topology.yaml").string(), emit(f.topo) + "\n");
  // A point file is reused only if it was produced from the same resolved
  // configuration and seed.
  // ... and by the same simulator build.
  std::error_code ec;
  const auto exe_time = fs::last_write_time(self, ec).time_since_epoch().count();
  const auto exe_size = fs::file_size(self, ec);
  const std::string fingerprint = std::to_string(std::hash<std::string>{}(
      emit(f.study) + emit(f.topo) + std::to_string(seed) + std::to_string(exe_time) + std::to_string(exe_size)));
  const fs::path fp_file = fs::path(dir) / "fingerprint";
  const bool same_config = fs::exists(fp_file) && read_file(fp_file.string()) == fingerprint;
  write_atomic(fp_file.string(), fingerprint);

  // 2. One process per point.
  std::vector<std::size_t> todo;
  std::size_t skipped = 0;
  for (std::size_t k = 0; k < points.size(); ++k) {
    const fs::path pf = fs::path(dir) / "points" / (std::to_string(k) + ".json");
    if (!a.fresh && !a.trace && same_config && fs::exists(pf)) {
      ++skipped;
      continue;
    }
    todo.push_back(k);
  }
  const bool tty = ::isatty(2) && !a.quiet;
  std::unique_ptr<PointPool> pool = a.mpi ? make_mpi_pool(a, self, dir) : std::make_unique<LocalPool>(a, self, seed, dir, jobs);
  std::size_t next = 0, done = 0, failed = 0;
  auto read_point = [&](std::size_t k) {
    const fs::path pf = fs::path(dir) / "points" / (std::to_string(k) + ".json");
    return fs::exists(pf) ? nlohmann::json::parse(read_file(pf.string())) : nlohmann::json();
  };
  std::vector<nlohmann::json> gathered(points.size());
  int worst = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto progress = [&] {
    if (a.quiet) return;
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double eta = done ? el / static_cast<double>(done) * static_cast<double>(todo.size() - done) : 0.0;
    if (tty)
      std::fprintf(stderr, "\r[%zu/%zu] %zu failed, %.0fs elapsed, ETA %.0fs   ", done, todo.size(), failed, el, eta);
  };
  while (done < todo.size()) {
    while (next < todo.size() && pool->can_start()) pool->start(todo[next++]);
    const PointPool::Finished fin = pool->wait();
    ++done;
    if (fin.code != 0) {
      ++failed;
      worst = std::max(worst, fin.code);
      std::string err = fin.err;
      if (err.size() > 2000) err = "..." + err.substr(err.size() - 2000);
      if (tty) std::fprintf(stderr, "\n");
      std::fprintf(stderr, "point %zu failed (exit %d):\n%s\n", fin.index, fin.code, err.c_str());
    } else {
      // Gathered as it finishes, while the other points run.
      gathered[fin.index] = read_point(fin.index);
      if (!tty && !a.quiet) std::fprintf(stderr, "point %zu/%zu done\n", done, todo.size());
    }
    progress();
  }
  pool.reset();
  if (tty) std::fprintf(stderr, "\n");

  // 3. Gather.
  nlohmann::json all = nlohmann::json::array();
  std::vector<std::string> pcols, mcols;
  std::set<std::string> seenp, seenm;
  for (std::size_t k = 0; k < points.size(); ++k) {
    nlohmann::json r = gathered[k].is_null() ? read_point(k) : std::move(gathered[k]);  // reused points are read now
    if (r.is_null()) continue;
    for (auto& [key, v] : r["point"].items())
      if (seenp.insert(key).second) pcols.push_back(key);
    for (auto& [key, v] : r["metrics"].items())
      if (seenm.insert(key).second) mcols.push_back(key);
    all.push_back(std::move(r));
  }
  nlohmann::json study = {{"study", name}, {"points", all}, {"failed", failed}};
  write_atomic((fs::path(dir) / "results.json").string(), study.dump(2) + "\n");
  std::ostringstream csv;
  csv << "point";
  for (const auto& c : pcols) csv << "," << csv_escape(c);
  for (const auto& c : mcols) csv << "," << csv_escape(c);
  csv << "\n";
  for (const auto& r : all) {
    csv << r["point_index"].get<std::size_t>();
    for (const auto& c : pcols) csv << "," << (r["point"].contains(c) ? csv_value(r["point"][c]) : "");
    for (const auto& c : mcols) csv << "," << (r["metrics"].contains(c) ? csv_value(r["metrics"][c]) : "");
    csv << "\n";
  }
  write_atomic((fs::path(dir) / "results.csv").string(), csv.str());
  if (!a.quiet)
    std::fprintf(stderr, "%s: %zu points (%zu reused), %zu failed -> %s\n", name.c_str(), points.size(), skipped, failed,
                 dir.c_str());
  return failed ? (worst == 2 ? 2 : 3) : 0;
}

}  // namespace hx::sim
