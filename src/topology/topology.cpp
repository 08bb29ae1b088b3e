#include "src/topology/topology.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/connected_components.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <functional>
#include <iomanip>
#include <sstream>

#include "models/core/graph_routes.h"
#include "src/config/units.h"

namespace hx::topo {

using cfg::Cursor;

const char* type_name(NodeType t) {
  switch (t) {
    case NodeType::RootComplex: return "root_complex";
    case NodeType::Switch: return "switch";
    case NodeType::Endpoint: return "endpoint";
  }
  return "?";
}

namespace {

constexpr std::uint64_t kMmioBase = 0xC0000000ull;
constexpr std::uint64_t kMmioLimit = 0xFEC00000ull;  // below the IOAPIC/MSI region
constexpr std::uint64_t kWindowAlign = 1ull << 20;   // bridge memory windows: 1 MiB granules

int mps_value(const Cursor& c) {
  const std::uint64_t v = c.size();
  if (v != 128 && v != 256 && v != 512 && v != 1024 && v != 2048 && v != 4096)
    c.fail(c.scalar() + " is not a Max_Payload_Size (128B, 256B, 512B, 1KiB, 2KiB, 4KiB)");
  return static_cast<int>(v);
}

std::string hex(std::uint64_t v) {
  char b[32];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

// Where merged maps are made. yaml-cpp joins the node pools of two trees
// whenever a node of one is assigned into the other, at a cost that grows
// with the pools' size: merged maps made as children of one arena join the
// document's pool once, not once per node (which made loading quadratic in
// the number of nodes).
struct Arena {
  YAML::Node root{YAML::NodeType::Sequence};
  YAML::Node map() {
    root.push_back(YAML::Node(YAML::NodeType::Map));
    return root[root.size() - 1];
  }
};

// A node's settings over its type's defaults: maps merge key by key, the
// node's own values win. The merged tree keeps each value's own location.
YAML::Node merged(const YAML::Node& def, const YAML::Node& own, Arena& arena) {
  if (!def.IsDefined() || def.IsNull()) return own;
  if (!own.IsMap() || !def.IsMap()) return own;
  YAML::Node out = arena.map();
  for (auto it = def.begin(); it != def.end(); ++it) {
    const std::string k = it->first.as<std::string>();
    const YAML::Node& co = own;
    const YAML::Node o = co[k];
    out[k] = o.IsDefined() ? merged(it->second, o, arena) : it->second;
  }
  for (auto it = own.begin(); it != own.end(); ++it) {
    const std::string k = it->first.as<std::string>();
    const YAML::Node& cd = def;
    if (!cd[k].IsDefined()) out[k] = it->second;
  }
  return out;
}

}  // namespace

const cfg::KeyTable& topology_keys() {
  static const cfg::KeyTable t = {
      {"platform", "the platform's name"},
      {"description", "free text"},
      {"source", "where its figures come from"},
      {"link_defaults", "link parameters every link starts from"},
      {"defaults", "per node type (`root_complex`, `switch`, `endpoint`) settings every node of that type starts from"},
      {"mps", "the MPS firmware programs everywhere (default: the largest every device supports)"},
      {"nodes", "a map of node name -> node"},
      {"links", "the list of links"},
      {"socket_link", "with a root complex on each of two sockets: the link between them (socket_link parameters)"},
      {"socket_links", "with root complexes on several sockets: the links between them, each {sockets: [a, b]} and socket_link "
                       "parameters; traffic between sockets no link joins takes a shortest route"},
  };
  return t;
}

const cfg::KeyTable& node_keys() {
  static const cfg::KeyTable t = {
      {"type", "root_complex, switch or endpoint"},
      {"mps_supported", "the largest MPS the device supports (default 256B)"},
      {"mps", "this device's MPS, set by hand (setpci) instead of by firmware"},
      {"port", "its ports' receive buffers and transmitter (port parameters)"},
      {"source", "where its figures come from"},
      {"description", "free text"},
  };
  return t;
}

namespace {

// A cache of `lines` in sets of `ways` lines must hold whole sets; the
// error names its size key in `section` if given there, else its ways key.
void check_whole_sets(const Cursor& section, int lines, int ways, const char* size_key, const char* ways_key,
                      const std::string& what) {
  if (lines % ways == 0) return;
  section.child(section.has(size_key) ? size_key : ways_key)
      .fail(what + " must be a multiple of its ways times 64 B (" + std::to_string(ways) + " ways: " +
            std::to_string(ways * 64) + " B)");
}

// A CCIX request agent: its agent id, and the checks its path must pass
// before anything runs: VC1 enabled on every port from it to the root
// complex, and a CCIX packet within the MPS programmed on that path.
void check_ccix(Topology& t, NodeSpec& n, coherence::AgentId id) {
  if (id >= 64) n.where.fail("more than 63 CCIX request agents: the home's directory keeps one bit per agent, 64 in all");
  n.ccix_ra.agent.id = id;
  n.ccix_ra.agent.home = 0;
  check_whole_sets(n.where.child("ccix_ra"), n.ccix_ra.agent.capacity, n.ccix_ra.agent.ways, "sc_size", "sc_ways",
                   "the system cache");
  if (n.ccix_ra.ats && !n.bench.ats)
    n.where.child("ccix_ra").child("ats").fail("the request agent translates through the device's ATS switch: set bench.ats: true");
  for (int i = t.find(n.name); i >= 0;) {
    const NodeSpec& m = t.nodes[static_cast<std::size_t>(i)];
    if (m.port.vcs < 2)
      (m.where.has("port") ? m.where.child("port") : m.where)
          .fail("CCIX travels on VC1: node " + m.name + " on the path of CCIX request agent " + n.name +
                " needs port: {vcs: 2} or more");
    if (m.mps < n.ccix_ra.ccix.format.max_packet_B)
      (n.where.has("ccix_ra") && n.where.child("ccix_ra").has("max_packet") ? n.where.child("ccix_ra").child("max_packet") : n.where)
          .fail("a CCIX packet of " + std::to_string(n.ccix_ra.ccix.format.max_packet_B) + " B exceeds the MPS of " +
                std::to_string(m.mps) + " B programmed at " + m.name);
    if (m.parent_link < 0) break;
    i = t.links[static_cast<std::size_t>(m.parent_link)].up_node;
  }
}

}  // namespace

const cfg::KeyTable& root_complex_keys() {
  static const cfg::KeyTable t = {
      {"socket", "the socket it is on, 0 to n - 1 with n root complexes (default: the free numbers in file order); the host's cores "
                 "are on socket 0"},
      {"root_ports", "root ports (default: one per link below it)"},
      {"segment_per_root_port", "each root port heads a PCI segment of its own (256 buses each)"},
      {"rc", "root-complex parameters"},
      {"memory", "memory parameters"},
      {"iommu", "IOMMU parameters"},
      {"cpu", "host CPU and software parameters"},
      {"ccix", "the CCIX home agent for CCIX request agents below (ccix parameters)"},
      {"sockets", "the host's sockets as coherent agents: cores, LLC slices, DRAM per socket, socket links (sockets parameters)"},
      {"coherent_nic", "the costs of a NIC's software on the socket interconnect (coherent_nic parameters; needs sockets)"},
  };
  return t;
}

const cfg::KeyTable& switch_keys() {
  static const cfg::KeyTable t = {
      {"ports", "ports (default: one per link)"},
      {"port_mps", "per-port MPS: a map of up, down0, down1, ... to a size"},
  };
  return t;
}

// Built from the device registry (rebuilt if a kind was registered since).
const cfg::KeyTable& endpoint_keys() {
  static cfg::KeyTable t;
  static std::string device_doc;
  static std::size_t kinds = ~std::size_t{0};
  if (kinds != device_kinds().size()) {
    kinds = device_kinds().size();
    device_doc = "the device logic: none";
    for (const DeviceKind& k : device_kinds()) device_doc += ", " + k.name;
    device_doc += " (a study that switches a platform's device removes the old one's section with `~`: "
                  "`topology.nodes.card.calypte: ~`)";
    t = {{"device", device_doc.c_str()}, {"endpoint", "endpoint parameters (latencies, BAR)"}};
    for (const DeviceKind& k : device_kinds()) t.push_back({k.name.c_str(), k.doc.c_str()});
  }
  return t;
}

const cfg::KeyTable& link_keys() {
  static const cfg::KeyTable t = {
      {"up", "the upstream node"},
      {"down", "the downstream node"},
      {"source", "where its figures come from"},
  };
  return t;
}

std::string topology_reference() {
  return cfg::keys_reference("topology", "The top level of a topology file.", topology_keys()) +
         cfg::keys_reference("node", "Every node under `nodes:` (and `defaults.<type>`).", node_keys()) +
         cfg::keys_reference("root_complex node", "Besides the node keys.", root_complex_keys()) +
         cfg::keys_reference("switch node", "Besides the node keys; the switch parameters sit at the node's level too.",
                             switch_keys()) +
         cfg::keys_reference("endpoint node", "Besides the node keys.", endpoint_keys()) +
         cfg::keys_reference("link", "Every item of `links:`, besides the link parameters.", link_keys());
}

namespace {

// The host's sockets: their DRAM is the root complex's memory model, one
// controller per socket (so memory: must be read before).
void parse_sockets(NodeSpec& n, const Cursor& c) {
  n.has_sockets = true;
  cfg::load_params(c, n.sockets, cfg::socket_params());
  n.sockets.memory = n.rc.memory;
  const auto& s = n.sockets;
  if (s.sockets * (s.cores + s.slices) > 64)
    (c.has("cores") ? c.child("cores") : c).fail("at most 64 coherent agents: count x (cores + slices) is " +
                                                  std::to_string(s.sockets * (s.cores + s.slices)));
  if (s.sockets == 1 && c.has("links")) c.child("links").fail("socket links join two sockets: set count: 2 or more");
  if (s.sockets == 1 && c.has("graph")) c.child("graph").fail("a socket graph joins two sockets or more: set count: 2 or more");
  if (const std::string e = coherence::socket_graph_error(s); !e.empty()) (c.has("graph") ? c.child("graph") : c).fail(e);
  check_whole_sets(c, s.l2_lines, s.l2_ways, "l2_size", "l2_ways", "the private cache's size");
  check_whole_sets(c, s.l1_lines, s.l1_ways, "l1_size", "l1_ways", "the L1's size");
  if (s.l2_lines > 0 && s.l1_lines > s.l2_lines)
    c.child("l1_size").fail("the L1 holds some of the L2's lines: it cannot be larger than l2_size");
  if (s.llc_lines % (static_cast<std::uint64_t>(s.slices) * static_cast<std::uint64_t>(s.llc_ways)))
    c.child(c.has("llc_size") ? "llc_size" : "llc_ways")
        .fail("the LLC is shared out over the slices: its size must be a multiple of slices x ways x 64 B (" +
              std::to_string(s.slices) + " x " + std::to_string(s.llc_ways) + " x 64 B = " +
              std::to_string(s.slices * s.llc_ways * 64) + " B)");
  if (s.forward && s.dirty_sharing)
    c.child("dirty_sharing").fail("a home that has owners forward lines (forward: true, the default) keeps no line shared dirty: set forward: false");
}

void parse_node(NodeSpec& n, const Cursor& raw, const Cursor& defaults, Arena& arena) {
  const std::string type = raw.child("type").choice({"root_complex", "switch", "endpoint"});
  n.type = type == "root_complex" ? NodeType::RootComplex : type == "switch" ? NodeType::Switch : NodeType::Endpoint;
  Cursor c = raw;
  c.node = merged(defaults.child(type).node, raw.node, arena);
  c.fallback = raw.node.Mark();
  const std::set<std::string> common = cfg::key_names(node_keys());
  cfg::load_params(c.child("port"), n.port, cfg::port_params());
  n.mps_supported = c.has("mps_supported") ? mps_value(c.child("mps_supported")) : 256;
  n.mps_set = c.has("mps") ? mps_value(c.child("mps")) : 0;
  if (n.mps_set > n.mps_supported)
    c.child("mps").fail("MPS " + std::to_string(n.mps_set) + " above what the device supports (" +
                        std::to_string(n.mps_supported) + ")");
  if (n.type == NodeType::RootComplex) {
    c.keys(cfg::key_names(root_complex_keys(), common));
    n.root_ports = c.has("root_ports") ? static_cast<int>(c.child("root_ports").integer(1, 64)) : 0;
    n.socket = c.has("socket") ? static_cast<int>(c.child("socket").integer(0, 4095)) : -1;  // -1: by order, below
    n.segment_per_root_port = c.has("segment_per_root_port") && c.child("segment_per_root_port").boolean();
    cfg::load_params(c.child("rc"), n.rc, cfg::rc_params());
    // The two-node memory model is gone: socket 1 is a root complex of its own.
    for (const char* gone : {"numa_nodes", "far_latency", "far_snoop", "far_bw"})
      if (c.child("memory").has(gone))
        c.child("memory").child(gone).fail(
            "the far NUMA node is a root complex of its own now: give it `socket: 1`, its `memory:` and an `rc: {dram_base}` "
            "of its own, and join the sockets with `socket_link: {latency, bandwidth}` (half the old far_latency each way; "
            "far_snoop is the far socket's memory.llc_forward plus twice that latency less the near read_latency)");
    cfg::load_params(c.child("memory"), n.rc.memory, cfg::memory_params());
    if (n.rc.memory.ddio_ways > n.rc.memory.llc_ways)
      c.child("memory").child("ddio_ways").fail("ddio_ways (" + std::to_string(n.rc.memory.ddio_ways) + ") above llc_ways (" +
                                                std::to_string(n.rc.memory.llc_ways) + ")");
    cfg::load_params(c.child("iommu"), n.rc.iommu, cfg::iommu_params());
    cfg::load_params(c.child("ccix"), n.ccix_home, cfg::ccix_home_params());
    check_whole_sets(c.child("ccix"), n.ccix_home.core.capacity, n.ccix_home.core.ways, "core_l2_size", "core_l2_ways",
                     "a host core's private cache");
    if (n.ccix_home.home.policy.owned && n.ccix_home.home.policy.migratory)
      c.child("ccix").child("dirty_sharing").fail("a home keeps dirty lines shared (dirty_sharing) or hands them on unique (migratory), not both");
    cfg::check_tlb(c.child("iommu"), "iotlb_ways", n.rc.iommu.iotlb);
    if (n.rc.iommu.table_region >= n.rc.dram_size)
      (c.child("iommu").has("table_region") ? c.child("iommu").child("table_region") : c.child("rc"))
          .fail("iommu.table_region (" + cfg::format_size(n.rc.iommu.table_region) + ") does not fit in DRAM (" +
                cfg::format_size(n.rc.dram_size) + ")");
    if (c.has("sockets")) parse_sockets(n, c.child("sockets"));
    if (c.has("coherent_nic") && !n.has_sockets) c.child("coherent_nic").fail("a NIC on the socket interconnect needs sockets:");
    cfg::load_params(c.child("coherent_nic"), n.coherent_nic, cfg::coherent_nic_params());
    if (n.has_sockets && n.sockets.sockets >= 2 && n.coherent_nic.nic_socket >= n.sockets.sockets)
      c.child("coherent_nic").child("socket").fail("the NIC's socket " + std::to_string(n.coherent_nic.nic_socket) +
                                                   " is not one of the host's " + std::to_string(n.sockets.sockets) + " (sockets.count)");
    const Cursor cpu = c.child("cpu");
    cfg::load_params(cpu, n.cpu, cfg::cpu_params());
    // A tick that costs its whole period leaves no time to run in: a
    // thread's work would stretch without end at one instant.
    if (n.cpu.os_tick_period && n.cpu.os_tick_cost >= n.cpu.os_tick_period)
      (cpu.has("os_tick_cost") ? cpu.child("os_tick_cost") : cpu.child("os_tick_period"))
          .fail("os_tick_cost (" + cfg::format_time(n.cpu.os_tick_cost) + ") must be shorter than os_tick_period (" +
                cfg::format_time(n.cpu.os_tick_period) + ")");
  } else if (n.type == NodeType::Switch) {
    cfg::load_params(c, n.sw, cfg::switch_params(), cfg::key_names(switch_keys(), common));
    n.ports = c.has("ports") ? static_cast<int>(c.child("ports").integer(2, 96)) : 0;
    if (c.has("port_mps")) {
      const Cursor pm = c.child("port_mps");
      if (!pm.is_map()) pm.fail("port_mps: a map of port name (up, down0, down1, ...) to MPS");
      for (auto it = pm.node.begin(); it != pm.node.end(); ++it) {
        const std::string port = it->first.as<std::string>();
        const Cursor v = pm.child(port);
        const int m = mps_value(v);
        if (m > n.mps_supported) v.fail("MPS " + std::to_string(m) + " above what the switch supports (" + std::to_string(n.mps_supported) + ")");
        n.port_mps[port] = m;
      }
    }
  } else {
    c.keys(cfg::key_names(endpoint_keys(), common));
    n.device = c.has("device") ? c.child("device").choice(device_names()) : "none";
    cfg::load_params(c.child("endpoint"), n.ep, cfg::endpoint_params());
    const DeviceKind* mine = device_kind(n.device);
    // Another kind's section is an error, unless it is null: `~` is how a
    // study that switches a platform's device (`set: {topology.nodes.card.device:
    // rtl, topology.nodes.card.calypte: ~}`) removes the old device's settings.
    const auto used = [&](const DeviceKind& k) {
      return n.device == k.name || (mine && std::count(mine->uses.begin(), mine->uses.end(), k.name));
    };
    for (const DeviceKind& k : device_kinds())
      if (c.has(k.name) && !used(k) && !c.child(k.name).node.IsNull())
        c.child(k.name).fail("settings for a '" + k.name + "' device on a '" + n.device + "' endpoint");
    if (mine && mine->needs_section && !c.has(mine->name))
      c.child("device").fail("a " + n.device + " device needs its " + n.device + ": section");
    // Every kind's section is read (an absent one gives its defaults; a removed one is not read).
    for (const DeviceKind& k : device_kinds())
      if (used(k) || !c.has(k.name)) k.parse(c.child(k.name), n);
    // Each device's register map must fit in BAR0.
    const DeviceKind* kind = device_kind(n.device);
    const std::uint64_t need = kind ? kind->bar_need(n) : 0;
    if (need > n.ep.bar_size) {
      std::uint64_t p2 = 4096;
      while (p2 < need) p2 <<= 1;
      const Cursor where = c.child("endpoint").has("bar_size") ? c.child("endpoint").child("bar_size") : c.child("device");
      where.fail("a " + n.device + " device needs a BAR0 of at least " + std::to_string(p2 >> 10) + "KiB for its registers and windows");
    }
  }
}

// Where key `key` of `c` is, or `c` itself when it is not there.
Cursor at_key(const Cursor& c, const char* key) { return c.has(key) ? c.child(key) : c; }

// The socket links (`socket_link:` between two sockets, or `socket_links:`
// between any), the sockets they leave unreachable from socket 0 as an
// error, and the routes between every two sockets.
void load_socket_links(Topology& t, const Cursor& root) {
  const int n = static_cast<int>(t.roots.size());
  if (root.has("socket_link") && root.has("socket_links"))
    root.child("socket_links").fail("socket_link: and socket_links: both given: one link between two sockets, or the list");
  if (root.has("socket_link") || !root.has("socket_links")) {
    if (n != 2 && root.has("socket_link"))
      root.child("socket_link").fail("socket_link: joins the root complexes of two sockets; with " + std::to_string(n) +
                                     " give every link in socket_links: [{sockets: [a, b], latency: ..., bandwidth: ...}]");
    Topology::SocketLinkSpec s;
    cfg::load_params(root.child("socket_link"), s.cfg, cfg::socket_link_params());
    s.name = "socket_link";
    t.socket_links.push_back(s);
  } else {
    const Cursor list = root.child("socket_links");
    if (!list.node.IsSequence()) list.fail("socket_links: a list of links, each {sockets: [a, b], latency: ..., bandwidth: ...}");
    for (std::size_t i = 0; i < list.node.size(); ++i) {
      const Cursor c = list.item(i);
      Topology::SocketLinkSpec s;
      cfg::load_params(c, s.cfg, cfg::socket_link_params(), {"sockets"});
      const Cursor ends = c.child("sockets");
      if (!ends.node.IsSequence() || ends.node.size() != 2) ends.fail("the two sockets a link joins, as [a, b]");
      const auto socket_at = [&](std::size_t k) {
        const long long v = ends.item(k).integer(0, 4095);
        if (v >= n)
          ends.item(k).fail("socket " + std::to_string(v) + ": the sockets with a root complex are 0 to " + std::to_string(n - 1));
        return static_cast<int>(v);
      };
      s.a = socket_at(0);
      s.b = socket_at(1);
      if (s.a == s.b) ends.fail("a socket link joins two different sockets");
      for (const auto& o : t.socket_links)
        if (std::min(o.a, o.b) == std::min(s.a, s.b) && std::max(o.a, o.b) == std::max(s.a, s.b))
          ends.fail("sockets " + std::to_string(s.a) + " and " + std::to_string(s.b) + " are already joined (" + o.name + ")");
      s.name = n == 2 ? "socket_link" : "socket_link_" + std::to_string(s.a) + "_" + std::to_string(s.b);
      t.socket_links.push_back(s);
    }
  }
  std::vector<std::array<int, 2>> pairs;
  for (const auto& s : t.socket_links) pairs.push_back({s.a, s.b});
  std::string lone;
  for (const int s : graph_unreachable_from_0(n, pairs)) lone += (lone.empty() ? "" : ", ") + std::to_string(s);
  if (!lone.empty()) root.child("socket_links").fail("no socket link reaches socket(s) " + lone + " from socket 0");
  t.socket_next = graph_next_hops(n, pairs);
}

// One root complex on socket 0, or one on each of several sockets (0 to
// n - 1; those without `socket:` take the free numbers in file order)
// joined by socket links: sets each one's socket, t.roots and the links.
void check_sockets(Topology& t, const std::vector<std::size_t>& rcs, const Cursor& root) {
  if (rcs.size() == 1) {
    NodeSpec& n = t.nodes[rcs[0]];
    if (n.socket > 0) n.where.child("socket").fail("the host's only root complex is on socket 0, with its cores");
    n.socket = 0;
    for (const char* k : {"socket_link", "socket_links"})
      if (root.has(k)) root.child(k).fail("a socket link joins the root complexes of two sockets: this host has one");
    t.roots = {static_cast<int>(rcs[0])};
    t.root = t.roots[0];
    return;
  }
  const int count = static_cast<int>(rcs.size());
  std::vector<int> by_socket(rcs.size(), -1);
  for (const std::size_t i : rcs) {
    NodeSpec& r = t.nodes[i];
    if (r.socket < 0) continue;
    if (r.socket >= count)
      r.where.child("socket").fail("socket " + std::to_string(r.socket) + ": with " + std::to_string(count) +
                                   " root complexes the sockets are 0 to " + std::to_string(count - 1));
    int& at = by_socket[static_cast<std::size_t>(r.socket)];
    if (at >= 0)
      r.where.child("socket").fail("root complexes '" + t.nodes[static_cast<std::size_t>(at)].name + "' and '" + r.name + "' are both on socket " +
                                   std::to_string(r.socket));
    at = static_cast<int>(i);
  }
  int free_socket = 0;
  for (const std::size_t i : rcs) {
    NodeSpec& r = t.nodes[i];
    if (r.socket >= 0) continue;
    while (by_socket[static_cast<std::size_t>(free_socket)] >= 0) ++free_socket;
    r.socket = free_socket;
    by_socket[static_cast<std::size_t>(free_socket)] = static_cast<int>(i);
  }
  t.roots = by_socket;
  t.root = t.roots[0];
  if (count > 2 && !root.has("socket_links") && !root.has("socket_link"))
    t.nodes[rcs[2]].where.fail("a third root complex: with " + std::to_string(count) +
                               ", socket_links: [{sockets: [a, b], latency: ..., bandwidth: ...}] names the links between their sockets");
  load_socket_links(t, root);
  for (const int ri : t.roots) {
    NodeSpec* n = &t.nodes[static_cast<std::size_t>(ri)];
    n->rc.socket = n->socket;
    if (n->has_sockets) n->where.child("sockets").fail("the coherent sockets (sockets:) belong to a host with one root complex");
    if (n->segment_per_root_port)
      n->where.child("segment_per_root_port").fail("with a root complex on each socket, their hierarchies share PCI segment 0");
  }
  for (std::size_t i = 0; i < t.roots.size(); ++i)
    for (std::size_t j = i + 1; j < t.roots.size(); ++j) {
      const NodeSpec& a = t.nodes[static_cast<std::size_t>(t.roots[i])];
      const NodeSpec& b = t.nodes[static_cast<std::size_t>(t.roots[j])];
      const NodeSpec& hi = b.rc.dram_base >= a.rc.dram_base ? b : a;
      const NodeSpec& lo = &hi == &a ? b : a;
      if (hi.rc.dram_base - lo.rc.dram_base < lo.rc.dram_size)
        at_key(at_key(hi.where, "rc"), "dram_base")
            .fail("the DRAM of socket " + std::to_string(hi.socket) + " (" + hex(hi.rc.dram_base) + " +" + cfg::format_size(hi.rc.dram_size) +
                  ") overlaps socket " + std::to_string(lo.socket) + "'s (" + hex(lo.rc.dram_base) + " +" + cfg::format_size(lo.rc.dram_size) +
                  "): set rc.dram_base apart");
    }
}

}  // namespace

std::vector<int> Topology::socket_route(int from, int to) const {
  const int n = static_cast<int>(roots.size());
  std::vector<int> route;
  for (int at = from; at != to;) {
    const int next = socket_next[static_cast<std::size_t>(at * n + to)];
    for (std::size_t i = 0; i < socket_links.size(); ++i)
      if ((socket_links[i].a == at && socket_links[i].b == next) || (socket_links[i].b == at && socket_links[i].a == next))
        route.push_back(static_cast<int>(i));
    at = next;
  }
  return route;
}

int Topology::find(const std::string& name) const {
  auto it = index.find(name);
  return it == index.end() ? -1 : it->second;
}

const NodeSpec& Topology::node(const std::string& name) const { return nodes.at(static_cast<std::size_t>(find(name))); }

double Topology::link_data_rate(const pcie::LinkConfig& l, int mps, int tx_align_B) {
  return pcie::write_payload_bytes_per_ns(l, mps, tx_align_B) * 1e9;
}

std::vector<int> Topology::path(int a, int b) const {
  // Up from both ends to the common ancestor.
  auto up = [&](int n) {
    std::vector<int> chain{n};
    while (nodes[static_cast<std::size_t>(n)].parent_link >= 0) {
      n = links[static_cast<std::size_t>(nodes[static_cast<std::size_t>(n)].parent_link)].up_node;
      chain.push_back(n);
    }
    return chain;
  };
  auto ca = up(a), cb = up(b);
  while (ca.size() > 1 && cb.size() > 1 && ca[ca.size() - 2] == cb[cb.size() - 2]) {
    ca.pop_back();
    cb.pop_back();
  }
  std::vector<int> p(ca.begin(), ca.end());
  for (auto it = cb.rbegin() + 1; it != cb.rend(); ++it) p.push_back(*it);
  return p;
}

std::vector<int> Topology::path_links(int a, int b) const {
  std::vector<int> out;
  const auto p = path(a, b);
  for (std::size_t i = 0; i + 1 < p.size(); ++i) {
    for (std::size_t l = 0; l < links.size(); ++l) {
      const auto& L = links[l];
      if ((L.up_node == p[i] && L.down_node == p[i + 1]) || (L.down_node == p[i] && L.up_node == p[i + 1]))
        out.push_back(static_cast<int>(l));
    }
  }
  return out;
}

std::string Topology::peer_route_error(int a, int b, int vc) const {
  if (root_of(a) != root_of(b))
    return "'" + nodes[static_cast<std::size_t>(a)].name + "' and '" + nodes[static_cast<std::size_t>(b)].name +
           "' are below different sockets' root complexes: peer-to-peer across the socket link is not modelled";
  const auto p = path(a, b);
  // The node where the route turns down is the common ancestor.
  std::size_t turn = 0;
  for (std::size_t i = 0; i + 1 < p.size(); ++i)
    if (nodes[static_cast<std::size_t>(p[i])].parent_link >= 0 &&
        links[static_cast<std::size_t>(nodes[static_cast<std::size_t>(p[i])].parent_link)].up_node == p[i + 1])
      turn = i + 1;
  std::vector<int> route = path_links(a, b);
  const NodeSpec& top = nodes[static_cast<std::size_t>(p[turn])];
  const int my_root = root_of(a);
  const NodeSpec& rc = nodes[static_cast<std::size_t>(my_root)];
  if (top.type == NodeType::Switch && top.sw.acs_redirect) {
    // Redirected to the root complex and back down: the links above too.
    const auto up = path_links(p[turn], my_root);
    route.insert(route.end(), up.begin(), up.end());
    if (!rc.rc.p2p)
      return "switch '" + top.name + "' redirects peer requests (acs_redirect) to root complex '" + rc.name +
             "', which has p2p disabled";
  } else if (top.type == NodeType::RootComplex && !rc.rc.p2p) {
    return "the peers are under different root ports of '" + rc.name + "', which has p2p disabled";
  }
  for (const int l : route) {
    const LinkSpec& L = links[static_cast<std::size_t>(l)];
    const int vcs = std::min(nodes[static_cast<std::size_t>(L.up_node)].port.vcs, nodes[static_cast<std::size_t>(L.down_node)].port.vcs);
    if (vc >= vcs)
      return "VC" + std::to_string(vc) + " is not enabled on link " + L.up + " - " + L.down + " (port.vcs: " +
             std::to_string(nodes[static_cast<std::size_t>(L.up_node)].port.vcs) + " at " + L.up + ", " +
             std::to_string(nodes[static_cast<std::size_t>(L.down_node)].port.vcs) + " at " + L.down + ")";
  }
  return {};
}

Topology load_topology(const Cursor& root, const std::string& file) {
  Topology t;
  t.file = file;
  root.keys(cfg::key_names(topology_keys()));
  t.platform = root.child("platform").str();
  // Free text nothing reads: checked, not copied (each point reads the topology).
  if (root.has("description")) root.child("description").expect_scalar();
  const Cursor defaults = root.child("defaults");
  defaults.keys({"root_complex", "switch", "endpoint"});
  for (const char* k : {"root_complex", "switch", "endpoint"})
    if (defaults.has(k) && defaults.child(k).has("type")) defaults.child(k).child("type").fail("a default cannot set the type");
  pcie::LinkConfig link_def;
  cfg::load_params(root.child("link_defaults"), link_def, cfg::link_params());

  const Cursor nodes = root.child("nodes");
  if (!nodes.is_map() || nodes.node.size() == 0) nodes.fail("a topology needs a map of nodes");
  Arena arena;
  for (auto it = nodes.node.begin(); it != nodes.node.end(); ++it) {
    NodeSpec n;
    n.name = it->first.as<std::string>();
    n.where = nodes.child(n.name);
    parse_node(n, n.where, defaults, arena);
    t.index[n.name] = static_cast<int>(t.nodes.size());
    t.nodes.push_back(std::move(n));
  }
  const Cursor links = root.child("links");
  if (!links.node.IsSequence()) links.fail("links must be a list");
  for (std::size_t i = 0; i < links.node.size(); ++i) {
    const Cursor lc = links.item(i);
    LinkSpec l;
    l.where = lc;
    l.cfg = link_def;
    cfg::load_params(lc, l.cfg, cfg::link_params(), cfg::key_names(link_keys()), false);
    l.up = lc.child("up").str();
    l.down = lc.child("down").str();
    l.up_node = t.find(l.up);
    l.down_node = t.find(l.down);
    if (l.up_node < 0) lc.child("up").fail("no node named '" + l.up + "'");
    if (l.down_node < 0) lc.child("down").fail("no node named '" + l.down + "'");
    if (l.up_node == l.down_node) lc.fail("a link from a node to itself");
    t.links.push_back(l);
  }

  // Graph checks (Boost.Graph): connected, and a tree.
  using G = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  G g(t.nodes.size());
  for (const auto& l : t.links) boost::add_edge(static_cast<std::size_t>(l.up_node), static_cast<std::size_t>(l.down_node), g);
  // Root complexes are joined by socket links (whose own graph is checked
  // with the sockets).
  std::vector<std::size_t> rcs;
  for (std::size_t i = 0; i < t.nodes.size(); ++i)
    if (t.nodes[i].type == NodeType::RootComplex) rcs.push_back(i);
  for (std::size_t i = 1; i < rcs.size(); ++i) boost::add_edge(rcs[0], rcs[i], g);
  std::vector<int> comp(t.nodes.size());
  const int ncomp = boost::connected_components(g, comp.data());
  if (ncomp != 1) {
    std::string lone;
    for (std::size_t i = 0; i < t.nodes.size(); ++i)
      if (comp[i] != comp[0]) lone += (lone.empty() ? "" : ", ") + t.nodes[i].name;
    root.child("links").fail("the topology is not connected: " + lone + " cannot be reached from " + t.nodes[0].name);
  }
  for (std::size_t i = 0; i < t.links.size(); ++i) {
    auto& l = t.links[i];
    auto& dn = t.nodes[static_cast<std::size_t>(l.down_node)];
    auto& up = t.nodes[static_cast<std::size_t>(l.up_node)];
    if (dn.type == NodeType::RootComplex) l.where.child("down").fail("a root complex cannot be below another node");
    if (up.type == NodeType::Endpoint) l.where.child("up").fail("endpoint '" + up.name + "' has no downstream ports");
    if (dn.parent_link >= 0)
      l.where.child("down").fail("'" + dn.name + "' already has an upstream link (links[" + std::to_string(dn.parent_link) +
                                 "]): a PCIe hierarchy is a tree");
    dn.parent_link = static_cast<int>(i);
    l.up_port = static_cast<int>(up.child_links.size()) + (up.type == NodeType::Switch ? 1 : 0);
    up.child_links.push_back(static_cast<int>(i));
  }
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const auto& n = t.nodes[i];
    if (n.type == NodeType::RootComplex) {
      if (n.root_ports && static_cast<int>(n.child_links.size()) > n.root_ports)
        n.where.child("root_ports").fail(std::to_string(n.child_links.size()) + " links need more than " +
                                         std::to_string(n.root_ports) + " root ports");
    } else if (n.parent_link < 0) {
      n.where.fail("'" + n.name + "' has no upstream link to the root complex");
    }
    if (n.type == NodeType::Switch) {
      if (n.child_links.empty()) n.where.fail("switch '" + n.name + "' has no downstream links");
      for (const auto& [port, m] : n.port_mps) {
        const bool ok = port == "up" || (port.rfind("down", 0) == 0 && port.size() > 4 &&
                                         port.size() <= 8 && port.find_first_not_of("0123456789", 4) == std::string::npos &&
                                         std::stoul(port.substr(4)) < n.child_links.size());
        if (!ok) n.where.child("port_mps").child(port).fail("no port '" + port + "' (up, down0..down" + std::to_string(n.child_links.size() - 1) + ")");
      }
      if (n.ports && static_cast<int>(n.child_links.size()) + 1 > n.ports)
        n.where.child("ports").fail(std::to_string(n.child_links.size() + 1) + " links need more than " +
                                    std::to_string(n.ports) + " ports");
    }
  }
  if (rcs.empty()) root.child("nodes").fail("no root complex (a node with type: root_complex)");
  check_sockets(t, rcs, root);
  if (t.links.size() != t.nodes.size() - rcs.size()) root.child("links").fail("the PCIe hierarchy has a cycle");

