// The dispatcher's pending actions, ordered by (time, posting order).
//
// Nearly every action is posted for less than half a microsecond ahead (a
// link's next wake, a message's arrival, a memory's reply), so the queue
// is a timing wheel of 512 buckets of 1024 ps in front of a 4-ary
// min-heap: an action within the wheel's window goes into its bucket (two
// cache lines holding seven keys in order), any other, or one that finds
// its bucket full, into the heap. The earliest action is the first key of
// the first non-empty bucket (found through a bitmap) or the heap's top,
// whichever is less. A push and a pop cost a few comparisons within a
// bucket instead of sifting through a heap of every pending action.
// Keys are 16 bytes (time; posting number above the payload's slot), and
// payloads stay put in a slab, so the order is exactly (time, posting
// order) wherever an action is kept.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/core/error.h"
#include "models/core/tick.h"

namespace hx {

template <class Payload>
class ActionQueue {
 public:
  bool empty() const { return m_size == 0; }
  std::size_t size() const { return m_size; }
  std::uint64_t posted() const { return m_seq; }  // actions pushed so far
  Tick top_time() const {
    locate();
    return static_cast<Tick>(m_min >> 64);
  }

  // Queues an action at t; returns its payload, for the caller to fill in
  // (field by field: a payload built elsewhere and copied in whole stalled
  // on store forwarding, once per action).
  Payload& push(Tick t) {
    std::uint32_t slot;
    if (m_free.empty()) {
      slot = static_cast<std::uint32_t>(m_slab.size());
      if (slot > kSlotMask) full("more than 4 M actions pending");
      m_slab.emplace_back();
    } else {
      slot = m_free.back();
      m_free.pop_back();
    }
    if (m_seq > kSeqMax) full("posting counter exhausted");
    const Key k = (static_cast<Key>(t) << 64) | (m_seq++ << kSlotBits) | slot;
    const std::uint64_t b = t >> kBucketBits;
    const std::size_t i = static_cast<std::size_t>(b) & kBucketMask;
    if (b >= m_base && b - m_base < kBuckets && room(m_bucket[i])) {
      // Into the bucket, keeping it in order (a new key is usually the last).
      Bucket& u = m_bucket[i];
      unsigned j = u.end;
      while (j > u.head && k < u.key[j - 1]) {
        u.key[j] = u.key[j - 1];
        --j;
      }
      u.key[j] = k;
      ++u.end;
      m_bits[i / 64] |= std::uint64_t{1} << (i % 64);
      if (m_located && k < m_min) m_min_at = static_cast<int>(i), m_min = k;
    } else {
      heap_push(k);
      if (m_located && k < m_min) m_min_at = kInHeap, m_min = k;
    }
    ++m_size;
    return m_slab[slot];
  }

  // Removes the earliest action; returns its time and payload.
  Payload pop(Tick& t) {
    locate();
    const Key top = m_min;
    if (m_min_at == kInHeap) {
      heap_pop();
      m_located = false;
    } else {
      Bucket& u = m_bucket[static_cast<std::size_t>(m_min_at)];
      if (++u.head == u.end) {
        u.head = u.end = 0;
        m_bits[static_cast<std::size_t>(m_min_at) / 64] &= ~(std::uint64_t{1} << (m_min_at % 64));
        m_located = false;
      } else {
        // The bucket is still the window's first non-empty one: its next
        // key is the least of the buckets (what locate() would find).
        m_min = u.key[u.head];
        if (!m_heap.empty() && m_heap.front() < m_min) m_min_at = kInHeap, m_min = m_heap.front();
      }
    }
    --m_size;
    t = static_cast<Tick>(top >> 64);
    // Every action left is at t or later: the window starts at t's bucket.
    const std::uint64_t b = t >> kBucketBits;
    if (b > m_base) m_base = b;
    const std::uint32_t slot = static_cast<std::uint32_t>(top & kSlotMask);
    m_free.push_back(slot);
    return m_slab[slot];
  }

