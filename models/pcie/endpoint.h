// A PCIe endpoint function: the hard block's transaction layer between the
// link and the device logic (a DMA engine, a NIC, user logic).
// Mechanisms:
//  - TX pipeline latency (user logic -> wire) and RX pipeline latency
//    (last byte in -> user logic), at the block's clock;
//  - TX streams: bounded FIFOs that the device fills; the transmit arbiter
//    gives completions (stream 0) absolute priority, then arbitrates VCs
//    among the other streams' heads (the port's vc_arbitration) and serves
//    the streams of that VC round-robin (S001's Rosta TX arbiter; a common
//    design);
//  - the transmitter's datapath beat (PortConfig::tx_align_B) rounds each
//    TLP's wire time up to whole beats;
//  - BAR reads answered by the function after reg_read_latency, plus
//    reg_read_per_dw for each DW beyond the first.
// The endpoint advertises infinite completion credits, as the spec requires
// of endpoints (sec. 2.6.1), and drains its receive buffer as TLPs arrive.
// Simplifications: one function (no multi-function device, no SR-IOV); its
// bus/device/function and BARs are assigned at elaboration (no
// configuration requests on the link); MSI at one fixed address (no MSI-X
// table); no relaxed or ID-based ordering, no poisoned TLPs, ECRC,
// completion timeouts or error messages; the device logic never
// back-pressures what arrives (the receive buffer drains at once).
#pragma once
#include <systemc>
#include <memory>
#include <string>
#include <vector>

#include "models/core/fifo.h"
#include "models/core/scheduler.h"
#include "models/pcie/port.h"
#include "models/pcie/routing.h"

namespace hx::pcie {

struct EndpointConfig {
  PortConfig port;
  Rid rid = 0x0100;                 // segment, bus:dev.fn given by enumeration
  std::vector<AddrRange> bars;
  Tick tx_latency = 100 * kNs;
  Tick rx_latency = 100 * kNs;
  Tick reg_read_latency = 40 * kNs;
  Tick reg_read_per_dw = 0;  // each DW of a BAR read beyond the first (a register bus one DW wide)
  int mrrs = 512;
  int tags = 32;
  std::uint64_t msi_addr = 0xfee00000ull;
  int rcb = 64;                     // the root port's read completion boundary (Link Control RCB)
};

class Endpoint;

// Device logic behind an endpoint.
class Device {
 public:
  virtual ~Device() = default;
  virtual void attach(Endpoint& ep) { m_ep = &ep; }
  // A write into one of our BARs (the target path).
  virtual void on_write(const Tlp& t) = 0;
  // A read of one of our BARs. A device that answers its own reads (its
  // registers are real: an RTL design) returns true and later pushes the
  // completion (Endpoint::completion_for) on stream 0; false leaves the
  // answer to the endpoint (reg_read_latency, the memory pattern).
  virtual bool on_read(const Tlp& t) { return false; }
  // For a read the endpoint answers (on_read false): the bytes of the
  // registers at [addr, addr + len) into `out`, for a device whose registers
  // hold values a driver reads (a counter); false: the memory pattern
  // stands in for them.
  virtual bool register_bytes(std::uint64_t addr, std::uint32_t len, std::uint8_t* out) const { return false; }
  virtual void on_completion(const Tlp& t) = 0;
  virtual void on_tx_space(int stream) {}
  virtual void on_sent(const Tlp& t, Tick start, Tick end) {}
  virtual bool busy() const = 0;
  virtual std::string status() const { return {}; }

 protected:
  Endpoint* m_ep = nullptr;
};

class Endpoint final : public sc_core::sc_module, public PortOwner, public Actor {
 public:
  Endpoint(sc_core::sc_module_name name, const EndpointConfig& cfg);
  PciePort& upstream() { return *m_port; }
  const EndpointConfig& config() const { return m_cfg; }
  void set_device(Device* d);
  Device* device() const { return m_dev; }

  int add_stream(const std::string& name, std::size_t depth);
  bool stream_full(int s) const { return m_streams[static_cast<std::size_t>(s)].q.size() >= m_streams[static_cast<std::size_t>(s)].depth; }
  // Hand a TLP to the transaction layer, ready at `at`.
  void push(int stream, Tlp* t, Tick at = 0);
  Tlp* make(TlpKind kind);  // a TLP from this function (requester id set)
  Tlp* make_msi(std::uint32_t vector);  // the MWr that signals MSI `vector`
  // The CplD answering read `req` (no payload yet: set it, then push it on stream 0).
  Tlp* completion_for(const Tlp& req);
  int mps() const;          // this function's programmed Max_Payload_Size

  Tlp* tx_select(PciePort& p) override;
  void rx_arrive(PciePort& p, Tlp* t, Tick head, Tick tail) override;
  void tx_done(PciePort& p, const Tlp& t, Tick start, Tick end) override;
  Scheduler& scheduler() { return m_sched; }
  link::TxOutlook tx_outlook(const PciePort& p, Tick at, Tick& next_ready) const override;
  bool tx_pending(const PciePort&) const override {
    for (const auto& s : m_streams)
      if (!s.q.empty()) return true;
    return false;
  }
  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;

  Counter rx_tlps, rx_bytes;

 private:
  struct Stream {
    Fifo<Tlp*> q;  // its head is one load away (a deque's is two)
    std::size_t depth;
    std::string name;
  };
  EndpointConfig m_cfg;
  Scheduler m_sched;
  std::unique_ptr<PciePort> m_port;
  std::vector<Stream> m_streams;
  // VC arbitration (the port's vc_arbitration) among the data streams'
  // heads, then round robin over the streams of that VC from m_rr[vc].
  std::unique_ptr<VcArbiter> m_arb;
  std::vector<std::size_t> m_rr;
  Device* m_dev = nullptr;
};

}  // namespace hx::pcie
