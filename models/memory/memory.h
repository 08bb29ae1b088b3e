// Host DRAM behind the memory controller.
// Mechanisms: a line-granular channel server (each 64 B line occupies its
// channel for line_time = 64 B / channel bandwidth), read and write latency,
// and partial-line writes as read-modify-write: DDR writes whole bursts, so a
// write that covers part of a line costs a line read plus a line write and
// waits for the read (S001 experiment 1: "host DDR only writes fast in
// bursts"). With DDIO (Intel Xeon E5 v2 onwards) inbound writes allocate in
// the last-level cache, which merges partial lines: partial_rmw = false.
// Lines interleave across channels by line address.
// Requests come two ways: synchronous calls that return the time they are
// done (the root complex's line pipeline), and asynchronous requests that
// carry their requester and call it back (agents that wait: a home agent
// for a line, a core's memory port).
// One controller is one socket's memory and LLC: a line the socket's cores
// touched is in its LLC, whatever its home, and DMA writes (DDIO) allocate
// in it. Several sockets are several controllers, one per socket's root
// complex, which cross the socket links between them (root_complex.h): a
// home reads for another socket at once (read_line's `remote`: it starts
// the memory read as it looks the line up, no llc_miss), and an LLC that a
// snoop from another socket finds holding a line forwards it
// (forward_line: llc_forward) (pcie-bench's device, memory and control
// sockets, S011).
// Simplifications: no banks/rows/refresh; an LLC holds tags only and is
// shared by DMA and its socket's cores alike (DMA writes allocating in
// their ways only, ddio_ways).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <memory>
#include <unordered_map>
#include <vector>

#include "models/cache/tag_array.h"
#include "models/core/pool.h"
#include "models/core/scheduler.h"
#include "models/core/slot_calendar.h"
#include "models/core/stats.h"
#include "models/core/tick.h"

namespace hx::mem {

struct MemoryConfig {
  Tick read_latency = 80 * kNs;
  Tick write_latency = 40 * kNs;
  double channel_GBps = 12.8;  // per channel
  int channels = 2;
  Tick rmw_extra = 40 * kNs;   // extra channel occupancy of a partial-line write
  bool partial_rmw = true;     // false: inbound writes allocate in the LLC (DDIO), which merges partial lines
  // A cache line: every host of the sources uses 64 B. A constant, so line
  // arithmetic on the write path is shifts, not 64-bit divisions.
  static constexpr int line_B = 64;
  // A snoop from another socket that finds its line in this LLC sends it
  // on this long after it arrives.
  Tick llc_forward = 0;
  // The last-level cache as DMA sees it (0 bytes: none; every read at
  // read_latency). Reads that miss pay llc_miss more and are served from
  // DRAM without allocating; DMA writes allocate (DDIO), and so do the
  // host's own accesses (MemoryController::warm).
  std::uint64_t llc_size = 0;
  int llc_ways = 16;
  // The ways of each LLC set a DMA write that misses may allocate in (the
  // first ddio_ways: Intel's IIO LLC WAYS mask, two by default on Xeon E5;
  // 0: any way). A write that hits updates its line where it is; the
  // host's own accesses allocate in any way.
  int ddio_ways = 0;
  Tick llc_miss = 0;
  cache::Policy llc_replacement = cache::Policy::Lru;
};

// Which lines the last-level cache holds: a cache::TagArray of line
// numbers (replacement by configuration, LRU by default). Tags only; the
// data stays in SparseMemory.
class LineCache {
 public:
  LineCache(std::uint64_t size_B, int ways, int line_B, cache::Policy policy, const std::string& name);
  bool enabled() const { return m_tags != nullptr; }
  // Looks the line up (a hit counts as a use): true if it was held. On a
  // miss it is filled if `fill`, into one of its set's first `fill_ways`
  // ways (0: any).
  bool access(std::uint64_t line_addr, bool fill = true, unsigned fill_ways = 0);
  // Whether the line is held; nothing changes (not even its age).
  bool holds(std::uint64_t line_addr) const;
  // Drops the line if held (another socket has written it).
  void drop(std::uint64_t line_addr);

