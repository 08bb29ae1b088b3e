// Elaboration: one SystemC module per topology node, ports bound per link,
// device logic attached to endpoints, host memory handed out to workloads.
#pragma once
#include <map>
#include <memory>
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
#include "models/pcie/endpoint.h"
#include "models/pcie/switch.h"
#include "src/topology/topology.h"

namespace hx::sim {

// How a buffer's host memory is backed: the OS page size behind it and its
// NUMA node: socket n's memory (0 the near one, 1 the far one), each
// socket's a root complex's.
struct Backing {
  unsigned page_shift = 12;
  int node = 0;
  bool far() const { return node == 1; }
};

// One buffer a workload asks for.
struct BufferNeed {
  BufferNeed(std::uint64_t b = 0, std::uint64_t a = 4096, Backing k = {}) : bytes(b), align(a), backing(k) {}
  std::uint64_t bytes, align;
  Backing backing;
};

// The host's memory as workloads' buffers take it: page-aligned, never
// reused, near and far nodes apart, the I/O page tables' region kept out.
// The same policy serves the elaborated platform and the check of a study,
// which asks it whether every workload's buffers fit before anything runs.
class HostHeap {
 public:
  // Nodes: each socket's root complex's DRAM.
  explicit HostHeap(const topo::Topology& t);
  // Its address; InputError when the memory is exhausted.
  std::uint64_t alloc(const BufferNeed& b);

 private:
  struct Node {
    std::uint64_t next = 0, end = 0;
  };
  std::vector<Node> m_nodes;
};

class Platform {
 public:
  explicit Platform(const topo::Topology& t);
  const topo::Topology& topo() const { return m_topo; }
  host::RootComplex& rc() { return *m_rcs[0]; }  // socket 0's, the host's cores'
  // The memory controller of the cores of socket 0 or 1 (the far one).
  mem::MemoryController& cores_memory(bool far) { return far && m_rcs.size() > 1 ? m_rcs[1]->memory() : m_rcs[0]->memory(); }
  // The root complex at the top of endpoint `name`'s hierarchy.
  host::RootComplex& rc_above(const std::string& name) {
    return *m_rcs[static_cast<std::size_t>(m_topo.nodes[static_cast<std::size_t>(m_topo.find(name))].socket)];
  }
  host::HostCpu& cpu() { return *m_cpu; }
  pcie::Endpoint& endpoint(const std::string& name);
  bool has_endpoint(const std::string& name) const { return m_eps.count(name) != 0; }
  template <class D>
  D* device(const std::string& name) const {
    auto it = m_devs.find(name);
    return it == m_devs.end() ? nullptr : dynamic_cast<D*>(it->second.get());
  }
  std::vector<std::string> endpoints_with(const std::string& device) const;
  // Host memory for a workload's buffers: page-aligned, never reused, mapped
  // in the IOMMU (identity) when it is on.
  std::uint64_t alloc(std::uint64_t bytes, std::uint64_t align = 4096, const Backing& b = Backing());
  // Each of `needs`, in order.
  std::vector<std::uint64_t> alloc(const std::vector<BufferNeed>& needs);
  std::vector<pcie::PciePort*> ports() const;
  // What is stuck, for the deadlock diagnosis.
  std::string diagnose() const;
  bool fabric_idle() const;
  ccix::HomePort* ccix_home() { return m_ccix.get(); }
  coherence::SocketSystem* sockets() { return m_sockets.get(); }  // when the root complex has `sockets:`

 private:
  const topo::Topology& m_topo;
  std::vector<std::unique_ptr<host::RootComplex>> m_rcs;         // by socket (socket 0's: the host's cores')
  std::vector<std::unique_ptr<host::SocketLink>> m_socket_links;  // between them (topo::Topology::socket_links)
  std::unique_ptr<host::HostCpu> m_cpu;
  std::vector<std::unique_ptr<pcie::Switch>> m_switches;
  std::map<std::string, std::unique_ptr<pcie::Endpoint>> m_eps;
  std::map<std::string, std::unique_ptr<pcie::Device>> m_devs;
  std::unique_ptr<HostHeap> m_heap;
  std::unique_ptr<ccix::HomePort> m_ccix;  // when a CCIX request agent is below
  std::vector<ccix::RequestAgent*> m_ras;   // those agents (owned by m_devs)
  std::unique_ptr<coherence::SocketSystem> m_sockets;
};

}  // namespace hx::sim
