#include "src/sim/driver.h"

#include <nlohmann/json.hpp>
#include <fcntl.h>
#include <malloc.h>
#include <poll.h>
#include <sched.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <sstream>
#include <string_view>
#include <system_error>
#include <thread>

#include <systemc>

#include "models/core/error.h"
#include "models/core/stable_hash.h"
#include "models/core/trace.h"
#include "src/config/units.h"
#include "src/sim/runner.h"
#include "src/sim/mpi.h"
#include "src/sim/study.h"
#include "src/sim/version.h"
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
  for (const std::string& t : points.topologies(f)) h.field(t).field(read_file(t));
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
  std::vector<StudyFiles> copies;
  for (std::size_t i = 0; i < n; ++i) {
    copies.push_back(clone(f));
    // Each point is checked on a copy of this one. The points are made
    // from the sweep already and none changes it (Sweep), so it is left out:
    // with a list of thousands of values, copying it for every point made
    // the check grow with the square of the points.
    copies.back().study.remove("sweep");
  }
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
    make_workloads(s.workloads, t ? *t : s.topo);  // validated against the topology, not elaborated
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

int run_one_point(const RunArgs& a, std::size_t index, const std::string& out_file) {
  StudyFiles f = prepared(a);
  // This point alone: building the whole sweep in every point process made
  // each point of an N-point sweep under MPI cost O(N).
  const auto [point, count] = sweep_point(f, index);
  if (index >= count) throw InputError("point " + std::to_string(index) + " does not exist");
  const PointTiming t = write_point(a, f, point, index, study_seed(a, f), out_file);
  std::ofstream out(out_file + ".timing", std::ios::binary | std::ios::trunc);
  out << to_json(t).dump(2) << "\n";
  if (!out.flush()) throw InputError(out_file + ".timing: cannot write");
  return 0;
}