 private:
  unsigned m_line_shift = 6;
  std::unique_ptr<cache::TagArray<std::uint64_t>> m_tags;  // none: no LLC
};

// Real bytes, 4 KiB pages allocated on first write; unwritten bytes read as
// a deterministic pattern of their address.
class SparseMemory {
 public:
  void write(std::uint64_t addr, const std::uint8_t* p, std::uint32_t len);
  // Store `len` bytes of pattern stream `stream` from offset `off` at `addr`.
  void write_pattern(std::uint64_t addr, std::uint64_t stream, std::uint64_t off, std::uint32_t len);
  void read(std::uint64_t addr, std::uint8_t* p, std::uint32_t len) const;
  std::uint64_t checksum(std::uint64_t addr, std::uint32_t len) const;
  // Whether [addr, addr+len) holds exactly the bytes of pattern stream
  // `stream` from offset `off` (a byte-for-byte comparison).
  bool holds_pattern(std::uint64_t addr, std::uint64_t stream, std::uint64_t off, std::uint32_t len) const;
  static std::uint8_t initial(std::uint64_t addr);

 private:
  // Each 64 B chunk of a page is in one of three states: still the initial
  // pattern, real bytes, or a whole chunk of a pattern stream kept as its
  // (stream, offset) rather than as bytes. A DMA stream of whole chunks
  // thus costs a descriptor per chunk, and checking it afterwards a
  // comparison of descriptors; bytes are made only for partial chunks.
  // Storage is made only for what a page uses: a DMA stream lays its
  // chunks at consecutive offsets of one stream, so one run descriptor
  // serves them all, and a chunk off that run gets its own descriptor.
  struct Ref {
    std::uint64_t stream, off;  // the chunk's first byte is byte `off` of pattern `stream`
  };
  struct Page {
    std::uint64_t real = 0;  // bit c: chunk c holds real bytes in (*b)[64c..]
    std::uint64_t pat = 0;   // bit c: chunk c holds a pattern (never with real)
    std::uint64_t own = 0;   // bit c (a subset of pat): its descriptor is (*refs)[c], not the run's
    bool has_run = false;
    Ref run{};  // chunk c on the run holds pattern run.stream from run.off + 64c
    std::unique_ptr<std::array<std::uint8_t, 4096>> b;
    std::unique_ptr<std::array<Ref, 64>> refs;
    Ref ref(std::uint32_t c) const { return own >> c & 1 ? (*refs)[c] : Ref{run.stream, run.off + 64ull * c}; }
    void set_ref(std::uint32_t c, Ref r);
    std::uint8_t* bytes();
  };
  // The bytes of [off, off+n) of page `index` (one chunk at most) into `out`.
  static void chunk_bytes(const Page* pg, std::uint64_t index, std::uint32_t off, std::uint32_t n, std::uint8_t* out);
  // Chunk-aligned pieces of [addr, addr+len) within one page each: calls
  // f(page_index, offset_in_page, length, offset_from_addr).
  template <class F>
  static void pieces(std::uint64_t addr, std::uint32_t len, F&& f);
  // Page `index`, made (all chunks initial) on first use.
  Page* page(std::uint64_t index);
  // Make [off, off+n) of page `index` writable: chunks it covers partly get
  // their current bytes (initial or referenced pattern) first.
  std::uint8_t* prepare(std::uint64_t index, std::uint32_t off, std::uint32_t n);
  std::unordered_map<std::uint64_t, std::unique_ptr<Page>> m_pages;
};

// A memory access its requester waits for (a home agent's, a core memory
// port's): what, and who asks. The controller answers through
// MemoryClient::memory_done when the line's data is there or the write is
// committed, at the same time the synchronous calls below would return.
enum class MemOp : std::uint8_t { ReadLine, Write };
struct MemRequest {
  MemOp op = MemOp::ReadLine;
  std::uint64_t addr = 0;
  std::uint32_t len = 64;        // a write's bytes (a read is one line)
  std::uint16_t requester = 0;   // who asks: a home agent, a core, a root complex (its agent id)
  std::uint64_t tag = 0;         // the requester's own
};

class MemoryClient {
 public:
  virtual ~MemoryClient() = default;
  virtual void memory_done(const MemRequest& r, Tick at) = 0;
};

// Time one line of `line_B` bytes occupies a resource of `GBps` (at least 1 ps).
Tick line_time(int line_B, double GBps);

class MemoryController final : public Actor {
 public:
  MemoryController(const std::string& name, const MemoryConfig& cfg);
  // A write of [addr, addr+len) accepted at `t`: returns when the last line is
  // committed. `remote`: from another socket (its device's line, to this home).
  Tick write(std::uint64_t addr, std::uint32_t len, Tick t, bool remote = false);
  // One line read issued at `t`: returns when its data is available.
  // `remote`: from another socket, to this home, which starts the memory
  // read as it looks the line up (no llc_miss).
  Tick read_line(std::uint64_t line_addr, Tick t, bool remote = false);
  // Whether this socket's LLC holds the line (nothing changes).
  bool llc_holds(std::uint64_t line_addr) const { return m_llc.enabled() && m_llc.holds(line_addr); }
  // Another socket took the line for a write: this LLC drops it.
  void llc_drop(std::uint64_t line_addr) {
    if (m_llc.enabled()) m_llc.drop(line_addr);
  }
  // A snoop from another socket that finds the line in this LLC, arriving
  // at `t`: when the line leaves (a channel slot, then llc_forward).
  // The hit counts as a use of the line.
  Tick forward_line(std::uint64_t line_addr, Tick t) {
    if (m_llc.enabled()) m_llc.access(line_addr, false);
    ++far_lines;
    return occupy(line_addr, t, 1) + m_cfg.llc_forward;
  }
  // The socket's cores touch [addr, addr+len) in address order (a buffer
  // they have just written): its lines are in this LLC, the last ones
  // most recently used.
  void warm(std::uint64_t addr, std::uint64_t len);
  // The caches as a DMA write of [addr, addr+len) leaves them, at no time
  // and with nothing else of the write (a long run's earlier transactions,
  // which a study does not time one by one).
  void dma_written(std::uint64_t addr, std::uint64_t len);
  const MemoryConfig& config() const { return m_cfg; }
  SparseMemory& store() { return m_store; }
  // The asynchronous path: `r` issued at `t` (>= now); `client` is told
  // when it is done. The same channels, interconnect and LLC as the
  // synchronous calls serve it: the two paths are one mechanism.
  void request(const MemRequest& r, Tick t, MemoryClient& client);
  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;
  std::size_t requests_pending() const { return m_pending; }

  // far_lines: lines read, forwarded or written here for another socket.
  Counter lines_read, lines_written, partial_writes, far_lines, llc_misses;

 private:
  Tick occupy(std::uint64_t line_addr, Tick t, unsigned slots);
  void allocate_written(std::uint64_t line);  // a DMA write's line in the caches (DDIO)
  MemoryConfig m_cfg;
  Tick m_line_time;
  unsigned m_rmw_slots;
  std::vector<SlotCalendar> m_channels;
  bool m_channels_pow2 = true;        // a power of two: interleave by mask, not by a division
  std::uint64_t m_channel_mask = 0;   // channels - 1 then
  LineCache m_llc;
  SparseMemory m_store;
  // An asynchronous request in flight, from the process's pool (nothing is
  // allocated per request once the pool has grown to the peak).
  struct Pending {
    static constexpr const char* kPoolName = "a memory request";
    std::uint64_t id = 0;
    MemRequest r;
    MemoryClient* client = nullptr;
  };
  std::size_t m_pending = 0;
  std::unique_ptr<Scheduler> m_sched;  // made on the first asynchronous request
};

}  // namespace hx::mem
