#include "src/sim/mpi.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <map>

#include "models/core/error.h"
#include "src/sim/runner.h"

#ifdef HXSIM_HAVE_MPI
#include <mpi.h>
#endif

namespace hx::sim {

namespace fs = std::filesystem;

#ifdef HXSIM_HAVE_MPI

namespace {

enum : int { kTagWork = 1, kTagStop = 2, kTagDone = 3, kTagProgress = 4 };

// A rank's report on the point it runs, about once a second: its index and
// its PointProgress.
constexpr int kProgressDoubles = 4;

void send_string(const std::string& s, int dest) {
  MPI_Send(s.data(), static_cast<int>(s.size()), MPI_CHAR, dest, kTagDone, MPI_COMM_WORLD);
}

std::string recv_string(int src) {
  MPI_Status st;
  MPI_Probe(src, kTagDone, MPI_COMM_WORLD, &st);
  int n = 0;
  MPI_Get_count(&st, MPI_CHAR, &n);
  std::string s(static_cast<std::size_t>(n), '\0');
  MPI_Recv(s.data(), n, MPI_CHAR, src, kTagDone, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
  return s;
}

// Rank 0's pool: its own point server (one job slot, as a local -j1 sweep
// has) and one slot on each other rank. Rank 0 is otherwise idle between
// reports, so with K ranks K servers run points: `mpirun -np 2` on one
// two-core machine uses both cores. Waiting polls both sides, sleeping in
// between (a blocking MPI receive would spin on a CPU the points need).
// The other ranks report their points' progress while they run; the
// progress line shows them as it shows rank 0's own.
class MpiPool final : public PointPool {
 public:
  MpiPool(const RunArgs& a, const std::string& self, const StudyFiles& f, const Sweep& points, std::uint64_t seed,
          std::string dir)
      : m_dir(std::move(dir)), m_fingerprint(a.fingerprint), m_local(make_local_pool(a, self, f, points, seed, m_dir, 1)) {
    int size = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    for (int r = size - 1; r >= 1; --r) m_idle.push_back(r);
    m_ranks = size - 1;
  }
  ~MpiPool() override {
    for (int r = 1; r <= m_ranks; ++r) {
      long long stop = -1;
      MPI_Send(&stop, 1, MPI_LONG_LONG, r, kTagStop, MPI_COMM_WORLD);
    }
  }
  // One point at a time on rank 0's server, none queued behind it: a point
  // queued there could wait while another rank sits idle at the end of the
  // sweep. The gap between its points is this loop's reaction to a report.
  bool can_start() const override { return m_local_out == 0 || !m_idle.empty(); }
  void start(std::size_t k) override {
    if (m_local_out == 0) {
      m_local->start(k);
      ++m_local_out;
      return;
    }
    const int r = m_idle.back();
    m_idle.pop_back();
    m_assigned[r] = k;
    long long idx = static_cast<long long>(k);
    MPI_Send(&idx, 1, MPI_LONG_LONG, r, kTagWork, MPI_COMM_WORLD);
  }
  // Rank 0's own point, and the latest report of each other rank's.
  std::vector<Running> running() const override {
    std::vector<Running> v = m_local->running();
    for (const auto& [r, run] : m_remote) v.push_back(run);
    return v;
  }
  // Whether a point has finished, looking for up to `timeout_ms` (-1: until
  // one has); the ranks' progress reports are taken meanwhile.
  bool finished_within(int timeout_ms) override {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms < 0 ? 0 : timeout_ms);
    const bool remote = static_cast<int>(m_idle.size()) < m_ranks;
    if (!remote && m_local_out == 0) return true;  // wait() says what is wrong
    for (;;) {
      if (remote) {
        take_progress();
        int ready = 0;
        MPI_Iprobe(MPI_ANY_SOURCE, kTagDone, MPI_COMM_WORLD, &ready, MPI_STATUS_IGNORE);
        if (ready) return true;
      }
      if (m_local_out > 0) {
        // Only rank 0's server is busy: block on it alone.
        if (m_local->finished_within(remote ? 1 : timeout_ms)) return true;
      } else {
        ::usleep(500);
      }
      if (timeout_ms >= 0 && std::chrono::steady_clock::now() >= until) return false;
    }
  }
  Finished wait() override {
    const bool remote = static_cast<int>(m_idle.size()) < m_ranks;
    if (!remote && m_local_out == 0) throw SimError("waited for a point when none was running");
    while (!finished_within(-1)) {
    }
    if (remote) {
      int ready = 0;
      MPI_Iprobe(MPI_ANY_SOURCE, kTagDone, MPI_COMM_WORLD, &ready, MPI_STATUS_IGNORE);
      if (ready) return from_rank();
    }
    --m_local_out;
    return m_local->wait();
  }

 private:
  // A rank reports: index and exit code, then the point file, its timing,
  // its stderr and its trace (--trace; empty otherwise).
  Finished from_rank() {
    long long head[2];
    MPI_Status st;
    MPI_Recv(head, 2, MPI_LONG_LONG, MPI_ANY_SOURCE, kTagDone, MPI_COMM_WORLD, &st);
    const int r = st.MPI_SOURCE;
    const std::string point = recv_string(r), timing = recv_string(r), err = recv_string(r), trace = recv_string(r);
    m_idle.push_back(r);
    m_assigned.erase(r);
    m_remote.erase(r);
    Finished f{static_cast<std::size_t>(head[0]), static_cast<int>(head[1]), {}, {}};
    const std::string pf = point_file(m_dir, f.index);
    if (f.code == 0) {
      f.timing = timing_from_json(nlohmann::json::parse(timing, nullptr, false));
      // The trace first: the point file marks the point done.
      if (!trace.empty())
        write_atomic(point_trace_file(m_dir, f.index), trace);
      // Stamped with this run's fingerprint: the rank's own may differ
      // (another machine's copy of the binary).
      nlohmann::json r = nlohmann::json::parse(point);
      r["meta"]["fingerprint"] = point_fingerprint(m_fingerprint, f.index);
      write_atomic(pf, r.dump(2) + "\n");
    } else {
      f.err = "[rank " + std::to_string(r) + "] " + err;
    }
    return f;
  }
  // Every progress report waiting, kept for the point its rank runs now (a
  // report that arrives after its point is done is dropped).
  void take_progress() {
    for (;;) {
      int ready = 0;
      MPI_Status st;
      MPI_Iprobe(MPI_ANY_SOURCE, kTagProgress, MPI_COMM_WORLD, &ready, &st);
      if (!ready) return;
      double m[kProgressDoubles];
      MPI_Recv(m, kProgressDoubles, MPI_DOUBLE, st.MPI_SOURCE, kTagProgress, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
      const auto k = static_cast<std::size_t>(m[0]);
      const auto it = m_assigned.find(st.MPI_SOURCE);
      if (it == m_assigned.end() || it->second != k) continue;
      m_remote[st.MPI_SOURCE] = Running{k, PointProgress{m[1], m[2], m[3]}};
    }
  }
  std::string m_dir;
  std::string m_fingerprint;
  std::unique_ptr<PointPool> m_local;
  std::map<int, std::size_t> m_assigned;  // rank -> the point it runs
  std::map<int, Running> m_remote;        // rank -> its point's latest progress
  int m_local_out = 0;
  int m_ranks = 0;
  std::vector<int> m_idle;
};

// Ranks 1..K-1: run what rank 0 hands out until it says stop. Each rank
// starts one point server (`hxsim _serve`, as a local -j1 sweep does) and
// sends it the points: the server is a process of its own, not the rank,
// so forking each point from it is allowed where a rank must not fork;
// starting `hxsim _point` afresh for every point cost about 10 ms more
// (docs/performance.md).
int serve(const RunArgs& a, const std::string& self) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  const fs::path scratch = fs::temp_directory_path() / ("hxsim-rank" + std::to_string(rank) + "-" + std::to_string(::getpid()));
  fs::create_directories(scratch / "points");
  // Bad input is reported by rank 0, which then says stop.
  std::unique_ptr<PointPool> pool;
  int lost_code = 2;  // what each point gets once this rank has no point server
  std::string lost = "this rank cannot read the study";
  try {
    const StudyFiles f = prepared(a);
    pool = make_local_pool(a, self, f, Sweep(f), study_seed(a, f), scratch.string(), 1);
  } catch (const std::exception&) {
    pool.reset();
  }
  for (;;) {
    long long idx = 0;
    MPI_Status st;
    MPI_Recv(&idx, 1, MPI_LONG_LONG, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    if (st.MPI_TAG == kTagStop) break;
    const std::size_t k = static_cast<std::size_t>(idx);
    long long head[2] = {idx, lost_code};
    std::string point, timing, err = lost, trace;
    if (pool) {
      try {
        pool->start(k);
        // While it runs, its progress goes to rank 0 about once a second.
        while (!pool->finished_within(1000))
          for (const PointPool::Running& run : pool->running()) {
            const double m[kProgressDoubles] = {static_cast<double>(run.index), run.progress.simulated_ns, run.progress.done,
                                                run.progress.wall_s};
            MPI_Send(m, kProgressDoubles, MPI_DOUBLE, 0, kTagProgress, MPI_COMM_WORLD);
          }
        const PointPool::Finished fin = pool->wait();
        head[1] = fin.code;
        const std::string pf = point_file(scratch.string(), k);
        const std::string tf = point_trace_file(scratch.string(), k);
        if (fin.code == 0) {
          point = read_file(pf);
          timing = to_json(fin.timing).dump(2) + "\n";
          if (a.trace && fs::exists(tf)) trace = read_file(tf);
        }
        err = fin.err;
        std::error_code ec;
        for (const std::string& x : {pf, point_file(scratch.string(), k, ".stderr"), tf}) fs::remove(x, ec);
      } catch (const std::exception& e) {
        // The point server is gone (or found the study changed): this rank
        // reports it for this point and every later one.
        lost_code = dynamic_cast<const InputError*>(&e) ? 2 : 3;
        lost = e.what();
        head[1] = lost_code;
        err = lost;
        pool.reset();
      }
    }
    MPI_Send(head, 2, MPI_LONG_LONG, 0, kTagDone, MPI_COMM_WORLD);
    for (const std::string* x : {&point, &timing, &err, &trace}) send_string(*x, 0);
  }
  pool.reset();
  std::error_code ec;
  fs::remove_all(scratch, ec);
  return 0;
}
}  // namespace

bool mpi_available() { return true; }

std::unique_ptr<PointPool> make_mpi_pool(const RunArgs& a, const std::string& self, const StudyFiles& f, const Sweep& points,
                                         std::uint64_t seed, const std::string& dir) {
  return std::make_unique<MpiPool>(a, self, f, points, seed, dir);
}

int run_study_mpi(const RunArgs& a, const std::string& self, const std::function<int()>& rank0) {
  MPI_Init(nullptr, nullptr);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int code = 0;
  if (rank == 0) {
    // Rank 0 checks the study first; on bad input the others are told to stop.
    try {
      code = rank0();
    } catch (...) {
      for (int r = 1; r < size; ++r) {
        long long stop = -1;
        MPI_Send(&stop, 1, MPI_LONG_LONG, r, kTagStop, MPI_COMM_WORLD);
      }
      MPI_Finalize();
      throw;
    }
  } else {
    code = serve(a, self);
  }
  MPI_Finalize();
  return code;
}

#else

bool mpi_available() { return false; }

std::unique_ptr<PointPool> make_mpi_pool(const RunArgs&, const std::string&, const StudyFiles&, const Sweep&, std::uint64_t,
                                         const std::string&) {
  throw InputError("--mpi: this hxsim was built without MPI (HXSIM_ENABLE_MPI=OFF or OpenMPI not found)");
}

int run_study_mpi(const RunArgs&, const std::string&, const std::function<int()>&) {
  throw InputError("--mpi: this hxsim was built without MPI (HXSIM_ENABLE_MPI=OFF or OpenMPI not found)");
}

#endif

}  // namespace hx::sim
