#include "src/sim/bench.h"

#include <nlohmann/json.hpp>
#include <sched.h>
#include <systemc>
#include <sys/resource.h>
#include <sys/wait.h>

#include <algorithm>
#include <sstream>
#include <chrono>
#include <thread>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <fstream>
#include <unistd.h>
#include <utility>
#include <vector>

#include "models/coherence/agents.h"
#include "models/coherence/checker.h"
#include "models/core/error.h"
#include "models/core/rng.h"
#include "models/rtl/rtl_device.h"
#include "src/sim/driver.h"
#include "src/sim/runner.h"
#include "src/sim/study.h"
#include "src/topology/topology.h"
#ifdef HXSIM_HAVE_RTL
#include "models/dma/rtl/calypte_rtl.h"
#endif


namespace hx::sim {

namespace fs = std::filesystem;

namespace {

struct Scenario {
  const char* name;
  const char* study;  // relative to the source tree
  int point;
  const char* what;
};

const Scenario kScenarios[] = {
    {"saturated_link", "configs/bench/saturated_link.yaml", 0, "one Gen3 x8 link, 128 B writes, 64 MiB"},
    {"s001_8fpga_write", "configs/s001_concurrent_write.yaml", 7, "S001: eight FPGAs write 4 MiB each at once"},
    {"rtl_generic", "configs/bench/rtl_generic.yaml", 0, "a design of your own (desc_dma, 128 bit) copies 4 MiB, generic RTL path"},
    {"rtl_intree_generic", "configs/s004_rtl_generic.yaml", 6, "the in-tree engine on the generic path: S004 HFH 1500 B x 4096"},
#ifdef HXSIM_HAVE_RTL
    {"rtl_cosim_fhf", "configs/s004_rtl.yaml", 20, "S004 FHF 1500 B x 4096 with the Verilated RTL engine"},
#endif
};

struct Run {
  double wall = 0, rss_mb = 0, elab = 0, load = 0;
  double kernel = 0;  // the yardstick probed just before this run, on its CPU (run_paired); 0: not probed
  nlohmann::json meta, stats, metrics;
};

// A host with `n` endpoints: each root port heads its own PCI segment and a
// switch over two leaf switches of up to 64 endpoints. The traffic is the
// same whatever n: four peer writes of 1 MiB between the first eight
// endpoints, which sit alternately on the first two leaves; every other
// endpoint is idle.
std::string scaling_study(int n) {
  const int leaves = std::max(2, 2 * ((n + 127) / 128));
  const int rps = leaves / 2;
  std::vector<std::vector<int>> on_leaf(static_cast<std::size_t>(leaves));
  for (int e = 0; e < n; ++e) on_leaf[static_cast<std::size_t>(e < 8 ? e % 2 : e % leaves)].push_back(e);
  std::ostringstream t;
  t << "study: bench_scaling_" << n << "\ntopology:\n  platform: scaling_" << n
    << "\n  link_defaults: {latency: 10ns, gen: 3, width: 8}\n  defaults:\n    endpoint: {device: rosta, endpoint: {bar64: true}}\n"
    << "  nodes:\n    host: {type: root_complex, root_ports: " << rps << ", segment_per_root_port: true}\n";
  for (int r = 0; r < rps; ++r) t << "    sw" << r << ": {type: switch, ports: 3}\n";
  for (int l = 0; l < leaves; ++l)
    t << "    leaf" << l << ": {type: switch, ports: " << on_leaf[static_cast<std::size_t>(l)].size() + 1 << "}\n";
  for (int e = 0; e < n; ++e) t << "    ep" << e << ": {type: endpoint}\n";
  t << "  links:\n";
  for (int r = 0; r < rps; ++r) t << "    - {up: host, down: sw" << r << "}\n";
  for (int l = 0; l < leaves; ++l) t << "    - {up: sw" << l / 2 << ", down: leaf" << l << "}\n";
  for (int l = 0; l < leaves; ++l)
    for (int e : on_leaf[static_cast<std::size_t>(l)]) t << "    - {up: leaf" << l << ", down: ep" << e << "}\n";
  t << "workloads:\n  - {type: rosta_peer, name: p, pairs: [[ep0, ep1], [ep2, ep3], [ep4, ep5], [ep6, ep7]], bytes: 1MiB, payload: 128B}\n";
  return t.str();
}

// Waits for a child process to end; returns its peak RSS in MB. A failure
// names `what` and ends with the child's stderr, kept in `errf`.
double wait_child(pid_t pid, const fs::path& errf, const std::string& what) {
  int status = 0;
  struct rusage ru {};
  if (::wait4(pid, &status, 0, &ru) < 0 || exit_code(status) != 0) {
    std::string err = read_file(errf.string());
    if (err.size() > 2000) err = "..." + err.substr(err.size() - 2000);
    throw SimError(what + " failed:\n" + err);
  }
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

// Runs a child process to its end (stdout dropped, stderr kept in `errf`).
double run_child(const std::vector<std::string>& args, const fs::path& errf, const std::string& what) {
  return wait_child(spawn_point(args, errf.string()), errf, what);
}

Run run_once(const std::string& self, const std::string& study, int point, const fs::path& out);

// Verilator's own rates for the design of a study's `device: rtl` endpoint
// (zeros if it has none): clocked with its inputs still (the design idle),
// and replaying the inputs one more run of the scenario recorded (the same
// work, without the fabric, the shim or the kernel: the co-simulation's
// ceiling).
struct BareRates {
  double still = 0, replay = 0;
};
BareRates design_bare_rates(const std::string& self, const std::string& study, int point, const fs::path& dir) {
  const StudyFiles f = load_study_files(study);
  const topo::Topology t = topo::load_topology(f.topo_root(), f.topo_file);
  for (const auto& n : t.nodes)
    if (n.device == "rtl") {
      BareRates r;
      r.still = rtl::RtlDevice::raw_cycles_per_s(n.rtl, 5'000'000);
      const fs::path log = dir / "rtl-inputs";
      ::setenv("HXSIM_RTL_RECORD", log.c_str(), 1);
      run_once(self, study, point, dir / "recording.json");
      ::unsetenv("HXSIM_RTL_RECORD");
      const fs::path file = log.string() + "." + n.name + ".rtl";
      r.replay = rtl::RtlDevice::replay_cycles_per_s(n.rtl, file.string());
      fs::remove(file);
      return r;
    }
  return {};
}

Run run_once(const std::string& self, const std::string& study, int point, const fs::path& out) {
  Run r;
  r.rss_mb = run_child({self, "_point", study, "--index", std::to_string(point), "--out", out.string()},
                       out.string() + ".stderr", "bench scenario " + study);
  std::ifstream t(out.string() + ".timing"), m(out.string());
  const auto timing = nlohmann::json::parse(t);
  // The point's own peak (its rusage carries this process's), where it could read it.
  if (const double own = timing.value("peak_rss_mb", 0.0); own > 0) r.rss_mb = own;
  r.wall = timing["wall_s"].get<double>();
  r.elab = timing["elaboration_s"].get<double>();
  r.load = timing["load_s"].get<double>();
  const auto res = nlohmann::json::parse(m);
  r.meta = res["meta"];
  r.stats = res["stats"];
  r.metrics = res["metrics"];
  return r;
}

// The CPUs this process was allowed when the bench began (before it held
// itself to one), in order.
std::vector<int> g_cpus;

std::vector<int> allowed_cpus() {
  std::vector<int> cpus;
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0)
    for (int c = 0; c < CPU_SETSIZE; ++c)
      if (CPU_ISSET(c, &set)) cpus.push_back(c);
  return cpus;
}

// Moves this process (and what it starts from now on) to the given CPUs.
bool run_on(const std::vector<int>& cpus) {
  cpu_set_t set;
  CPU_ZERO(&set);
  for (const int c : cpus) CPU_SET(c, &set);
  return !cpus.empty() && ::sched_setaffinity(0, sizeof set, &set) == 0;
}

// While it lives, this process (and what it starts) runs on the CPUs given
// (empty: every CPU the bench began with); afterwards where it ran before.
class HeldTo {
 public:
  explicit HeldTo(std::vector<int> cpus) : m_before(allowed_cpus()) {
    m_held = run_on(cpus.empty() ? g_cpus : cpus);
  }
  ~HeldTo() {
    if (m_held) run_on(m_before);
  }
  HeldTo(const HeldTo&) = delete;
  HeldTo& operator=(const HeldTo&) = delete;

