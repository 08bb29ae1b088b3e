// PLX-style PCIe switch. Port 0 is the upstream port, ports 1..N-1 are
// downstream. Mechanisms:
//  - address routing of requests through each downstream port's memory
//    window (from enumeration), ID routing of completions by bus range;
//  - peer-to-peer between downstream ports, or ACS P2P Request Redirect,
//    which sends every peer request up to the root complex;
//  - ingress-to-egress latency, cut-through (the egress may start once the
//    header is in and the tail can no longer catch up) or store-and-forward;
//  - per-egress VC arbitration (the egress port's vc_arbitration), then
//    round-robin port arbitration among the ingress ports of that VC,
//    inside each ingress and VC keeping PCIe ordering (reads and
//    completions never pass an older posted write; posted writes may pass
//    blocked reads);
//  - per-port MPS: a TLP above the egress port's MPS is a malformed TLP.
// Simplifications: one shared latency for all port pairs; no multicast.
#pragma once
#include <systemc>
#include <memory>
#include <string>
#include <vector>

#include "models/core/fifo.h"
#include "models/pcie/port.h"
#include "models/pcie/routing.h"

namespace hx::pcie {

struct SwitchConfig {
  Tick latency = 150 * kNs;
  bool cut_through = true;
  bool acs_redirect = false;
  std::vector<PortConfig> ports;        // [0] upstream
  std::vector<PortRoute> routes;        // per port (downstream ones used)
};

class Switch final : public sc_core::sc_module, public PortOwner {
 public:
  Switch(sc_core::sc_module_name name, const SwitchConfig& cfg);
  PciePort& upstream() { return *m_ports[0]; }
  PciePort& downstream(std::size_t i) { return *m_ports[i + 1]; }
  PciePort& port(std::size_t i) { return *m_ports[i]; }
  std::size_t num_ports() const { return m_ports.size(); }

  Tlp* tx_select(PciePort& p) override;
  void rx_arrive(PciePort& p, Tlp* t, Tick head, Tick tail) override;
  link::TxOutlook tx_outlook(const PciePort& p, Tick at, Tick& next_ready) const override;
  bool tx_pending(const PciePort& p) const override { return m_egress[static_cast<std::size_t>(p.index)].queued > 0; }

  std::size_t queued() const { return m_queued; }
  Counter forwarded, redirected;

 private:
  int route(const Tlp& t, int in_port) const;
  // Downstream ports' memory windows and ID ranges, sorted by start, so a
  // route is a binary search whatever the port count.
  struct Claim {
    std::uint64_t lo, hi;  // [lo, hi)
    int port;
  };
  static int find_claim(const std::vector<Claim>& v, std::uint64_t key);
  std::vector<Claim> m_addr_claims, m_id_claims;
  struct Egress {
    // [ingress][vc][class] FIFOs (the switch's VCs), one array: ingress in's
    // VC vc at q[in * vcs + vc]. rr[vc] = next ingress to look at.
    std::vector<std::array<Fifo<Tlp*>, kFcClasses>> q;
    std::size_t vcs = 1;
    std::size_t ports() const { return per_in.size(); }
    std::array<Fifo<Tlp*>, kFcClasses>& at(std::size_t in, std::size_t vc) { return q[in * vcs + vc]; }
    std::vector<std::uint32_t> per_in;  // TLPs queued from each ingress
    std::vector<std::uint64_t> busy;    // bit per ingress with per_in > 0: idle ports are never visited
    std::vector<std::size_t> rr;
    std::unique_ptr<VcArbiter> arb;
    // The first ingress at or after `from` with something queued (q.size() if none).
    std::size_t next_busy(std::size_t from) const;
    std::size_t queued = 0;
  };
  SwitchConfig m_cfg;
  std::vector<std::unique_ptr<PciePort>> m_ports;
  std::vector<Egress> m_egress;
  int m_vcs = 1;  // the most VCs any port enables
  // The oldest sendable TLP of one VC, round robin over the ingress ports
  // (nullptr if none); not-ready heads lower next_ready.
  Tlp* select_vc(PciePort& p, Egress& e, int vc, Tick now, Tick& next_ready);
  std::uint64_t m_seq = 0;
  std::size_t m_queued = 0;
};

}  // namespace hx::pcie
