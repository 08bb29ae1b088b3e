// A NIC on PCIe (S002's baselines: the ConnectX-6 and the E810 are two
// parameter sets of this one model), and the driver that runs it on host
// cores.
//
// Per queue, in host memory: a TX ring of descriptors with a packet buffer
// per descriptor and a write-back line; an RX ring of descriptors with a
// buffer per descriptor and a completion ring. Descriptors, completions and
// doorbells are real bytes: the NIC learns a buffer's address only by
// reading its descriptor, and the driver learns of a packet only from its
// completion.
//
// The NIC (PcieNic, the device logic behind an endpoint):
//  - doorbells: each queue's TX and RX tail registers, written by UC or WC
//    stores; with push_desc, the TX descriptors themselves arrive by WC
//    store into the queue's push window (ConnectX's BlueFlame) and are not
//    fetched;
//  - descriptors are fetched by DMA read, up to desc_fetch per read (never
//    across the ring's end), then each packet's bytes (reads of at most
//    MRRS, never across 4 KiB); at most max_reads reads are in flight, the
//    descriptor reads first;
//  - each packet leaves in ring order once its bytes are all in: the
//    queue's TX engine (per_packet), the TX pipeline, the wire at line rate
//    (preamble, FCS and gap included; one port for all queues), the
//    loopback, the RX pipeline;
//  - every tx_wb_every TX descriptors it writes the count done into the
//    queue's write-back line (E810's head write-back, ConnectX's TX
//    completion);
//  - receiving: RX descriptors are fetched as the driver posts them, up to
//    rx_cache ahead, a whole read (desc_fetch) at a time; a packet goes to the next one: the queue's RX engine
//    (per_packet), its bytes by MPS-sized writes, then its completion
//    (cqe_B bytes: its number, its length), then, for a driver that sleeps,
//    an MSI, at most one per irq_interval per queue. A received packet
//    holds its bytes of the NIC's RX packet buffer (rx_buffer bytes, shared
//    by all queues) from its arrival until its completion has left on the
//    link (its data writes leave before it): while it waits for a
//    descriptor, and while its writes wait for the link (posted credits,
//    the write stream). A packet that does not fit is dropped and counted
//    in its queue's drop register. With rx_buffer 0 the buffer is
//    unlimited: as if link flow control paused the sender, nothing is
//    dropped.
//  - per queue q, besides the tail registers, a read-only RX drop counter
//    (8 B at kNicTail + 0x100 q + 0x10).
//
// The driver (PcieNicDriver), two host cores per queue:
//  - TX core: per batch (traffic.h's pacing), the packets and their
//    descriptors written into host memory through the core's memory port
//    (driver_per_packet each, and the port's copy_line per line of a
//    packet), then one doorbell; when the ring is full it
//    polls the write-back line;
//  - RX core: posts the whole ring at start; then polls the next
//    completion (or sleeps until an interrupt), takes up to `batch`
//    packets seen by then, checks each one's bytes in its buffer, copies
//    them out (the port's copy_line per line), and posts
//    the buffers again, ringing the RX doorbell once a quarter ring (at
//    most 32) is posted. A completion names its packet: those it skips
//    were dropped. Once its queue's TX core has sent every packet, an RX
//    core that finds no completion for 10 us reads the queue's drop
//    counter (an MMIO read) and is done when the packets received and
//    dropped are all that were sent.
// Packet k of queue q is bytes [k << 16, (k << 16) + size) of the pattern
// stream kPacketStream + q: the NIC checks what it reads, the driver what
// it receives.
// Simplifications: the wire loops back to the same NIC's receiver (no link
// partner, no other traffic on it); a packet holds RX buffer space for its
// length, from after the RX pipeline; no offloads (checksums, segmentation)
// and no RSS: queue q's packets come back on queue q; the NIC's DMA goes
// to the root complex's memory (its LLC and DDIO), not into the caches of
// a host's coherent `sockets:`.
#pragma once
#include <systemc>
#include <cstdint>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "models/core/scheduler.h"
#include "models/host/host_cpu.h"
#include "models/nic/traffic.h"
#include "models/pcie/endpoint.h"

