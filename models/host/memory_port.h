// A core's port to host memory: every load, store, copy and poll that a
// core's software makes to host memory goes through it (drivers' rings and
// descriptors, the packets and buffers they fill or read, flags they wait
// on), never to the backing store or the LLC's tags directly.
//
// Mechanisms (this first implementation keeps the fixed costs the drivers
// were calibrated with):
//  - data a core writes lands in host memory, and its lines in the LLC of
//    the core's socket (its stores leave them in its caches, which the LLC
//    stands for: a DMA read of them then hits);
//  - a copy or fill of data (a buffer, a packet, memset) costs the core
//    copy_line_cost for each 64 B it copies (the last part counted whole),
//    as does reading received data (copy_out);
//  - a store or load of a value (a descriptor, a completion, a flag, a
//    register image) costs its instruction only, which is the thread's
//    compute (a driver's per-packet cost);
//  - a poll is HostCpu's watch: the next poll iteration after the write
//    commits, then the line's fetch (host_cpu.h);
//  - a copy's data is in memory when the copy is called; its time passes
//    then, or with the rest of a stretch of work (begin_stretch).
// Simplifications: no per-core caches, store buffer or memory ordering of
// its own (a store is visible at once); a load never misses (the fetch of
// a line a device wrote is charged by the poll that saw it); no atomics on
// host memory (no driver of the sources uses one; the coherent sockets'
// cores have theirs, coherence/core_thread.h).
#pragma once
#include <cstdint>

#include "models/core/tick.h"

namespace hx::mem {
class MemoryController;
}
namespace hx {
struct Ledger;
}

namespace hx::host {

class HostCpu;

class MemoryPort {
 public:
  MemoryPort(HostCpu& cpu, mem::MemoryController& mem, int core) : m_cpu(cpu), m_mem(mem), m_core(core) {}
  int core() const { return m_core; }

  // Data the core copies or fills into memory: copy_line_cost each 64 B.
  void copy_in(std::uint64_t addr, const std::uint8_t* p, std::uint64_t len);
  // The same with bytes [off, off + len) of pattern `stream` (a packet, a
  // test buffer: the pattern fast path).
  void copy_pattern(std::uint64_t addr, std::uint64_t stream, std::uint64_t off, std::uint64_t len);
  void fill(std::uint64_t addr, std::uint8_t value, std::uint64_t len);
  // Received data the core reads (into `out` when given): copy_line_cost each 64 B.
  void copy_out(std::uint64_t addr, std::uint64_t len, std::uint8_t* out = nullptr);

  // A value stored or loaded: its cost is the caller's compute.
  void store(std::uint64_t addr, const std::uint8_t* p, std::uint32_t len);
  void load(std::uint64_t addr, std::uint8_t* out, std::uint32_t len) const;
  // A little-endian value of `width` bytes (1-8).
  std::uint64_t load_le(std::uint64_t addr, int width) const;
  // Whether [addr, addr + len) holds bytes [off, off + len) of pattern
  // `stream`: a driver's check of what it received (no time of its own).
  bool holds_pattern(std::uint64_t addr, std::uint64_t stream, std::uint64_t off, std::uint32_t len) const;

  // Polls: arm before the write can come, then wait (HostCpu's watches;
  // with `into`, the timed write's ledger and the poll's part of it).
  int arm_watch(std::uint64_t addr, std::uint32_t len, Ledger* into = nullptr);
  void wait_watch(int id);

  // A stretch of the core's work: the copies made between begin_stretch()
  // and end_stretch(work) are charged with `work` as one stretch of compute
  // when it ends (a driver's loop over a batch of packets is one stretch of
  // time, not a wait per copy). Nothing but copies may happen inside one.
  void begin_stretch();
  void end_stretch(Tick work);

 private:
  // The lines of [addr, addr + len) in the core's socket's LLC.
  void wrote(std::uint64_t addr, std::uint64_t len);
  // The core's time for copying `len` bytes: now, or at the stretch's end.
  void copied(std::uint64_t len);
  HostCpu& m_cpu;
  mem::MemoryController& m_mem;
  int m_core;
  bool m_stretch = false;
  Tick m_owed = 0;  // the stretch's copies so far
};

}  // namespace hx::host
