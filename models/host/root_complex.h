// Root complex with its root ports, host bridge and memory controller.
// Mechanisms:
//  - inbound posted writes pass an IIO pipeline (inbound_latency) into a
//    posted-write buffer of finite entries; a full buffer withholds credits,
//    so slow memory (partial-line RMW) back-pressures the link;
//  - every inbound cache line, read or written, passes one shared coherent
//    line pipeline (line_interval per line: the IIO's rate of coherent
//    transactions), then the memory controller;
//  - inbound reads wait for older posted writes to commit (PCIe ordering:
//    a read must not pass a posted write), then fetch their lines no faster
//    than one per read_line_interval per request;
//  - one transaction per line at a time: a posted write takes a line that
//    an older read is still fetching only when the read has its data (an
//    address conflict), and the writes behind it commit no sooner;
//  - completions are built when the root port can transmit, from the lines
//    ready at that moment: contiguous ready data up to the completion size
//    limit and MPS, cut at RCB boundaries. A request whose lines trickle in
//    leaves as 64 B completions; one whose lines wait behind a busy link
//    coalesces into MPS-sized ones;
//  - MWr to the MSI window becomes an interrupt to the host CPU model;
//  - requests to another root port's hierarchy (or back down the same port,
//    after an ACS redirect) are forwarded only if peer-to-peer is enabled;
//  - core MMIO reads/writes leave through the root port owning the address;
//  - every inbound request goes where the address map (core/address_map.h)
//    sends it: DRAM, the MSI page or a root port's window;
//  - transmit queues and read jobs per (root port, VC), one VC chosen per
//    transmission by the port's VC arbitration;
//  - with the IOMMU on (models/ats/iommu.h), every untranslated DMA to DRAM
//    is remapped first; a request leaves the translation stage when its
//    translation is ready, but never before an older posted request does
//    (writes stay in order, and nothing passes a write), so a miss stalls
//    only what the ordering rules say it must. ATS translation requests are
//    answered from the same IOMMU; translated requests (AT=10b) bypass it.
//  - messages of a code a protocol layer registered (CCIX on VC1) go to
//    that layer as they arrive, past the inbound pipeline;
//  - with atomic_completer, AtomicOps (FetchAdd, Swap, CAS; PCIe sec. 6.15)
//    to DRAM are completed here: ordered behind older posted writes like a
//    read, their line read through the line pipeline, the operation applied
//    to the real bytes when the data is there, the whole line written back,
//    and the original value returned in one completion;
//  - with read_trackers > 0, an inbound read of memory takes one of that
//    many read trackers when it reaches the root complex (after the inbound
//    pipeline) and holds it through its translation and its memory reads
//    until its last completion leaves; reads that find none free wait in
//    arrival order, still holding their link credits (back-pressure). A
//    translation miss then costs the read rate its walk in full: while the
//    missed read holds its tracker, the hits behind it cannot use it.
//  - with a root complex on each of several sockets (connect_socket), each
//    socket's LLC holds lines of any home. A DMA read that this socket's
//    LLC holds is served here; one homed here that another socket's LLC
//    holds is snooped there and forwarded (the route's latency, the
//    snooped LLC's llc_forward, the line back); one homed on another
//    socket is read in that socket's memory controller across the socket
//    links of the route to it (socket_link.h): its request crosses each
//    (latency), the home reads memory as it looks the line up (no
//    llc_miss), and its line comes back over each (a slot each way and
//    latency). A DMA write leaves every other socket's LLC; with an LLC
//    here (DDIO) it goes into it, after a request for ownership to a
//    remote home and its acknowledgement (latency each way) unless this
//    LLC holds the line already; without one its line crosses each link
//    to the home's memory and its acknowledgement comes back. Core MMIO to
//    a device below another socket's root complex crosses to it, and this
//    root complex's interrupts and MMIO completions cross to the host's
//    cores (on socket 0) on their way.
// Simplifications: the LLC holds tags only (memory.h) and no data comes from
// a core's cache; the posted-write buffer and read trackers are shared by
// all VCs; AtomicOps take no read tracker and are not ordered against each
// other beyond the memory's own line order; a remote home serves a line
// from its LLC or its memory alike and snoops no third socket's LLC (of
// several LLCs holding a line homed here, the lowest socket's forwards
// it), the request for ownership and the snoop take no link slot, the
// host's memory contents are one store (socket 0's controller's), and a
// socket that passes a line on to the next link adds no time of its own.

#pragma once
#include <systemc>
#include <array>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <queue>
#include <vector>

#include "models/ats/iommu.h"
#include "models/core/address_map.h"
#include "models/core/line_holds.h"
#include "models/core/scheduler.h"
#include "models/core/slot_calendar.h"
#include "models/host/socket_link.h"
#include "models/memory/memory.h"
#include "models/pcie/message.h"
#include "models/pcie/port.h"
#include "models/pcie/routing.h"

