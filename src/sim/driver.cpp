#include "src/sim/driver.h"

#include <nlohmann/json.hpp>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <string_view>
#include <system_error>
#include <thread>

#include <systemc>

#include "models/core/error.h"
#include "src/sim/runner.h"
#include "src/sim/mpi.h"
#include "src/sim/study.h"
#include "src/sim/workloads.h"

extern char** environ;

namespace hx::sim {

namespace fs = std::filesystem;

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

// Seconds between the progress lines a log (not a terminal) gets while a
// long point runs: $HXSIM_PROGRESS_EVERY, else 30.
double told_every_s() {
  const char* e = std::getenv("HXSIM_PROGRESS_EVERY");
  if (!e || !*e) return 30;
  char* end = nullptr;
  const double v = std::strtod(e, &end);
  if (*end || !(v > 0) || !std::isfinite(v))
    throw InputError(std::string("HXSIM_PROGRESS_EVERY is '") + e + "', not a number of seconds above 0");
  return v;
}

// "point K: 41% of its work at 3.21 ms simulated, ETA 25s" for the running
// point expected to end last (one whose workloads cannot tell their share
// counts as last); empty when no point has told its progress.
std::string slowest_point(const std::vector<PointPool::Running>& running) {
  const PointPool::Running* worst = nullptr;
  double worst_left = -1;
  for (const auto& r : running) {
    const PointProgress& p = r.progress;
    const double left = p.done > 0 ? p.wall_s * (1 - p.done) / p.done : std::numeric_limits<double>::infinity();
    if (left > worst_left || (left == worst_left && worst && p.wall_s > worst->progress.wall_s)) {
      worst = &r;
      worst_left = left;
    }
  }
  if (!worst) return "";
  const PointProgress& p = worst->progress;
  char sim[32];
  if (p.simulated_ns < 1e3) std::snprintf(sim, sizeof sim, "%.0f ns", p.simulated_ns);
  else if (p.simulated_ns < 1e6) std::snprintf(sim, sizeof sim, "%.1f us", p.simulated_ns / 1e3);
  else if (p.simulated_ns < 1e9) std::snprintf(sim, sizeof sim, "%.2f ms", p.simulated_ns / 1e6);
  else std::snprintf(sim, sizeof sim, "%.3f s", p.simulated_ns / 1e9);
  char out[160];
  if (p.done > 0)
    std::snprintf(out, sizeof out, "point %zu: %.0f%% of its work at %s simulated, ETA %.0fs", worst->index,
                  std::floor(p.done * 100), sim, worst_left);
  else
    std::snprintf(out, sizeof out, "point %zu: %s simulated after %.0fs", worst->index, sim, p.wall_s);
  return out;
}

}  // namespace

