// Workloads: the experiments of the sources, rebuilt as traffic generators
// and host software bound to topology nodes. Each reports flat metrics with
// units in their names and latency histograms.
#pragma once
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "models/core/stats.h"
#include "src/config/yaml_util.h"
#include "src/sim/platform.h"

namespace hx::sim {

struct Results {
  nlohmann::json metrics = nlohmann::json::object();
  nlohmann::json units = nlohmann::json::object();
  nlohmann::json histograms = nlohmann::json::object();
  void metric(const std::string& name, double v, const std::string& unit);
  void hist(const std::string& name, const Histogram& h, const std::string& unit);
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
  // Devices this workload drives alone (a DMA engine runs one job at a time).
  virtual std::vector<std::string> exclusive_devices() const { return {}; }
  // The host buffers start() takes, in the order it takes them: the study's
  // check asks whether all of every workload's fit before anything runs.
  virtual std::vector<BufferNeed> buffers() const { return {}; }
  const std::string& name() const { return m_name; }

 protected:
  std::string m_name;
};

std::vector<std::unique_ptr<Workload>> make_workloads(const cfg::Cursor& list, const topo::Topology& t);

// Workload types and their keys, for the reference documentation.
std::string workloads_reference();

}  // namespace hx::sim