namespace hx::host {

using pcie::Tlp;

struct RootComplexConfig {
  Tick inbound_latency = 100 * kNs;
  Tick outbound_latency = 100 * kNs;
  Tick completion_latency = 0;       // memory data ready -> completion queued
  Tick read_line_interval = 10 * kNs;
  Tick line_interval = 5 * kNs;
  int cpl_max_B = 256;
  int rcb_B = 64;
  int cpl_combine_min_B = 0;  // requests touching fewer lines than this get one completion per RCB
  int posted_buffer = 64;
  int read_trackers = 0;  // inbound memory reads in flight at once (0 = unlimited)
  bool p2p = true;
  bool atomic_completer = false;  // AtomicOps on DRAM completed here (sec. 6.15); off: one is an error
  std::uint64_t dram_base = 4ull << 30, dram_size = 1ull << 36;  // the rc_params defaults
  std::uint64_t msi_base = 0xfee00000ull;
  int socket = 0;  // the socket it is on (the host's cores are on socket 0)
  std::vector<pcie::PortConfig> ports;
  std::vector<pcie::PortRoute> routes;
  mem::MemoryConfig memory;
  ats::IommuConfig iommu;
};

// What the root complex tells the host CPU model.
class HostSide {
 public:
  virtual ~HostSide() = default;
  // A DMA write visible to the cores from `commit`; `led`, the write's
  // latency ledger when a workload times it, accounted for up to `commit`.
  virtual void on_memory_write(std::uint64_t addr, std::uint32_t len, Tick commit, const Ledger* led) = 0;
  virtual void on_msi(std::uint32_t vector, Tick at) = 0;
  virtual void on_mmio_completion(const Tlp& t, Tick at) = 0;
};

class RootComplex final : public sc_core::sc_module, public pcie::PortOwner, public Actor {
 public:
  RootComplex(sc_core::sc_module_name name, const RootComplexConfig& cfg);
  pcie::PciePort& root_port(std::size_t i) { return *m_ports[i]; }
  std::size_t num_ports() const { return m_ports.size(); }
  mem::MemoryController& memory() { return m_mem; }
  const AddressMap& address_map() const { return m_map; }
  ats::Iommu* iommu() { return m_iommu.get(); }
  void attach_host(HostSide* h) { m_host = h; }
  const RootComplexConfig& config() const { return m_cfg; }

  // A core sends an MMIO request (MWr/MRd to a device BAR).
  void issue_mmio(Tlp* t);
  // Inbound messages of `code` go to `h` as they arrive, past the inbound
  // pipeline (CCIX on VC1: the host's CCIX port is not the IIO's path).
  void add_message_handler(std::uint16_t code, pcie::MessageHandler* h);
  // A message TLP (MsgD, routed by ID to `target`) to send on root port
  // `port` with send_message once filled in.
  Tlp* make_message(int port, pcie::Rid target);
  void send_message(int port, Tlp* t, Tick ready);
  // The IOMMU driver invalidates [va, va+len): the IOTLB at once, then the
  // ATC of function `rid` by an invalidate request message; `done` runs
  // when its invalidate completion arrives.
  void ats_invalidate(pcie::Rid rid, std::uint64_t va, std::uint64_t len, std::function<void(Tick)> done);
  bool idle() const;
  // A socket link crossed from socket `from` (one of its ends).
  struct SocketHop {
    SocketLink* link = nullptr;
    int from = 0;
  };
  // The root complex of another socket, across the socket links of
  // `route` (from this socket to its, in order): lines of its DRAM are read
  // and written in its memory controller, and core MMIO to its root ports'
  // windows is handed to it. Call on every pair both ways, before the run.
  void connect_socket(RootComplex& peer, const std::vector<SocketHop>& route);
  // For a core of this socket (the host's cores on socket 0, its far ones
  // on socket 1): when a line it fetches at `t` is here, crossing the
  // route to the line's home socket and back if that is another (the
  // line comes from that socket's cache, not its DRAM); and when a posted
  // store it sends at `t` toward socket `to` goes on the first link's wire,
  // in order behind the lines queued there (socket_link.h; `t` if `to` is
  // this socket).
  Tick fetch_line(std::uint64_t addr, Tick t);
  Tick store_toward(int to, Tick t);
  // The caches as a DMA write of [addr, addr+len) through this root
  // complex leaves them, at no time and with nothing else of the write (a
  // long run's earlier transactions): its lines in this socket's LLC
  // (DDIO) and in no other socket's.
  void dma_written(std::uint64_t addr, std::uint64_t len);
  // The host's memory contents: `s` (socket 0's) instead of this root
  // complex's own controller's.
  void share_store(mem::SparseMemory& s) { m_data = &s; }
  mem::SparseMemory& data() { return *m_data; }

  pcie::Tlp* tx_select(pcie::PciePort& p) override;
  void rx_arrive(pcie::PciePort& p, Tlp* t, Tick head, Tick tail) override;
  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;

  Counter writes, reads, completions, msis, p2p_forwarded, write_bytes, read_bytes, tracker_waits, atomics;

