// Cores streaming 64 B accesses to lines homed on one socket (`type:
// coh_bw`): the bandwidth a host's sockets give across their socket links,
// with each core's misses in flight. Needs a host with `sockets:`.
#pragma once
#include <memory>
#include <string>

#include "src/config/yaml_util.h"
#include "src/sim/workloads.h"

namespace hx::sim {

std::unique_ptr<Workload> make_coherent_bandwidth(const cfg::Cursor& c, const topo::Topology& t);
// Its row of the workloads reference.
std::string coherent_bandwidth_reference();

}  // namespace hx::sim
