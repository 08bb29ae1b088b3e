// Every model parameter is declared once, next to its domain
// (src/config/params/<domain>.cpp): name, type, where its default lives in
// the model struct, valid range and description (STYLE.md rule 5). The
// same declaration drives YAML parsing, defaults, range checks, `hxsim
// params` and docs/parameters.md. The default itself is written once, as
// the struct's member initialiser (declare.h).
#pragma once
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "models/ccix/home_port.h"
#include "models/ccix/request_agent.h"
#include "models/coherence/socket.h"
#include "models/dma/bench_dma.h"
#include "models/dma/calypte_dma.h"
#include "models/dma/coyote_dma.h"
#include "models/dma/rosta_dma.h"
#include "models/host/host_cpu.h"
#include "models/host/root_complex.h"
#include "models/nic/coherent_nic.h"
#include "models/nic/pcie_nic.h"
#include "models/memory/memory.h"
#include "models/pcie/endpoint.h"
#include "models/pcie/port.h"
#include "models/pcie/switch.h"
#include "models/rtl/rtl_device.h"
#include "src/config/yaml_util.h"

namespace hx::cfg {

struct ParamDecl {
  std::string name;
  std::string type;  // int, number, bool, time, size, frequency, choice
  std::string def;  // the model struct's default, written in `type`
  std::string range;  // the values it takes, as `hxsim params` prints them
  std::string desc;
};

// The default as a value to parse, made once (a YAML node costs an
// allocation and its release each time it is made).
Cursor default_cursor(const ParamDecl& d);

// `set` checks a value against the declared range (every value: a file's,
// a --set, the default) before it writes it into the config.
template <class C>
struct Param {
  ParamDecl decl;
  std::function<void(C&, const Cursor&)> set;
  Cursor def = default_cursor(decl);
};

template <class C>
using ParamTable = std::vector<Param<C>>;

// Node-level settings the topology layer reads itself (not model params).
// Their member initialisers are the parameters' defaults.
struct SwitchParams {
  Tick latency = 150 * kNs;
  bool cut_through = true;
  bool acs_redirect = false;
};
struct EndpointParams {
  Tick tx_latency = 100 * kNs, rx_latency = 100 * kNs, reg_read_latency = 40 * kNs, reg_read_per_dw = 0;
  int mrrs = 512, tags = 32;
  std::uint64_t bar_size = 2ull << 20;
  bool bar64 = false;  // BAR0 is 64-bit and placed above 4 GiB
};

const ParamTable<pcie::LinkConfig>& link_params();
const ParamTable<pcie::PortConfig>& port_params();
const ParamTable<SwitchParams>& switch_params();
const ParamTable<host::RootComplexConfig>& rc_params();
const ParamTable<mem::MemoryConfig>& memory_params();
const ParamTable<ats::IommuConfig>& iommu_params();
const ParamTable<host::HostCpuConfig>& cpu_params();
// A page size (4KiB, 64KiB, 2MiB, 32MiB, 1GiB) as its shift; a list of them as a mask of shifts.
unsigned page_shift(const Cursor& v);
std::uint64_t page_size_set(const Cursor& v);
// A TLB geometry the model would refuse (ats::geometry_error), refused at
// the section's `ways_key` (or the section) before anything runs.
void check_tlb(const Cursor& section, const char* ways_key, const ats::TlbConfig& c);
const ParamTable<EndpointParams>& endpoint_params();
const ParamTable<dma::RostaConfig>& rosta_params();
const ParamTable<dma::CalypteConfig>& calypte_params();
const ParamTable<dma::BenchDmaConfig>& bench_params();
const ParamTable<dma::CoyoteConfig>& coyote_params();
const ParamTable<rtl::RtlDeviceConfig>& rtl_params();
const ParamTable<ccix::RequestAgentConfig>& ccix_ra_params();
const ParamTable<ccix::HomePortConfig>& ccix_home_params();
const ParamTable<coherence::SocketSystemConfig>& socket_params();
const ParamTable<host::SocketLinkConfig>& socket_link_params();
const ParamTable<nic::CoherentNicConfig>& coherent_nic_params();
const ParamTable<nic::PcieNicConfig>& pcie_nic_params();

// Fill `out` from the map at `c`: declared keys are parsed, `extra` keys are
// left to the caller, anything else is an error; missing keys get defaults
// unless `base` already set them (the layering of defaults sections).
template <class C>
void load_params(const Cursor& c, C& out, const ParamTable<C>& table, const std::set<std::string>& extra = {},
                 bool apply_defaults = true) {
  std::set<std::string> allowed = extra;
  for (const auto& p : table) allowed.insert(p.decl.name);
  const auto keys = c.keys(allowed);
  std::set<std::string> seen(keys.begin(), keys.end());
  for (const auto& p : table) {
    if (seen.count(p.decl.name)) {
      p.set(out, c.child(p.decl.name));
    } else if (apply_defaults) {
      p.set(out, p.def);
    }
  }
}

// The whole parameter reference, as Markdown.
std::string params_reference();

}  // namespace hx::cfg
