// Behavioural model of a Coyote-style shell (S003): host streams moving a
// buffer host -> user logic -> host on virtual addresses, translated by an
// FPGA-side MMU.
// Mechanisms:
//  - a transfer (source, destination, length; virtual addresses) arrives as
//    a host MMIO invocation and is cut into page-sized packets of at most
//    `pmtu` bytes, never across a 4 KiB boundary; at most `outstanding`
//    packets are in flight;
//  - every packet's source and destination pages are translated by the MMU
//    in order: a small-page TLB (4 KiB) and a large-page TLB (2 MiB), set
//    associative with LRU; a buffer backed by pages of 2 MiB or more uses the
//    large-page TLB in 2 MiB entries; a miss stops the MMU, raises an MSI,
//    and waits for the host driver to write the translation into the fill
//    register (interrupt, driver work and an MMIO write: host side, see the
//    `coyote_perf` workload); a buffer of mapped memory has its
//    translations installed when it is mapped;
//  - a packet's data is read with MRRS-sized requests and streams into the
//    user logic as it arrives, one `bus`-wide beat a cycle; packets pass the
//    stream in order, and a transfer's first packet enters it only
//    `xfer_gap_cycles` after the previous transfer's last beat (the stream
//    takes one transfer at a time); once all of a packet is through, it
//    passes the loopback (`loop_cycles`) and is written to the destination
//    in MPS-sized writes;
//  - when the last write of a transfer has left, after `done_cycles`, the
//    shell writes the transfer's completion count (8 B) into its slot of a
//    4 KiB writeback ring in host memory, which the host polls.
// Simplifications: one host stream, one virtual address space; TLB entries
// are filled from the mapping the driver registered (`map`), one fill per
// miss; the user logic adds latency but never back-pressures.
#pragma once
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "models/ats/tlb.h"
#include "models/core/scheduler.h"
#include "models/dma/dma_util.h"
#include "models/pcie/endpoint.h"

namespace hx::dma {

struct CoyoteConfig {
  double clock_mhz = 250.0;
  int pmtu_B = 4096;
  int outstanding = 16;
  int cmd_cycles = 20;    // invocation register write to the first packet
  int loop_cycles = 8;    // user logic loopback per packet
  int done_cycles = 8;    // last write out to the writeback
  int bus_B = 64;         // user logic stream width: one beat per cycle
  int xfer_gap_cycles = 0;  // a transfer enters the stream this long after the previous one's last beat
  ats::TlbConfig stlb{1024, 4, 0};
  ats::TlbConfig ltlb{512, 2, 0};
  int tlb_cycles = 2;     // one translation, hit
  std::uint32_t msi_vector = 7;
  // The host driver's side (run by the coyote_perf workload's threads).
  int invoke_writes = 4;  // 8 B UC register writes per invocation
  Tick driver_miss = 2 * kUs;  // driver work per TLB miss after the interrupt
};

// BAR0 registers
constexpr std::uint64_t kCoyoteInvoke = 0x1000;     // the last word of an invocation starts it
constexpr std::uint64_t kCoyoteTlbFill = 0x2000;    // the driver's answer to a TLB miss

class CoyoteDma final : public pcie::Device, public Actor {
 public:
  CoyoteDma(const std::string& name, const CoyoteConfig& cfg);
  void attach(pcie::Endpoint& ep) override;
  // The driver's view of a host buffer: virtual = physical here, backed by
  // pages of 2^page_shift. The driver also writes the translations of its
  // first `install` bytes into the TLBs now (Coyote's mapped memory, the
  // bytes it allocated), so that the first transfers do not miss; a TLB
  // smaller than that keeps the pages installed last.
  void map(std::uint64_t addr, std::uint64_t len, unsigned page_shift, std::uint64_t install = 0);
  void set_writeback(std::uint64_t addr) { m_writeback = addr; }
  // Queue a transfer; it starts when the host's invocation register write
  // (kCoyoteInvoke) arrives.
  void post(std::uint64_t src, std::uint64_t dst, std::uint32_t len);
  std::uint64_t completed() const { return m_completed; }

  void on_write(const pcie::Tlp& t) override;
  void on_completion(const pcie::Tlp& t) override;
  void on_tx_space(int stream) override;
  void on_sent(const pcie::Tlp& t, Tick start, Tick end) override;
  bool busy() const override { return !m_xfers.empty() || !m_posted.empty(); }
  std::string status() const override;
  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;

  Counter tlb_misses, packets, writebacks;

 private:
  struct Xfer {
    std::uint64_t src, dst;
    std::uint32_t len;
    std::uint32_t cut = 0;        // bytes cut into packets so far
    std::uint32_t written = 0;    // bytes whose writes have left
    std::uint64_t seq = 0;
    Ledger* led = nullptr;        // a timed invocation's, from its register write on
  };
  struct Packet {
    std::uint64_t id;
    std::uint64_t seq;            // its transfer
    std::uint64_t src, dst;
    std::uint32_t len, requested = 0, got = 0;
    Tick translated = 0;          // its pages' translations are done: its reads may leave
    Tick first_data = 0;          // its first completion arrived
    bool first = false, last = false;  // its transfer's first and last packet
    bool streamed = false;        // its data has passed into the user logic
    // A timed transfer's packet: from its translation on, then its last
    // completion's, then carried by its last write (the critical path).
    Ledger* led = nullptr;
  };
  void advance();
  bool translate(std::uint64_t va, Tick& ready);
  bool large_page(std::uint64_t va) const;
  void fill(std::uint64_t va, bool large, Tick ready);  // install the translation of va's page
  void request_reads();
  void enter_user_logic();
  void write_back(Packet& p);
  Xfer* xfer(std::uint64_t seq);

  std::string m_name;
  CoyoteConfig m_cfg;
  Tick m_cycle;
  ats::Tlb m_stlb, m_ltlb;
  struct Mapping {
    std::uint64_t addr, len;
    unsigned shift;
  };
  std::vector<Mapping> m_maps;
  std::deque<Xfer> m_posted;      // waiting for their invocation
  std::deque<Xfer> m_xfers;       // running, oldest first
  std::deque<Packet> m_packets;   // in flight, oldest first
  std::uint64_t m_next_seq = 0, m_completed = 0, m_writeback = 0;
  std::uint64_t m_miss_va = 0;
  bool m_missing = false;         // the MMU waits for the driver
  Tick m_mmu_free = 0;            // the MMU translates one page at a time
  Tick m_stream_free = 0;         // the user logic stream takes its next beat
  Tick m_xfer_gate = 0;           // the next transfer's first beat, at the earliest
  Tick m_mmu_busy = 0, m_stream_busy = 0;  // their busy time (resources)
  Tick m_miss_at = 0;                      // when the MMU stopped for the miss it waits on
  Tick m_xlate_from = kNever;              // the MMU began the packet whose translation missed
  int m_s_rd = -1, m_s_wr = -1;
  std::vector<std::int64_t> m_tags;  // tag -> packet id, -1 free
  std::uint64_t m_next_packet = 0;
  Packet* packet(std::uint64_t id);
};

}  // namespace hx::dma
