// hxsim: one binary, subcommands (DESIGN.md section 6).
// Exit codes: 0 success, 1 a check failed, 2 bad input, 3 simulation error.
#include <systemc>

#include <CLI/CLI.hpp>

#include <cstdio>
#include <fstream>
#include <iostream>
#include <unistd.h>

#include "models/core/error.h"
#include "src/config/params.h"
#include "src/config/yaml_util.h"
#include "src/sim/bench.h"
#include "src/sim/driver.h"
#include "src/sim/mpi.h"
#include "src/sim/runner.h"
#include "src/sim/validate.h"
#include "src/sim/version.h"
#include "src/sim/workloads.h"
#include "src/topology/topology.h"

namespace {

std::string self_exe() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "hxsim";
  buf[n] = '\0';
  return buf;
}

int run_cli(int argc, char** argv) {
  CLI::App app{"hxsim: cycle-approximate simulator of host-accelerator interconnects"};
  app.set_version_flag("--version", std::string("hxsim ") + HXSIM_VERSION + " (" + hx::git_revision() + ")");
  app.require_subcommand(1);

  hx::sim::RunArgs ra;
  auto* run = app.add_subcommand("run", "Run a study: every sweep point, one process each");
  run->add_option("study", ra.study, "study YAML")->required()->check(CLI::ExistingFile);
  run->add_option("-o,--out", ra.out_dir, "output directory (default: results/<study>)");
  run->add_option("-j,--jobs", ra.jobs, "parallel worker processes (default: all cores)")->check(CLI::Range(1, 4096));
  // One value per --set, so that the study path may come before or after them.
  run->add_option("--set", ra.sets, "override a parameter: path=value (topology.nodes.X.Y=... for the platform)")
      ->allow_extra_args(false);
  run->add_option("--seed", ra.seed, "study seed (default: the study's)")->check(CLI::Range(0LL, 1LL << 62));
  run->add_flag("--fresh", ra.fresh, "redo points a previous run finished");
  run->add_flag("-q,--quiet", ra.quiet, "no progress output");
  run->add_flag("!--no-pin", ra.pin, "with -j equal to the CPUs: do not hold each point server to a CPU of its own");
  run->add_flag("--mpi", ra.mpi, "under mpirun: rank 0 hands out the points, runs some itself and gathers the results of all");
  auto* trace = run->add_flag("--trace", ra.trace, "write points/K.trace.json: TLPs per link and port (Perfetto / Chrome trace); reruns every point");
  // The window options mean nothing without --trace: an error, not ignored.
  run->add_option("--trace-from", ra.trace_from, "trace from this simulated time (default 0ns)")->needs(trace);
  run->add_option("--trace-to", ra.trace_to, "trace until this simulated time (default: the end)")->needs(trace);
  run->add_option("--trace-max", ra.trace_max, "at most this many trace events (default 200000)")
      ->check(CLI::Range(1LL, 100000000LL))
      ->needs(trace);

  // The internal subcommands that run points of a study: the study, its
  // seed, the overrides and the trace options as `hxsim run` passes them on.
  auto worker = [&](const char* name, const char* what) {
    auto* w = app.add_subcommand(name, what);
    w->group("");
    w->add_option("study", ra.study)->required();
    w->add_option("--set", ra.sets)->allow_extra_args(false);
    w->add_option("--seed", ra.seed);
    w->add_option("--fingerprint", ra.fingerprint);
    w->add_flag("--trace", ra.trace);
    w->add_option("--trace-from", ra.trace_from);
    w->add_option("--trace-to", ra.trace_to);
    w->add_option("--trace-max", ra.trace_max);
    return w;
  };
  std::size_t index = 0;
  std::string out_file;
  auto* point = worker("_point", "(internal) run one sweep point");
  point->add_option("--index", index)->required();
  point->add_option("--out", out_file)->required();

  std::string serve_dir;
  int serve_cmd = -1, serve_rep = -1;
  std::uint64_t serve_hash = 0;
  auto* serve = worker("_serve", "(internal) a point server of a local sweep");
  serve->add_option("--dir", serve_dir)->required();
  serve->add_option("--cmd-fd", serve_cmd)->required();
  serve->add_option("--rep-fd", serve_rep)->required();
  serve->add_option("--study-hash", serve_hash)->required();
  long serve_driver = 0;
  serve->add_option("--driver-pid", serve_driver);
  std::size_t without_from = 0, without_to = 0;
  serve->add_option("--without-from", without_from);
  auto* without = serve->add_option("--without-to", without_to);

  std::string topo_file, dot_file;
  auto* topo = app.add_subcommand("topo", "Check a topology; print routes, address map and bottlenecks");
  topo->add_option("topology", topo_file, "topology YAML")->required()->check(CLI::ExistingFile);
  topo->add_option("--dot", dot_file, "write Graphviz DOT here");

  auto* params = app.add_subcommand("params", "Print the reference of every parameter and workload type");

  std::vector<std::string> plot_args;
  std::string plot_dir;
  auto* plot = app.add_subcommand("plot", "Draw a study's sweep: a metric against a swept parameter (matplotlib)");
  plot->add_option("dir", plot_dir, "the study's results directory (holding results.json)")->required();
  for (const char* o : {"--x", "--y", "--group", "--out"}) {
    auto* opt = plot->add_option_function<std::string>(
        o, [&plot_args, o](const std::string& v) { plot_args.insert(plot_args.end(), {o, v}); });
    if (std::string(o) == "--x") opt->description("the swept parameter path on the x axis")->required();
    if (std::string(o) == "--y") opt->description("the metric on the y axis")->required();
    if (std::string(o) == "--group") opt->description("one curve per value of this swept path (default: of every other)");
    if (std::string(o) == "--out") opt->description("the figure file (default: DIR/plot_<y>_vs_<x>.png)");
  }
  for (const char* o : {"--logx", "--logy"})
    plot->add_flag_function(o, [&plot_args, o](std::int64_t) { plot_args.push_back(o); }, "logarithmic axis");

  std::vector<std::string> explain_args;
  std::string explain_dir;
  auto* explain = app.add_subcommand("explain", "Where a study's time went: each resource's utilisation per point, and the busiest");
  explain->add_option("dir", explain_dir, "the study's results directory (holding results.json)")->required();
  explain->add_option_function<int>("--top", [&explain_args](int v) { explain_args.insert(explain_args.end(), {"--top", std::to_string(v)}); },
                                    "resources listed per point (default 8)");
  explain->add_option_function<std::string>("--out", [&explain_args](const std::string& v) { explain_args.insert(explain_args.end(), {"--out", v}); },
                                            "directory for the figures (default: DIR/explain)");
  explain->add_flag_function("--no-figures", [&explain_args](std::int64_t) { explain_args.push_back("--no-figures"); }, "print only");

  std::string bench_json;
  int bench_repeats = 3;
  auto* bench = app.add_subcommand("bench", "Measure the simulator's own speed on fixed scenarios");
  bench->add_option("--json", bench_json, "write the figures as JSON here");
  bench->add_option("--repeats", bench_repeats, "runs per scenario (the median is reported)")->check(CLI::Range(1, 100));
  std::string bench_only;
  bench->add_option("--only", bench_only, "run only the scenarios whose name contains this text (the kernel yardstick always runs)");
  std::string coherence_out;
  auto* bench_coh = app.add_subcommand("_bench_coherence", "(internal) the coherence scenario of hxsim bench");
  bench_coh->group("");
  bench_coh->add_option("--out", coherence_out)->required();
  std::string kernel_out;
  auto* bench_kernel = app.add_subcommand("_bench_kernel", "(internal) the kernel yardstick of hxsim bench, for one scenario run");
  bench_kernel->group("");
  bench_kernel->add_option("--out", kernel_out)->required();

  hx::sim::ValidateArgs va;
  auto* val = app.add_subcommand("validate", "Run the calibration cases against published measurements");
  val->add_option("cases", va.cases, "case files (default: every case in --cases-dir)")->check(CLI::ExistingFile);
  val->add_option("--cases-dir", va.cases_dir, "directory of cases")->default_val(std::string(HXSIM_SOURCE_DIR) + "/validation/cases");
  val->add_option("--report", va.report, "report path without extension; .md and .json are written");
  val->add_option("--work", va.work_dir, "directory for the studies' results (default: results/validate)");
  val->add_option("--set", va.sets, "override a parameter in every case's study: path=value")->allow_extra_args(false);
  val->add_option("-j,--jobs", va.jobs, "parallel worker processes")->check(CLI::Range(1, 4096));
  val->add_flag("--fresh", va.fresh, "rerun every point");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  if (*run) {
    const std::string self = self_exe();
    if (!ra.mpi) return hx::sim::run_study(ra, self);
    return hx::sim::run_study_mpi(ra, self, [&] { return hx::sim::run_study(ra, self); });
  }
  if (*point) return hx::sim::run_one_point(ra, index, out_file);
  if (*serve) {
    std::optional<hx::cfg::TextSpan> without_sweep;
    if (*without) without_sweep = hx::cfg::TextSpan{without_from, without_to};
    return hx::sim::run_point_server(ra, serve_dir, serve_cmd, serve_rep, serve_hash, serve_driver, without_sweep);
  }
  if (*topo) {
    const auto root = hx::cfg::load_file(topo_file);
    const auto t = hx::topo::load_topology(hx::cfg::root_cursor(root, topo_file), topo_file);
    if (!dot_file.empty()) {
      // Written whole or not at all, before the report is printed.
      hx::sim::check_output_file(dot_file, "--dot " + dot_file);
      hx::sim::write_atomic(dot_file, hx::topo::to_dot(t));
    }
    std::cout << hx::topo::describe(t);
    return 0;
  }
  if (*val) return hx::sim::validate(va, self_exe());
  if (*bench) return hx::sim::bench(bench_json, bench_repeats, self_exe(), bench_only);
  if (*bench_coh) return hx::sim::bench_coherence(coherence_out);
  if (*bench_kernel) return hx::sim::bench_kernel(kernel_out);
  if (*plot) {
    std::vector<std::string> args = {"/usr/bin/python3", std::string(HXSIM_SOURCE_DIR) + "/plots/plot_study.py", plot_dir};
    args.insert(args.end(), plot_args.begin(), plot_args.end());
    return hx::sim::run_tool(args);
  }
  if (*explain) {
    std::vector<std::string> args = {"/usr/bin/python3", std::string(HXSIM_SOURCE_DIR) + "/plots/explain.py", explain_dir};
    args.insert(args.end(), explain_args.begin(), explain_args.end());
    return hx::sim::run_tool(args);
  }
  if (*params) {
    std::cout << hx::cfg::params_reference() << "\n" << hx::sim::workloads_reference() << "\n" << hx::sim::metrics_reference() << "\n"
              << hx::sim::files_reference();
    return 0;
  }
  return 2;
}

}  // namespace

int sc_main(int argc, char** argv) {
  return hx::sim::exit_status_of([&] { return run_cli(argc, argv); });
}

// libsystemc's own main() prints the kernel banner before sc_main runs; this
// one switches the banner off first (TOOLCHAIN.md pitfall 8), then hands over.
int main(int argc, char** argv) {
  ::setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 0);
  return sc_core::sc_elab_and_sim(argc, argv);
}
