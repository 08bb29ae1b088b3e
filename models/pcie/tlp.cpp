#include "models/pcie/tlp.h"

namespace hx::pcie {

TlpPool& TlpPool::instance() {
  static TlpPool p;
  return p;
}

Tlp* TlpPool::get() {
  if (m_free.empty()) {
    m_blocks.emplace_back(4096);
    for (auto& t : m_blocks.back()) m_free.push_back(&t);
  }
  Tlp* t = m_free.back();
  m_free.pop_back();
  *t = Tlp{};
  t->id = m_next_id++;
  ++m_live;
  return t;
}

void TlpPool::put(Tlp* t) {
  --m_live;
  m_free.push_back(t);
}

void TlpPool::reset() {
  m_free.clear();
  m_blocks.clear();
  m_live = 0;
  m_next_id = 1;
}

std::uint8_t pattern_byte(std::uint64_t stream, std::uint64_t off) {
  std::uint64_t x = stream * 0x9e3779b97f4a7c15ull + (off >> 3);
  x ^= x >> 29;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 32;
  return static_cast<std::uint8_t>(x >> ((off & 7) * 8));
}

// Position-dependent mix so that swapped or shifted bytes change the sum.
static inline std::uint64_t mix(std::uint64_t h, std::uint8_t b, std::uint32_t i) {
  return (h ^ (static_cast<std::uint64_t>(b) + 0x100u * (i + 1))) * 1099511628211ull;
}

std::uint64_t pattern_checksum(std::uint64_t stream, std::uint64_t off, std::uint32_t len) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::uint32_t i = 0; i < len; ++i) h = mix(h, pattern_byte(stream, off + i), i);
  return h;
}

std::uint64_t bytes_checksum(const std::uint8_t* p, std::uint32_t len) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::uint32_t i = 0; i < len; ++i) h = mix(h, p[i], i);
  return h;
}

}  // namespace hx::pcie