  // MPS: firmware programs the largest value every device supports.
  int fw_mps = 4096;
  for (const auto& n : t.nodes) fw_mps = std::min(fw_mps, n.mps_supported);
  if (root.has("mps")) {
    const int m = mps_value(root.child("mps"));
    if (m > fw_mps) root.child("mps").fail("MPS " + std::to_string(m) + " above what every device supports (" + std::to_string(fw_mps) + ")");
    fw_mps = m;
  }
  for (auto& n : t.nodes) {
    n.mps = n.mps_set ? n.mps_set : fw_mps;
    n.port.mps = n.mps;
    // A receiver must advertise room for the largest TLP it may be sent
    // (PCIe base spec, sec. 2.6.1): data credits below MPS / 16 would stall
    // the first full-size write or completion for ever.
    int largest = n.mps;
    for (const auto& [port, m] : n.port_mps) largest = std::max(largest, m);
    const int need = (largest + pcie::kCreditDataUnit - 1) / pcie::kCreditDataUnit;
    for (int vc = 0; vc < n.port.vcs; ++vc)
      for (const auto& [cls, key] : {std::pair<int, const char*>{0, "p_data"}, {2, "cpl_data"}}) {
        if (cls == 2 && n.type == NodeType::RootComplex) continue;  // root ports: infinite completion credits
        const int have = n.port.data_credits(vc, cls);
        if (have == 0 || have >= need) continue;
        const Cursor pc = n.where.child("port");
        const bool own = static_cast<std::size_t>(vc) < n.port.vc_credits.size() &&
                         n.port.vc_credits[static_cast<std::size_t>(vc)].data[static_cast<std::size_t>(cls)] >= 0;
        const Cursor at = own && pc.has("vc_credits") ? pc.child("vc_credits") : pc.has(key) ? pc.child(key) : n.where;
        at.fail(std::string(key) + " " + std::to_string(have) + " credits (" + std::to_string(have * pcie::kCreditDataUnit) +
                " B) on VC" + std::to_string(vc) + " cannot hold one " + std::to_string(largest) + " B TLP (MPS " +
                std::to_string(largest) + " needs " + std::to_string(need) + ")");
      }
  }

