// The host's software side: cores running driver and application code.
// Each software thread is one SC_THREAD (never one per transaction). Costs:
//  - system call entry/exit, page pinning per 4 KiB page;
//  - UC MMIO store: the core stalls uc_write_cost per store (UC stores are
//    serialising); WC MMIO: stores combine into 64 B lines, each line costs
//    wc_line_cost and leaves as one MWr; a fence drains the WC buffers;
//  - MMIO read: a full PCIe round trip, the core waits for the completion;
//  - polling a memory location: after the device's write commits, the core
//    sees it on its next poll iteration (uniform phase within poll_period)
//    plus the cache-line transfer (poll_miss), and the socket interconnect's
//    crossing when the line is homed on the other socket than the core;
//  - interrupts: MSI arrival to thread wake-up (irq_latency);
//  - a core on the other socket than the root complex (a thread placed with
//    its memory on the far NUMA node) pays `far_mmio` more per UC MMIO store:
//    the store crosses the socket interconnect before it leaves, in order
//    behind the DMA lines already queued on it (S003's far run: back-to-back
//    transfers of 2-16 KiB cost almost the invocations plus the data);
//  - OS noise: a periodic timer tick on each core stalls whatever the
//    thread is doing by os_tick_cost (the rare multi-microsecond maxima of
//    S004's distributions);
//  - a core runs one thread at a time: a thread spawned on a core another
//    one holds waits for it, in arrival order; a thread holds its core
//    from its start to its end, polling and stalled on MMIO reads
//    included, and gives it up only while it sleeps until an interrupt
//    (wait_msi), taking it back (in turn) to wake.
// Simplifications: no preemption (a thread that never sleeps keeps its
// core; the OS tick stalls it but switches to no other thread) and no
// migration between cores; the memory port's costs are fixed
// (memory_port.h).
#pragma once
#include <systemc>
#include <deque>
#include <functional>
#include <map>
#include <unordered_map>
#include <memory>
#include <vector>

#include "models/core/rng.h"
#include "models/host/memory_port.h"
#include "models/host/root_complex.h"

namespace hx::host {

struct HostCpuConfig {
  int cores = 8;
  Tick syscall_cost = 1 * kUs;
  Tick pin_page_cost = 100 * kNs;
  Tick uc_write_cost = 200 * kNs;
  Tick wc_line_cost = 5 * kNs;
  Tick fence_cost = 20 * kNs;
  Tick irq_latency = 3 * kUs;
  Tick poll_period = 20 * kNs;
  Tick poll_miss = 60 * kNs;
  Tick copy_line_cost = 2 * kNs;
  Tick os_tick_period = 4 * kMs;
  Tick os_tick_cost = 15 * kUs;
  Tick far_mmio = 0;
};

class HostCpu final : public sc_core::sc_module, public HostSide {
 public:
  HostCpu(sc_core::sc_module_name name, const HostCpuConfig& cfg, RootComplex& rc);
  const HostCpuConfig& config() const { return m_cfg; }
  // Core `core`'s port to host memory: its software's loads, stores,
  // copies and polls (memory_port.h).
  MemoryPort& port(int core);

  // Start a software thread on core `core` (SC_THREAD; runs `body` once
  // the core is its own).
  void spawn(const std::string& name, int core, std::function<void(int core)> body);
  // Threads waiting for a core, and the thread each such core runs (for a
  // deadlock's report; empty when none waits).
  std::string status() const;

