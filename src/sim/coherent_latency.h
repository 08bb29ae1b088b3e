// A core's 64 B access to a line in a chosen place (`type: coh_lat`): the
// line is in DRAM, uncached, or Modified in another core's L2, on the
// reader's socket or the other one, homed at the reader or at its holder
// (S002's latency by cache state and homing). Needs a host with `sockets:`.
#pragma once
#include <memory>
#include <string>

#include "src/config/yaml_util.h"
#include "src/sim/workloads.h"

namespace hx::sim {

std::unique_ptr<Workload> make_coherent_latency(const cfg::Cursor& c, const topo::Topology& t);
// A host core's access through a CCIX home (`type: home_lat`; needs `ccix: {cores: N}`).
std::unique_ptr<Workload> make_home_latency(const cfg::Cursor& c, const topo::Topology& t);
// Their rows of the workloads reference.
std::string coherent_latency_reference();

}  // namespace hx::sim
