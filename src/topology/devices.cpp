#include "src/topology/devices.h"

#include <deque>
#include <stdexcept>

#include "models/ccix/request_agent.h"
#include "models/dma/bench_dma.h"
#include "models/dma/calypte_dma.h"
#include "models/dma/coyote_dma.h"
#include "models/dma/rosta_dma.h"
#ifdef HXSIM_HAVE_RTL
#include "models/dma/rtl/calypte_rtl.h"
#endif

namespace hx::topo {

namespace {

using cfg::Cursor;

std::deque<DeviceKind>& registry() {
  // A deque: registering a kind never moves the others (the key reference
  // points into their names).
  static std::deque<DeviceKind> kinds = [] {
    std::deque<DeviceKind> k;
    k.push_back({"rosta", "its parameters, with device: rosta",
                 [](const Cursor& s, DeviceConfigs& d) { cfg::load_params(s, d.rosta, cfg::rosta_params()); },
                 [](const DeviceConfigs&) -> std::uint64_t { return dma::kRostaEpRx + (1u << 20); },
                 [](const std::string& node, const DeviceConfigs& d) -> std::unique_ptr<pcie::Device> {
                   return std::make_unique<dma::RostaDma>(node + ".rosta", d.rosta);
                 }});
    k.push_back({"calypte", "its parameters, with device: calypte",
                 [](const Cursor& s, DeviceConfigs& d) {
                   cfg::load_params(s, d.calypte, cfg::calypte_params());
                   if (d.calypte.rtl && (d.calypte.channels != 16 || d.calypte.bus_bits != 256))
                     s.child("model").fail("the RTL engine is built with 16 channels and a 256-bit datapath");
#ifndef HXSIM_HAVE_RTL
                   if (d.calypte.rtl) s.child("model").fail("this hxsim was built without the RTL (HXSIM_ENABLE_RTL=OFF)");
#endif
                 },
                 [](const DeviceConfigs& d) -> std::uint64_t {
                   return dma::kCalypteH2FData + (static_cast<std::uint64_t>(d.calypte.channels) << 20);
                 },
                 [](const std::string& node, const DeviceConfigs& d) -> std::unique_ptr<pcie::Device> {
#ifdef HXSIM_HAVE_RTL
                   if (d.calypte.rtl) {
                     dma::CalypteRtlConfig rc;
                     rc.clock_mhz = d.calypte.clock_mhz;
                     rc.wave = d.calypte.wave;
                     rc.user_ready_every = d.calypte.user_ready_every;
                     return std::make_unique<dma::CalypteRtl>(node + ".rtl", rc);
                   }
#endif
                   return std::make_unique<dma::CalypteDma>(node + ".calypte", d.calypte);
                 }});
    k.push_back({"bench", "its parameters, with device: bench",
                 [](const Cursor& s, DeviceConfigs& d) {
                   cfg::load_params(s, d.bench, cfg::bench_params());
                   cfg::check_tlb(s, "atc_ways", d.bench.atc);
                 },
                 [](const DeviceConfigs&) -> std::uint64_t { return 0; },
                 [](const std::string& node, const DeviceConfigs& d) -> std::unique_ptr<pcie::Device> {
                   return std::make_unique<dma::BenchDma>(node + ".bench", d.bench);
                 }});
    k.push_back({"coyote", "its parameters, with device: coyote",
                 [](const Cursor& s, DeviceConfigs& d) {
                   cfg::load_params(s, d.coyote, cfg::coyote_params());
                   cfg::check_tlb(s, "stlb_ways", d.coyote.stlb);
                   cfg::check_tlb(s, "ltlb_ways", d.coyote.ltlb);
                 },
                 [](const DeviceConfigs&) -> std::uint64_t { return dma::kCoyoteTlbFill + 8; },
                 [](const std::string& node, const DeviceConfigs& d) -> std::unique_ptr<pcie::Device> {
                   return std::make_unique<dma::CoyoteDma>(node + ".coyote", d.coyote);
                 }});
    k.push_back({"ccix_ra", "its parameters, with device: ccix_ra (its DMA engine and ATS switch: the bench: section)",
                 [](const Cursor& s, DeviceConfigs& d) { cfg::load_params(s, d.ccix_ra, cfg::ccix_ra_params()); },
                 [](const DeviceConfigs&) -> std::uint64_t { return 0; },
                 [](const std::string& node, const DeviceConfigs& d) -> std::unique_ptr<pcie::Device> {
                   ccix::RequestAgentConfig c = d.ccix_ra;
                   c.dma = d.bench;  // the DMA engine and ATS switch beside the agent
                   return std::make_unique<ccix::RequestAgent>(node + ".ra", c);
                 },
                 {"bench"}});
    return k;
  }();
  return kinds;
}

}  // namespace

const std::deque<DeviceKind>& device_kinds() { return registry(); }

const DeviceKind* device_kind(const std::string& name) {
  for (const auto& k : registry())
    if (k.name == name) return &k;
  return nullptr;
}

void register_device_kind(DeviceKind k) {
  if (k.name == "none" || device_kind(k.name)) throw std::invalid_argument("device kind '" + k.name + "' is registered twice");
  registry().push_back(std::move(k));
}

std::vector<std::string> device_names() {
  std::vector<std::string> n{"none"};
  for (const auto& k : registry()) n.push_back(k.name);
  return n;
}

}  // namespace hx::topo