  // Enumeration: bus numbers depth-first, BARs and windows. Each PCI
  // segment has 256 buses; with segment_per_root_port every root port's
  // hierarchy is a segment of its own and numbers its buses from 1.
  // A second socket's root complex takes the next bus as its own and
  // numbers its hierarchy on from there, in the same segment.
  int bus = 0, segment = 0, socket = 0;
  // Two windows, as firmware assigns them: 32-bit BARs in the hole below
  // 4 GiB, 64-bit ones (bar64) from the first 1 GiB boundary above DRAM
  // (every socket's).
  std::uint64_t mmio = kMmioBase;
  std::uint64_t dram_end = 0;
  for (const int r : t.roots) {
    const auto& c = t.nodes[static_cast<std::size_t>(r)].rc;
    dram_end = std::max(dram_end, c.dram_base + c.dram_size);
  }
  std::uint64_t mmio64 = std::max<std::uint64_t>(1ull << 32, (dram_end + (1ull << 30) - 1) >> 30 << 30);
  auto align = [](std::uint64_t v, std::uint64_t a) { return (v + a - 1) / a * a; };
  std::function<void(int, int)> enumerate;
  // A bridge port (root port or switch downstream port): its secondary bus,
  // the subtree below it, then its subordinate bus and memory window.
  auto bridge = [&](pcie::PortRoute& r, int link) {
    r.segment = segment;
    r.sec_bus = ++bus;
    mmio = align(mmio, kWindowAlign);
    mmio64 = align(mmio64, kWindowAlign);
    const std::uint64_t start = mmio, start64 = mmio64;
    enumerate(t.links[static_cast<std::size_t>(link)].down_node, r.sec_bus);
    mmio = align(mmio, kWindowAlign);
    mmio64 = align(mmio64, kWindowAlign);
    r.sub_bus = bus;
    if (mmio > start) r.windows.push_back(pcie::AddrRange{start, mmio - start});
    if (mmio64 > start64) r.windows.push_back(pcie::AddrRange{start64, mmio64 - start64});
  };
  enumerate = [&](int ni, int secondary) {
    NodeSpec& n = t.nodes[static_cast<std::size_t>(ni)];
    n.rid = pcie::make_rid(segment, secondary);
    n.socket = socket;
    if (n.type == NodeType::Endpoint) {
      std::uint64_t& cursor = n.ep.bar64 ? mmio64 : mmio;
      cursor = align(cursor, n.ep.bar_size);
      n.bar = pcie::AddrRange{cursor, n.ep.bar_size};
      cursor += n.ep.bar_size;
      if (mmio > kMmioLimit)
        n.where.fail("MMIO space below 4 GiB exhausted by BARs (endpoint.bar64: true places a BAR above 4 GiB)");
      return;
    }
    ++bus;  // the switch's internal bus; then one bus per downstream port
    n.routes.assign(n.child_links.size() + 1, pcie::PortRoute{});
    for (std::size_t k = 0; k < n.child_links.size(); ++k) bridge(n.routes[k + 1], n.child_links[k]);
  };
  const Cursor root_links = root.child("links");
  for (const int r : t.roots) {
    NodeSpec& rc = t.nodes[static_cast<std::size_t>(r)];
    socket = rc.socket;
    rc.rid = socket ? pcie::make_rid(segment, ++bus) : 0;
    rc.routes.assign(std::max<std::size_t>(rc.child_links.size(), 1), pcie::PortRoute{});
    auto check_buses = [&] {
      if (bus > 255)
        root_links.fail(rc.segment_per_root_port
                            ? "more than 256 buses below root port " + std::to_string(segment) + " (its PCI segment)"
                            : "more than 256 buses in one PCI segment (nodes." + rc.name +
                                  ".segment_per_root_port: true gives each root port a segment of its own)");
    };
    for (std::size_t k = 0; k < rc.child_links.size(); ++k) {
      if (rc.segment_per_root_port) {
        segment = static_cast<int>(k);
        bus = 0;
      }
      bridge(rc.routes[k], rc.child_links[k]);
      check_buses();
    }
    if (rc.rc.dram_base < kMmioLimit && rc.rc.dram_base + rc.rc.dram_size > kMmioBase)
      rc.where.child("rc").child("dram_base").fail("host DRAM overlaps the MMIO window " + hex(kMmioBase) + "-" + hex(kMmioLimit));
    if (rc.rc.dram_base < rc.rc.msi_base + 4096 && rc.rc.dram_base + rc.rc.dram_size > rc.rc.msi_base)
      rc.where.child("rc").child("dram_base").fail("host DRAM overlaps the MSI page at " + hex(rc.rc.msi_base));
  }
  NodeSpec& rc = t.nodes[static_cast<std::size_t>(t.root)];
  coherence::AgentId next_agent = 1;  // the home is agent 0
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    NodeSpec& n = t.nodes[i];
    const NodeSpec& mine = t.nodes[static_cast<std::size_t>(t.root_of(static_cast<int>(i)))];
    if (n.type == NodeType::Endpoint && (n.device == "bench" || n.device == "ccix_ra") && n.bench.ats && !mine.rc.iommu.enabled)
      n.where.child("bench").child("ats").fail("ATS needs the host's IOMMU: set nodes." + mine.name + ".iommu.enabled: true");
    if (n.type == NodeType::Endpoint && n.device == "ccix_ra" && n.socket != 0)
      n.where.child("device").fail("a CCIX request agent below socket " + std::to_string(n.socket) +
                                   "'s root complex: the CCIX home is on socket 0's");
    if (n.type == NodeType::Endpoint && n.device == "ccix_ra") check_ccix(t, n, next_agent++);
  }
  // The host's cores at the CCIX home take the ids after the request agents.
  rc.ccix_home.first_core = next_agent;
  if (next_agent + rc.ccix_home.cores > 64)
    rc.where.child("ccix").child("cores").fail("request agents and host cores at the CCIX home number " +
                                               std::to_string(next_agent - 1 + rc.ccix_home.cores) +
                                               ": the home's directory keeps one bit per agent, 63 in all");
  return t;
}