namespace hx::nic {

struct PcieNicConfig {
  std::uint32_t tx_desc_B = 16;  // TX descriptor (E810: 16 B; ConnectX: a 64 B work queue entry)
  std::uint32_t rx_desc_B = 32;  // RX descriptor
  std::uint32_t cqe_B = 32;      // RX completion (E810: the descriptor written back; ConnectX: a 64 B CQE)
  bool doorbell_wc = false;      // doorbells by WC store and fence; false: UC store
  bool push_desc = false;        // TX descriptors pushed by WC store with the doorbell: no descriptor fetch
  int desc_fetch = 8;            // descriptors per descriptor read at most
  int max_reads = 16;            // DMA reads in flight
  int tx_wb_every = 32;          // TX descriptors per write-back
  int rx_cache = 64;             // RX descriptors held fetched at most
  Tick per_packet = 10 * kNs;    // a queue's TX or RX engine per packet
  Tick tx_pipeline = 250 * kNs;  // a packet's last byte read to its first bit on the wire
  Tick rx_pipeline = 250 * kNs;  // its last bit in to its first write
  double line_Gbps = 100;
  Tick loopback = 10 * kNs;      // wire or PHY loopback back to the NIC's receiver
  Tick irq_interval = 0;         // interrupt moderation: MSIs of a queue at least this far apart
  Tick driver_per_packet = 40 * kNs;  // the driver's work per packet, TX and RX each
  std::uint64_t rx_buffer = 0;   // RX packet buffer (B) for packets waiting for a descriptor; 0: unlimited (flow control)
};

// BAR0 of the NIC: per queue q a TX tail register at kTail + 0x100 q, an
// RX tail register 8 B above it, the RX drop counter 16 B above it, and a
// 4 KiB push window at kPush + 0x1000 q.
constexpr std::uint64_t kNicTail = 0x0;
constexpr std::uint64_t kNicRxDrops = 0x10;
constexpr std::uint64_t kNicPush = 0x10000;
constexpr int kNicMaxQueues = 32;
constexpr std::uint64_t kNicBarBytes = kNicPush + 0x1000ull * kNicMaxQueues;
constexpr std::uint64_t kPacketStream = 0x9acce7ull << 8;

// Where the driver put a queue's rings (programmed at set-up, untimed).
struct NicQueueSetup {
  std::uint64_t tx_ring = 0, tx_wb = 0, rx_ring = 0, rx_cq = 0;
  std::uint32_t ring = 0;  // descriptors per ring
  bool irq = false;        // the driver sleeps until an MSI (vector: the queue's number)
};

class PcieNic final : public pcie::Device, public Actor {
 public:
  PcieNic(const std::string& name, const PcieNicConfig& cfg);
  ~PcieNic() override;
  void attach(pcie::Endpoint& ep) override;
  void setup(int q, const NicQueueSetup& s);
  const PcieNicConfig& config() const { return m_cfg; }

  void on_write(const pcie::Tlp& t) override;
  void on_completion(const pcie::Tlp& t) override;
  bool register_bytes(std::uint64_t addr, std::uint32_t len, std::uint8_t* out) const override;
  void on_tx_space(int stream) override;
  void on_sent(const pcie::Tlp& t, Tick start, Tick end) override;
  bool busy() const override;
  std::string status() const override;
  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;

  Counter tlps_out, doorbells, msis, rx_waits, rx_drops;

 private:
  struct Ring;
  struct Queue;
  struct Req;
  struct Looped;
  void pump();
  bool issue_read(Queue& q, int kind, std::uint64_t first, std::uint32_t n, std::uint64_t addr, std::uint32_t len);
  // Descriptor i of ring r (q.tx or q.rx) has arrived: check its number, keep it.
  void parsed(Queue& q, Ring& r, const char* what, std::uint64_t i, const std::uint8_t* d);
  void transmit(Queue& q);
  void receive(Queue& q);
  void emit(pcie::Tlp* t, Tick at);
  pcie::Tlp* write_bytes(std::uint64_t addr, const std::uint8_t* b, std::uint32_t n);
  std::string m_name;
  PcieNicConfig m_cfg;
  std::vector<std::unique_ptr<Queue>> m_q;
  std::vector<Req> m_reqs;
  int m_in_flight = 0;
  int m_s_read = -1, m_s_write = -1;
  std::deque<std::pair<pcie::Tlp*, Tick>> m_out;  // writes waiting for room in the stream
  Tick m_wire_free = 0;
  std::size_t m_rr = 0;  // the queue the next pump starts with
  // With an RX buffer: the bytes its packets hold, and per packet written
  // out, its completion (which frees them as it leaves) and its length.
  std::uint64_t m_rx_held = 0;
  std::deque<std::pair<const pcie::Tlp*, std::uint32_t>> m_rx_leaving;
};

// The driver's part: its queues' rings in host memory, and its TX and RX
// threads on host cores 2q and 2q + 1.
class PcieNicDriver {
 public:
  // Host memory one queue takes (rings, buffers, write-back line).
  static std::uint64_t queue_bytes(const PcieNicConfig& c, const Traffic& t);
  // `base[q]`: queue q's memory (queue_bytes, 4 KiB aligned); `bar`: BAR0's address.
  PcieNicDriver(const std::string& name, const PcieNicConfig& cfg, const Traffic& t, bool irq, PcieNic& nic,
                host::HostCpu& cpu, std::uint64_t bar, const std::vector<std::uint64_t>& base);
  ~PcieNicDriver();
  void start();
  bool done() const;
  double progress() const;
  const Histogram& latency() const { return m_timing.latency(); }
  Tick span() const { return m_timing.span(); }
  std::uint64_t received() const { return m_timing.count(); }
  // Packets the NIC dropped, as the queues' drop counters said at the end.
  std::uint64_t dropped() const { return m_dropped; }
  std::uint64_t doorbells() const { return m_doorbells; }
  // Where the timed packets' time went, from due to received.
  const Breakdown& breakdown() const { return m_breakdown; }

 private:
  struct Queue;
  void tx(Queue& q, int core);
  void rx(Queue& q, int core);
  void doorbell(Queue& q, int core, std::uint64_t reg, std::uint32_t value, Ledger* led = nullptr);
  std::string m_name;
  PcieNicConfig m_cfg;
  Traffic m_t;
  bool m_irq;
  host::HostCpu& m_cpu;
  std::uint64_t m_bar;
  std::vector<std::unique_ptr<Queue>> m_q;
  LoopTiming m_timing;
  Breakdown m_breakdown;
  std::uint64_t m_doorbells = 0;
  std::uint64_t m_dropped = 0;
};

}  // namespace hx::nic