 private:
  std::vector<int> m_before;
  bool m_held = false;
};

// The median run by wall time of `repeats`, carrying the largest peak RSS of all.
// The run of median wall time, with the largest peak memory of them all.
Run median(std::vector<Run> runs) {
  std::sort(runs.begin(), runs.end(), [](const Run& a, const Run& b) { return a.wall < b.wall; });
  Run med = runs[runs.size() / 2];
  for (const auto& r : runs) med.rss_mb = std::max(med.rss_mb, r.rss_mb);
  return med;
}

Run median_of(int repeats, const std::function<Run()>& one) {
  std::vector<Run> runs;
  for (int i = 0; i < repeats; ++i) runs.push_back(one());
  return median(std::move(runs));
}

// The SystemC kernel alone on this machine: one SC_METHOD re-notifying its
// own event 1 ns ahead, the first line of TOOLCHAIN.md's table of the raw
// machinery (39 M/s on the machine that table was measured on). The models
// do not run on the kernel's event queue (design note 2), so this is no
// bound on TLP-hops/s; it is the machine's yardstick: the same binary runs
// 2-3x faster on some hosts of this kind than on others, and TLP-hops per
// kernel notification compares between them where TLP-hops/s does not
// (docs/performance.md).
class KernelProbe : public sc_core::sc_module {
 public:
  KernelProbe(sc_core::sc_module_name n, std::uint64_t per_segment, int segments)
      : sc_module(n), m_per(per_segment), m_left(per_segment * static_cast<std::uint64_t>(segments)) {
    SC_HAS_PROCESS(KernelProbe);
    SC_METHOD(fire);
    sensitive << m_ev;
    dont_initialize();
  }
  // `at_segment(k)` runs before segment k starts (e.g. to move the probe
  // to another CPU), outside its timing.
  void start(std::function<void(int)> at_segment = {}) {
    m_at = std::move(at_segment);
    if (m_at) m_at(0);
    m_ev.notify(1, sc_core::SC_NS);
    m_t0 = std::chrono::steady_clock::now();
  }
  // Activations per wall second of each segment.
  const std::vector<double>& rates() const { return m_rates; }

