// A platform: nodes, links and their calibrated parameters, read from a
// topology YAML, checked as a graph and enumerated as firmware would (bus
// numbers, BARs, bridge windows), giving every switch and root port its
// routing table. Models never see this; elaboration turns it into configs.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "src/config/params.h"
#include "src/topology/devices.h"

namespace hx::topo {

enum class NodeType { RootComplex, Switch, Endpoint };
const char* type_name(NodeType t);

// An endpoint's device parameters are the DeviceConfigs part (n.bench, ...).
struct NodeSpec : DeviceConfigs {
  std::string name;
  NodeType type = NodeType::Endpoint;
  cfg::Cursor where;
  int mps_supported = 256;
  int mps_set = 0;  // explicit `mps:` (setpci), 0 = what firmware programs
  pcie::PortConfig port;
  // root complex
  host::RootComplexConfig rc;
  host::HostCpuConfig cpu;
  ccix::HomePortConfig ccix_home;  // the CCIX home, used when a CCIX request agent is below
  bool has_sockets = false;        // `sockets:` given: the host's sockets as coherent agents
  coherence::SocketSystemConfig sockets;
  nic::CoherentNicConfig coherent_nic;  // its platform costs (coherent_nic:)
  int root_ports = 0;
  bool segment_per_root_port = false;  // root complex: each root port heads its own PCI segment
  // switch
  cfg::SwitchParams sw;
  int ports = 0;
  std::map<std::string, int> port_mps;  // per-port MPS overrides: up, down0, down1, ...
  // endpoint
  cfg::EndpointParams ep;
  std::string device = "none";  // a registered device kind (devices.h), or none
  int socket = 0;  // root complex: `socket:`; every other node: its root complex's

  // derived by enumeration
  int mps = 128;                       // programmed MPS (switches: of ports without an override)
  int parent_link = -1;
  std::vector<int> child_links;   // in port order
  pcie::Rid rid = 0;
  pcie::AddrRange bar;            // endpoints
  std::vector<pcie::PortRoute> routes;  // per port of this node
};

struct LinkSpec {
  std::string up, down;
  int up_node = -1, down_node = -1;
  int up_port = 0;  // port index on the upstream node
  pcie::LinkConfig cfg;
  cfg::Cursor where;
};

struct Topology {
  std::string platform, file;
  std::vector<NodeSpec> nodes;
  std::map<std::string, int> index;
  std::vector<LinkSpec> links;
  int root = -1;           // the root complex of socket 0 (the host's cores')
  std::vector<int> roots;  // every root complex, by socket
  // The socket links between the root complexes' sockets (none with one):
  // `socket_link:` (two sockets) or each of `socket_links:`.
  struct SocketLinkSpec {
    int a = 0, b = 1;  // the sockets it joins
    host::SocketLinkConfig cfg;
    std::string name;  // its statistics' prefix
  };
  std::vector<SocketLinkSpec> socket_links;
  // The links a socket's traffic crosses to reach socket `to`, in order
  // (indexes into socket_links): a shortest route (Boost.Graph's breadth-
  // first search; of routes as short, the one the search meets first).
  std::vector<int> socket_route(int from, int to) const;
  std::vector<int> socket_next;  // [from * sockets + to]: the next socket on that route

  const NodeSpec& node(const std::string& name) const;
  int find(const std::string& name) const;
  // The root complex at the top of node n's hierarchy.
  int root_of(int n) const { return roots[static_cast<std::size_t>(nodes[static_cast<std::size_t>(n)].socket)]; }
  // Nodes on the path from a to b (both included).
  std::vector<int> path(int a, int b) const;
  // Links on that path.
  std::vector<int> path_links(int a, int b) const;
  // Why a request from endpoint a cannot reach endpoint b on virtual
  // channel `vc` (empty if it can): the route it takes (up to the root
  // complex where ACS redirects it or where it crosses root ports) needs
  // peer-to-peer allowed there, and every link of it enables `vc`.
  std::string peer_route_error(int a, int b, int vc) const;
  // Payload bandwidth of a link direction for back-to-back writes of `mps`
  // bytes (B/s), from the port's own wire model (pcie::tlp_wire_bytes: 4-DW
  // header, framing, beat alignment of a transmitter of `tx_align_B`, SKP).
  static double link_data_rate(const pcie::LinkConfig& l, int mps, int tx_align_B);
};

// The structural keys of a topology file: top level, every node, each node
// type, and a link (model parameters are params.h's).
const cfg::KeyTable& topology_keys();
const cfg::KeyTable& node_keys();
const cfg::KeyTable& root_complex_keys();
const cfg::KeyTable& switch_keys();
const cfg::KeyTable& endpoint_keys();
const cfg::KeyTable& link_keys();
// All of them, as Markdown.
std::string topology_reference();

// Parse, check and enumerate. Throws InputError with file:line:col.
Topology load_topology(const cfg::Cursor& root, const std::string& file);

// `hxsim topo` report and Graphviz.
std::string describe(const Topology& t);
std::string to_dot(const Topology& t);

}  // namespace hx::topo