std::string check_study(const StudyFiles& f, const Sweep& points, int threads, std::size_t first,
                        std::size_t last, const CheckProgress& progress) {
  // Each thread takes the next unchecked point in turn and checks it on a
  // copy of its own (yaml-cpp trees are not shared between threads); the
  // error reported is that of the first bad point, whatever thread found
  // it: points are taken in order, so every point before it was checked.
  // Taken in turn rather than dealt out in advance, so that a thread slowed
  // by the point servers starting beside it does not finish last alone.
  last = std::min(last, points.size());
  if (first >= last) return {};
  const std::size_t count = last - first;
  const std::size_t n = std::max<std::size_t>(1, std::min<std::size_t>(static_cast<std::size_t>(std::max(threads, 1)),
                                                                       count / 32));
  // Each point is checked on a copy of its thread's copy of the study. The
  // points are made from the sweep already and none changes it (Sweep), so
  // it is left out: with a list of thousands of values, copying it for
  // every point made the check grow with the square of the points, and
  // reading the files again for each thread's copy cost a million-value
  // list 0.9 GB and half a minute.
  std::vector<StudyFiles> copies;
  for (std::size_t i = 0; i < n; ++i) copies.push_back(copy_without_sweep(f));
  std::vector<std::pair<std::size_t, std::exception_ptr>> first_error(n, {last, nullptr});
  std::string name;
  // Where no point changes the topology (a sweep of workloads, seeds or
  // study keys), each thread reads it once and checks every point's
  // workloads against that: a point's check then copies and reads only
  // the study (a 20000-point seed sweep took 8 s to check, reading the
  // topology again for each point).
  const bool same_topology = !points.changes_topology();
  std::vector<std::unique_ptr<topo::Topology>> topos(n);
  auto check_one = [&](StudyFiles c, std::size_t k, const topo::Topology* t) {
    apply_point(c, points.at(k));
    const Study s = t ? parse_study_keys(c) : parse_study(c);
    // Validated against the topology, not elaborated.
    check_metric_globs(s.metrics, make_workloads(s.workloads, t ? *t : s.topo));
    return s.name;
  };
  std::atomic<std::size_t> next{first};
  auto check = [&](std::size_t i) {
    for (std::size_t k; (k = next.fetch_add(1)) < last;) {
      if (i == 0 && progress && (k - first) % 256 == 0) progress(k - first, count);
      try {
        std::string s;
        if (same_topology) {
          if (!topos[i]) topos[i] = std::make_unique<topo::Topology>(topo::load_topology(copies[i].topo_root(), copies[i].topo_file));
          s = check_one(copy_study_only(copies[i]), k, topos[i].get());
        } else {
          s = check_one(copy_without_positions(copies[i]), k, nullptr);
        }
        if (k == first) name = s;
      } catch (...) {
        // The error again, from a copy read from the files, for its file:line:col.
        first_error[i] = {k, std::current_exception()};
        try {
          check_one(clone(copies[i]), k, nullptr);
        } catch (...) {
          first_error[i].second = std::current_exception();
        }
        next = last;  // the points after it need no check
        return;
      }
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t i = 1; i < n; ++i) pool.emplace_back(check, i);
  check(0);
  for (auto& t : pool) t.join();
  if (progress) progress(std::min(next.load(), last) - first, count);
  const auto worst = std::min_element(first_error.begin(), first_error.end(),
                                      [](const auto& a, const auto& b) { return a.first < b.first; });
  if (worst->second) std::rethrow_exception(worst->second);
  return name;
}

int run_tool(const std::vector<std::string>& args_in) {
  std::vector<std::string> args = args_in;
  std::vector<char*> argv;
  for (auto& s : args) argv.push_back(s.data());
  argv.push_back(nullptr);
  if (::access(args[0].c_str(), X_OK) != 0 || ::access(args[1].c_str(), R_OK) != 0)
    throw InputError("plot: needs " + args[0] + " (with matplotlib) and " + args[1]);
  pid_t pid;
  if (posix_spawn(&pid, args[0].c_str(), nullptr, nullptr, argv.data(), environ) != 0)
    throw InputError("plot: cannot start " + args[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) throw SimError("plot: lost the plotting process");
  return exit_code(status);
}

namespace {
// What dump(2) makes of `obj` with its top-level array `key` holding
// `count` items, handed to `out` piece by piece; item i is asked for when
// it is due, as its own dump(2) text (a final newline is dropped), and is
// indented where it stands rather than parsed and printed again.
void stream_dump(const std::function<void(std::string_view)>& out, nlohmann::json obj, const std::string& key,
                 std::size_t count, const std::function<std::string(std::size_t)>& item_text) {
  const std::string mark = "\x01items\x01";
  obj[key] = mark;
  const std::string whole = obj.dump(2);
  const std::string quoted = nlohmann::json(mark).dump();
  const std::size_t at = whole.find(quoted);
  out(std::string_view(whole).substr(0, at));
  if (count == 0) {
    out("[]");
  } else {
    out("[\n");
    std::string piece;
    for (std::size_t i = 0; i < count; ++i) {
      const std::string text = item_text(i);
      std::string_view p = text;
      while (!p.empty() && p.back() == '\n') p.remove_suffix(1);
      piece.clear();
      piece.reserve(p.size() + p.size() / 8 + 8);
      if (i) piece += ",\n";
      piece += "    ";
      for (std::size_t from = 0;;) {
        const std::size_t nl = p.find('\n', from);
        piece.append(p.substr(from, nl == std::string_view::npos ? std::string_view::npos : nl + 1 - from));
        if (nl == std::string_view::npos) break;
        piece += "    ";
        from = nl + 1;
      }
      out(piece);
    }
    out("\n  ]");
  }
  out(std::string_view(whole).substr(at + quoted.size()));
  out("\n");
}
}  // namespace

void stream_results_json(const std::function<void(std::string_view)>& out, const std::string& study, std::size_t failed,
                         std::size_t count, const std::function<std::string(std::size_t)>& point_text) {
  stream_dump(out, {{"failed", failed}, {"study", study}}, "points", count, point_text);
}

std::string results_json(const std::string& study, std::size_t failed, const std::vector<std::string>& points) {
  std::string all;
  stream_results_json([&all](std::string_view piece) { all.append(piece); }, study, failed, points.size(),
                      [&points](std::size_t i) { return points[i]; });
  return all;
}

// Fails unless results can go to `dir`: an existing directory, or one that
// can be made under its nearest existing ancestor. Checked before anything
// starts; creating it may still fail (a read-only file system), which is
// then the same kind of error. `label` starts the message ("-o DIR").
void check_output_dir(const std::string& dir, const std::string& label) {
  std::error_code ec;
  fs::path probe = fs::absolute(dir.empty() ? "." : dir, ec);
  if (ec) throw InputError(label + ": " + ec.message());
  while (!fs::exists(probe, ec) && probe.has_parent_path() && probe != probe.parent_path()) probe = probe.parent_path();
  if (!fs::is_directory(probe, ec)) throw InputError(label + ": " + probe.string() + " exists and is not a directory");
  if (::access(probe.c_str(), W_OK | X_OK) != 0)
    throw InputError(label + ": cannot write in " + probe.string() + ": " + std::strerror(errno));
}

void check_output_file(const std::string& file, const std::string& label) {
  check_output_dir(fs::path(file).parent_path().string(), label);
  std::error_code ec;
  if (fs::is_directory(file, ec)) throw InputError(label + ": " + file + " is a directory");
}

namespace {
void make_output_dir(const fs::path& dir, const std::string& label) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw InputError(label + ": cannot create " + dir.string() + ": " + ec.message());
}

// The CSV rows of the points gathered so far, kept on disk in the order
// they come (a million points' rows would not fit in memory as JSON) and
// written out in point order with every column any point had. The file is
// an unnamed one in the output directory: it goes with the process,
// however that ends.
class RowSpool {
 public:
  RowSpool(const std::string& dir, std::size_t points) : m_at(points, -1) {
    int fd = ::open(dir.c_str(), O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0) {  // a file system without unnamed files: a named one, unlinked at once
      std::string name = (fs::path(dir) / ".rows.XXXXXX").string();
      fd = ::mkstemp(name.data());
      if (fd >= 0) ::unlink(name.c_str());
    }
    if (fd < 0 || !(m_f = ::fdopen(fd, "w+b"))) {
      if (fd >= 0) ::close(fd);
      throw InputError("-o " + dir + ": cannot make a scratch file: " + std::strerror(errno));
    }
  }
  ~RowSpool() { std::fclose(m_f); }
  RowSpool(const RowSpool&) = delete;
  RowSpool& operator=(const RowSpool&) = delete;

  // Point k's row: its swept values and metrics (a second add replaces it).
  void add(std::size_t k, const nlohmann::json& point, const nlohmann::json& metrics) {
    std::fseek(m_f, 0, SEEK_END);
    m_at[k] = std::ftell(m_f);
    put_cells(k, point, m_point);
    put_cells(k, metrics, m_metric);
  }
  bool has(std::size_t k) const { return m_at[k] >= 0; }
  // The CSV: a header, then a row per point that has one, in point order.
  // Every swept value is a column; so is every metric, or, given `globs`
  // (the study's `metrics:`), those matching one, in the patterns' order.
  void write_csv(AtomicFile& out, const std::vector<std::string>& globs) {
    const std::vector<std::size_t> point_cols = m_point.in_order();
    const std::vector<std::size_t> metric_order = m_metric.in_order();
    std::vector<std::size_t> metric_cols;  // the metrics' columns, in the order they are written
    if (globs.empty()) {
      metric_cols = metric_order;
    } else {
      std::vector<bool> taken(m_metric.names.size(), false);
      for (const auto& g : globs)
        for (const std::size_t c : metric_order)
          if (!taken[c] && metric_glob_matches(g, m_metric.names[c])) {
            taken[c] = true;
            metric_cols.push_back(c);
          }
    }
    std::string line = "point";
    for (const std::size_t c : point_cols) line += "," + csv_escape(m_point.names[c]);
    for (const std::size_t c : metric_cols) line += "," + csv_escape(m_metric.names[c]);
    out.write(line + "\n");
    std::vector<std::string> cells;
    for (std::size_t k = 0; k < m_at.size(); ++k) {
      if (m_at[k] < 0) continue;
      std::fseek(m_f, m_at[k], SEEK_SET);
      line = std::to_string(k);
      for (const Columns* cols : {&m_point, &m_metric}) {
        cells.assign(cols->names.size(), std::string());
        for (std::uint32_t n = get(), i = 0; i < n; ++i) {
          const std::uint32_t col = get();
          cells.at(col) = get_text();
        }
        for (const std::size_t c : cols == &m_point ? point_cols : metric_cols) line += "," + cells[c];
      }
      out.write(line + "\n");
    }
    if (std::ferror(m_f)) throw InputError("the scratch file of the results failed: " + std::string(std::strerror(errno)));
  }

 private:
  // The columns of every point gathered: their order is the one a run of the
  // points in turn would give (by the first point that has each, then by
  // its place in that point's row), whatever order the points finish in.
  struct Columns {
    std::vector<std::string> names;  // in the order they first came
    std::vector<std::pair<std::size_t, std::size_t>> first;  // (point, place in its row) of the first point with each
    std::map<std::string, std::uint32_t> index;
    std::vector<std::size_t> in_order() const {
      std::vector<std::size_t> o(names.size());
      for (std::size_t c = 0; c < o.size(); ++c) o[c] = c;
      std::sort(o.begin(), o.end(), [&](std::size_t a, std::size_t b) { return first[a] < first[b]; });
      return o;
    }
  };
  void put(std::uint32_t v) { std::fwrite(&v, sizeof v, 1, m_f); }
  std::uint32_t get() {
    std::uint32_t v = 0;
    if (std::fread(&v, sizeof v, 1, m_f) != 1) throw SimError("the scratch file of the results is short");
    return v;
  }
  std::string get_text() {
    std::string t(get(), '\0');
    if (!t.empty() && std::fread(t.data(), 1, t.size(), m_f) != t.size()) throw SimError("the scratch file of the results is short");
    return t;
  }
  void put_cells(std::size_t k, const nlohmann::json& obj, Columns& cols) {
    put(static_cast<std::uint32_t>(obj.size()));
    std::size_t place = 0;
    for (const auto& [key, v] : obj.items()) {
      const auto [it, fresh] = cols.index.emplace(key, static_cast<std::uint32_t>(cols.names.size()));
      if (fresh) {
        cols.names.push_back(key);
        cols.first.emplace_back(k, place);
      } else {
        cols.first[it->second] = std::min(cols.first[it->second], std::make_pair(k, place));
      }
      ++place;
      const std::string cell = csv_value(v);
      put(it->second);
      put(static_cast<std::uint32_t>(cell.size()));
      std::fwrite(cell.data(), 1, cell.size(), m_f);
    }
  }
  std::FILE* m_f = nullptr;
  std::vector<long> m_at;  // where each point's row starts; -1: none
  Columns m_point, m_metric;
};
}  // namespace

int run_study(const RunArgs& a, const std::string& self) {
  // 1. Everything is checked before anything is written.
  if (a.trace) trace_window(a);
  const double told_every = told_every_s();
  StudyFiles f = prepared(a);
  const Sweep points(f);
  const int jobs = a.jobs > 0 ? a.jobs : std::max(1u, std::thread::hardware_concurrency());
  // The first point names the study, and so its output directory.
  const std::string name = check_study(f, points, 1, 0, 1);
  const std::uint64_t seed = study_seed(a, f);
  const std::string dir = a.out_dir.empty() ? "results/" + name : a.out_dir;
  check_output_dir(dir, "-o " + dir);
  // A point file is reused only if it carries the fingerprint of this
  // run's configuration (the resolved study and topology, the topology
  // files a sweep switches to, the seed and the simulator build) and of its
  // own index. Every other point is run, and its earlier file removed
  // first: a point that fails now leaves no earlier result behind, and one
  // of an earlier configuration is never read back.
  RunArgs args = a;
  args.fingerprint = run_fingerprint(f, points, seed, self);
  // What is kept of each point is its CSV row, on disk: the points' own
  // files are read again, one at a time, for results.json.
  std::unique_ptr<RowSpool> rows;
  // Point k's file, read into `rows` if it is this configuration's.
  auto read_point = [&](std::size_t k) {
    const std::string pf = point_file(dir, k);
    std::error_code ec;
    if (!fs::is_regular_file(pf, ec)) return false;
    const nlohmann::json r = nlohmann::json::parse(read_file(pf), nullptr, false);
    const nlohmann::json* fp = r.is_object() && r.contains("meta") && r["meta"].is_object() ? &r["meta"] : nullptr;
    if (!fp || !fp->contains("fingerprint") || (*fp)["fingerprint"] != point_fingerprint(args.fingerprint, k) ||
        !r.contains("point") || !r["point"].is_object() || !r.contains("metrics") || !r["metrics"].is_object())
      return false;
    if (!rows) rows = std::make_unique<RowSpool>(dir, points.size());  // the directory exists: it holds this file
    rows->add(k, r["point"], r["metrics"]);
    return true;
  };
  // Which files of which points an earlier run left: one listing of
  // points/, not a look-up per point (a million points took 10 s of them).
  enum : std::uint8_t { kJson = 1, kOther = 2 };
  std::vector<std::uint8_t> left(points.size(), 0);
  {
    std::error_code ec;
    for (fs::directory_iterator it(fs::path(dir) / "points", ec), end; !ec && it != end; it.increment(ec)) {
      const std::string n = it->path().filename().string();
      const std::size_t digits = n.find_first_not_of("0123456789");
      if (digits == 0 || digits == std::string::npos || digits > 19) continue;
      const std::size_t k = std::stoull(n.substr(0, digits));
      if (k >= points.size()) continue;
      left[k] |= n.compare(digits, std::string::npos, ".json") == 0 ? kJson : kOther;
    }
  }
  std::vector<std::size_t> todo;
  std::size_t skipped = 0;
  for (std::size_t k = 0; k < points.size(); ++k) {
    if (!a.fresh && !a.trace && (left[k] & kJson) && read_point(k)) {
      ++skipped;
      continue;
    }
    todo.push_back(k);
  }
  // The point servers start loading while the other points are checked;
  // they run nothing until they are sent a point, and end (sent none) if a
  // point is bad. No more servers than points to run. (MPI ranks are only
  // handed the study once it has been checked.)
  std::unique_ptr<PointPool> pool;
  if (!a.mpi)
    pool = make_local_pool(args, self, f, points, seed, dir, static_cast<int>(std::min<std::size_t>(jobs, todo.size())));
  // A large sweep's checks take a while: they say how far they are.
  const bool tty = ::isatty(2) && !a.quiet;
  CheckProgress shown;
  if (!a.quiet && points.size() > 1000) {
    auto last_shown = std::make_shared<std::pair<std::chrono::steady_clock::time_point, std::size_t>>(
        std::chrono::steady_clock::now(), 0);
    shown = [tty, last_shown](std::size_t done, std::size_t total) {
      const auto now = std::chrono::steady_clock::now();
      if (tty && (done == total || now - last_shown->first > std::chrono::milliseconds(250))) {
        std::fprintf(stderr, "\rchecking the sweep: %zu/%zu points%s", done, total, done == total ? "\n" : "   ");
        last_shown->first = now;
      } else if (!tty && done * 10 / total > last_shown->second) {
        last_shown->second = done * 10 / total;
        std::fprintf(stderr, "checked %zu/%zu points of the sweep\n", done, total);
      }
    };
  }
  check_study(f, points, jobs, 1, static_cast<std::size_t>(-1), shown);
  make_output_dir(fs::path(dir) / "points", "-o " + dir);
  if (!rows) rows = std::make_unique<RowSpool>(dir, points.size());
  write_atomic((fs::path(dir) / "resolved_study.yaml").string(), emit(f.study) + "\n");
  write_atomic((fs::path(dir) / "resolved_topology.yaml").string(), emit(f.topo) + "\n");
  // The fingerprint file of earlier versions, which marked a whole
  // directory reusable before any point of it had run.
  std::error_code gone;
  fs::remove(fs::path(dir) / "fingerprint", gone);
  for (const std::size_t k : todo)
    if (left[k])
      for (const std::string& stale : {point_file(dir, k), point_file(dir, k, ".stderr"), point_file(dir, k, ".sets"),
                                       point_trace_file(dir, k)})
        if (!fs::remove(stale, gone) && gone)
          throw InputError("-o " + dir + ": cannot remove the earlier " + stale + ": " + gone.message());

  // 2. One process per point.
  if (a.mpi) pool = make_mpi_pool(args, self, f, points, seed, dir);
  std::size_t next = 0, done = 0, failed = 0;
  // Wall-clock figures per point: this run's, and an earlier run's for the
  // points reused from it.
  enum : std::uint8_t { kNone, kThisRun, kEarlierRun };
  std::vector<PointTiming> timing(points.size());
  std::vector<std::uint8_t> timed(points.size(), kNone);
  const fs::path timing_file = fs::path(dir) / "timing.json";
  if (skipped && fs::exists(timing_file)) {
    // Read entry by entry, each dropped once taken (a million points).
    std::ifstream in(timing_file);
    const nlohmann::json::parser_callback_t take = [&](int depth, nlohmann::json::parse_event_t ev, nlohmann::json& e) {
      if (depth != 2 || ev != nlohmann::json::parse_event_t::object_end) return true;
      if (e.contains("point") && e["point"].is_number_unsigned()) {
        const auto k = e["point"].get<std::size_t>();
        if (k < points.size()) {
          timing[k] = timing_from_json(e);
          timed[k] = kEarlierRun;
        }
      }
      return false;
    };
    [[maybe_unused]] const nlohmann::json rest = nlohmann::json::parse(in, take, false);
  }
  int worst = 0;
  const auto t0 = std::chrono::steady_clock::now();
  std::size_t shown_width = 0;
  double told_at = 0;  // wall time of the last progress line written to a file or pipe
  auto progress = [&] {
    if (a.quiet) return;
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // The running point with the most left to do, as far as the points tell.
    const std::string inside = slowest_point(pool->running());
    if (tty) {
      char head[160];
      if (done)
        std::snprintf(head, sizeof head, "[%zu/%zu] %zu failed, %.0fs elapsed, ETA %.0fs", done, todo.size(), failed, el,
                      el / static_cast<double>(done) * static_cast<double>(todo.size() - done));
      else  // no point has finished: no rate to reckon the sweep's ETA from yet
        std::snprintf(head, sizeof head, "[0/%zu] %.0fs elapsed, %zu running", todo.size(), el, next - done);
      std::string line = head + (inside.empty() ? std::string() : "; " + inside);
      const std::size_t width = line.size();
      line.resize(std::max(width, shown_width), ' ');  // over what the last line left
      shown_width = width;
      std::fprintf(stderr, "\r%s", line.c_str());
    } else if (!inside.empty() && el - told_at >= told_every) {
      // A log gets a line now and then while a long point runs.
      told_at = el;
      std::fprintf(stderr, "%s (%.0fs elapsed)\n", inside.c_str(), el);
    }
  };
  while (done < todo.size()) {
    while (next < todo.size() && pool->can_start()) pool->start(todo[next++]);
    // The line goes on counting while long points run.
    if (!a.quiet)
      while (!pool->finished_within(1000)) progress();
    const PointPool::Finished fin = pool->wait();
    // The next point starts before this one's results are read.
    while (next < todo.size() && pool->can_start()) pool->start(todo[next++]);
    ++done;
    if (fin.code != 0) {
      ++failed;
      worst = std::max(worst, fin.code);
      timed[fin.index] = kNone;  // no figures of an earlier run for a point without results
      std::string err = fin.err;
      if (err.size() > 2000) err = "..." + err.substr(err.size() - 2000);
      if (tty) std::fprintf(stderr, "\n");
      std::fprintf(stderr, "point %zu failed (exit %d):\n%s\n", fin.index, fin.code, err.c_str());
    } else {
      // Gathered as it finishes, while the other points run.
      read_point(fin.index);
      timing[fin.index] = fin.timing;
      timed[fin.index] = kThisRun;
      if (!tty && !a.quiet) std::fprintf(stderr, "point %zu/%zu done\n", done, todo.size());
    }
    progress();
  }
  pool.reset();
  const double sweep_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (tty) std::fprintf(stderr, "\n");

  // 3. Gather: each point's file is copied into results.json in turn,
  // and the rows kept on disk make results.csv.
  std::vector<std::size_t> present;
  for (std::size_t k = 0; k < points.size(); ++k)
    if (rows->has(k)) present.push_back(k);
  {
    AtomicFile out((fs::path(dir) / "results.json").string());
    stream_results_json([&out](std::string_view piece) { out.write(piece); }, name, failed, present.size(),
                        [&](std::size_t i) { return read_file(point_file(dir, present[i])); });
    out.commit();
  }
  {
    AtomicFile out((fs::path(dir) / "results.csv").string());
    std::vector<std::string> globs;
    for (const auto& [g, where] : parse_study_keys(f).metrics) globs.push_back(g);
    rows->write_csv(out, globs);
    out.commit();
  }
  {
    std::vector<std::size_t> with;
    for (std::size_t k = 0; k < points.size(); ++k)
      if (timed[k] != kNone) with.push_back(k);
    AtomicFile out(timing_file.string());
    stream_dump([&out](std::string_view piece) { out.write(piece); },
                {{"study", name}, {"jobs", a.mpi ? nlohmann::json("mpi") : nlohmann::json(jobs)},
                 {"points_run", todo.size()}, {"points_failed", failed}, {"wall_s", sweep_wall}},
                "points", with.size(), [&](std::size_t i) {
                  const std::size_t k = with[i];
                  nlohmann::json e = to_json(timing[k]);
                  e["point"] = k;
                  if (timed[k] == kEarlierRun) e["earlier_run"] = true;
                  return e.dump(2);
                });
    out.commit();
  }
  if (!a.quiet)
    std::fprintf(stderr, "%s: %zu points (%zu reused), %zu failed, %zu run in %.1f s -> %s (wall times per point: timing.json)\n",
                 name.c_str(), points.size(), skipped, failed, todo.size(), sweep_wall, dir.c_str());
  return failed ? (worst == 2 ? 2 : 3) : 0;
}

}  // namespace hx::sim
