// The interfaces a design may have (`rtl.interface`), each with its shim.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/rtl/shim.h"

namespace hx::rtl {

// The names `rtl.interface` takes.
const std::vector<std::string>& interface_kinds();
// What is wrong with a design's ports for interface `kind` at data width
// `w` bits ("" if nothing).
std::string interface_port_error(const std::string& kind, const std::vector<PortShape>& ports, int w);
std::unique_ptr<Shim> make_shim(const std::string& kind, RtlModel& model, int w, std::string device, const std::uint64_t& cycle);

}  // namespace hx::rtl
