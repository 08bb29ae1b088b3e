// A scripted host driver for a device of your own (`type: rtl_script`):
// the study says, step by step, what the driver does, with no C++ — take
// host buffers, fill them, write descriptors into them, write and read the
// device's registers, ring doorbells, poll host memory or wait for an MSI,
// wait, repeat, and check results byte for byte. docs/rtl.md has the
// reference and a walkthrough.
#pragma once
#include <memory>

#include "src/config/yaml_util.h"
#include "src/sim/workloads.h"

namespace hx::sim {

// The workload from its study entry, checked against the topology.
std::unique_ptr<Workload> make_rtl_script(const cfg::Cursor& c, const topo::Topology& t);
// Its keys and steps, for the reference.
std::string rtl_script_reference();

}  // namespace hx::sim