std::string describe(const Topology& t) {
  std::ostringstream os;
  os << "platform " << t.platform << " (" << t.file << "): " << t.nodes.size() << " nodes, " << t.links.size() << " links\n\n";
  os << "nodes:\n";
  for (const auto& n : t.nodes) {
    os << "  " << std::left << std::setw(12) << n.name << std::setw(14) << type_name(n.type);
    char rid[24];
    if (pcie::segment_of(n.rid) || t.nodes[static_cast<std::size_t>(t.root)].segment_per_root_port)
      std::snprintf(rid, sizeof rid, "%04x:%02x:00.0", pcie::segment_of(n.rid), pcie::bus_of(n.rid));
    else
      std::snprintf(rid, sizeof rid, "%02x:00.0", pcie::bus_of(n.rid));
    os << "id " << rid << "  MPS " << n.mps;
    if (n.type == NodeType::RootComplex && t.roots.size() > 1) os << "  socket " << n.socket;
    if (n.type == NodeType::Endpoint) os << "  BAR0 " << hex(n.bar.base) << " +" << cfg::format_size(n.bar.size) << "  device " << n.device;
    os << "\n";
    for (std::size_t p = 0; p < n.routes.size(); ++p) {
      const auto& r = n.routes[p];
      if (r.sec_bus < 0) continue;
      os << "      port " << p << ": ";
      if (t.nodes[static_cast<std::size_t>(t.root)].segment_per_root_port) os << "segment " << r.segment << ", ";
      os << "buses " << r.sec_bus << "-" << r.sub_bus;
      auto pm = n.port_mps.find(n.type == NodeType::Switch ? "down" + std::to_string(p - 1) : "");
      if (pm != n.port_mps.end()) os << "  MPS " << pm->second;
      for (const auto& w : r.windows) os << "  window " << hex(w.base) << "-" << hex(w.base + w.size - 1);
      os << "\n";
    }
  }
  os << "\nlinks:\n";
  for (const auto& l : t.links) {
    os << "  " << l.up << " -> " << l.down << ": gen" << l.cfg.gen << " x" << l.cfg.width << ", latency "
       << cfg::format_time(l.cfg.latency) << "\n";
  }
  for (const auto& s : t.socket_links) {
    os << "  socket link " << t.nodes[static_cast<std::size_t>(t.roots[static_cast<std::size_t>(s.a)])].name << " - "
       << t.nodes[static_cast<std::size_t>(t.roots[static_cast<std::size_t>(s.b)])].name << ": latency " << cfg::format_time(s.cfg.latency)
       << ", ";
    if (s.cfg.GBps > 0) os << s.cfg.GBps << " GB/s each way\n";
    else os << "no rate limit\n";
  }
  // Routes that pass a socket between (with three sockets or more).
  const int ns = static_cast<int>(t.roots.size());
  for (int a = 0; a < ns; ++a)
    for (int b = 0; b < ns; ++b)
      if (a != b && t.socket_route(a, b).size() > 1) {
        os << "  route socket " << a;
        for (int s = a; s != b; s = t.socket_next[static_cast<std::size_t>(s * ns + b)]) os << " -> " << t.socket_next[static_cast<std::size_t>(s * ns + b)];
        os << "\n";
      }
  for (const auto& n : t.nodes) {
    if (!n.has_sockets) continue;
    // The coherent sockets under a root complex: their graph, and every
    // route that crosses a socket between.
    const auto& s = n.sockets;
    os << "\nsockets of " << n.name << ": " << s.sockets << " x (" << s.cores << " cores, " << s.slices << " LLC slices)";
    if (s.sockets > 1) {
      os << ", " << s.links << " socket link" << (s.links > 1 ? "s" : "") << " a pair, latency " << cfg::format_time(s.link.latency)
         << ", " << s.link.GBps << " GB/s each way; pairs:";
      for (const auto& p : coherence::socket_pairs(s)) os << " " << p[0] << "-" << p[1];
      const auto next = coherence::socket_next_hops(s);
      const int k = s.sockets;
      bool any = false;
      for (int from = 0; from < k; ++from)
        for (int to = 0; to < k; ++to) {
          const auto route = coherence::socket_route(next, k, from, to);
          if (route.size() < 3) continue;
          os << (any ? "" : "\n  routes through other sockets:") << "\n    " << from;
          for (std::size_t i = 1; i < route.size(); ++i) os << " -> " << route[i];
          any = true;
        }
      if (!any) os << "\n  every pair of sockets joined: no route crosses a socket between";
    }
    os << "\n";
  }
  os << "\nroutes from the root complex (static bottleneck for MPS-sized writes):\n";
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    if (t.nodes[i].type != NodeType::Endpoint) continue;
    const auto p = t.path(t.root_of(static_cast<int>(i)), static_cast<int>(i));
    const auto pl = t.path_links(t.root_of(static_cast<int>(i)), static_cast<int>(i));
    double best = 1e30;
    int at = -1;
    for (int l : pl) {
      const auto& L = t.links[static_cast<std::size_t>(l)];
      const int mps = std::min(t.nodes[static_cast<std::size_t>(L.up_node)].mps, t.nodes[static_cast<std::size_t>(L.down_node)].mps);
      const double r = Topology::link_data_rate(L.cfg, mps, t.nodes[static_cast<std::size_t>(L.up_node)].port.tx_align_B);
      if (r < best) { best = r; at = l; }
    }
    os << "  ";
    for (std::size_t k = 0; k < p.size(); ++k) os << (k ? " -> " : "") << t.nodes[static_cast<std::size_t>(p[k])].name;
    os << ": " << std::fixed << std::setprecision(1) << best / 1e6 << " MB/s at "
       << t.links[static_cast<std::size_t>(at)].up << "-" << t.links[static_cast<std::size_t>(at)].down << "\n";
  }
  return os.str();
}

