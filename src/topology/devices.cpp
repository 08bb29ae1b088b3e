#include "src/topology/devices.h"

#include <sys/stat.h>

#include <deque>
#include <filesystem>
#include <regex>
#include <stdexcept>

#include "models/ccix/request_agent.h"
#include "models/dma/bench_dma.h"
#include "models/dma/calypte_dma.h"
#include "models/dma/coyote_dma.h"
#include "models/dma/rosta_dma.h"
#include "models/nic/pcie_nic.h"
#include "models/rtl/interfaces.h"
#include "models/rtl/rtl_device.h"
#include "src/rtl/build.h"
#ifdef HXSIM_HAVE_RTL
#include "models/dma/rtl/calypte_rtl.h"
#endif

namespace hx::topo {

namespace {

using cfg::Cursor;

// The file a value set from a file came from ("FILE:LINE:COL"), or "" (a
// value from the command line, "--set PATH").
std::string origin_file(const std::string& origin) {
  const auto col = origin.rfind(':');
  const auto line = col == std::string::npos || col == 0 ? std::string::npos : origin.rfind(':', col - 1);
  if (line == std::string::npos || origin.rfind("--set", 0) == 0) return {};
  return origin.substr(0, line);
}

// A path of the design's, relative to the directory of the file that names
// it: the topology, or the study whose sweep or set: gives it (as a sweep
// over topology files is); a path given with --set is relative to the
// working directory.
std::string design_path(const Cursor& item) {
  const std::string p = item.scalar();
  if (p.empty()) item.fail("an empty path");
  std::filesystem::path out = p;
  if (out.is_relative()) {
    std::string from = item.src ? item.src->file : "";
    if (const std::string* o = item.origin_of(item.node)) from = origin_file(*o);
    if (!from.empty()) out = std::filesystem::path(from).parent_path() / out;
  }
  std::error_code ec;
  const auto abs = std::filesystem::absolute(out, ec);
  return (ec ? out : abs).lexically_normal().string();
}

bool is_kind(const std::string& p, mode_t kind) {
  struct stat st{};
  return ::stat(p.c_str(), &st) == 0 && (st.st_mode & S_IFMT) == kind;
}

// `rtl:` of an endpoint: the design, built here (or found in the cache),
// and checked against its interface, so that a design that does not build
// or does not fit is bad input, located, before anything runs.
void parse_rtl(const Cursor& s, DeviceConfigs& d) {
  if (!s.node.IsMap()) {
    if (!s.node.IsNull()) s.fail("a map: sources, top, and the settings of docs/parameters.md");
    return;  // no section: not an RTL device
  }
  cfg::load_params(s, d.rtl, cfg::rtl_params(), {"sources", "top", "parameters", "include_dirs", "verilator_args"});
  rtlbuild::Spec spec;
  if (!s.has("top")) s.fail("no top: the design's top module");
  spec.top = s.child("top").scalar();
  static const std::regex ident("[A-Za-z_][A-Za-z0-9_]*");
  if (!std::regex_match(spec.top, ident)) s.child("top").fail("'" + spec.top + "' is not a module name");
  if (!s.has("sources")) s.fail("no sources: the design's Verilog or SystemVerilog files");
  const auto list = [](const Cursor& c) {
    if (!c.node.IsSequence()) c.fail("a list");
    return c.node.size();
  };
  const Cursor src = s.child("sources");
  if (list(src) == 0) src.fail("an empty list");
  for (std::size_t i = 0; i < src.node.size(); ++i) {
    const std::string p = design_path(src.item(i));
    if (!is_kind(p, S_IFREG)) src.item(i).fail("no such file: " + p);
    spec.sources.push_back(p);
  }
  if (s.has("include_dirs")) {
    const Cursor inc = s.child("include_dirs");
    for (std::size_t i = 0; i < list(inc); ++i) {
      const std::string p = design_path(inc.item(i));
      if (!is_kind(p, S_IFDIR)) inc.item(i).fail("no such directory: " + p);
      spec.include_dirs.push_back(p);
    }
  }
  if (s.has("parameters")) {
    const Cursor par = s.child("parameters");
    if (!par.node.IsMap()) par.fail("a map of parameter names to values");
    for (auto it = par.node.begin(); it != par.node.end(); ++it) {
      const std::string k = it->first.Scalar();
      if (!std::regex_match(k, ident)) par.fail("'" + k + "' is not a parameter name");
      spec.parameters.emplace_back(k, par.child(k).scalar());
    }
  }
  if (s.has("verilator_args")) {
    const Cursor va = s.child("verilator_args");
    for (std::size_t i = 0; i < list(va); ++i) {
      const std::string a = va.item(i).scalar();
      // What hxsim sets itself, or what would make something else than a library.
      for (const char* bad : {"--sc", "--exe", "--build", "--binary", "-Mdir", "--Mdir", "--prefix", "--top-module", "--top", "--lib-create", "--protect-lib", "--main", "--timing"})
        if (a == bad || a.rfind(std::string(bad) + "=", 0) == 0) va.item(i).fail(a + " is set by hxsim, or makes no library");
      spec.verilator_args.push_back(a);
    }
  }
  rtlbuild::Built b;
  try {
    b = rtlbuild::build(spec);
  } catch (const rtlbuild::BuildError& e) {
    src.fail(e.what);
  }
  std::vector<rtl::PortShape> shapes;
  for (const auto& p : b.ports) shapes.push_back({p.name, p.bits, p.dir == 0 ? rtl::PortDir::In : p.dir == 1 ? rtl::PortDir::Out : rtl::PortDir::InOut});
  const std::string err = rtl::interface_port_error(d.rtl.interface, shapes, d.rtl.data_width);
  if (!err.empty())
    s.child("top").fail("module " + spec.top + " does not have the " + d.rtl.interface + " interface at data_width " +
                        std::to_string(d.rtl.data_width) + ":" + err);
  d.rtl.library = b.library;
}

}  // namespace

void DeviceConfigs::tag_waves(const std::string& tag) {
  for (std::string* w : {&rtl.wave, &calypte.wave})
    if (!w->empty()) {
      std::filesystem::path p(*w);
      *w = p.replace_filename(p.stem().string() + "." + tag + p.extension().string()).string();
    }
}

namespace {

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
    k.push_back({"nic", "its parameters, with device: nic (a NIC on PCIe: rings, doorbells and DMA)",
                 [](const Cursor& s, DeviceConfigs& d) { cfg::load_params(s, d.nic, cfg::pcie_nic_params()); },
                 [](const DeviceConfigs&) -> std::uint64_t { return nic::kNicBarBytes; },
                 [](const std::string& node, const DeviceConfigs& d) -> std::unique_ptr<pcie::Device> {
                   return std::make_unique<nic::PcieNic>(node + ".nic", d.nic);
                 }});
    k.push_back({"rtl", "a design of your own (its sources, top module and interface), with device: rtl",
                 parse_rtl,
                 [](const DeviceConfigs&) -> std::uint64_t { return 0; },
                 [](const std::string& node, const DeviceConfigs& d) -> std::unique_ptr<pcie::Device> {
                   return std::make_unique<rtl::RtlDevice>(node + ".rtl", d.rtl);
                 },
                 {},
                 true});
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

std::string rtl_inputs_digest(const YAML::Node& topo, const std::string& file, const cfg::Origins* origins) {
  const Cursor root = cfg::root_cursor(topo, file, origins);
  // Read through const nodes: a look-up of a missing key must not add it.
  const YAML::Node& t = topo;
  if (!t.IsMap() || !t["nodes"] || !t["nodes"].IsMap()) return {};
  const YAML::Node nodes = t["nodes"];
  std::string out;
  for (auto it = nodes.begin(); it != nodes.end(); ++it) {
    const YAML::Node n = it->second;  // a copy: the iterator's pair is a temporary
    if (!n.IsMap() || !n["rtl"]) continue;
    const YAML::Node rtl = n["rtl"];
    if (!rtl.IsMap()) continue;
    const Cursor sec = root.child("nodes").child(it->first.Scalar()).child("rtl");
    std::vector<std::string> src, inc;
    for (const auto& [key, into] : {std::pair<const char*, std::vector<std::string>*>{"sources", &src}, {"include_dirs", &inc}})
      if (rtl[key] && rtl[key].IsSequence() && !rtl[key].IsNull())
        for (std::size_t i = 0; i < rtl[key].size(); ++i)
          if (rtl[key][i].IsScalar()) into->push_back(design_path(sec.child(key).item(i)));
    out += it->first.Scalar() + ":" + rtlbuild::inputs_digest(src, inc) + ";";
  }
  return out;
}

std::vector<std::string> device_names() {
  std::vector<std::string> n{"none"};
  for (const auto& k : registry()) n.push_back(k.name);
  return n;
}

}  // namespace hx::topo
