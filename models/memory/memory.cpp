#include "models/memory/memory.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "models/core/payload.h"

namespace hx::mem {

std::uint8_t SparseMemory::initial(std::uint64_t addr) { return pattern_byte(kMemoryStream, addr); }

template <class F>
void SparseMemory::pieces(std::uint64_t addr, std::uint32_t len, F&& f) {
  std::uint32_t done = 0;
  while (done < len) {
    const std::uint32_t off = static_cast<std::uint32_t>(addr & 4095);
    const std::uint32_t n = std::min<std::uint32_t>(len - done, 4096 - off);
    f(addr >> 12, off, n, done);
    addr += n;
    done += n;
  }
}

void SparseMemory::Page::set_ref(std::uint32_t c, Ref r) {
  const std::uint64_t bit = 1ull << c;
  if (!has_run) {
    run = Ref{r.stream, r.off - 64ull * c};  // wraps for an early offset; ref() wraps back
    has_run = true;
  }
  if (r.stream == run.stream && r.off == run.off + 64ull * c) {
    own &= ~bit;
  } else {
    if (!refs) refs = std::make_unique<std::array<Ref, 64>>();
    (*refs)[c] = r;
    own |= bit;
  }
  pat |= bit;
  real &= ~bit;
}

std::uint8_t* SparseMemory::Page::bytes() {
  if (!b) b = std::make_unique<std::array<std::uint8_t, 4096>>();
  return b->data();
}

void SparseMemory::chunk_bytes(const Page* pg, std::uint64_t index, std::uint32_t off, std::uint32_t n, std::uint8_t* out) {
  const std::uint32_t c = off / 64;
  if (pg && (pg->real >> c & 1)) {
    std::memcpy(out, pg->b->data() + off, n);
  } else if (pg && (pg->pat >> c & 1)) {
    const Ref r = pg->ref(c);
    pattern_fill(r.stream, r.off + (off - c * 64), out, n);
  } else {
    pattern_fill(kMemoryStream, (index << 12) + off, out, n);
  }
}

SparseMemory::Page* SparseMemory::page(std::uint64_t index) {
  auto& pg = m_pages[index];
  if (!pg) pg = std::make_unique<Page>();
  return pg.get();
}

std::uint8_t* SparseMemory::prepare(std::uint64_t index, std::uint32_t off, std::uint32_t n) {
  Page* pg = page(index);
  const std::uint32_t c0 = off / 64, c1 = (off + n - 1) / 64;
  for (std::uint32_t c = c0; c <= c1; ++c) {
    if (pg->real >> c & 1) continue;
    const bool whole = off <= c * 64 && off + n >= c * 64 + 64;
    std::uint8_t* b = pg->bytes();
    if (!whole) chunk_bytes(pg, index, c * 64, 64, b + c * 64);
    pg->real |= 1ull << c;
    pg->pat &= ~(1ull << c);
    pg->own &= ~(1ull << c);
  }
  return pg->bytes() + off;
}

void SparseMemory::write(std::uint64_t addr, const std::uint8_t* p, std::uint32_t len) {
  pieces(addr, len, [&](std::uint64_t pg, std::uint32_t off, std::uint32_t n, std::uint32_t at) {
    std::memcpy(prepare(pg, off, n), p + at, n);
  });
}

void SparseMemory::write_pattern(std::uint64_t addr, std::uint64_t stream, std::uint64_t off, std::uint32_t len) {
  pieces(addr, len, [&](std::uint64_t index, std::uint32_t o, std::uint32_t n, std::uint32_t at) {
    Page* pg = page(index);
    for (std::uint32_t x = o; x < o + n;) {
      const std::uint32_t c = x / 64, e = std::min(c * 64 + 64, o + n);
      const std::uint64_t from = off + at + (x - o);  // pattern offset of byte x
      if (x == c * 64 && e == c * 64 + 64) {
        pg->set_ref(c, Ref{stream, from});
      } else {
        pattern_fill(stream, from, prepare(index, x, e - x), e - x);
      }
      x = e;
    }
  });
}

void SparseMemory::read(std::uint64_t addr, std::uint8_t* p, std::uint32_t len) const {
  pieces(addr, len, [&](std::uint64_t index, std::uint32_t off, std::uint32_t n, std::uint32_t at) {
    auto it = m_pages.find(index);
    const Page* pg = it == m_pages.end() ? nullptr : it->second.get();
    if (!pg || !(pg->real | pg->pat)) {
      pattern_fill(kMemoryStream, (index << 12) + off, p + at, n);
      return;
    }
    for (std::uint32_t x = off; x < off + n;) {
      const std::uint32_t e = std::min((x / 64 + 1) * 64, off + n);
      chunk_bytes(pg, index, x, e - x, p + at + (x - off));
      x = e;
    }
  });
}

bool SparseMemory::holds_pattern(std::uint64_t addr, std::uint64_t stream, std::uint64_t off, std::uint32_t len) const {
  bool same = true;
  pieces(addr, len, [&](std::uint64_t index, std::uint32_t o, std::uint32_t n, std::uint32_t at) {
    auto it = m_pages.find(index);
    const Page* pg = it == m_pages.end() ? nullptr : it->second.get();
    for (std::uint32_t x = o; same && x < o + n;) {
      const std::uint32_t c = x / 64, e = std::min(c * 64 + 64, o + n);
      const std::uint64_t from = off + at + (x - o);
      // A chunk that refers to this very stretch of the pattern holds it.
      bool by_ref = false;
      if (pg && (pg->pat >> c & 1)) {
        const Ref r = pg->ref(c);
        by_ref = r.stream == stream && r.off + (x - c * 64) == from;
      }
      if (!by_ref) {
        std::uint8_t have[64], want[64];
        chunk_bytes(pg, index, x, e - x, have);
        pattern_fill(stream, from, want, e - x);
        same = std::memcmp(have, want, e - x) == 0;
      }
      x = e;
    }
  });
  return same;
}

std::uint64_t SparseMemory::checksum(std::uint64_t addr, std::uint32_t len) const {
  std::vector<std::uint8_t> buf(len);
  read(addr, buf.data(), len);
  return bytes_checksum(buf.data(), len);
}

Tick line_time(int line_B, double GBps) {
  return std::max<Tick>(1, static_cast<Tick>(std::llround(line_B / GBps * 1000.0)));
}

MemoryController::MemoryController(const std::string& name, const MemoryConfig& cfg)
    : m_cfg(cfg),
      m_line_time(line_time(cfg.line_B, cfg.channel_GBps)),
      m_rmw_slots(static_cast<unsigned>((2 * m_line_time + cfg.rmw_extra + m_line_time - 1) / m_line_time)),
      m_channels(static_cast<std::size_t>(std::max(1, cfg.channels)), SlotCalendar(m_line_time)),
      m_llc(cfg.llc_size, cfg.llc_ways, cfg.line_B, cfg.llc_replacement, name + ".llc") {
  const std::size_t n = m_channels.size();
  m_channels_pow2 = (n & (n - 1)) == 0;
  m_channel_mask = n - 1;
  auto& reg = StatsRegistry::instance();
  reg.add_counter(name + ".lines_read", &lines_read, "line", "DRAM line reads");
  reg.add_counter(name + ".lines_written", &lines_written, "line", "DRAM line writes");
  reg.add_counter(name + ".far_lines", &far_lines, "line", "lines read, forwarded or written here for another socket");
  reg.add_counter(name + ".partial_writes", &partial_writes, "line", "partial-line writes (read-modify-write)");
  if (m_llc.enabled()) reg.add_counter(name + ".llc_misses", &llc_misses, "line", "line reads that missed the LLC");
  reg.add_resource(name + ".channels", [this] {
    Tick b = 0;
    for (const auto& c : m_channels) b += c.busy();
    return b;
  }, static_cast<int>(n), "DRAM channels (a line each per line time)");
}

Tick MemoryController::occupy(std::uint64_t line_addr, Tick t, unsigned slots) {
  const std::uint64_t index = line_addr / static_cast<std::uint64_t>(m_cfg.line_B);
  const std::size_t ch = static_cast<std::size_t>(m_channels_pow2 ? index & m_channel_mask : index % m_channels.size());
  return m_channels[ch].reserve(t, now_tick(), slots);
}

Tick MemoryController::write(std::uint64_t addr, std::uint32_t len, Tick t0, bool remote) {
  const std::uint64_t L = static_cast<std::uint64_t>(m_cfg.line_B);
  Tick done = t0;
  std::uint64_t a = addr;
  const std::uint64_t end = addr + len;
  while (a < end) {
    const std::uint64_t line = a / L * L;
    const std::uint64_t stop = std::min(end, line + L);
    if (remote) ++far_lines;
    const bool partial = m_cfg.partial_rmw && ((a != line) || (stop != line + L));
    Tick commit;
    if (partial) {
      const Tick start = occupy(line, t0, m_rmw_slots);
      commit = start + m_cfg.read_latency + m_cfg.write_latency;
      ++partial_writes;
    } else {
      const Tick start = occupy(line, t0, 1);
      commit = start + m_cfg.write_latency;
    }
    ++lines_written;
    allocate_written(line);
    done = std::max(done, commit);
    a = stop;
  }
  return done;
}

void MemoryController::request(const MemRequest& r, Tick t, MemoryClient& client) {
  const std::uint64_t L = static_cast<std::uint64_t>(m_cfg.line_B);
  const Tick done = r.op == MemOp::ReadLine ? read_line(r.addr / L * L, t) : write(r.addr, r.len, t);
  if (!m_sched) m_sched = std::make_unique<Scheduler>("memory");
  Pending* p = Pool<Pending>::instance().get();
  p->r = r;
  p->client = &client;
  ++m_pending;
  m_sched->at(done, this, 0, 0, p);
}

void MemoryController::on_action(std::uint32_t, std::uint64_t, void* ptr) {
  Pending* p = static_cast<Pending*>(ptr);
  const MemRequest r = p->r;
  MemoryClient* client = p->client;
  Pool<Pending>::instance().put(p);
  --m_pending;
  client->memory_done(r, now_tick());
}

Tick MemoryController::read_line(std::uint64_t line_addr, Tick t, bool remote) {
  ++lines_read;
  Tick latency = m_cfg.read_latency;
  // DDIO: a DMA read miss does not allocate. A home reading for another
  // socket starts its memory read as it looks the line up: no llc_miss.
  if (remote) ++far_lines;
  if (m_llc.enabled() && !m_llc.access(line_addr, false) && !remote) {
    ++llc_misses;
    latency += m_cfg.llc_miss;
  }
  return occupy(line_addr, t, 1) + latency;
}

// DDIO: the written line is allocated in the LLC (within its DMA ways).
void MemoryController::allocate_written(std::uint64_t line) {
  if (m_llc.enabled()) m_llc.access(line, true, static_cast<unsigned>(m_cfg.ddio_ways));
}

void MemoryController::dma_written(std::uint64_t addr, std::uint64_t len) {
  const std::uint64_t L = static_cast<std::uint64_t>(m_cfg.line_B);
  for (std::uint64_t a = addr / L * L; a < addr + len; a += L) allocate_written(a);
}

void MemoryController::warm(std::uint64_t addr, std::uint64_t len) {
  if (!m_llc.enabled() || len == 0) return;
  const std::uint64_t L = static_cast<std::uint64_t>(m_cfg.line_B);
  for (std::uint64_t a = addr / L * L; a < addr + len; a += L) m_llc.access(a);
}

LineCache::LineCache(std::uint64_t size_B, int ways, int line_B, cache::Policy policy, const std::string& name) {
  if (size_B == 0) return;
  while ((1 << m_line_shift) < line_B) ++m_line_shift;
  // A cache smaller than its associativity holds as many lines as fit (at
  // least one), all in one set.
  const std::uint64_t lines = std::max<std::uint64_t>(1, size_B / static_cast<std::uint64_t>(line_B));
  const auto w = static_cast<unsigned>(std::min<std::uint64_t>(lines, static_cast<std::uint64_t>(std::max(1, ways))));
  m_tags = std::make_unique<cache::TagArray<std::uint64_t>>(static_cast<std::size_t>(lines / w), w, policy, name);
}

bool LineCache::access(std::uint64_t line_addr, bool fill, unsigned fill_ways) {
  const std::uint64_t line = line_addr >> m_line_shift;
  const std::size_t set = m_tags->set_of(line);
  const auto is_line = [line](std::uint64_t t) { return t == line; };
  if (!fill) return m_tags->find(set, is_line) != nullptr;
  bool hit = false;
  m_tags->place(set, is_line, nullptr, &hit, fill_ways) = line;  // one scan: a hit is touched, a miss filled
  return hit;
}

bool LineCache::holds(std::uint64_t line_addr) const {
  const std::uint64_t line = line_addr >> m_line_shift;
  return m_tags->find(m_tags->set_of(line), [line](std::uint64_t t) { return t == line; }, false) != nullptr;
}

void LineCache::drop(std::uint64_t line_addr) {
  const std::uint64_t line = line_addr >> m_line_shift;
  m_tags->invalidate(m_tags->set_of(line), [line](std::uint64_t t) { return t == line; });
}

}  // namespace hx::mem