std::string to_dot(const Topology& t) {
  std::ostringstream os;
  os << "graph \"" << t.platform << "\" {\n  rankdir=TB;\n  node [fontname=\"Helvetica\"];\n";
  for (const auto& n : t.nodes) {
    const char* shape = n.type == NodeType::RootComplex ? "box3d" : n.type == NodeType::Switch ? "box" : "ellipse";
    os << "  \"" << n.name << "\" [shape=" << shape << ", label=\"" << n.name << "\\n" << type_name(n.type) << "\"];\n";
  }
  for (const auto& l : t.links)
    os << "  \"" << l.up << "\" -- \"" << l.down << "\" [label=\"gen" << l.cfg.gen << " x" << l.cfg.width << "\"];\n";
  for (const auto& s : t.socket_links)
    os << "  \"" << t.nodes[static_cast<std::size_t>(t.roots[static_cast<std::size_t>(s.a)])].name << "\" -- \""
       << t.nodes[static_cast<std::size_t>(t.roots[static_cast<std::size_t>(s.b)])].name << "\" [style=bold, label=\"socket link\"];\n";
  // A host's coherent sockets: a cluster of its sockets and their pairs,
  // socket 0 (the host's cores) joined to its root complex.
  for (const auto& n : t.nodes) {
    if (!n.has_sockets) continue;
    const auto& s = n.sockets;
    const auto id = [&](int k) { return "\"" + n.name + ".socket" + std::to_string(k) + "\""; };
    os << "  subgraph \"cluster_" << n.name << "_sockets\" {\n    label=\"" << n.name << " sockets\";\n";
    for (int k = 0; k < s.sockets; ++k)
      os << "    " << id(k) << " [shape=octagon, label=\"socket " << k << "\\n" << s.cores << " cores, " << s.slices << " slices\"];\n";
    for (const auto& p : coherence::socket_pairs(s))
      os << "    " << id(p[0]) << " -- " << id(p[1]) << " [style=bold, label=\"" << s.links << " x " << s.link.GBps << " GB/s\"];\n";
    os << "  }\n  \"" << n.name << "\" -- " << id(0) << " [style=dashed];\n";
  }
  os << "}\n";
  return os.str();
}

}  // namespace hx::topo
