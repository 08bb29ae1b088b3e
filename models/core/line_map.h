// Per-line records keyed by line number, for the paths every coherence
// message takes (a caching agent's lines, a home's directory, the checker's
// golden memory). Open addressing over a power-of-two table of (key, record
// index) with a multiplicative hash, so a look-up is a multiply, a shift and
// usually one probe (std::unordered_map divides by a prime and follows a
// node pointer). Records live in chunks of 64 that never move: a reference
// to one stays valid while others are added, as callers that hold a line
// while the engine touches another rely on. Records are never removed one
// by one.
#pragma once
#include <cstdint>
#include <memory>
#include <vector>

namespace hx {

// The home slot of `key` in a power-of-two table of 2^(64 - shift) slots
// (shift < 64): a multiplicative hash, the top bits of key x 2^64/phi.
inline std::size_t line_home(std::uint64_t key, unsigned shift) {
  return static_cast<std::size_t>((key * 0x9E3779B97F4A7C15ull) >> shift);
}

template <class V>
class LineMap {
 public:
  // The record of `key`, made (value-initialised) if it is new.
  V& operator[](std::uint64_t key) {
    if (2 * (m_size + 1) > m_slots.size()) grow();
    std::size_t i = home(key);
    for (;; i = (i + 1) & m_mask) {
      Slot& s = m_slots[i];
      if (s.index == 0) {
        if (m_size % kChunk == 0) m_chunks.emplace_back(new Entry[kChunk]);
        Entry& e = at(m_size++);
        e.key = key;
        s = {key, static_cast<std::uint32_t>(m_size)};
        return e.value;
      }
      if (s.key == key) return at(s.index - 1).value;
    }
  }
  V* find(std::uint64_t key) { return const_cast<V*>(static_cast<const LineMap*>(this)->find(key)); }
  const V* find(std::uint64_t key) const {
    if (m_slots.empty()) return nullptr;
    for (std::size_t i = home(key);; i = (i + 1) & m_mask) {
      const Slot& s = m_slots[i];
      if (s.index == 0) return nullptr;
      if (s.key == key) return &at(s.index - 1).value;
    }
  }
  std::size_t size() const { return m_size; }
  void clear() {
    m_slots.clear();
    m_chunks.clear();
    m_size = 0;
    m_mask = 0;
    m_shift = 64;
  }
  // f(key, record) for each record, in the order the keys were first seen.
  template <class F>
  void for_each(F f) const {
    for (std::size_t r = 0; r < m_size; ++r) f(at(r).key, at(r).value);
  }

 private:
  static constexpr std::size_t kChunk = 64;
  struct Entry {
    std::uint64_t key = 0;
    V value{};
  };
  struct Slot {
    std::uint64_t key = 0;
    std::uint32_t index = 0;  // 1 + the record's position; 0: empty
  };
  std::size_t home(std::uint64_t key) const { return line_home(key, m_shift); }
  // Doubles the table (at least 16 slots), keeping it at most half full.
  void grow() {
    const std::size_t n = m_slots.empty() ? 16 : 2 * m_slots.size();
    m_slots.assign(n, Slot{});
    m_mask = n - 1;
    m_shift = 64;
    for (std::size_t b = n; b > 1; b >>= 1) --m_shift;
    for (std::size_t r = 0; r < m_size; ++r) {
      std::size_t i = home(at(r).key);
      while (m_slots[i].index != 0) i = (i + 1) & m_mask;
      m_slots[i] = {at(r).key, static_cast<std::uint32_t>(r + 1)};
    }
  }
  Entry& at(std::size_t r) const { return m_chunks[r / kChunk][r % kChunk]; }
  std::vector<Slot> m_slots;
  std::vector<std::unique_ptr<Entry[]>> m_chunks;
  std::size_t m_size = 0;
  std::size_t m_mask = 0;
  unsigned m_shift = 64;
};

}  // namespace hx