  // --- calls made from inside a software thread ---
  void compute(int core, Tick d);
  void syscall(int core) { compute(core, m_cfg.syscall_cost); }
  void pin_pages(int core, std::uint64_t pages) { compute(core, m_cfg.pin_page_cost * pages); }
  // With `led`, the store's MWr carries the ledger on (the time before it
  // software, a far core's crossing of the socket interconnect memory).
  void mmio_write_uc(int core, std::uint64_t addr, std::uint32_t len, std::uint64_t stream, std::uint64_t off,
                     Ledger* led = nullptr);
  // With `led` (a timed transaction's ledger): the time up to the last
  // line's store is the core's software, and that line's MWr carries the
  // ledger on (a header or doorbell that releases what came before it).
  void mmio_write_wc(int core, std::uint64_t addr, std::uint32_t len, std::uint64_t stream, std::uint64_t off,
                     Ledger* led = nullptr);
  // WC copy of real bytes already in host memory at `src` (e.g. a received packet).
  void mmio_copy_wc(int core, std::uint64_t dst, std::uint64_t src, std::uint32_t len, std::uint64_t stream,
                    std::uint64_t off);
  // The same copy with the bytes themselves in the TLPs (a scripted driver's
  // packet or header: whatever host memory holds, pattern or not).
  // With `led`, as mmio_write_wc's.
  void mmio_copy_wc(int core, std::uint64_t dst, std::uint64_t src, std::uint32_t len, Ledger* led = nullptr);
  void fence(int core);
  // A UC store of real bytes (a register value, a doorbell with data).
  void mmio_write_bytes(int core, std::uint64_t addr, const std::uint8_t* p, std::uint32_t len, Ledger* led = nullptr);
  // A read round trip; with `out`, the completion's bytes land there. With
  // `led`, the request carries the ledger and the last completion brings it
  // back; true when it did.
  bool mmio_read(int core, std::uint64_t addr, std::uint32_t len, std::uint8_t* out = nullptr, Ledger* led = nullptr);
  // Polling: arm before triggering the write, then wait for it. With
  // `into`, the write that satisfies the watch must carry a ledger: it is
  // copied there and the poll's own time added (the iteration's phase and
  // OS ticks as software, the line's fetch as memory), up to the detection.
  int arm_watch(std::uint64_t addr, std::uint32_t len, int core, Ledger* into = nullptr);
  void wait_watch(int id);
  // A ring of slots a device writes and a thread reads in turn (a NIC's
  // completion ring, a write-back line): every write into [addr, addr +
  // slots * slot_B) marks each slot it covers seen, when a poll would see
  // it (as a watch: the next poll iteration after the commit, and the line
  // fetch). Unlike a watch it stays armed: a slot written while its thread
  // is busy is seen as soon as the thread looks.
  int arm_ring(std::uint64_t addr, std::uint32_t slot_B, std::uint32_t slots, int core);
  // When slot `s` was seen and its write committed (kNever: not written
  // since cleared).
  Tick ring_seen(int ring, std::uint32_t s) const;
  Tick ring_commit(int ring, std::uint32_t s) const;
  // Waits until slot `s` is seen (now is then at least its seen time);
  // a kick does not end the wait.
  void wait_ring(int ring, std::uint32_t s);
  // The same, but false, the slot not seen, at `until` or when another
  // thread kicks the ring (kick_ring) first.
  bool wait_ring_until(int ring, std::uint32_t s, Tick until = kNever);
  void kick_ring(int ring);
  // The thread has taken the slot: a later write marks it again.
  void clear_ring(int ring, std::uint32_t s);
  // The latency ledger of the write that marked slot `s`, when it carried
  // one (false: it did not): accounted for up to the write's commit, or,
  // `polled`, up to when a poll saw it (the poll's part as a watch's).
  bool ring_ledger(int ring, std::uint32_t s, bool polled, Ledger& into) const;
  // Sleeps until an MSI of `vector` is pending, then takes it and wakes
  // (true); false, no MSI taken, at `until` or when another thread kicks
  // the sleeper (kick_msi) first.
  bool wait_msi(int core, std::uint32_t vector, Tick until = kNever);
  void kick_msi(std::uint32_t vector);
  Tick now() const;
  // Place core `core` on socket 1 (far), whose root complex must be
  // attached (attach_far_rc), or on socket 0.
  void set_far(int core, bool far);
  bool far(int core) const { return m_far.at(static_cast<std::size_t>(core)); }
  // With a root complex on each socket, socket 1's: the far cores' way to
  // other sockets' lines and to the devices below socket 0, and its memory
  // controller theirs (its LLC is the far cores'); none with one socket.
  void attach_far_rc(RootComplex& rc) { m_far_rc = &rc; }
  mem::MemoryController* far_memory() const { return m_far_rc ? &m_far_rc->memory() : nullptr; }

  // HostSide
  void on_memory_write(std::uint64_t addr, std::uint32_t len, Tick commit, const Ledger* led) override;
  void on_msi(std::uint32_t vector, Tick at) override;
  void on_mmio_completion(const Tlp& t, Tick at) override;

  Counter uc_writes, wc_lines, mmio_reads, polls_detected, irqs, os_ticks;