 private:
  void fire() {
    if (++m_count == m_per) {
      const auto now = std::chrono::steady_clock::now();
      m_rates.push_back(static_cast<double>(m_per) / std::chrono::duration<double>(now - m_t0).count());
      m_count = 0;
      if (m_at && m_left > 1) m_at(static_cast<int>(m_rates.size()));
      m_t0 = std::chrono::steady_clock::now();
    }
    if (--m_left) m_ev.notify(1, sc_core::SC_NS);
  }
  sc_core::sc_event m_ev;
  std::uint64_t m_per, m_left, m_count = 0;
  std::chrono::steady_clock::time_point m_t0;
  std::vector<double> m_rates;
  std::function<void(int)> m_at;
};

// The yardstick on each CPU of `cpus`: the median rate over `segments`
// segments of 2 M activations there, the CPUs taking turns segment by
// segment so that the machine's drift falls on all. This process elaborates
// nothing else (every scenario runs in a child), so the probe is its one
// elaboration.
std::vector<double> kernel_rates(const std::vector<int>& cpus, int segments) {
  const std::size_t n = std::max<std::size_t>(1, cpus.size());
  KernelProbe probe("kernel_probe", 2'000'000, segments * static_cast<int>(n));
  probe.start([&](int k) {
    if (!cpus.empty()) run_on({cpus[static_cast<std::size_t>(k) % n]});
  });
  sc_core::sc_start();
  const std::vector<double>& all = probe.rates();
  std::vector<double> rates;
  for (std::size_t c = 0; c < n; ++c) {
    std::vector<double> r;
    for (std::size_t k = c; k < all.size(); k += n) r.push_back(all[k]);
    if (r.empty()) throw SimError("the kernel probe ran no segment");
    std::sort(r.begin(), r.end());
    rates.push_back(r[r.size() / 2]);
  }
  return rates;
}

// The yardstick again, in a child process of its own on the CPU this
// process is held to, just before one run of a scenario: the run's ratio
// divides by the rate of the same CPU at about the same time. The probe at
// the start only picks the CPU; on a host whose vCPUs change speed within
// minutes, a run late in the bench would otherwise be divided by a rate
// measured before the change (docs/performance.md).
double paired_kernel(const std::string& self, const fs::path& dir) {
  const fs::path out = dir / "kernel.json";
  run_child({self, "_bench_kernel", "--out", out.string()}, out.string() + ".stderr", "the kernel yardstick");
  std::ifstream in(out);
  const double rate = nlohmann::json::parse(in).at("notifications_per_s").get<double>();
  if (!(rate > 0)) throw SimError("the kernel yardstick measured no rate");
  return rate;
}

// One run of a scenario with its own yardstick (Run::kernel).
Run run_paired(const std::string& self, const std::string& study, int point, const fs::path& out) {
  const double kernel = paired_kernel(self, out.parent_path());
  Run r = run_once(self, study, point, out);
  r.kernel = kernel;
  return r;
}

}  // namespace

int bench_kernel(const std::string& out) {
  const std::vector<double> rate = kernel_rates({}, 3);  // where this process runs: three segments, the median
  std::ofstream(out) << nlohmann::json{{"notifications_per_s", rate.at(0)}}.dump() << "\n";
  return 0;
}

// Contention on a shared buffer (the shape of S000 experiment 4): eight
// caching agents, each with a core doing read-modify-writes (a load, then a
// store of the line it read) of random lines of a 64-line buffer, all
// homed at one home agent with its memory; every message is one unit on a
// coherence link. Counted: the coherence messages sent, the accesses done,
// the dispatcher's actions and the wall time of the simulation alone.
int bench_coherence(const std::string& out) {
  constexpr int kAgents = 8, kLines = 64, kRmw = 25000;
  mem::MemoryConfig mc;
  mem::MemoryController memory("coh.mem", mc);
  coherence::HomeAgentConfig hc;
  hc.id = kAgents;
  hc.ports.assign(kAgents, coherence::CohEndConfig{});
  coherence::HomeAgent home("coh.home", hc, memory);
  coherence::CohLinkConfig link;
  link.latency = 20 * kNs;
  struct Core final : coherence::CoreSide {
    coherence::CachingAgent* agent = nullptr;
    Rng rng{1, "core"};
    int left = kRmw;
    std::uint64_t line = 0;
    void next() {
      line = rng.below(kLines);
      agent->access(false, line, 0, 0, *this);
    }
    void access_done(std::uint64_t tag, std::uint64_t value, Tick) override {
      if (tag == 0) {
        agent->access(true, line, value + 1, 1, *this);  // the store of the read-modify-write
      } else if (--left > 0) {
        next();
      }
    }
  };
  std::vector<std::unique_ptr<coherence::CachingAgent>> agents;
  std::vector<Core> cores(kAgents);
  for (int a = 0; a < kAgents; ++a) {
    coherence::CachingAgentConfig cc;
    cc.id = static_cast<coherence::AgentId>(a);
    cc.home = static_cast<coherence::AgentId>(kAgents);
    agents.push_back(std::make_unique<coherence::CachingAgent>("coh.a" + std::to_string(a), cc));
    coherence::CohPort::connect(agents.back()->port(), home.port(static_cast<coherence::AgentId>(a)), link);
    cores[static_cast<std::size_t>(a)].agent = agents.back().get();
    cores[static_cast<std::size_t>(a)].rng = Rng(static_cast<std::uint64_t>(a) + 1, "core");
  }
  for (Core& c : cores) c.next();
  const auto w0 = std::chrono::steady_clock::now();
  const std::uint64_t a0 = Scheduler::actions_dispatched();
  sc_core::sc_start();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
  std::uint64_t messages = 0, accesses = 0;
  for (auto& a : agents) {
    messages += a->port().tx_units.value;
    accesses += a->accesses.value;
    if (!a->idle()) throw SimError("coherence bench: an agent did not finish");
  }
  for (int a = 0; a < kAgents; ++a) messages += home.port(static_cast<coherence::AgentId>(a)).tx_units.value;
  if (!home.idle()) throw SimError("coherence bench: the home did not finish");
  const nlohmann::json j = {{"wall_s", wall},
                            {"coherence_messages", messages},
                            {"accesses", accesses},
                            {"actions", Scheduler::actions_dispatched() - a0},
                            {"invariant_checks", coherence::CoherenceChecker::instance().checks()},
                            {"simulated_ns", static_cast<double>(now_tick()) / 1000.0},
                            {"peak_rss_mb", own_peak_rss_mb()}};
  std::ofstream(out) << j.dump(2) << "\n";
  return 0;
}

int bench(const std::string& json_out, int repeats, const std::string& self, const std::string& only) {
  const auto want = [&](const std::string& name) { return only.empty() || name.find(only) != std::string::npos; };
  if (!json_out.empty())
    check_output_file(json_out, "--json " + json_out);
  const fs::path dir = fs::temp_directory_path() / ("hxsim-bench-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  nlohmann::json scen = nlohmann::json::array();
  // A ratio to the yardstick means something only if both were measured
  // on the same CPU: on a virtual machine one vCPU can run the kernel at
  // half the rate of another (docs/performance.md). So the probe runs on
  // each CPU, and the bench then holds itself, and every scenario it
  // starts, to the one where the kernel ran fastest, the least disturbed;
  // only the sweeps' -jN runs use every CPU. (At most the first eight CPUs
  // are probed: a fraction of a second each.) Each run of a scenario whose
  // figure is a ratio then has the yardstick probed again just before it
  // (run_paired), and its ratio divides by that.
  g_cpus = allowed_cpus();
  const std::vector<int> probed(g_cpus.begin(), g_cpus.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(g_cpus.size(), 8)));
  const std::vector<double> by_cpu = kernel_rates(probed, std::max(3, repeats));
  const std::size_t best = static_cast<std::size_t>(std::max_element(by_cpu.begin(), by_cpu.end()) - by_cpu.begin());
  const double kernel = by_cpu[best];
  const int cpu = probed.empty() ? -1 : probed[best];
  if (cpu >= 0) run_on({cpu});
  std::string others;
  nlohmann::json rates = nlohmann::json::object();
  for (std::size_t c = 0; c < probed.size(); ++c) {
    rates[std::to_string(probed[c])] = by_cpu[c];
    if (c == best) continue;
    char r[64];
    std::snprintf(r, sizeof r, "%sCPU %d %.1f M/s", others.empty() ? "" : ", ", probed[c], by_cpu[c] / 1e6);
    others += r;
  }
  std::printf("%-18s %.1f M timed notifications/s: the SystemC kernel alone, this machine's yardstick "
              "(TOOLCHAIN.md: 39 M/s)%s\n", "sc_kernel", kernel / 1e6,
              others.empty() ? "" : ("; on CPU " + std::to_string(cpu) + ", where every scenario runs (" + others + ")").c_str());
  std::printf("%-18s each /kernel divides by the yardstick probed again on that CPU just before the run (its kernel_notifications_per_s)\n", "");
  scen.push_back({{"name", "sc_kernel"},
                  {"description", "SystemC kernel alone: timed event notification to an SC_METHOD, median of segments, "
                                  "on the CPU where it runs fastest (every scenario runs there)"},
                  {"notifications_per_s", kernel},
                  {"cpu", cpu},
                  {"notifications_per_s_by_cpu", rates}});
  std::printf("%-18s %10s %12s %14s %12s %10s %9s  %s\n", "scenario", "wall_s", "TLP-hops", "TLP-hops/s", "events/hop", "peak_MB",
              "/kernel", "what");
  for (const auto& s : kScenarios) {
    if (!want(s.name)) continue;
    const std::string study = std::string(HXSIM_SOURCE_DIR) + "/" + s.study;
    const Run med = median_of(repeats, [&] { return run_paired(self, study, s.point, dir / (std::string(s.name) + ".json")); });
    const double hops = med.meta["tlp_hops"].get<double>();
    const double events = med.meta["events"].get<double>();
    const double rss = med.rss_mb;
    std::printf("%-18s %10.3f %12.0f %14.0f %12.2f %10.1f %9.3f  %s\n", s.name, med.wall, hops, hops / med.wall, events / hops,
                rss, hops / med.wall / med.kernel, s.what);
    scen.push_back({{"name", s.name},
                    {"description", s.what},
                    {"wall_s", med.wall},
                    {"tlp_hops", hops},
                    {"tlp_hops_per_s", hops / med.wall},
                    {"tlp_hops_per_kernel_notification", hops / med.wall / med.kernel},
                    {"kernel_notifications_per_s", med.kernel},
                    {"events", events},
                    {"events_per_hop", events / hops},
                    {"peak_rss_mb", rss},
                    {"simulated_us", med.meta["simulated_time_ns"].get<double>() / 1000.0},
                    {"repeats", repeats}});
    // Co-simulation: RTL clock cycles evaluated per wall second.
    for (const auto& [k, v] : med.stats.items())
      if (k.size() > 11 && k.compare(k.size() - 11, 11, ".rtl_cycles") == 0) {
        const double cyc = v["value"].get<double>();
        scen.back()["rtl_cycles"] = cyc;
        scen.back()["rtl_cycles_per_s"] = cyc / med.wall;
        std::printf("%-18s %10s %12.0f RTL cycles, %.2f M cycles/s\n", "", "", cyc, cyc / med.wall / 1e6);
        // A design of your own: its bare Verilated rates beside it, and the share of them the co-simulation keeps.
        const BareRates raw = design_bare_rates(self, study, s.point, dir);
        if (raw.still > 0) {
          const double rate = cyc / med.wall;
          scen.back()["rtl_raw_cycles_per_s"] = raw.still;
          scen.back()["rtl_share_of_raw"] = rate / raw.still;
          std::printf("%-18s %10s %12s the bare design, inputs still: %.2f M cycles/s; the co-simulation keeps %.0f%% of it\n", "", "",
                      "", raw.still / 1e6, 100 * rate / raw.still);
          if (raw.replay > 0) {
            scen.back()["rtl_replay_cycles_per_s"] = raw.replay;
            scen.back()["rtl_share_of_replay"] = rate / raw.replay;
            std::printf("%-18s %10s %12s the bare design replaying this run's inputs: %.2f M cycles/s; the co-simulation keeps %.0f%% of it\n",
                        "", "", "", raw.replay / 1e6, 100 * rate / raw.replay);
          }
        }
      }
  }
  if (want("coherence_rmw")) {
    // Coherence: messages per wall second and per kernel notification, the
    // median of `repeats` child runs by wall time.
    std::vector<nlohmann::json> runs;
    for (int i = 0; i < repeats; ++i) {
      const fs::path out = dir / ("coherence_" + std::to_string(i) + ".json");
      const double paired = paired_kernel(self, dir);
      const double rss = run_child({self, "_bench_coherence", "--out", out.string()}, out.string() + ".stderr",
                                   "the coherence bench scenario");
      std::ifstream in(out);
      runs.push_back(nlohmann::json::parse(in));
      if (runs.back().value("peak_rss_mb", 0.0) <= 0) runs.back()["peak_rss_mb"] = rss;
      runs.back()["kernel"] = paired;
    }
    std::sort(runs.begin(), runs.end(), [](const nlohmann::json& a, const nlohmann::json& b) { return a["wall_s"] < b["wall_s"]; });
    const nlohmann::json& m = runs[runs.size() / 2];
    const double wall = m["wall_s"].get<double>(), msgs = m["coherence_messages"].get<double>(), own = m["kernel"].get<double>();
    std::printf("%-18s %10.3f %12.0f %14.0f %12.2f %10.1f %9.3f  8 caching agents' read-modify-writes of a 64-line shared buffer "
                "(coherence messages, not TLP-hops)\n",
                "coherence_rmw", wall, msgs, msgs / wall, m["actions"].get<double>() / msgs, m["peak_rss_mb"].get<double>(),
                msgs / wall / own);
    scen.push_back({{"name", "coherence_rmw"},
                    {"description", "8 caching agents, one home: read-modify-writes of random lines of a 64-line buffer"},
                    {"wall_s", wall},
                    {"coherence_messages", msgs},
                    {"coherence_messages_per_s", msgs / wall},
                    {"coherence_messages_per_kernel_notification", msgs / wall / own},
                    {"kernel_notifications_per_s", own},
                    {"accesses", m["accesses"]},
                    {"actions_per_message", m["actions"].get<double>() / msgs},
                    {"peak_rss_mb", m["peak_rss_mb"]},
                    {"simulated_us", m["simulated_ns"].get<double>() / 1000.0},
                    {"repeats", repeats}});
  }
  if (want("ccnic_peak")) {
    // A NIC on the socket interconnect at its peak rate: coherence messages
    // (each delivered to an agent once) per wall second and per kernel
    // notification, and the simulated packets per wall second.
    const std::string study = std::string(HXSIM_SOURCE_DIR) + "/configs/bench/ccnic_peak.yaml";
    const Run med = median_of(repeats, [&] { return run_paired(self, study, 0, dir / "ccnic_peak.json"); });
    const double msgs = med.stats["host.sockets.messages"]["value"].get<double>();
    const double packets = msgs / med.metrics["nic.messages_per_packet"].get<double>();
    std::printf("%-18s %10.3f %12.0f %14.0f %12.2f %10.1f %9.3f  CC-NIC at its peak rate, 64 B (coherence messages, not "
                "TLP-hops): %.0f simulated packets per wall second\n",
                "ccnic_peak", med.wall, msgs, msgs / med.wall, med.meta["events"].get<double>() / msgs, med.rss_mb,
                msgs / med.wall / med.kernel, packets / med.wall);
    scen.push_back({{"name", "ccnic_peak"},
                    {"description", "CC-NIC at its peak packet rate on Ice Lake: 64 B, 4 descriptors per line, batches of 32"},
                    {"wall_s", med.wall},
                    {"coherence_messages", msgs},
                    {"coherence_messages_per_s", msgs / med.wall},
                    {"coherence_messages_per_kernel_notification", msgs / med.wall / med.kernel},
                    {"kernel_notifications_per_s", med.kernel},
                    {"simulated_packets", packets},
                    {"packets_per_wall_s", packets / med.wall},
                    {"simulated_Mpps", med.metrics["nic.Mpps"]},
                    {"events_per_message", med.meta["events"].get<double>() / msgs},
                    {"peak_rss_mb", med.rss_mb},
                    {"simulated_us", med.meta["simulated_time_ns"].get<double>() / 1000.0},
                    {"repeats", repeats}});
  }
  if (want("linear_fhf") || want("flat_bench_bw")) {
    // Cost linear in work: the same FHF study at N and 4N repetitions (the
    // ratio of wall times is 4 when the cost per round trip does not grow
    // with the run), and memory flat in work: 2 M bench-engine writes.
    // The two sizes take turns and the ratio is the median of each turn's,
    // so that the host's drift between runs falls on both sides of it.
    const std::string fhf = std::string(HXSIM_SOURCE_DIR) + "/configs/bench/fhf_reps.yaml";
    std::vector<Run> ones, fours;
    std::vector<double> ratios;
    for (int r = 0; r < repeats; ++r) {
      ones.push_back(run_once(self, fhf, 0, dir / "fhf_reps_0.json"));
      fours.push_back(run_once(self, fhf, 1, dir / "fhf_reps_1.json"));
      ratios.push_back((fours.back().wall - fours.back().elab) / (ones.back().wall - ones.back().elab));
    }
    const Run n1 = median(std::move(ones));
    const Run n4 = median(std::move(fours));
    std::sort(ratios.begin(), ratios.end());
    const double ratio = ratios[ratios.size() / 2];
    std::printf("%-18s %10.3f %12.0f %14.0f %12s %10.1f %9s  FHF 64 B x 262144 vs x 65536: %.2fx the wall time (simulation "
                "only) for 4x the work\n",
                "linear_fhf", n4.wall, n4.meta["tlp_hops"].get<double>(), n4.meta["tlp_hops"].get<double>() / n4.wall, "",
                n4.rss_mb, "", ratio);
    scen.push_back({{"name", "linear_fhf"}, {"description", "FHF 64 B: 262144 vs 65536 repetitions"},
                    {"wall_s", n4.wall}, {"wall_s_quarter", n1.wall}, {"wall_ratio_for_4x_work", ratio},
                    {"peak_rss_mb", n4.rss_mb}, {"peak_rss_mb_quarter", n1.rss_mb}});
    const std::string bw = std::string(HXSIM_SOURCE_DIR) + "/configs/bench/bench_bw_2m.yaml";
    const Run m = median_of(repeats, [&] { return run_paired(self, bw, 0, dir / "bench_bw_2m.json"); });
    const double hops = m.meta["tlp_hops"].get<double>();
    std::printf("%-18s %10.3f %12.0f %14.0f %12s %10.1f %9.3f  2 M bench_bw writes of 128 B: peak RSS %.1f MB\n", "flat_bench_bw",
                m.wall, hops, hops / m.wall, "", m.rss_mb, hops / m.wall / m.kernel, m.rss_mb);
    scen.push_back({{"name", "flat_bench_bw"}, {"description", "2 M bench_bw writes of 128 B (S011 engine)"},
                    {"wall_s", m.wall}, {"tlp_hops", hops}, {"tlp_hops_per_s", hops / m.wall},
                    {"tlp_hops_per_kernel_notification", hops / m.wall / m.kernel}, {"kernel_notifications_per_s", m.kernel},
                    {"peak_rss_mb", m.rss_mb}});
  }
  if (want("endpoint_scaling")) {
    // Endpoint scaling: the same traffic on hosts of 8, 64 and 512 endpoints.
    for (const int n : {8, 64, 512}) {
      const fs::path study = dir / ("scaling_" + std::to_string(n) + ".yaml");
      std::ofstream(study) << scaling_study(n);
      const Run med = median_of(repeats, [&] { return run_once(self, study.string(), 0, dir / ("scaling_" + std::to_string(n) + ".json")); });
      const double us = med.meta["simulated_time_ns"].get<double>() / 1000.0;
      const double hops = med.meta["tlp_hops"].get<double>();
      std::printf("%-18s %10.3f %12.0f %14.0f %12s %10.1f %9s  %d endpoints: topology checks %.1f ms + elaboration %.1f ms, "
                  "%.3f ms wall per simulated us\n",
                  ("scaling_" + std::to_string(n)).c_str(), med.wall, hops, hops / med.wall, "", med.rss_mb, "", n, med.load * 1e3,
                  med.elab * 1e3, (med.wall - med.elab) / us * 1e3);
      scen.push_back({{"name", "endpoint_scaling_" + std::to_string(n)}, {"endpoints", n}, {"wall_s", med.wall},
                      {"topology_load_s", med.load}, {"elaboration_s", med.elab}, {"simulated_us", us}, {"wall_ms_per_simulated_us", (med.wall - med.elab) / us * 1e3},
                      {"tlp_hops_per_s", hops / med.wall}, {"peak_rss_mb", med.rss_mb}});
    }
  }
  // Two 1000-point sweeps: points per second and parallel efficiency, -j1
  // vs -jN. Points of 16 KiB (well under a millisecond) measure what running
  // a point costs beyond its simulation; points of 1 MiB (about 5 ms, smaller
  // than most points of the shipped studies) what a sweep of ordinary points
  // gets from the second core.
  for (const auto& [name, what] : {std::pair<std::string, std::string>{"sweep_1000", "1000-point sweep of small peer transfers"},
                                   {"sweep_1000_1mib", "1000-point sweep of 1 MiB peer transfers"}}) {
    if (!want(name)) continue;
    const std::string study = std::string(HXSIM_SOURCE_DIR) + "/configs/bench/" + name + ".yaml";
    const int n = std::max(2u, std::thread::hardware_concurrency());
    double sweep_rss = 0;
    // Each run writes into a new directory, and all of them are removed
    // only when the bench ends. Deleting a run's thousands of files just
    // before the next timed run would bill that run for them: ext4 without
    // a journal (as here) skips recently deleted inodes when it allocates
    // new ones, scanning past each (docs/performance.md). For the same
    // reason the file system's write-back of one run is done (sync) before
    // the next starts, untimed: a sweep does not wait for its files to
    // reach the disk, and the run after it should not either.
    //
    // The -j1 run is held to one CPU (its driver, server and points): the
    // baseline is the sweep on one core. Left free, its processes move
    // between the two vCPUs as they wake each other, and the same -j1
    // sweep took 15-20% more user time (docs/performance.md), which made
    // the -j2 run look better than twice as fast.
    //
    // The machine's own ceiling is measured beside them: n separate -j1
    // sweeps at once, each held to a CPU of its own, share nothing but the
    // machine. One point per process means one new address space per point,
    // and on some virtual machines creating and tearing down address spaces
    // on both vCPUs at once slows both (docs/performance.md): what those n
    // sweeps reach, t1 / their wall time, bounds what one -jN sweep can.
    int run_no = 0;
    auto out_dir = [&](const std::string& kind) { return dir / (name + "_" + kind + "_" + std::to_string(run_no++)); };
    auto sweep_wall = [&](int jobs) {
      const fs::path out = out_dir("j" + std::to_string(jobs));
      ::sync();
      // Inherited by the run started now: -j1 stays on the bench's CPU,
      // -jN gets them all.
      const HeldTo held(jobs == 1 ? allowed_cpus() : std::vector<int>{});
      const auto t0 = std::chrono::steady_clock::now();
      sweep_rss = std::max(sweep_rss, run_child({self, "run", study, "-o", out.string(), "-q", "--fresh", "-j", std::to_string(jobs)},
                                                out.string() + ".stderr", "the bench sweep " + name));
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    auto separate_wall = [&] {
      ::sync();
      std::vector<std::pair<pid_t, fs::path>> runs;
      const auto t0 = std::chrono::steady_clock::now();
      for (int k = 0; k < n; ++k) {
        const fs::path out = out_dir("separate");
        const HeldTo held(g_cpus.empty() ? std::vector<int>{} : std::vector<int>{g_cpus[static_cast<std::size_t>(k) % g_cpus.size()]});
        runs.emplace_back(spawn_point({self, "run", study, "-o", out.string(), "-q", "--fresh", "-j", "1"}, out.string() + ".stderr"),
                          out);
      }
      for (const auto& [pid, out] : runs) wait_child(pid, out.string() + ".stderr", "the bench sweep " + name);
      return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    };
    // -j1, -jN and the n separate sweeps take turns, so that the machine's
    // drift falls on all; each efficiency is the median of the rounds'.
    std::vector<double> t1s, tns, effs, ceils;
    for (int r = 0; r < repeats; ++r) {
      t1s.push_back(sweep_wall(1));
      tns.push_back(sweep_wall(n));
      effs.push_back(t1s.back() / (n * tns.back()));
      ceils.push_back(t1s.back() / separate_wall());
    }
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    const double t1 = median(t1s), tn = median(tns), eff = median(effs), ceil = median(ceils);
    const double eff_lo = *std::min_element(effs.begin(), effs.end()), eff_hi = *std::max_element(effs.begin(), effs.end());
    std::printf("%-18s %10.3f %12s %.0f points/s at -j1 on one CPU, %.0f at -j%d: parallel efficiency %.0f%% (%.0f-%.0f%% over %d "
                "rounds); %d separate -j1 sweeps at once reach %.0f%%\n",
                name.c_str(), tn, "", 1000 / t1, 1000 / tn, n, 100 * eff, 100 * eff_lo, 100 * eff_hi, repeats, n, 100 * ceil);
    scen.push_back({{"name", name}, {"description", what}, {"wall_s", tn},
                    {"wall_s_j1", t1}, {"jobs", n}, {"points_per_s", 1000 / tn}, {"points_per_s_j1", 1000 / t1},
                    {"parallel_efficiency_min", eff_lo}, {"parallel_efficiency_max", eff_hi}, {"pairs", repeats},
                    {"parallel_efficiency", eff}, {"separate_sweeps_efficiency", ceil}, {"peak_rss_mb", sweep_rss}});
  }
#ifdef HXSIM_HAVE_RTL
  if (want("rtl_raw")) {
    // Verilator's rate for the same RTL alone, on other work (F2H streaming).
    const double raw = dma::CalypteRtl::raw_cycles_per_s(2'000'000);
    std::printf("%-18s %10s %12s %.2f M cycles/s (the Verilated RTL alone, 2 M cycles of F2H streaming)\n", "rtl_raw", "", "",
                raw / 1e6);
    scen.push_back({{"name", "rtl_raw"}, {"description", "Verilated RTL engine alone, F2H streaming"}, {"rtl_cycles_per_s", raw}});
    for (auto& sc : scen)
      if (sc["name"] == "rtl_cosim_fhf" && sc.contains("rtl_cycles_per_s")) {
        const double share = sc["rtl_cycles_per_s"].get<double>() / raw;
        sc["rtl_share_of_raw"] = share;
        std::printf("%-18s %10s %12s rtl_cosim_fhf keeps %.0f%% of it\n", "", "", "", 100 * share);
      }
  }
#endif
  fs::remove_all(dir);
  if (!json_out.empty()) write_atomic(json_out, nlohmann::json({{"scenarios", scen}}).dump(2) + "\n");
  return 0;
}

}  // namespace hx::sim
