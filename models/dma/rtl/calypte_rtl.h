// Co-simulation of the synthesizable Calypte-style DMA (hx_dma_top.sv,
// Verilated with --cc) under the SystemC kernel, as a pcie::Device with the
// same API as the behavioural model (CalypteApi), so any topology endpoint
// can say `calypte: {model: rtl}` and run the same studies.
// The adapter clocks the RTL at its own frequency on the kernel's time grid,
// only while something is in flight (an idle engine costs no cycles), and
// converts at the edges:
//  - host TLPs to BAR0 -> completer-request beats (cq_*), CSR writes of the
//    driver's ring settings the same way;
//  - requester-request beats (rq_*) -> MWr TLPs into the endpoint's queue
//    at their first beat (the hard block streams a TLP cut-through; the
//    bytes are checked at the last beat), rq_ready held low while that queue
//    is full (PCIe credit back-pressure reaches the RTL);
//  - user packets (send) -> f2h_* beats; h2f_* beats -> on_h2f_packet, at
//    the packet's first beat (the time the behavioural model reports too:
//    user logic sees the packet start; a loopback streams it back at once).
// Every interface is watched by a StreamChecker; payload bytes are checked
// against the pattern the producer used, at both ends.
// Simplifications: TLP payloads in the fabric are pattern references
// (stream, offset), so the 8 B H2F header carries the packet length the
// adapter counted from the host's data writes; pointer-update payloads
// travel as the pattern the behavioural model uses; the RTL is built with
// 16 channels and a 256-bit datapath.
#pragma once
#include <array>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "models/core/scheduler.h"
#include "models/dma/calypte_dma.h"
#include "models/dma/rtl/rtl_checker.h"
#include "models/pcie/endpoint.h"
#include "models/rtl/gated_clock.h"

namespace hx::dma {

struct CalypteRtlConfig {
  double clock_mhz = 250.0;
  int idle_cycles = 16;      // quiet cycles before the adapter stops clocking (> the deepest pipeline)
  std::string wave;          // VCD file of the RTL's signals ("" = none)
  int user_ready_every = 1;  // h2f_ready one cycle in N (back-pressure from user logic)
};

class CalypteRtl final : public pcie::Device, public CalypteApi, public Actor {
 public:
  static constexpr int kChannels = 16;
  static constexpr int kBytes = 32;  // 256-bit datapath
  CalypteRtl(const std::string& name, const CalypteRtlConfig& cfg);
  ~CalypteRtl() override;
  void attach(pcie::Endpoint& ep) override;

  void set_f2h_ring(int ch, std::uint64_t base, std::uint64_t size, std::uint64_t update_addr) override;
  void set_h2f_update(int ch, std::uint64_t update_addr) override;
  // A timed packet's ledger goes with its pointer update (the RTL's cycles
  // from send() to that write are the device's); a timed header's with its
  // packet to user logic.
  std::uint64_t send(int ch, std::uint32_t bytes, std::uint64_t stream, std::uint64_t off,
                     const Ledger* led = nullptr) override;
  bool carries_ledgers() const override { return true; }
  // A CSR read from the driver: returns when the completion is back in the adapter.
  void csr_read(std::uint32_t offset, std::function<void(std::uint64_t)> done);

  void on_write(const pcie::Tlp& t) override;
  void on_completion(const pcie::Tlp& t) override;
  bool busy() const override;
  std::string status() const override;
  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;

  std::uint64_t cycles() const { return m_cycle_count; }
  // Verilator's own rate for this design: `cycles` clock cycles of the bare
  // model (no adapter, no kernel), streaming F2H beats; cycles per wall second.
  static double raw_cycles_per_s(std::uint64_t cycles);
  // Test hook: corrupt the next requester beat the checker sees.
  void inject_violation() { m_inject = true; }
  Counter rtl_cycles, rtl_tlps, h2f_packets;

 private:
  struct Impl;
  struct Beat {
    bool sop = false, eop = false;
    std::uint8_t type = 0;
    std::uint32_t addr = 0, len = 0, chan = 0, tag = 0;
    std::array<std::uint8_t, kBytes> data{};  // the beat's bytes, zero beyond the packet's end
  };
  struct F2hPacket {
    int ch;
    std::uint32_t bytes;
    std::uint64_t stream, off, ring_addr;
    std::uint32_t written = 0;
    Ledger* led = nullptr;  // a timed packet's, from send()
  };
  struct H2fState {
    std::uint32_t bytes = 0;         // written by the host since the last header
    std::uint64_t stream = 0, off = 0;
    bool have_first = false;
    Ledger* led = nullptr;           // released: its timed header's
  };
  void cq_write(std::uint32_t addr, const std::vector<std::uint8_t>& bytes);
  void wake();
  bool tick();  // true: the next cycle is due at once
  void start_rq();
  void finish_rq();
  bool is_update(std::uint64_t addr, std::uint32_t len) const;
  void start_h2f(int ch, std::uint32_t len);
  void finish_h2f();

  std::string m_name;
  CalypteRtlConfig m_cfg;
  rtl::GatedClock m_clock;
  std::unique_ptr<Impl> m_impl;
  int m_s_rq = -1;
  std::deque<Beat> m_cq, m_f2h;
  std::deque<F2hPacket> m_f2h_packets;   // sent, not fully written to the host
  struct Ring {
    std::uint64_t base = 0, size = 0, wptr = 0, f2h_update = 0, h2f_update = 0;
    std::deque<Ledger*> written;  // packets all written, their pointer update to come: their ledgers
  };
  std::vector<Ring> m_ring;
  std::vector<H2fState> m_h2f;
  std::deque<std::pair<int, H2fState>> m_h2f_expect;  // released packets, in header order
  std::vector<std::function<void(std::uint64_t)>> m_csr_reads;  // by tag
  // requester beat assembly
  bool m_rq_open = false;
  std::uint64_t m_rq_addr = 0;
  std::uint32_t m_rq_len = 0;
  std::vector<std::uint8_t> m_rq_bytes;
  std::uint64_t m_rq_stream = 0, m_rq_off = 0;
  // H2F output assembly: the packet being delivered
  std::vector<std::uint8_t> m_h2f_bytes;
  H2fState m_h2f_cur;
  std::uint32_t m_h2f_len = 0;
  StreamChecker m_chk_cq, m_chk_rq, m_chk_f2h, m_chk_h2f;
  std::uint64_t m_cycle_count = 0;
  bool m_inject = false;
};

}  // namespace hx::dma
