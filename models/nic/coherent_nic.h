// A NIC on the socket interconnect (S002): the NIC's engine is a core of
// the second socket, and everything the host and the NIC tell each other
// is a coherent line moving between their caches. The host's cores and the
// NIC's cores are caching agents of a SocketSystem; this model is the
// software (driver and NIC firmware) that runs on them.
//
// Per queue: a TX ring the host writes and the NIC reads, an RX ring the
// NIC writes and the host reads; each ring is `ring` descriptor lines of
// `per_line` descriptor slots, one packet buffer per slot (its lines), and
// a head line in which the ring's reader reports how far it has read (the
// writer looks at it only when the ring seems full). Each packet goes out
// on a host core (the TX core), is looped back by a NIC core, and comes in
// on another host core (the RX core), which times it from when it was due.
//
// How a writer tells its reader that descriptors are ready:
//  - registers (E810 ported to UPI): the descriptors, then a tail line
//    holding the number written; the reader polls the tail, then reads the
//    descriptors it announces;
//  - inline (CC-NIC): the descriptor lines carry the signal themselves and
//    the reader polls the next descriptor line (one line transfer fewer per
//    batch).
// Where descriptors lie in their lines (`per_line` of them to a line):
//  - grouped (CC-NIC's layout): each write of descriptors starts a line of
//    its own, and the rest of its last line stays empty; one signal per
//    line (its last descriptor's number and how many it holds). A line is
//    written once per lap of the ring;
//  - packed: back to back, so that a line is written again by the next
//    batch while its reader may hold it. With inline signalling each
//    descriptor has a ready flag of its own, which its reader clears once
//    it has taken the packet (a store of those bits of the line: the
//    reader writes into the writer's lines, and under low load a line goes
//    back and forth for every descriptor). With tail registers the layout
//    is always packed.
// A writer stores a packet's buffer lines, all at once, then (once they are
// done) its descriptor line: so a reader that sees a descriptor sees its
// packet (the order x86-TSO gives the same two stores). A reader loads a
// packet's lines all at once. Each core's accesses and polls are a
// coherence::CoreThread's.
//
// Packet buffers:
//  - one per descriptor slot (the default): a packet goes into its slot's
//    buffer, whose lines its ring's reader read a lap before;
//  - shared pools (CC-NIC): each side keeps a pool of free buffers, and a
//    descriptor names the buffer its packet is in. A reader puts each
//    buffer it has dealt with into its own side's pool, and a writer takes
//    the one it freed last: the NIC writes a received packet into a
//    buffer it has just read a packet from, and the host's TX core into
//    one its RX core has just read (on its own socket), instead of into
//    lines last read on the other socket (a read leaves the line's last
//    writer a shared copy, so the other socket may hold one either way:
//    docs/calibration.md has what this changes). Each pool starts with twice a ring's
//    slots; both pools lie where the TX ring's buffers would. A host TX
//    core that finds its pool short waits until its RX core frees some.
//    The pools are each side's private lists: what managing them costs
//    (a host's two cores share theirs) is not modelled.
// Simplifications in this version: host and NIC processing are fixed
// times per packet; a descriptor's buffer is carried beside its line's
// value (the engine keeps one word a line). With no store buffer in the
// cores (sockets.store_buffer: 0) each batch's stores are done before the
// software goes on; with one they overlap what follows (design note 88).
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "models/coherence/socket.h"
#include "models/core/stats.h"
#include "models/nic/traffic.h"

namespace hx::nic {

enum class Layout { Grouped, Packed };  // where descriptors lie in their lines (above)

struct CoherentNicConfig {
  Traffic traffic;             // its ring: descriptor lines per ring
  bool inline_signal = true;   // CC-NIC; false: tail registers (E810 on UPI)
  int per_line = 1;            // descriptors per descriptor line (1-4)
  Layout layout = Layout::Grouped;  // Packed only, with tail registers
  bool writer_homed = true;    // each ring, its buffers and tail homed at its writer; false: at its reader
  bool pools = false;          // buffers from shared pools (above); false: one per descriptor slot
  Tick poll_loop = 10 * kNs;   // a polling loop's iteration
  Tick host_per_packet = 20 * kNs;  // driver work per packet, TX and RX each
  Tick nic_per_packet = 20 * kNs;   // NIC engine work per packet
  int nic_socket = 1;               // the socket of the NIC's engine cores (the host's: socket 0)
};

class CoherentNic {
 public:
  // Host cores 2q (TX) and 2q+1 (RX) of socket 0, NIC core q of socket
  // nic_socket (1 by default), for queue q.
  CoherentNic(const std::string& name, const CoherentNicConfig& cfg, coherence::SocketSystem& sys);
  ~CoherentNic();
  // Each ring object (descriptors, buffers, tail, head; of two rings per
  // queue) lies in a region of its own of a socket's DRAM: a ring's
  // buffers must fit in one, and a socket must hold every queue's.
  static constexpr std::uint64_t kRegionB = 64ull << 20;
  static constexpr std::uint64_t kRegionsPerQueue = 8;
  // The bytes of a ring's buffers (with pools: of a queue's two pools).
  static std::uint64_t buffer_bytes(const CoherentNicConfig& c);
  void start();  // spawns the cores' loops (from a SystemC process or before sc_start)
  bool done() const;
  double progress() const;
  const CoherentNicConfig& config() const { return m_cfg; }
  // Packets received by the host, their latency from when each was due.
  const Histogram& latency() const { return m_timing.latency(); }
  // First packet due to last packet received, for the timed packets.
  Tick span() const { return m_timing.span(); }
  std::uint64_t received() const { return m_timing.count(); }
  // Where the timed packets' time went, step by step (design note 79).
  const Breakdown& breakdown() const { return m_breakdown; }
  // The batches the host's TX cores and the NIC's cores wrote, all queues,
  // warm-up included: packets sent over these is a batch's mean size.
  std::uint64_t host_batches() const { return m_host_batches; }
  std::uint64_t nic_batches() const { return m_nic_batches; }

 private:
  struct Ring;
  struct Queue;
  void host_tx(Queue& q);
  void nic_loop(Queue& q);
  void host_rx(Queue& q);
  CoherentNicConfig m_cfg;
  std::string m_name;
  coherence::SocketSystem& m_sys;
  std::vector<std::unique_ptr<Queue>> m_queues;
  LoopTiming m_timing;
  Breakdown m_breakdown;
  std::uint64_t m_host_batches = 0, m_nic_batches = 0;
};

}  // namespace hx::nic
