// Workloads: the experiments of the sources, rebuilt as traffic generators
// and host software bound to topology nodes. Each reports flat metrics with
// units in their names and latency histograms.
#pragma once
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "models/core/ledger.h"
#include "models/core/stats.h"
#include "src/config/yaml_util.h"
#include "src/sim/platform.h"

namespace hx::sim {

struct Results {
  nlohmann::json metrics = nlohmann::json::object();
  nlohmann::json units = nlohmann::json::object();
  nlohmann::json histograms = nlohmann::json::object();
  nlohmann::json breakdowns = nlohmann::json::object();
  void metric(const std::string& name, double v, const std::string& unit);
  void hist(const std::string& name, const Histogram& h, const std::string& unit);
  // Where the time of the transactions behind histogram `name` went: the
  // mean per stage (models/core/ledger.h), adding up to their mean latency;
  // times `scale` where the histogram is a fixed share of each transaction
  // (an echo's one way: half its round trip).
  void breakdown(const std::string& name, const Breakdown& b, double scale = 1.0);
};

class Workload {
 public:
  explicit Workload(std::string name) : m_name(std::move(name)) {}
  virtual ~Workload() = default;
  // Bind to the elaborated platform and spawn the threads that run it from
  // time zero. (Construction validates against the topology alone, so a
  // study is checked before anything is elaborated or written.)
  virtual void start(Platform& p) = 0;
  virtual bool done() const = 0;
  virtual void report(Results& r) const = 0;
  virtual std::string status() const { return done() ? "done" : "running"; }
  // The share of its work done so far, 0 to 1, for the progress shown
  // while a long point runs (one that cannot tell says 0 until it is done).
  virtual double progress() const { return done() ? 1.0 : 0.0; }
  // Devices this workload drives alone (a DMA engine runs one job at a time).
  virtual std::vector<std::string> exclusive_devices() const { return {}; }
  // The host buffers start() takes, in the order it takes them: the study's
  // check asks whether all of every workload's fit before anything runs.
  virtual std::vector<BufferNeed> buffers() const { return {}; }
  const std::string& name() const { return m_name; }
  const std::string& type() const { return m_type; }
  void set_type(std::string t) { m_type = std::move(t); }

 protected:
  std::string m_name;
  std::string m_type;  // its `type:` (make_workloads sets it)
};

// Every metric and histogram a workload type writes: the name after
// `<workload name>.`, with <device>, <src>, <dst>, <op>, <mode> and <test>
// standing for names and choices; its unit; what it is. The reference is
// generated from it, and a workload that writes anything else stops the
// run (check_metrics): the reference cannot fall behind the code.
struct MetricDoc {
  const char* type;
  const char* name;
  const char* unit;
  const char* what;
  bool histogram = false;
};
const std::vector<MetricDoc>& metric_docs();
// Fails (SimError) unless every metric and histogram in `r` is declared
// for `w`'s type with its unit.
void check_metrics(const Workload& w, const Results& r);
// The Markdown reference of every workload's metrics.
std::string metrics_reference();
// Whether metric name `name` matches `glob` (`*` stands for any text).
bool metric_glob_matches(const std::string& glob, const std::string& name);
// Fails (InputError at the pattern's place) unless each of a study's
// `metrics:` patterns matches a metric one of `workloads` may write (as
// declared: each <placeholder> any text).
void check_metric_globs(const std::vector<std::pair<std::string, cfg::Cursor>>& globs,
                        const std::vector<std::unique_ptr<Workload>>& workloads);

std::vector<std::unique_ptr<Workload>> make_workloads(const cfg::Cursor& list, const topo::Topology& t);

// Workload types and their keys, for the reference documentation.
std::string workloads_reference();

}  // namespace hx::sim
