// The host's side of CCIX (S000's N1-SDP): the home agent that owns host
// memory (a coherence::HomeAgent on the root complex's memory controller)
// and one CCIX link end per request agent, reached through the root port
// above it. CCIX packets arriving at the root complex come here as they
// arrive (pcie::MessageHandler), past the PCIe inbound pipeline: the CCIX
// port of the host's mesh is not the I/O hub's path. The home's own
// latency per message (`lookup`: the home node and its snoop filter) is
// the HomeAgent's; the CCIX port's own (its gateway and the mesh crossing
// to the home node) is the CCIX layers' latency on this side, each way.
// The host's cores are coherent requesters of the same home (`cores`):
// each a caching agent (its private L1/L2) on a direct link across the
// mesh to the home node, so a host core and a device share lines through
// the one directory.
// Simplifications: one home node for all host memory (no interleaving of
// lines over several home nodes of the mesh); the cores' paths to it are
// links of their own (no shared mesh ring or its contention); the devices
// home no memory of their own (no CCIX slave agent: only host memory is
// coherent); the protocol's own simplifications are protocol.h's.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "models/ccix/ccix_link.h"
#include "models/coherence/agents.h"
#include "models/host/root_complex.h"

namespace hx::ccix {

struct HomePortConfig {
  coherence::HomeAgentConfig home;
  CcixConfig ccix;
  int cores = 0;                        // host cores as coherent requesters
  coherence::AgentId first_core = 0;    // their agent ids: first_core, first_core + 1, ...
  coherence::CachingAgentConfig core;   // each core's private cache (id and home set per core)
  coherence::CohLinkConfig core_link;   // a core's path across the mesh to the home node, each way
};

class HomePort final : public pcie::MessageHandler {
 public:
  HomePort(const std::string& name, const HomePortConfig& cfg, host::RootComplex& rc);
  ~HomePort() override;
  coherence::HomeAgent& home() { return *m_home; }
  // The end for the request agent `agent` of function `rid` below root
  // port `port`, in the packet format of the agent's link; connect it to
  // the agent's end (CcixLink::connect).
  CcixLink& add_agent(coherence::AgentId agent, int port, pcie::Rid rid, const CcixFormat& format);
  void on_message(const pcie::Tlp& t, int port) override;
  int cores() const { return static_cast<int>(m_cores.size()); }
  coherence::CachingAgent& core(int i) { return *m_cores.at(static_cast<std::size_t>(i)); }
  bool idle() const;
  // Every end's credits back and nothing held or queued (at quiesce).
  bool whole() const;
  std::string credits() const;  // of the ends that are not whole
  std::string status() const;

 private:
  struct End;
  std::string m_name;
  HomePortConfig m_cfg;
  host::RootComplex& m_rc;
  std::unique_ptr<coherence::HomeAgent> m_home;
  std::vector<std::unique_ptr<End>> m_ends;
  std::vector<std::unique_ptr<coherence::CachingAgent>> m_cores;
  std::map<pcie::Rid, End*> m_by_rid;
};

}  // namespace hx::ccix
