// A fixed array of a trivial type, all zeros to begin with, whose large
// blocks are fresh pages from the OS: zero without being written, and
// backed by memory only once touched. A structure sized for a whole cache
// (an LLC's tags, valid bits and replacement stamps: tens of MB for a
// two-socket host) then costs its elaboration nothing for the sets a run
// never uses, where a std::vector writes every byte of it first.
#pragma once
#include <sys/mman.h>

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace hx {

template <class T>
class ZeroedArray {
  static_assert(std::is_trivial<T>::value, "a zeroed array holds a trivial type (all zeros is its value)");

 public:
  explicit ZeroedArray(std::size_t n = 0) : m_n(n), m_bytes(n * sizeof(T)) {
    if (m_bytes == 0) return;
    if (m_bytes >= kMapped) {
      void* p = ::mmap(nullptr, m_bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (p == MAP_FAILED) throw std::bad_alloc();
      m_p = static_cast<T*>(p);
    } else {
      m_p = static_cast<T*>(std::calloc(n, sizeof(T)));
      if (!m_p) throw std::bad_alloc();
    }
  }
  ZeroedArray(const ZeroedArray&) = delete;
  ZeroedArray& operator=(const ZeroedArray&) = delete;
  ZeroedArray(ZeroedArray&& o) noexcept { swap(o); }
  ZeroedArray& operator=(ZeroedArray&& o) noexcept {
    ZeroedArray(std::move(o)).swap(*this);
    return *this;
  }
  ~ZeroedArray() {
    if (!m_p) return;
    if (m_bytes >= kMapped) ::munmap(m_p, m_bytes);
    else std::free(m_p);
  }

  std::size_t size() const { return m_n; }
  T& operator[](std::size_t i) { return m_p[i]; }
  const T& operator[](std::size_t i) const { return m_p[i]; }
  T* begin() { return m_p; }
  T* end() { return m_p + m_n; }
  const T* begin() const { return m_p; }
  const T* end() const { return m_p + m_n; }
  // All zeros again (every byte written).
  void zero() {
    if (m_p) std::memset(static_cast<void*>(m_p), 0, m_bytes);
  }

 private:
  // Blocks of this size or more are mapped pages (smaller ones come from
  // the heap, zeroed by calloc).
  static constexpr std::size_t kMapped = std::size_t{1} << 16;
  void swap(ZeroedArray& o) noexcept {
    std::swap(m_p, o.m_p);
    std::swap(m_n, o.m_n);
    std::swap(m_bytes, o.m_bytes);
  }
  T* m_p = nullptr;
  std::size_t m_n = 0, m_bytes = 0;
};

}  // namespace hx