 private:
  Tick noisy_end(int core, Tick start, Tick end);
  void wait_until(Tick t);
  void send_write(std::uint64_t addr, std::uint32_t len, std::uint64_t stream, std::uint64_t off,
                  std::uint64_t checksum, const std::uint8_t* bytes = nullptr, Ledger* led = nullptr);
  // A UC store: a far core's crosses the socket interconnect first; the
  // core stalls uc_write_cost after `send`.
  void uc_store(int core, const std::function<void()>& send, Ledger* led = nullptr);
  // A WC copy from host memory, line by line; send(addr, n, bytes) emits each line.
  template <class Send>
  void copy_wc(int core, std::uint64_t dst, std::uint64_t src, std::uint32_t len, const Send& send);
  struct Watch {
    std::uint64_t addr;
    std::uint32_t len;
    int core;
    bool done = false;
    bool waiting = false;  // a thread waits on `ev` (notified only then)
    Tick detected = 0;
    Ledger* into = nullptr;  // a timed watch's ledger
    std::unique_ptr<sc_core::sc_event> ev;
  };
  struct PollSeen {
    Tick phase_end = 0, fetched = 0, seen = 0;
  };
  struct Ring {
    std::uint64_t addr;
    std::uint32_t slot_B, slots;
    int core;
    std::vector<Tick> seen, commit;
    std::int64_t waiting = -1;  // the slot a thread waits for on `ev`
    std::unique_ptr<sc_core::sc_event> ev;
    // Per slot, the ledger its write carried (up to the commit) and its
    // poll; empty until a timed write comes.
    std::vector<Ledger> led;
    std::vector<PollSeen> poll;
    std::vector<std::uint8_t> timed;
    bool kicked = false;  // the waiting thread was told to stop waiting
  };
  std::deque<Ring> m_rings;  // a deque: a thread waiting on one keeps its reference when another is armed
  // When a poll by `core` sees a write to `addr` committed then: its
  // iteration's phase ends, the line is fetched, the thread sees it (OS
  // ticks included). Draws the phase.
  PollSeen poll_sees(int core, std::uint64_t addr, Tick commit);
  // The poll's part of a ledger at the commit: phase and OS ticks software, the fetch memory.
  static void charge_poll(Ledger& l, const PollSeen& p);
  struct MsiWait {
    int pending = 0;
    Tick last = 0;
    bool sleeping = false, kicked = false;
    std::unique_ptr<sc_core::sc_event> ev;
  };
  // A core and the threads that share it.
  struct Core {
    int owner = -1;         // the thread running on it (-1: none)
    std::deque<int> ready;  // threads waiting for it, in arrival order
    std::unique_ptr<sc_core::sc_event> ev;  // the core changed hands
  };
  struct Thread {
    std::string name;
    sc_core::sc_process_handle handle;
  };
  // The calling thread takes core `core` (waiting its turn), or gives it
  // to the next thread waiting.
  void take(int core, int thread);
  void give(int core);
  // The core thread running on `core` if it is the caller (-1: the caller
  // is another process, e.g. a device's or a workload's own).
  int caller_on(int core) const;
  HostCpuConfig m_cfg;
  RootComplex& m_rc;
  std::vector<Core> m_cores;
  std::vector<Thread> m_threads;
  Rng m_rng;
  std::vector<Tick> m_tick_phase;
  std::vector<bool> m_far;
  std::vector<MemoryPort> m_ports;  // one per core
  RootComplex* m_far_rc = nullptr;
  // Watches armed and not yet waited for, by id; a write is compared only
  // with those not yet detected, in arming order (the order of the RNG draws).
  std::unordered_map<int, Watch> m_watches;
  std::vector<int> m_undetected;
  int m_next_watch = 0;
  std::map<std::uint32_t, MsiWait> m_msi;
  struct MmioRead {
    std::unique_ptr<sc_core::sc_event> ev;
    std::uint64_t addr = 0;
    std::uint32_t len = 0;
    std::uint8_t* out = nullptr;  // where its bytes go (none: timing only)
    Ledger* led = nullptr;        // a timed read's ledger, filled from its last completion
    bool timed = false;           // the last completion brought a ledger
  };
  std::map<std::uint16_t, MmioRead> m_reads;
  std::uint16_t m_next_tag = 0;
};

}  // namespace hx::host
