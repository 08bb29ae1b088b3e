// Packets looped back through a NIC (`type: nic_loop`): host cores send,
// the NIC returns each packet, host cores receive and time it. For now the
// NICs on the socket interconnect of S002 (`nic: ccnic`, CC-NIC's design;
// `nic: e810_upi`, the E810's head/tail interface ported to coherent
// lines), with their design options as keys; needs a host with sockets.
#pragma once
#include <memory>
#include <string>

#include "src/config/yaml_util.h"
#include "src/sim/workloads.h"

namespace hx::sim {

std::unique_ptr<Workload> make_nic_loop(const cfg::Cursor& c, const topo::Topology& t);
// Its row of the workloads reference.
std::string nic_loop_reference();

}  // namespace hx::sim
