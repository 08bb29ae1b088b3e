// Behavioural model of the Rosta scatter-gather DMA engine of S001 on a
// Virtex-7 with the Xilinx 7-series hard block (64-bit AXI-Stream, 250 MHz).
// Mechanisms:
//  - descriptors (address, length), one per 4 KiB page, written by the host
//    into the FPGA by MMIO; a doorbell write starts the job;
//  - "write" (FPGA -> RAM): MWr of the chosen payload from TX_FIFO;
//    "read" (RAM -> FPGA): MRd of up to MRRS into RX_FIFO with at most
//    max_reads outstanding; each descriptor change costs desc_gap cycles of
//    the engine's state machine;
//  - peer writes on command (target address + length) from EP_TX_FIFO into
//    another endpoint's BAR, without descriptors; the target path accepts
//    such writes into EP_RX_FIFO, and in echo mode sends them straight back;
//  - an MSI write after the last TLP of a host job;
//  - TX arbiter: completions first, the rest round-robin (Endpoint).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "models/core/scheduler.h"
#include "models/dma/dma_util.h"
#include "models/pcie/endpoint.h"

namespace hx::dma {

struct RostaConfig {
  double clock_mhz = 250.0;
  int desc_gap_cycles = 0;
  int max_reads = 1;
  int fifo_tlps = 16;
};

// BAR0 layout of the engine (offsets).
constexpr std::uint64_t kRostaDescRegs = 0x0000;
constexpr std::uint64_t kRostaDoorbell = 0x1000;
constexpr std::uint64_t kRostaEpRx = 0x100000;  // EP_RX_FIFO window, 1 MiB

class RostaDma final : public pcie::Device, public Actor {
 public:
  enum class Kind { HostWrite, HostRead, Peer };
  struct Job {
    Kind kind = Kind::HostWrite;
    std::vector<Segment> descs;  // host pages, or one segment for a peer write
    std::uint32_t payload = 128;
    std::uint64_t stream = 1;    // data pattern of what the FPGA sends
    std::uint8_t vc = 0;         // virtual channel of its TLPs
    std::uint32_t msi_vector = 0;
    bool msi = true;
    Ledger* led = nullptr;       // a timed job's, opened when it starts: each TLP carries a copy on
    // results
    Tick first = kNever, last = 0;
    std::uint64_t bytes = 0;
    bool done = false;
    std::function<void()> on_done;
  };
  RostaDma(const std::string& name, const RostaConfig& cfg);
  void attach(pcie::Endpoint& ep) override;

  // The driver loads a job; it starts when the doorbell write arrives, or now
  // for a peer command issued by user logic.
  void load(Job* job) { m_pending = job; }
  void start(Job* job);
  // Target path: accept peer writes; in echo mode bounce them to `echo_to`.
  void expect_peer(std::uint64_t stream, std::uint64_t bytes) { m_rx_stream = stream; m_rx_expect = bytes; }
  void set_echo(std::uint64_t echo_to) { m_echo = true; m_echo_to = echo_to; }
  // The peer data received: from the first byte of its first TLP to the
  // last byte of its last, at this device.
  Tick rx_first() const { return m_rx_first; }
  Tick rx_last() const { return m_rx_last; }
  std::uint64_t rx_bytes() const { return m_rx_bytes; }
  // Every peer write arriving on the target path, with its latency ledger
  // (models/core/ledger.h; nullptr unless a timed job sent it).
  std::function<void(Tick, const Ledger*)> on_rx;

  void on_write(const pcie::Tlp& t) override;
  void on_completion(const pcie::Tlp& t) override;
  void on_tx_space(int stream) override;
  void on_sent(const pcie::Tlp& t, Tick start, Tick end) override;
  bool busy() const override;
  std::string status() const override;
  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;

 private:
  void refill();
  void issue_reads();
  void finish();
  std::string m_name;
  RostaConfig m_cfg;
  Tick m_cycle;
  int m_s_write = -1, m_s_read = -1, m_s_peer = -1, m_s_echo = -1;
  Job* m_pending = nullptr;
  Job* m_job = nullptr;
  std::size_t m_desc = 0;
  std::uint64_t m_desc_off = 0, m_job_off = 0, m_job_bytes = 0;
  Tick m_next_gen = 0;
  Tick m_gen_busy = 0;  // the datapath's busy time (a resource)
  Tick m_reads_at = kNever;  // an issue_reads already scheduled for then
  std::uint64_t m_tlps_left = 0;  // write/peer TLPs not yet on the wire
  // reads
  struct Req {
    std::uint64_t addr;
    std::uint32_t len, got;
    bool used = false;
  };
  std::vector<Req> m_reqs;
  int m_outstanding = 0;
  std::uint64_t m_read_received = 0;
  // target path
  std::uint64_t m_rx_stream = 0, m_rx_expect = 0, m_rx_bytes = 0;
  Tick m_rx_first = kNever, m_rx_last = 0;
  bool m_echo = false;
  std::uint64_t m_echo_to = 0;
};

}  // namespace hx::dma
