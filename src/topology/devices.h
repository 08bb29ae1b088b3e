// The device logic an endpoint may carry (`device:` of an endpoint), as a
// registry: each kind names its parameter section, reads and checks it,
// says how much of BAR0 its registers need and makes its model. The
// topology reader, the elaboration and the key reference all go through
// this table, so a new kind is one entry here (register_device_kind), not
// an edit of every if-chain that once decided it.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "src/config/params.h"

namespace hx::pcie {
class Device;
}

namespace hx::topo {

// Every kind's parameters of one endpoint (only its own kind's are used).
struct DeviceConfigs {
  dma::RostaConfig rosta;
  dma::CalypteConfig calypte;
  dma::BenchDmaConfig bench;
  dma::CoyoteConfig coyote;
  ccix::RequestAgentConfig ccix_ra;
  rtl::RtlDeviceConfig rtl;
  nic::PcieNicConfig nic;
  // Tags every wave file its RTL models would write (`card.vcd` ->
  // `card.<tag>.vcd`): each point of a sweep writes its own.
  void tag_waves(const std::string& tag);
};

struct DeviceKind {
  std::string name;  // the `device:` value and the key of its section
  std::string doc;   // what the section is, for the key reference
  // Reads the section (absent: every default) into `d`; a bad value fails
  // at its location.
  std::function<void(const cfg::Cursor& section, DeviceConfigs& d)> parse;
  // Bytes of BAR0 its registers and windows need (0: no requirement).
  std::function<std::uint64_t(const DeviceConfigs& d)> bar_need;
  // Its model, named after the endpoint `node`.
  std::function<std::unique_ptr<pcie::Device>(const std::string& node, const DeviceConfigs& d)> make;
  // Other kinds' sections it takes too (a CCIX request agent: its DMA
  // engine's `bench:`).
  std::vector<std::string> uses = {};
  // Whether `device: <name>` needs its section (a design to build: an
  // absent section has no defaults that would make sense).
  bool needs_section = false;
};

// The registered kinds, in registration order (the built-in ones first).
const std::deque<DeviceKind>& device_kinds();
// nullptr for "none" and for a name no kind has.
const DeviceKind* device_kind(const std::string& name);
// Adds a kind (before any topology is read); fails on a name already taken.
void register_device_kind(DeviceKind k);
// The contents of every RTL design file a topology tree (read from `file`)
// names, as one digest ("" if it has no RTL device): a result fingerprint
// takes it, so that an edited design is never mistaken for the one a
// result came from.
std::string rtl_inputs_digest(const YAML::Node& topo, const std::string& file, const cfg::Origins* origins = nullptr);
// "none" and every kind's name: what `device:` accepts.
std::vector<std::string> device_names();

}  // namespace hx::topo
