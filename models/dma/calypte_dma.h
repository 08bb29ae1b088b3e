// Behavioural model of DMA Calypte (CESNET NDK, S004), low-latency DMA.
// F2H (RX DMA): a packet from user logic passes the controller's pipeline
// (f2h_cycles), is cut into segment_B (128 B) MWr to the channel's ring
// buffer in host memory, never across a 4 KiB boundary, then one 8 B MWr
// updates the channel's pointers in host memory.
// H2F (TX DMA): the host writes the packet into the controller's BAR with
// write-combining, fences, then writes the 8 B DMA header; the header
// releases the packet to user logic after h2f_cycles, and the controller
// writes its updated read pointers (8 B) back to host memory.
// Both per-channel; channels share the bus. Ring sizes are per channel.
// Simplification: an H2F packet is the bytes in its channel's window when
// the header is handled (h2f_cycles after it arrives), not those written
// before the header: a second packet written within that time joins the
// first. The drivers and workloads send one packet at a time.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "models/core/scheduler.h"
#include "models/dma/dma_util.h"
#include "models/pcie/endpoint.h"

namespace hx::dma {

struct CalypteConfig {
  double clock_mhz = 250.0;
  int f2h_cycles = 20;
  int h2f_cycles = 20;
  int segment_B = 128;
  int channels = 16;
  int bus_bits = 256;
  bool rtl = false;   // run the synthesizable RTL (models/dma/rtl) instead of this model
  std::string wave;   // RTL only: VCD file of its signals
  int user_ready_every = 1;  // RTL only: user logic takes an H2F beat one cycle in N
};

// BAR0 offsets (the RTL engine's hx_dma_pkg has the same map)
constexpr std::uint64_t kCalypteH2FData = 0x100000;    // 1 MiB per channel window
constexpr std::uint64_t kCalypteH2FHeader = 0x80000;   // 8 B per channel
constexpr std::uint64_t kCalyptePointerStream = 0x9017ull;  // pattern of pointer-update payloads

// Where the next F2H packet of `bytes` goes in a ring of `size` bytes whose
// write offset is `wptr`: packets start on 64 B lines and never wrap inside
// the ring (one that would pass the end starts at 0). Advances wptr and
// returns the packet's offset.
inline std::uint64_t calypte_ring_place(std::uint64_t& wptr, std::uint64_t size, std::uint32_t bytes) {
  if (wptr + bytes > size) wptr = 0;
  const std::uint64_t at = wptr;
  wptr += (bytes + 63) / 64 * 64;
  return at;
}

// A pointer-update write (8 B to the host); its payload travels as the
// pattern kCalyptePointerStream at `value`.
inline pcie::Tlp* calypte_pointer_update(pcie::Endpoint& ep, std::uint64_t addr, std::uint64_t value) {
  pcie::Tlp* u = ep.make(pcie::TlpKind::MemWr);
  u->addr = addr;
  u->addr64 = pcie::needs_addr64(addr);
  u->len = 8;
  u->data_stream = kCalyptePointerStream;
  u->data_off = value;
  u->checksum = pattern_checksum(kCalyptePointerStream, value, 8);
  return u;
}

// What user logic and the driver see of a Calypte engine, behavioural or RTL.
class CalypteApi {
 public:
  virtual ~CalypteApi() = default;
  // Host side of channel `ch`: ring buffer and pointer-update address.
  virtual void set_f2h_ring(int ch, std::uint64_t base, std::uint64_t size, std::uint64_t update_addr) = 0;
  virtual void set_h2f_update(int ch, std::uint64_t update_addr) = 0;
  // User logic sends a packet toward the host; returns its ring address.
  // With `led` (a timed round trip's ledger), the packet's pointer update
  // carries a copy on: the write that tells the host the packet is there.
  virtual std::uint64_t send(int ch, std::uint32_t bytes, std::uint64_t stream, std::uint64_t off,
                             const Ledger* led = nullptr) = 0;
  // Packet delivered to user logic by H2F: (channel, bytes, time, the
  // ledger its releasing header write carried, accounted for up to the
  // delivery; nullptr when the header was not timed).
  std::function<void(int, std::uint32_t, Tick, const Ledger*)> on_h2f_packet;
  // Whether the engine carries ledgers through (the behavioural model; the
  // RTL engine's cycles are not broken down by stage).
  virtual bool carries_ledgers() const = 0;
};

class CalypteDma final : public pcie::Device, public CalypteApi, public Actor {
 public:
  CalypteDma(const std::string& name, const CalypteConfig& cfg);
  void attach(pcie::Endpoint& ep) override;
  void set_f2h_ring(int ch, std::uint64_t base, std::uint64_t size, std::uint64_t update_addr) override;
  void set_h2f_update(int ch, std::uint64_t update_addr) override;
  std::uint64_t send(int ch, std::uint32_t bytes, std::uint64_t stream, std::uint64_t off,
                     const Ledger* led = nullptr) override;
  bool carries_ledgers() const override { return true; }

  void on_write(const pcie::Tlp& t) override;
  void on_completion(const pcie::Tlp& t) override;
  bool busy() const override { return m_inflight > 0; }
  std::string status() const override;
  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;

 private:
  struct Chan {
    std::uint64_t ring = 0, ring_size = 0, wptr = 0, f2h_update = 0;
    std::uint64_t h2f_update = 0, h2f_bytes = 0;
    Ledger* h2f_led = nullptr;  // the timed header's, until its packet is delivered
  };
  std::string m_name;
  CalypteConfig m_cfg;
  Tick m_cycle;
  int m_s_f2h = -1, m_s_upd = -1;
  std::vector<Chan> m_ch;
  int m_inflight = 0;
};

}  // namespace hx::dma