namespace {
// A point's seed: derived from the study's seed and the point's index, or,
// for a point that sets `seed` itself (a sweep over seeds, for replicas),
// from that value alone, so that equal values give equal results wherever
// they stand in the sweep.
std::uint64_t seed_of(const SweepPoint& point, std::uint64_t study_seed, std::size_t index) {
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
                        const std::string& out_file) {
  if (a.trace) {
    const auto [from, to] = trace_window(a);
    Trace::instance().enable(from, to, static_cast<std::size_t>(a.trace_max));
  }
  nlohmann::json r = run_point_in_place(f, point, seed_of(point, seed, index));
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

std::string point_file(const std::string& dir, std::size_t k, const char* ext) {
  return (fs::path(dir) / "points" / (std::to_string(k) + ".json" + ext)).string();
}

std::string point_trace_file(const std::string& dir, std::size_t k) {
  return (fs::path(dir) / "points" / (std::to_string(k) + ".trace.json")).string();
}

namespace {

// Whole-buffer pipe I/O; false on EOF or error.
bool write_all(int fd, const void* p, std::size_t n) {
  const char* c = static_cast<const char*>(p);
  while (n) {
    const ssize_t k = ::write(fd, c, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    c += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}
bool read_all(int fd, void* p, std::size_t n) {
  char* c = static_cast<char*>(p);
  while (n) {
    const ssize_t k = ::read(fd, c, n);
    if (k < 0 && errno == EINTR) continue;
    if (k <= 0) return false;
    c += k;
    n -= static_cast<std::size_t>(k);
  }
  return true;
}

// Runs `body` on a thread of its own and returns its result. A process
// forked from a point server allocates, on its main thread, from the
// server's heap: the holes the server's loading left are scattered over
// pages the server wrote, and the first write into each copies that page
// (copy-on-write). A new thread allocates from a malloc arena of its own,
// fresh pages filled densely. On configs/bench/sweep_1000.yaml this took
// a point from 376 to 218 page faults and 15% less CPU time
// (docs/performance.md). Where no thread can be started, `body` runs here.
//
// The arena is also asked to be backed by a 2 MiB page (a transparent huge
// page, where the kernel offers them): a point writes a few hundred
// kilobytes there, and one fault for a huge page costs less than faulting
// those pages in one by one, most of all on a virtual machine whose page
// faults trap to the hypervisor (about 11 us each on the host of
// docs/performance.md, 92 us for a whole 2 MiB page). There it took the
// sweep's points from 218 to 120 page faults and 10-12% of their time.
// It is advice only: a kernel without huge pages runs the point the same
// way, on small pages.
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25  // Linux 6.1; older kernels refuse it, harmlessly
#endif
int on_fresh_arena(const std::function<int()>& body) {
  constexpr std::size_t kHuge = std::size_t{2} << 20;
  // A new arena's heap is made writable as far as the top pad reaches: the
  // whole first huge page at once, not one small page at a time (only a
  // range wholly inside one mapping can be a huge page).
  ::mallopt(M_TOP_PAD, static_cast<int>(2 * kHuge));
  int result = 3;
  std::thread own;
  try {
    own = std::thread([&] {
      // The first allocation creates this thread's arena. Its heap is
      // aligned to the arena size (64 MiB), so the huge page holding the
      // first block starts the heap. The heap's header is already written
      // there, so that page is collapsed into a huge one (MADV_COLLAPSE);
      // the next faults in as a huge page when first touched.
      if (void* first = std::malloc(1)) {
        void* at = reinterpret_cast<void*>(reinterpret_cast<std::uintptr_t>(first) & ~(kHuge - 1));
        ::madvise(at, 2 * kHuge, MADV_HUGEPAGE);
        ::madvise(at, kHuge, MADV_COLLAPSE);
        std::free(first);
      }
      result = body();
    });
  } catch (const std::system_error&) {
    return body();
  }
  own.join();
  return result;
}

// Asks for this process to be killed when its parent ends; false if the
// parent (`parent`) has ended already.
bool end_with_parent(pid_t parent) {
  ::prctl(PR_SET_PDEATHSIG, SIGKILL);
  return ::getppid() == parent;
}

// What a server reports of each point: one write of fewer than PIPE_BUF
// bytes, so that the reports of several servers on one pipe never mix.
struct Report {
  std::uint64_t index;
  std::int64_t code;
  PointTiming timing;
};
static_assert(sizeof(Report) <= 512, "a report must be one atomic pipe write");

// Local sweeps: `jobs` point servers, each an `hxsim _serve` process started
// afresh, take point indices from one command pipe (the driver writes them
// 8 bytes at a time, a few ahead of need; a pipe read of 8 bytes is whole)
// and run each point in a process forked from the server, one at a time.
// Each server sends back a Report (the point's index, exit code and
// wall-clock figures), having kept a failed point's stderr in
// points/K.json.stderr.
//
// Forking rather than starting the executable for every point saves
// loading and relocating the libraries, about half of a short point's cost
// (docs/performance.md). Each server is started afresh, not forked from
// the driver: the point processes of one parent contend in the kernel
// (their pages are copy-on-write shares of the same parent's), and
// servers that share no memory run their points as independently as two
// separate sweeps do (design note 18). Nothing of SystemC is elaborated in
// a server, so each point process elaborates exactly once. (The MPI pool
// starts `hxsim _point` processes instead: an MPI process must not fork.)
void serve(int cmd, int rep, const RunArgs& a, const StudyFiles& f, const Sweep& points,
           std::uint64_t seed, const std::string& dir) {
  ::signal(SIGPIPE, SIG_IGN);  // a driver that has gone makes report() fail, not kill this process
  const pid_t server = ::getpid();
  // A point process leaves its wall-clock figures in a page shared with
  // this server (no file per point).
  void* page = ::mmap(nullptr, sizeof(PointTiming), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (page == MAP_FAILED) throw SimError("cannot map the point server's page");
  auto* shared = static_cast<PointTiming*>(page);
  // False when the driver has gone (killed, or ended by another server's
  // death, which it reports itself): this server then ends quietly, its
  // point's file already written for a rerun.
  auto report = [&](std::size_t k, int code, const PointTiming& t) {
    const Report r{k, code, t};
    return write_all(rep, &r, sizeof r);
  };
  for (;;) {
    std::uint64_t msg;
    if (!read_all(cmd, &msg, sizeof msg)) return;  // the driver is done or gone
    const std::size_t k = static_cast<std::size_t>(msg);
    if (k >= points.size()) throw SimError("the point server was sent a point that does not exist");
    // The point's stderr goes to memory, kept in a file only if it fails.
    const int err = ::memfd_create("hxsim-point-stderr", MFD_CLOEXEC);
    const pid_t pid = err < 0 ? -1 : ::fork();
    if (pid == 0) {
      // A point ends with its server, as the server ends with its driver:
      // nothing of a killed sweep runs on.
      if (!end_with_parent(server)) ::_exit(3);
      ::close(cmd);  // the server's pipes are not the point's
      ::close(rep);
      int code = 3;
      const int null = ::open("/dev/null", O_WRONLY);
      if (null >= 0 && ::dup2(err, 2) >= 0 && ::dup2(null, 1) >= 0) {
        code = on_fresh_arena([&] {
          StudyFiles own = f;  // this process's own copy of the checked study
          return exit_status_of([&] {
            *shared = write_point(a, own, points.at(k), k, seed, point_file(dir, k));
            return 0;
          });
        });
      }
      std::fflush(nullptr);
      ::_exit(code);
    }
    if (pid < 0) {
      if (err >= 0) ::close(err);
      std::ofstream(point_file(dir, k, ".stderr")) << "simulation error: cannot start a worker process\n";
      if (!report(k, 3, {})) return;
      continue;
    }
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
      if (errno != EINTR) return;
    }
    const int code = exit_code(status);
    if (code != 0) {
      std::string text;
      char buf[4096];
      ssize_t n;
      for (off_t at = 0; (n = ::pread(err, buf, sizeof buf, at)) > 0; at += n) text.append(buf, static_cast<std::size_t>(n));
      std::ofstream(point_file(dir, k, ".stderr"), std::ios::binary) << text;
    }
    ::close(err);
    if (!report(k, code, code == 0 ? *shared : PointTiming{})) return;
    *shared = PointTiming{};
  }
}

class LocalPool final : public PointPool {
 public:
  LocalPool(const RunArgs& a, const std::string& self, const StudyFiles& f, std::uint64_t seed, std::string dir, int jobs)
      : m_dir(std::move(dir)), m_ahead(jobs + std::min(jobs, 64)) {
    int cmd[2], rep[2];
    if (::pipe2(cmd, O_CLOEXEC) != 0 || ::pipe2(rep, O_CLOEXEC) != 0) throw SimError("cannot start the point server");
    // The servers inherit their ends; not the driver's (EOF must reach both sides).
    ::fcntl(cmd[0], F_SETFD, 0);
    ::fcntl(rep[1], F_SETFD, 0);
    std::vector<std::string> args = worker_args(a, self, "_serve", seed);
    for (const std::string& x : {std::string("--dir"), m_dir, std::string("--cmd-fd"), std::to_string(cmd[0]),
                                 std::string("--rep-fd"), std::to_string(rep[1]), std::string("--study-hash"),
                                 std::to_string(study_hash(f)), std::string("--driver-pid"), std::to_string(::getpid())})
      args.push_back(x);
    std::vector<char*> argv;
    for (auto& x : args) argv.push_back(x.data());
    argv.push_back(nullptr);
    // Every library's symbols are bound in the server, once, rather than
    // lazily in each point process (which would copy the pages it writes).
    std::vector<char*> env;
    for (char** e = environ; *e; ++e)
      if (std::strncmp(*e, "LD_BIND_NOW=", 12) != 0) env.push_back(*e);
    std::string bind_now = "LD_BIND_NOW=1";
    env.push_back(bind_now.data());
    env.push_back(nullptr);
    // With a server for every CPU this process may use, each server and the
    // points it forks stay on a CPU of their own: left to the scheduler, the
    // two job slots of a -j2 sweep of sub-millisecond points share one CPU
    // now and then while the other idles (docs/performance.md). Set before
    // the server is sent its first point, so every point inherits it.
    std::vector<int> cpus;
    cpu_set_t allowed;
    if (a.pin && jobs > 1 && ::sched_getaffinity(0, sizeof allowed, &allowed) == 0 && CPU_COUNT(&allowed) == jobs)
      for (int c = 0; c < CPU_SETSIZE; ++c)
        if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
    for (int i = 0; i < jobs; ++i) {
      pid_t pid;
      if (posix_spawn(&pid, self.c_str(), nullptr, nullptr, argv.data(), env.data()) != 0)
        throw SimError("cannot start the point server");
      m_servers.push_back(pid);
      if (!cpus.empty()) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpus[static_cast<std::size_t>(i)], &one);
        ::sched_setaffinity(pid, sizeof one, &one);  // best effort: unpinned on failure
      }
    }
    ::close(cmd[0]);
    ::close(rep[1]);
    m_cmd = cmd[1];
    m_rep = rep[0];
  }
  ~LocalPool() override {
    ::close(m_cmd);  // the servers see EOF, finish what they run, and end
    ::close(m_rep);
    for (const pid_t s : m_servers) {
      int status;
      while (::waitpid(s, &status, 0) < 0 && errno == EINTR) {}
    }
  }
  bool can_start() const override { return m_outstanding < m_ahead; }
  void start(std::size_t k) override {
    const std::uint64_t msg = k;
    if (!write_all(m_cmd, &msg, sizeof msg)) throw SimError("lost the point server");
    ++m_outstanding;
  }
  bool finished_within(int timeout_ms) override {
    check_servers();
    pollfd p{m_rep, POLLIN, 0};
    const int r = ::poll(&p, 1, timeout_ms);
    return r > 0 || (r < 0 && errno != EINTR);  // an error: wait() reports it at once
  }
  Finished wait() override {
    // A server that ends before the driver is done may take a point with
    // it, and leaves a job slot empty in any case: the sweep ends with an
    // error (a rerun resumes it). Looked for at every wait, not only when
    // no report comes: the other servers' reports would otherwise hide the
    // loss until the sweep's last point (two system calls per point).
    while (!finished_within(250)) {
    }
    Report r;
    if (!read_all(m_rep, &r, sizeof r)) throw SimError("lost track of the point processes");
    --m_outstanding;
    Finished f{static_cast<std::size_t>(r.index), static_cast<int>(r.code), {}, r.timing};
    if (f.code != 0) f.err = read_file(point_file(m_dir, f.index, ".stderr"));
    return f;
  }

 private:
  void check_servers() const {
    for (const pid_t s : m_servers) {
      int status;
      if (::waitpid(s, &status, WNOHANG) != s) continue;
      // Exit 2: it found the study files changed (its own message says so).
      if (WIFEXITED(status) && WEXITSTATUS(status) == 2) throw InputError("a point server refused the study");
      throw SimError("a point server ended during the sweep (" +
                     (WIFSIGNALED(status) ? "signal " + std::to_string(WTERMSIG(status))
                                          : "exit " + std::to_string(WEXITSTATUS(status))) + ")");
    }
  }
  std::string m_dir;
  int m_ahead;
  int m_outstanding = 0;
  std::vector<pid_t> m_servers;
  int m_cmd = -1, m_rep = -1;
};
}  // namespace

std::unique_ptr<PointPool> make_local_pool(const RunArgs& a, const std::string& self, const StudyFiles& f,
                                           std::uint64_t seed, const std::string& dir, int jobs) {
  return std::make_unique<LocalPool>(a, self, f, seed, dir, jobs);
}

int run_point_server(const RunArgs& a, const std::string& dir, int cmd, int rep, std::uint64_t expect_hash, long driver) {
  // A server ends with its driver (killed or not): one still running would
  // go on writing point files into a directory a rerun now owns.
  if (driver > 0 && !end_with_parent(static_cast<pid_t>(driver))) return 3;
  StudyFiles f = prepared(a);
  const Sweep points(f);
  // The driver checked every point of what it read; a server that reads
  // something else (a file edited since) runs nothing.
  if (study_hash(f) != expect_hash) throw InputError(a.study + ": the study or its topology changed while the sweep started");
  serve(cmd, rep, a, f, points, study_seed(a, f), dir);
  return 0;
}

std::string results_json(const std::string& study, std::size_t failed, const std::vector<std::string>& points) {
  // What nlohmann's dump(2) makes of {"failed", "points", "study"} (keys in
  // order), with each point's own dump(2) indented two levels deeper: the
  // points are copied, not parsed and printed again.
  std::size_t size = 64 + study.size();
  for (const auto& p : points) size += p.size() + p.size() / 8;
  std::string out;
  out.reserve(size);
  out += "{\n  \"failed\": " + nlohmann::json(failed).dump() + ",\n  \"points\": ";
  if (points.empty()) {
    out += "[]";
  } else {
    out += "[\n";
    for (std::size_t i = 0; i < points.size(); ++i) {
      if (i) out += ",\n";
      std::string_view p = points[i];
      while (!p.empty() && p.back() == '\n') p.remove_suffix(1);  // the file's final newline
      out += "    ";
      for (std::size_t at = 0;;) {
        const std::size_t nl = p.find('\n', at);
        out.append(p.substr(at, nl == std::string_view::npos ? std::string_view::npos : nl + 1 - at));
        if (nl == std::string_view::npos) break;
        out += "    ";
        at = nl + 1;
      }
    }
    out += "\n  ]";
  }
  out += ",\n  \"study\": " + nlohmann::json(study).dump() + "\n}\n";
  return out;
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
}  // namespace

int run_study(const RunArgs& a, const std::string& self) {
  // 1. Everything is checked before anything is written.
  if (a.trace) trace_window(a);
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
  struct Gathered {
    bool present = false;
    std::string text;
    nlohmann::json point, metrics;
  };
  auto read_point = [&](std::size_t k) {
    Gathered g;
    const std::string pf = point_file(dir, k);
    std::error_code ec;
    if (!fs::is_regular_file(pf, ec)) return g;
    g.text = read_file(pf);
    nlohmann::json r = nlohmann::json::parse(g.text, nullptr, false);
    const nlohmann::json* fp = r.is_object() && r.contains("meta") && r["meta"].is_object() ? &r["meta"] : nullptr;
    if (!fp || !fp->contains("fingerprint") || (*fp)["fingerprint"] != point_fingerprint(args.fingerprint, k) ||
        !r.contains("point") || !r.contains("metrics"))
      return Gathered{};
    g.point = std::move(r["point"]);
    g.metrics = std::move(r["metrics"]);
    g.present = true;
    return g;
  };
  std::vector<Gathered> gathered(points.size());
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
    if (!a.fresh && !a.trace && (left[k] & kJson)) gathered[k] = read_point(k);
    if (gathered[k].present) {
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
    pool = make_local_pool(args, self, f, seed, dir, static_cast<int>(std::min<std::size_t>(jobs, todo.size())));
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
  write_atomic((fs::path(dir) / "resolved_study.yaml").string(), emit(f.study) + "\n");
  write_atomic((fs::path(dir) / "resolved_topology.yaml").string(), emit(f.topo) + "\n");
  // The fingerprint file of earlier versions, which marked a whole
  // directory reusable before any point of it had run.
  std::error_code gone;
  fs::remove(fs::path(dir) / "fingerprint", gone);
  for (const std::size_t k : todo)
    if (left[k])
      for (const std::string& stale : {point_file(dir, k), point_file(dir, k, ".stderr"), point_trace_file(dir, k)})
        if (!fs::remove(stale, gone) && gone)
          throw InputError("-o " + dir + ": cannot remove the earlier " + stale + ": " + gone.message());

  // 2. One process per point.
  if (a.mpi) pool = make_mpi_pool(args, self, f, seed, dir);
  std::size_t next = 0, done = 0, failed = 0;
  // Wall-clock figures per point: this run's, and an earlier run's for the
  // points reused from it.
  std::vector<nlohmann::json> timing(points.size());
  const fs::path timing_file = fs::path(dir) / "timing.json";
  if (skipped && fs::exists(timing_file)) {
    const auto old = nlohmann::json::parse(read_file(timing_file.string()), nullptr, false);
    if (old.is_object() && old.contains("points") && old["points"].is_array())
      for (const auto& e : old["points"])
        if (e.is_object() && e.contains("point") && e["point"].is_number_unsigned()) {
          const auto k = e["point"].get<std::size_t>();
          if (k < points.size()) {
            timing[k] = to_json(timing_from_json(e));
            timing[k]["earlier_run"] = true;
          }
        }
  }
  int worst = 0;
  const auto t0 = std::chrono::steady_clock::now();
  auto progress = [&] {
    if (a.quiet) return;
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double eta = done ? el / static_cast<double>(done) * static_cast<double>(todo.size() - done) : 0.0;
    if (tty && done)
      std::fprintf(stderr, "\r[%zu/%zu] %zu failed, %.0fs elapsed, ETA %.0fs   ", done, todo.size(), failed, el, eta);
    else if (tty)  // no point has finished: no rate to reckon an ETA from yet
      std::fprintf(stderr, "\r[0/%zu] %.0fs elapsed, %zu running   ", todo.size(), el, next - done);
  };
  while (done < todo.size()) {
    while (next < todo.size() && pool->can_start()) pool->start(todo[next++]);
    // The line goes on counting while long points run (a terminal only).
    if (tty)
      while (!pool->finished_within(1000)) progress();
    const PointPool::Finished fin = pool->wait();
    // The next point starts before this one's results are read.
    while (next < todo.size() && pool->can_start()) pool->start(todo[next++]);
    ++done;
    if (fin.code != 0) {
      ++failed;
      worst = std::max(worst, fin.code);
      timing[fin.index] = nullptr;  // no figures of an earlier run for a point without results
      std::string err = fin.err;
      if (err.size() > 2000) err = "..." + err.substr(err.size() - 2000);
      if (tty) std::fprintf(stderr, "\n");
      std::fprintf(stderr, "point %zu failed (exit %d):\n%s\n", fin.index, fin.code, err.c_str());
    } else {
      // Gathered as it finishes, while the other points run.
      gathered[fin.index] = read_point(fin.index);
      timing[fin.index] = to_json(fin.timing);
      if (!tty && !a.quiet) std::fprintf(stderr, "point %zu/%zu done\n", done, todo.size());
    }
    progress();
  }
  pool.reset();
  const double sweep_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (tty) std::fprintf(stderr, "\n");

  // 3. Gather.
  std::vector<std::size_t> present;
  std::vector<std::string> texts, pcols, mcols;
  std::set<std::string> seenp, seenm;
  for (std::size_t k = 0; k < points.size(); ++k) {
    if (!gathered[k].present) gathered[k] = read_point(k);  // reused points are read now
    Gathered& g = gathered[k];
    if (!g.present) continue;
    for (auto& [key, v] : g.point.items())
      if (seenp.insert(key).second) pcols.push_back(key);
    for (auto& [key, v] : g.metrics.items())
      if (seenm.insert(key).second) mcols.push_back(key);
    present.push_back(k);
    texts.push_back(std::move(g.text));
  }
  write_atomic((fs::path(dir) / "results.json").string(), results_json(name, failed, texts));
  std::ostringstream csv;
  csv << "point";
  for (const auto& c : pcols) csv << "," << csv_escape(c);
  for (const auto& c : mcols) csv << "," << csv_escape(c);
  csv << "\n";
  for (const std::size_t k : present) {
    const Gathered& g = gathered[k];
    csv << k;
    for (const auto& c : pcols) csv << "," << (g.point.contains(c) ? csv_value(g.point[c]) : "");
    for (const auto& c : mcols) csv << "," << (g.metrics.contains(c) ? csv_value(g.metrics[c]) : "");
    csv << "\n";
  }
  write_atomic((fs::path(dir) / "results.csv").string(), csv.str());
  nlohmann::json tj = {{"study", name}, {"jobs", a.mpi ? nlohmann::json("mpi") : nlohmann::json(jobs)},
                       {"points_run", todo.size()}, {"points_failed", failed}, {"wall_s", sweep_wall}};
  nlohmann::json tp = nlohmann::json::array();
  for (std::size_t k = 0; k < points.size(); ++k)
    if (!timing[k].is_null()) {
      timing[k]["point"] = k;
      tp.push_back(std::move(timing[k]));
    }
  tj["points"] = std::move(tp);
  write_atomic(timing_file.string(), tj.dump(2) + "\n");
  if (!a.quiet)
    std::fprintf(stderr, "%s: %zu points (%zu reused), %zu failed, %zu run in %.1f s -> %s (wall times per point: timing.json)\n",
                 name.c_str(), points.size(), skipped, failed, todo.size(), sweep_wall, dir.c_str());
  return failed ? (worst == 2 ? 2 : 3) : 0;
}

}  // namespace hx::sim