 private:
  void admit(Tlp* t, int port);
  void enter(Tlp* t, int port);
  void free_tracker();
  void arrive(Tlp* t, int port);
  void inbound(Tlp* t, int port);
  void serve_ats(Tlp* t, int port, const ats::Iommu::Result& r);
  void accept_write(Tlp* t, int port);
  void dispatch(Tlp* t, int port);
  void forward_p2p(Tlp* t, int port);
  // Where an address goes (DRAM of each socket, the MSI page, each root
  // port's windows); the last range found is kept, as most requests in a
  // row go to the same one.
  AddressTarget target_of(std::uint64_t a) const {
    if (!m_last_range || !m_last_range->contains(a)) m_last_range = m_map.find(a);
    return m_last_range ? m_last_range->target : AddressTarget{};
  }
  bool is_dram(const Tlp& t) const { return target_of(t.addr).kind == AddressTarget::Kind::Dram; }
  void serve_read(Tlp* t, int port);
  // A line read or write (of part of one line) of DRAM at `t`, as the
  // sockets' LLCs and the memory of the socket that homes it serve it:
  // when its data is here (a read) or it is committed and this root
  // complex knows it (a write).
  Tick read_home(std::uint64_t line, Tick t);
  Tick write_home(std::uint64_t addr, std::uint32_t len, Tick t);
  // Per socket: the memory controller that homes its DRAM, its root
  // complex, and the links to it (none for this socket's own and for the
  // two-node memory model), with their latencies' sum.
  struct Home {
    mem::MemoryController* mem = nullptr;
    RootComplex* rc = nullptr;
    std::vector<SocketHop> route;
    Tick latency = 0;
  };
  std::vector<Home> m_homes;
  Tick line_back(const Home& h, Tick t);
  // A DMA write through this root complex took the line: every other
  // socket's LLC drops it.
  void leave_other_llcs(std::uint64_t line);
  bool m_sockets = false;     // connected to another socket's root complex
  Tick m_host_distance = 0;   // from here to the host's cores (socket 0)
  mem::SparseMemory* m_data = nullptr;
  void serve_atomic(Tlp* t, int port);
  void enqueue(int port, Tlp* t, Tick ready);
  int port_for_addr(std::uint64_t a) const;
  Tick line_slot(Tick t);
  struct ReadJob {
    Tlp* req;
    std::uint64_t next, end, first_line;
    std::vector<Tick> line_ready;
    std::uint64_t seq;
    // With a timed request (a ledger): per line its line-pipeline slot and
    // memory data time, and the line (up to it) that made it ready last.
    std::vector<Tick> line_slot, line_data;
    std::vector<std::uint32_t> line_crit;
  };
  std::uint64_t completion_end(pcie::PciePort& p, const ReadJob& j, Tick now, Tick& wake) const;
  Tlp* make_completion(ReadJob& j, std::uint64_t stop, Tick now);

  RootComplexConfig m_cfg;
  AddressMap m_map;
  mutable const AddressMap::Range* m_last_range = nullptr;
  Scheduler m_sched;
  mem::MemoryController m_mem;
  std::vector<std::unique_ptr<pcie::PciePort>> m_ports;
  // Per root port and VC: the transmit queue of each class and the read
  // jobs whose completions it sends, so one VC never waits behind another;
  // the port's vc_arbitration chooses among VCs.
  int m_vcs = 1;
  std::vector<std::vector<std::array<std::deque<Tlp*>, pcie::kFcClasses>>> m_txq;
  std::vector<std::vector<std::deque<ReadJob>>> m_reads;
  std::vector<std::unique_ptr<pcie::VcArbiter>> m_arb;
  Tlp* select_vc(pcie::PciePort& p, int vc, Tick now, Tick& wake);
  SlotCalendar m_lines;
  void retire_writes();
  std::deque<std::pair<Tlp*, int>> m_posted_wait;  // requests behind a write waiting for an entry
  std::deque<std::pair<Tlp*, int>> m_tracker_wait;  // reads waiting for a read tracker, oldest first
  Occupancy m_trackers;  // read trackers taken
  int m_posted_inflight = 0;
  std::priority_queue<Tick, std::vector<Tick>, std::greater<Tick>> m_commits;  // posted-buffer entries in flight
  Tick m_last_write_commit = 0;
  LineHolds m_reading;  // lines an inbound read is fetching, until its data is there
  std::unique_ptr<ats::Iommu> m_iommu;
  std::vector<Tick> m_posted_release;
  std::map<std::uint16_t, std::function<void(Tick)>> m_invalidations;  // ITag -> done
  std::uint16_t m_itag = 0;  // per root port: when its youngest posted request leaves translation
  std::uint64_t m_seq = 0;
  std::uint16_t m_mmio_tag = 0;
  HostSide* m_host = nullptr;
  std::map<std::uint16_t, pcie::MessageHandler*> m_handlers;  // message code -> the layer that takes it
};

}  // namespace hx::host
