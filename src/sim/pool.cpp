#include "src/sim/pool.h"

#include <fcntl.h>
#include <limits.h>
#include <malloc.h>
#include <poll.h>
#include <sched.h>
#include <spawn.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <deque>
#include <map>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <system_error>
#include <thread>

#include "models/core/error.h"
#include "src/sim/runner.h"
#include "src/sim/study.h"

extern char** environ;

namespace hx::sim {

namespace fs = std::filesystem;

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

// What a server reports of each point, and what a running point reports
// of itself (code kProgress): one write of fewer than PIPE_BUF bytes, so
// that the reports of several servers and points on one pipe never mix.
struct Report {
  std::uint64_t index;
  std::int64_t code;
  PointTiming timing;
  PointProgress progress;
};
constexpr std::int64_t kProgress = -1;

// A running point's progress report, written to the report pipe without
// ever blocking the point: one that would not fit now is left out (the
// next comes a second later).
ProgressSink progress_to(int rep, std::size_t k) {
  const int capacity = ::fcntl(rep, F_GETPIPE_SZ);
  return [rep, k, capacity](const PointProgress& p) {
    int unread = 0;
    if (capacity <= 0 || ::ioctl(rep, FIONREAD, &unread) != 0 ||
        static_cast<std::size_t>(unread) + 2 * sizeof(Report) > static_cast<std::size_t>(capacity))
      return;
    const Report r{k, kProgress, {}, p};
    write_all(rep, &r, sizeof r);
  };
}
static_assert(sizeof(Report) <= 512, "a report must be one atomic pipe write");

// What the driver sends a server: a point's index and its values
// (point_text), or, for values too long for one command, word that they
// are in points/K.json.sets. A command is one pipe write of fewer than
// PIPE_BUF bytes, read whole by one server: the servers share one pipe.
struct Command {
  static constexpr std::size_t kBytes = 1024;
  std::uint64_t index;
  std::uint32_t bytes;    // of `text` used
  std::uint32_t in_file;  // 1: the values are in the file instead
  char text[kBytes - 16];
};
static_assert(sizeof(Command) == Command::kBytes && Command::kBytes <= PIPE_BUF, "a command must be one atomic pipe write");

// Local sweeps: `jobs` point servers, each an `hxsim _serve` process started
// afresh, take points from one command pipe (the driver writes a Command
// for each, a few ahead of need; a pipe read of a Command is whole) and
// run each point in a process forked from the server, one at a time. A
// server reads the study without its sweep where it can (design note 66):
// the driver sends each point's values, so that a sweep listing a million
// values is held once, by the driver, not once more by every server.
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
void serve(int cmd, int rep, const RunArgs& a, const StudyFiles& f, std::uint64_t seed, const std::string& dir) {
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
    const Report r{k, code, t, {}};
    return write_all(rep, &r, sizeof r);
  };
  for (;;) {
    Command c;
    if (!read_all(cmd, &c, sizeof c)) return;  // the driver is done or gone
    const std::size_t k = static_cast<std::size_t>(c.index);
    std::string text;
    if (c.in_file) {
      const std::string sets = point_file(dir, k, ".sets");
      text = read_file(sets);
      std::error_code ec;
      fs::remove(sets, ec);
    } else {
      if (c.bytes > sizeof c.text) throw SimError("the point server was sent a malformed command");
      text.assign(c.text, c.bytes);
    }
    const SweepPoint point = point_from_text(text);
    // The point's stderr goes to memory, kept in a file only if it fails.
    const int err = ::memfd_create("hxsim-point-stderr", MFD_CLOEXEC);
    const pid_t pid = err < 0 ? -1 : ::fork();
    if (pid == 0) {
      // A point ends with its server, as the server ends with its driver:
      // nothing of a killed sweep runs on.
      if (!end_with_parent(server)) ::_exit(3);
      ::close(cmd);  // the command pipe is the server's; reports of progress go to the driver
      int code = 3;
      const int null = ::open("/dev/null", O_WRONLY);
      if (null >= 0 && ::dup2(err, 2) >= 0 && ::dup2(null, 1) >= 0) {
        code = on_fresh_arena([&] {
          StudyFiles own = f;  // this process's own copy of the checked study
          return exit_status_of([&] {
            *shared = write_point(a, own, point, k, seed, point_file(dir, k), progress_to(rep, k));
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
  LocalPool(const RunArgs& a, const std::string& self, const StudyFiles& f, const Sweep& points, std::uint64_t seed,
            std::string dir, int jobs)
      : m_dir(std::move(dir)), m_points(points), m_ahead(jobs + std::min(jobs, 64)) {
    int cmd[2], rep[2];
    if (::pipe2(cmd, O_CLOEXEC) != 0 || ::pipe2(rep, O_CLOEXEC) != 0) throw SimError("cannot start the point server");
    // The servers inherit their ends; not the driver's (EOF must reach both sides).
    ::fcntl(cmd[0], F_SETFD, 0);
    ::fcntl(rep[1], F_SETFD, 0);
    // Room for every command sent ahead (best effort: a full pipe only
    // makes the driver wait).
    const int room = m_ahead * static_cast<int>(Command::kBytes);
    if (::fcntl(cmd[1], F_GETPIPE_SZ) < room) ::fcntl(cmd[1], F_SETPIPE_SZ, room);
    // The servers read the study without its sweep where that reads the
    // same study; what they check is what this driver checked.
    const std::optional<StudyWithoutSweep> light = study_without_sweep(f);
    std::vector<std::string> args = worker_args(a, self, "_serve", seed);
    for (const std::string& x : {std::string("--dir"), m_dir, std::string("--cmd-fd"), std::to_string(cmd[0]),
                                 std::string("--rep-fd"), std::to_string(rep[1]), std::string("--study-hash"),
                                 std::to_string(study_hash(light ? light->files : f)), std::string("--driver-pid"),
                                 std::to_string(::getpid())})
      args.push_back(x);
    if (light)
      for (const std::string& x : {std::string("--without-from"), std::to_string(light->sweep.from),
                                   std::string("--without-to"), std::to_string(light->sweep.to)})
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
    Command c{};
    c.index = k;
    const std::string text = point_text(m_points.at(k));
    if (text.size() <= sizeof c.text) {
      c.bytes = static_cast<std::uint32_t>(text.size());
      std::memcpy(c.text, text.data(), text.size());
    } else {
      write_atomic(point_file(m_dir, k, ".sets"), text);
      c.in_file = 1;
    }
    if (!write_all(m_cmd, &c, sizeof c)) throw SimError("lost the point server");
    ++m_outstanding;
  }
  // Reads reports until a point's end comes (kept for wait()), the time is
  // up, or the pipe fails (wait() says so); progress reports are noted.
  bool finished_within(int timeout_ms) override {
    if (!m_ended.empty() || m_lost) return true;
    check_servers();
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(std::max(0, timeout_ms));
    for (;;) {
      int left = -1;
      if (timeout_ms >= 0)
        left = static_cast<int>(std::max<long long>(0, std::chrono::duration_cast<std::chrono::milliseconds>(
                                                           until - std::chrono::steady_clock::now()).count()));
      pollfd p{m_rep, POLLIN, 0};
      const int r = ::poll(&p, 1, left);
      if (r < 0 && errno == EINTR) continue;
      if (r == 0) return false;
      Report rep;
      if (r < 0 || !read_all(m_rep, &rep, sizeof rep)) {
        m_lost = true;
        return true;
      }
      if (rep.code != kProgress) {
        m_ended.push_back(rep);
        return true;
      }
      m_running[static_cast<std::size_t>(rep.index)] = rep.progress;
    }
  }
  Finished wait() override {
    // A server that ends before the driver is done may take a point with
    // it, and leaves a job slot empty in any case: the sweep ends with an
    // error (a rerun resumes it). Looked for at every wait, not only when
    // no report comes: the other servers' reports would otherwise hide the
    // loss until the sweep's last point (two system calls per point).
    while (!finished_within(250)) {
    }
    if (m_ended.empty()) throw SimError("lost track of the point processes");
    const Report r = m_ended.front();
    m_ended.pop_front();
    m_running.erase(static_cast<std::size_t>(r.index));
    --m_outstanding;
    Finished f{static_cast<std::size_t>(r.index), static_cast<int>(r.code), {}, r.timing};
    if (f.code != 0) f.err = read_file(point_file(m_dir, f.index, ".stderr"));
    return f;
  }
  std::vector<Running> running() const override {
    std::vector<Running> v;
    for (const auto& [k, p] : m_running) v.push_back({k, p});
    return v;
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
  Sweep m_points;
  int m_ahead;
  int m_outstanding = 0;
  std::vector<pid_t> m_servers;
  int m_cmd = -1, m_rep = -1;
  std::deque<Report> m_ended;                    // points' ends read while looking for one
  std::map<std::size_t, PointProgress> m_running;  // the latest progress of running points
  bool m_lost = false;                           // the report pipe failed
};
}  // namespace

std::unique_ptr<PointPool> make_local_pool(const RunArgs& a, const std::string& self, const StudyFiles& f,
                                           const Sweep& points, std::uint64_t seed, const std::string& dir, int jobs) {
  return std::make_unique<LocalPool>(a, self, f, points, seed, dir, jobs);
}

int run_point_server(const RunArgs& a, const std::string& dir, int cmd, int rep, std::uint64_t expect_hash, long driver,
                     const std::optional<cfg::TextSpan>& without_sweep) {
  // A server ends with its driver (killed or not): one still running would
  // go on writing point files into a directory a rerun now owns.
  if (driver > 0 && !end_with_parent(static_cast<pid_t>(driver))) return 3;
  const StudyFiles f = prepared(a, without_sweep);
  // The driver checked every point of what it read; a server that reads
  // something else (a file edited since) runs nothing.
  if (study_hash(f) != expect_hash) throw InputError(a.study + ": the study or its topology changed while the sweep started");
  serve(cmd, rep, a, f, study_seed(a, f), dir);
  return 0;
}

}  // namespace hx::sim
