// The dispatcher's pending actions, ordered by (time, posting order): a
// 4-ary min-heap of 16-byte keys over a slab of payloads. Cheaper than a
// binary heap of whole actions because sifting moves only keys and a 4-ary
// tree is half as deep.
#pragma once
#include <cstdint>
#include <vector>

#include "models/core/error.h"
#include "models/core/tick.h"

namespace hx {

template <class Payload>
class ActionQueue {
 public:
  bool empty() const { return m_heap.empty(); }
  std::size_t size() const { return m_heap.size(); }
  Tick top_time() const { return m_heap.front().t; }

  void push(Tick t, const Payload& p) {
    std::uint32_t slot;
    if (m_free.empty()) {
      slot = static_cast<std::uint32_t>(m_slab.size());
      if (slot > kSlotMask) throw SimError("action queue: more than 4 M actions pending");
      m_slab.push_back(p);
    } else {
      slot = m_free.back();
      m_free.pop_back();
      m_slab[slot] = p;
    }
    if (m_seq > kSeqMax) throw SimError("action queue: posting counter exhausted");
    Key k{t, (m_seq++ << kSlotBits) | slot};
    std::size_t i = m_heap.size();
    m_heap.push_back(k);
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!less(k, m_heap[parent])) break;
      m_heap[i] = m_heap[parent];
      i = parent;
    }
    m_heap[i] = k;
  }

  // Removes the earliest action; returns its time and payload.
  Payload pop(Tick& t) {
    const Key top = m_heap.front();
    const Key last = m_heap.back();
    m_heap.pop_back();
    const std::size_t n = m_heap.size();
    if (n) {
      std::size_t i = 0;
      for (;;) {
        const std::size_t c = 4 * i + 1;
        if (c >= n) break;
        std::size_t m = c;
        const std::size_t e = c + 4 < n ? c + 4 : n;
        for (std::size_t j = c + 1; j < e; ++j)
          if (less(m_heap[j], m_heap[m])) m = j;
        if (!less(m_heap[m], last)) break;
        m_heap[i] = m_heap[m];
        i = m;
      }
      m_heap[i] = last;
    }
    const std::uint32_t slot = static_cast<std::uint32_t>(top.order & kSlotMask);
    m_free.push_back(slot);
    t = top.t;
    return m_slab[slot];
  }

 private:
  static constexpr unsigned kSlotBits = 22;
  static constexpr std::uint64_t kSlotMask = (1ull << kSlotBits) - 1;
  static constexpr std::uint64_t kSeqMax = (1ull << (64 - kSlotBits)) - 1;
  struct Key {
    Tick t;
    std::uint64_t order;  // posting sequence number above the payload slot
  };
  static bool less(const Key& a, const Key& b) { return a.t < b.t || (a.t == b.t && a.order < b.order); }

  std::vector<Key> m_heap;
  std::vector<Payload> m_slab;
  std::vector<std::uint32_t> m_free;
  std::uint64_t m_seq = 0;
};

}  // namespace hx