 private:
  // Out of line: a push that builds its error in place pays for it on every call.
  [[noreturn, gnu::cold, gnu::noinline]] static void full(const char* what) {
    throw SimError(std::string("action queue: ") + what);
  }
  __extension__ typedef unsigned __int128 Key;
  static constexpr unsigned kSlotBits = 22;
  static constexpr std::uint64_t kSlotMask = (1ull << kSlotBits) - 1;
  static constexpr std::uint64_t kSeqMax = (1ull << (64 - kSlotBits)) - 1;
  static constexpr unsigned kBucketBits = 10;  // 1024 ps a bucket
  static constexpr std::size_t kBuckets = 512;
  static constexpr unsigned kPerBucket = 7;
  static constexpr std::size_t kBucketMask = kBuckets - 1;
  static constexpr int kInHeap = -1;

  // Finds the least key (once per change): the first non-empty bucket of
  // the window, in time order from m_base, against the heap's top.
  void locate() const {
    if (m_located) return;
    m_located = true;
    m_min_at = kInHeap;
    m_min = m_heap.empty() ? ~Key{0} : m_heap.front();
    const std::size_t start = static_cast<std::size_t>(m_base) & kBucketMask;
    for (std::size_t n = 0; n < kBuckets; n += 64) {
      // The 64 buckets from start + n on, as one word of the bitmap.
      const std::size_t at = (start + n) & kBucketMask;
      const std::size_t w = at / 64, sh = at % 64;
      std::uint64_t bits = m_bits[w] >> sh;
      if (sh) bits |= m_bits[(w + 1) % kWords] << (64 - sh);
      if (!bits) continue;
      const std::size_t i = (at + static_cast<std::size_t>(__builtin_ctzll(bits))) & kBucketMask;
      const Key k = m_bucket[i].key[m_bucket[i].head];
      if (k < m_min) {
        m_min = k;
        m_min_at = static_cast<int>(i);
      }
      return;
    }
  }

  void heap_push(Key k) {
    std::size_t i = m_heap.size();
    m_heap.push_back(k);
    while (i > 0) {
      const std::size_t parent = (i - 1) / 4;
      if (!(k < m_heap[parent])) break;
      m_heap[i] = m_heap[parent];
      i = parent;
    }
    m_heap[i] = k;
  }
  void heap_pop() {
    const Key last = m_heap.back();
    m_heap.pop_back();
    const std::size_t n = m_heap.size();
    if (!n) return;
    std::size_t i = 0;
    for (;;) {
      const std::size_t c = 4 * i + 1;
      if (c >= n) break;
      std::size_t m = c;
      const std::size_t e = c + 4 < n ? c + 4 : n;
      for (std::size_t j = c + 1; j < e; ++j)
        if (m_heap[j] < m_heap[m]) m = j;
      if (!(m_heap[m] < last)) break;
      m_heap[i] = m_heap[m];
      i = m;
    }
    m_heap[i] = last;
  }

  static constexpr std::size_t kWords = kBuckets / 64;
  // A bucket's keys in order, from key[head] to key[end - 1].
  // Its count first, so that a bucket of up to three keys (nearly every
  // one) is one cache line read and written, not two.
  struct alignas(128) Bucket {
    std::uint8_t head = 0, end = 0;
    Key key[kPerBucket];
  };
  // Whether a key fits into u (moving its keys to the front if need be).
  static bool room(Bucket& u) {
    if (u.end < kPerBucket) return true;
    if (u.head == 0) return false;
    for (unsigned j = u.head; j < u.end; ++j) u.key[j - u.head] = u.key[j];
    u.end = static_cast<std::uint8_t>(u.end - u.head);
    u.head = 0;
    return true;
  }
  std::vector<Bucket> m_bucket = std::vector<Bucket>(kBuckets);
  std::array<std::uint64_t, kWords> m_bits{};
  std::uint64_t m_base = 0;  // the window's first bucket: no key is earlier than it
  std::vector<Key> m_heap;   // keys outside the window
  std::size_t m_size = 0;
  mutable bool m_located = false;  // m_min and m_min_at are the least key and where it is
  mutable Key m_min = 0;
  mutable int m_min_at = kInHeap;  // its bucket, or kInHeap
  std::vector<Payload> m_slab;
  std::vector<std::uint32_t> m_free;
  std::uint64_t m_seq = 0;
};

}  // namespace hx
