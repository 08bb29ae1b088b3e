#include "models/host/memory_port.h"

#include <algorithm>
#include <string>
#include <vector>

#include "models/core/error.h"
#include "models/host/host_cpu.h"
#include "models/memory/memory.h"

namespace hx::host {

namespace {
constexpr std::uint64_t kLine = 64;
// The store takes at most this much in one call (its length is 32-bit).
constexpr std::uint64_t kChunk = 1ull << 20;
// f(offset, bytes) over [0, len) in pieces the store takes.
template <class F>
void each_chunk(std::uint64_t len, const F& f) {
  for (std::uint64_t off = 0; off < len; off += kChunk) f(off, static_cast<std::uint32_t>(std::min(len - off, kChunk)));
}
}  // namespace

void MemoryPort::wrote(std::uint64_t addr, std::uint64_t len) {
  // Into the LLC of the core's socket (set_far checked that socket 1 has one).
  (m_cpu.far(m_core) ? *m_cpu.far_memory() : m_mem).warm(addr, len);
}

void MemoryPort::copied(std::uint64_t len) {
  const Tick d = m_cpu.config().copy_line_cost * static_cast<Tick>((len + kLine - 1) / kLine);
  if (m_stretch) m_owed += d;
  else m_cpu.compute(m_core, d);
}

void MemoryPort::begin_stretch() {
  if (m_stretch) sim_fail("memory port", "core " + std::to_string(m_core) + " began a stretch of work inside another");
  m_stretch = true;
}

void MemoryPort::end_stretch(Tick work) {
  if (!m_stretch) sim_fail("memory port", "core " + std::to_string(m_core) + " ended a stretch of work it had not begun");
  m_stretch = false;
  const Tick d = m_owed + work;
  m_owed = 0;
  m_cpu.compute(m_core, d);
}

void MemoryPort::copy_in(std::uint64_t addr, const std::uint8_t* p, std::uint64_t len) {
  each_chunk(len, [&](std::uint64_t off, std::uint32_t n) { m_mem.store().write(addr + off, p + off, n); });
  wrote(addr, len);
  copied(len);
}

void MemoryPort::copy_pattern(std::uint64_t addr, std::uint64_t stream, std::uint64_t off, std::uint64_t len) {
  each_chunk(len, [&](std::uint64_t k, std::uint32_t n) { m_mem.store().write_pattern(addr + k, stream, off + k, n); });
  wrote(addr, len);
  copied(len);
}

void MemoryPort::fill(std::uint64_t addr, std::uint8_t value, std::uint64_t len) {
  const std::vector<std::uint8_t> b(static_cast<std::size_t>(std::min(len, kChunk)), value);
  each_chunk(len, [&](std::uint64_t off, std::uint32_t n) { m_mem.store().write(addr + off, b.data(), n); });
  wrote(addr, len);
  copied(len);
}

void MemoryPort::copy_out(std::uint64_t addr, std::uint64_t len, std::uint8_t* out) {
  if (out) each_chunk(len, [&](std::uint64_t off, std::uint32_t n) { m_mem.store().read(addr + off, out + off, n); });
  copied(len);
}

void MemoryPort::store(std::uint64_t addr, const std::uint8_t* p, std::uint32_t len) {
  m_mem.store().write(addr, p, len);
  wrote(addr, len);
}

void MemoryPort::load(std::uint64_t addr, std::uint8_t* out, std::uint32_t len) const {
  m_mem.store().read(addr, out, len);
}

std::uint64_t MemoryPort::load_le(std::uint64_t addr, int width) const {
  if (width < 1 || width > 8) throw SimError("a load of " + std::to_string(width) + " bytes: 1 to 8 make a value");
  std::uint8_t b[8] = {};
  load(addr, b, static_cast<std::uint32_t>(width));
  std::uint64_t v = 0;
  for (int i = 0; i < width; ++i) v |= static_cast<std::uint64_t>(b[i]) << (8 * i);
  return v;
}

bool MemoryPort::holds_pattern(std::uint64_t addr, std::uint64_t stream, std::uint64_t off, std::uint32_t len) const {
  return m_mem.store().holds_pattern(addr, stream, off, len);
}

int MemoryPort::arm_watch(std::uint64_t addr, std::uint32_t len, Ledger* into) {
  if (m_stretch) sim_fail("memory port", "core " + std::to_string(m_core) + " polls inside a stretch of work");
  return m_cpu.arm_watch(addr, len, m_core, into);
}

void MemoryPort::wait_watch(int id) {
  if (m_stretch) sim_fail("memory port", "core " + std::to_string(m_core) + " waits inside a stretch of work");
  m_cpu.wait_watch(id);
}

}  // namespace hx::host
