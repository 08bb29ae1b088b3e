#include "models/rtl/interfaces.h"

#include "models/rtl/tlp_stream.h"
#include "models/rtl/usp.h"

namespace hx::rtl {

const std::vector<std::string>& interface_kinds() {
  static const std::vector<std::string> k = {"tlp_stream", "usp"};
  return k;
}

std::string interface_port_error(const std::string& kind, const std::vector<PortShape>& ports, int w) {
  return kind == "usp" ? usp_port_error(ports, w) : tlp_stream_port_error(ports, w);
}

std::unique_ptr<Shim> make_shim(const std::string& kind, RtlModel& model, int w, std::string device, const std::uint64_t& cycle) {
  if (kind == "usp") return std::make_unique<UspShim>(model, w, std::move(device), cycle);
  return std::make_unique<TlpStreamShim>(model, w, std::move(device), cycle);
}

}  // namespace hx::rtl
