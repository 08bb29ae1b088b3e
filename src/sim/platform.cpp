#include "src/sim/platform.h"

#include <algorithm>
#include <sstream>

#include "models/core/error.h"

namespace hx::sim {

using topo::NodeType;

Platform::Platform(const topo::Topology& t) : m_topo(t) {
  std::map<int, pcie::PciePort*> up_port_of;          // node -> its upstream port
  std::map<std::pair<int, int>, pcie::PciePort*> down; // (node, port) -> downstream-facing port
  for (std::size_t i = 0; i < t.nodes.size(); ++i) {
    const auto& n = t.nodes[i];
    const int ni = static_cast<int>(i);
    if (n.type == NodeType::RootComplex) {
      host::RootComplexConfig c = n.rc;
      const std::size_t np = std::max<std::size_t>(1, n.child_links.size());
      pcie::PortConfig pc = n.port;
      pc.infinite_completion_credits();  // root ports advertise infinite completion credits
      c.ports.assign(np, pc);
      c.routes = n.routes;
      if (m_rcs.size() < t.roots.size()) m_rcs.resize(t.roots.size());
      auto& rc = m_rcs[static_cast<std::size_t>(n.socket)];
      rc = std::make_unique<host::RootComplex>(n.name.c_str(), c);
      // The host's cores are on socket 0.
      if (!n.socket) m_cpu = std::make_unique<host::HostCpu>((n.name + "_cpu").c_str(), n.cpu, *rc);
      for (std::size_t k = 0; k < n.child_links.size(); ++k) down[{ni, static_cast<int>(k)}] = &rc->root_port(k);
    } else if (n.type == NodeType::Switch) {
      pcie::SwitchConfig c;
      c.latency = n.sw.latency;
      c.cut_through = n.sw.cut_through;
      c.acs_redirect = n.sw.acs_redirect;
      c.ports.assign(n.child_links.size() + 1, n.port);
      for (std::size_t k = 0; k < c.ports.size(); ++k) {
        auto it = n.port_mps.find(k == 0 ? "up" : "down" + std::to_string(k - 1));
        if (it != n.port_mps.end()) c.ports[k].mps = it->second;
      }
      c.routes = n.routes;
      m_switches.push_back(std::make_unique<pcie::Switch>(n.name.c_str(), c));
      auto& sw = *m_switches.back();
      up_port_of[ni] = &sw.upstream();
      for (std::size_t k = 0; k < n.child_links.size(); ++k) down[{ni, static_cast<int>(k + 1)}] = &sw.port(k + 1);
    } else {
      pcie::EndpointConfig c;
      c.port = n.port;
      c.rid = n.rid;
      c.bars = {n.bar};
      c.tx_latency = n.ep.tx_latency;
      c.rx_latency = n.ep.rx_latency;
      c.reg_read_latency = n.ep.reg_read_latency;
      c.reg_read_per_dw = n.ep.reg_read_per_dw;
      c.mrrs = n.ep.mrrs;
      c.tags = n.ep.tags;
      c.msi_addr = t.nodes[static_cast<std::size_t>(t.root_of(ni))].rc.msi_base;
      c.rcb = t.nodes[static_cast<std::size_t>(t.root_of(ni))].rc.rcb_B;
      auto ep = std::make_unique<pcie::Endpoint>(n.name.c_str(), c);
      up_port_of[ni] = &ep->upstream();
      std::unique_ptr<pcie::Device> dev;
      if (const topo::DeviceKind* kind = topo::device_kind(n.device)) dev = kind->make(n.name, n);
      if (dev) {
        ep->set_device(dev.get());
        m_devs[n.name] = std::move(dev);
      }
      m_eps[n.name] = std::move(ep);
    }
  }
  for (const auto& l : t.links) {
    pcie::PciePort* a = down.at({l.up_node, l.up_port});
    pcie::PciePort* b = up_port_of.at(l.down_node);
    pcie::PciePort::connect(*a, *b, l.cfg);
  }
  const auto& root = t.nodes[static_cast<std::size_t>(t.root)];
  // A root complex on each of several sockets: one memory image, the
  // host's cores told of what the others see, each pair joined by the
  // socket links of its route; the far cores' memory is socket 1's.
  for (const auto& s : t.socket_links) m_socket_links.push_back(std::make_unique<host::SocketLink>(s.name, s.cfg, s.a, s.b));
  for (std::size_t a = 0; a < m_rcs.size() && m_rcs.size() > 1; ++a) {
    for (std::size_t b = 0; b < m_rcs.size(); ++b) {
      if (a == b) continue;
      std::vector<host::RootComplex::SocketHop> route;
      int at = static_cast<int>(a);
      for (const int l : t.socket_route(static_cast<int>(a), static_cast<int>(b))) {
        route.push_back({m_socket_links[static_cast<std::size_t>(l)].get(), at});
        at = route.back().link->other(at);
      }
      m_rcs[a]->connect_socket(*m_rcs[b], route);
    }
    if (a == 0) continue;
    m_rcs[a]->share_store(m_rcs[0]->memory().store());
    m_rcs[a]->attach_host(m_cpu.get());
  }
  if (m_rcs.size() > 1) {
    m_cpu->attach_far_rc(*m_rcs[1]);
  }
  m_heap = std::make_unique<HostHeap>(t);
  // CCIX: the home on host memory, one link to each request agent through
  // the root port above it (the topology gave each its agent id).
  for (const auto& n : t.nodes) {
    auto* ra = n.type == NodeType::Endpoint && n.device == "ccix_ra" ? device<ccix::RequestAgent>(n.name) : nullptr;
    if (!ra) continue;
    m_ras.push_back(ra);
    if (!m_ccix) m_ccix = std::make_unique<ccix::HomePort>(root.name + ".ccix", root.ccix_home, rc());
    int port = -1;
    for (std::size_t k = 0; k < root.routes.size(); ++k)
      if (root.routes[k].claims_id(n.rid)) port = static_cast<int>(k);
    if (port < 0) throw SimError(n.name + ": a CCIX request agent below no root port");
    ccix::CcixLink::connect(ra->link(), m_ccix->add_agent(n.ccix_ra.agent.id, port, n.rid, n.ccix_ra.ccix.format));
  }
  if (!m_ccix && root.ccix_home.cores > 0) m_ccix = std::make_unique<ccix::HomePort>(root.name + ".ccix", root.ccix_home, rc());
  if (root.has_sockets) m_sockets = std::make_unique<coherence::SocketSystem>(root.name + ".sockets", root.sockets);
}

pcie::Endpoint& Platform::endpoint(const std::string& name) { return *m_eps.at(name); }

std::vector<std::string> Platform::endpoints_with(const std::string& device) const {
  std::vector<std::string> out;
  for (const auto& n : m_topo.nodes)
    if (n.type == NodeType::Endpoint && n.device == device) out.push_back(n.name);
  return out;
}

namespace {
// A root complex's DRAM as buffers take it: from 1 MiB in, up to its I/O page tables.
std::uint64_t heap_start(const host::RootComplexConfig& c) { return c.dram_base + (1ull << 20); }
std::uint64_t heap_end(const host::RootComplexConfig& c) {
  return c.dram_base + c.dram_size - (c.iommu.enabled ? c.iommu.table_region : 0);
}
}  // namespace

HostHeap::HostHeap(const topo::Topology& t) {
  const host::RootComplexConfig& c = t.nodes[static_cast<std::size_t>(t.root)].rc;
  m_nodes.push_back({heap_start(c), heap_end(c)});
  for (std::size_t s = 1; s < t.roots.size(); ++s) {
    const host::RootComplexConfig& o = t.nodes[static_cast<std::size_t>(t.roots[s])].rc;
    m_nodes.push_back({heap_start(o), heap_end(o)});
  }
}

std::uint64_t HostHeap::alloc(const BufferNeed& b) {
  if (b.backing.node < 0 || static_cast<std::size_t>(b.backing.node) >= m_nodes.size())
    throw InputError(b.backing.node == 1 ? "a buffer on the far NUMA node needs a root complex on socket 1"
                                         : "a buffer on socket " + std::to_string(b.backing.node) + ", which has no root complex");
  const std::uint64_t page = 1ull << b.backing.page_shift;
  const std::uint64_t align = std::max(b.align, page);
  Node& node = m_nodes[static_cast<std::size_t>(b.backing.node)];
  std::uint64_t& next = node.next;
  const std::uint64_t end = node.end;
  const std::uint64_t at = (next + align - 1) / align * align;
  // A buffer in huge pages owns whole pages.
  const std::uint64_t len = b.backing.page_shift > 12 ? (b.bytes + page - 1) / page * page : b.bytes;
  if (at > end || len > end - at)
    throw InputError("host memory exhausted by workload buffers: " + std::to_string(len) + " B more do not fit in the " +
                     std::to_string(end - std::min(end, next)) + " B left on the " +
                     (b.backing.node == 0 ? std::string("near") : b.backing.node == 1 ? std::string("far") : "socket " + std::to_string(b.backing.node)) +
                     " node");
  next = at + len;
  return at;
}

std::uint64_t Platform::alloc(std::uint64_t bytes, std::uint64_t align, const Backing& b) {
  const std::uint64_t a = m_heap->alloc(BufferNeed{bytes, align, b});
  const std::uint64_t page = 1ull << b.page_shift;
  for (const auto& rc : m_rcs)
    if (auto* mmu = rc->iommu()) mmu->map_buffer(a, b.page_shift > 12 ? (bytes + page - 1) / page * page : bytes, b.page_shift);
  return a;
}

std::vector<std::uint64_t> Platform::alloc(const std::vector<BufferNeed>& needs) {
  std::vector<std::uint64_t> out;
  for (const BufferNeed& n : needs) out.push_back(alloc(n.bytes, n.align, n.backing));
  return out;
}

std::vector<pcie::PciePort*> Platform::ports() const {
  std::vector<pcie::PciePort*> out;
  for (const auto& rc : m_rcs)
    for (std::size_t i = 0; i < rc->num_ports(); ++i) out.push_back(&rc->root_port(i));
  for (const auto& s : m_switches)
    for (std::size_t i = 0; i < s->num_ports(); ++i) out.push_back(&s->port(i));
  for (const auto& [n, e] : m_eps) out.push_back(&e->upstream());
  return out;
}

bool Platform::fabric_idle() const {
  for (auto* p : ports())
    if (p->has_rx_occupancy()) return false;
  for (const auto& s : m_switches)
    if (s->queued()) return false;
  if (m_ccix && !m_ccix->whole()) return false;
  for (const auto* ra : m_ras)
    if (!ra->link_whole()) return false;
  if (m_sockets && !m_sockets->idle()) return false;
  for (const auto& rc : m_rcs)
    if (!rc->idle()) return false;
  return !m_ccix || m_ccix->idle();
}

std::string Platform::diagnose() const {
  std::ostringstream os;
  for (auto* p : ports()) {
    if (!p->connected()) continue;
    const std::string r = p->blocked_reason();
    if (!r.empty()) os << "\n  link " << p->name() << " -> " << p->peer()->name() << ":" << r;
  }
  for (const auto& s : m_switches)
    if (s->queued()) os << "\n  " << s->name() << ": " << s->queued() << " TLPs queued at egress";
  for (const auto& [n, d] : m_devs)
    if (d->busy()) os << "\n  " << n << ": " << d->status();
  if (m_ccix && !m_ccix->idle()) os << "\n  " << m_ccix->status();
  if (m_ccix && !m_ccix->whole()) os << "\n  " << m_ccix->credits();
  for (const auto* ra : m_ras)
    if (!ra->link_whole()) os << "\n  " << ra->credits();
  if (m_sockets && !m_sockets->idle()) os << "\n  " << m_sockets->status();
  if (m_cpu) os << m_cpu->status();
  return os.str();
}

}  // namespace hx::sim
