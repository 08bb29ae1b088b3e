// Division and remainder by a divisor fixed at construction, for address
// arithmetic done once per message (a line's socket, slice and socket
// link): a shift and a mask for a power of two, the compiler's multiply by
// a reciprocal for three (three socket links), a division otherwise.
#pragma once
#include <cstdint>

#include "models/core/error.h"

namespace hx {

class Divisor {
 public:
  explicit Divisor(std::uint64_t d = 1) : m_d(d) {
    if (d == 0) throw SimError("a divisor of zero");
    m_pow2 = (d & (d - 1)) == 0;
    while (m_pow2 && (std::uint64_t{1} << m_shift) < d) ++m_shift;
  }
  std::uint64_t value() const { return m_d; }
  std::uint64_t div(std::uint64_t x) const {
    if (m_pow2) return x >> m_shift;
    if (m_d == 3) return x / 3;
    return x / m_d;
  }
  std::uint64_t mod(std::uint64_t x) const {
    if (m_pow2) return x & (m_d - 1);
    if (m_d == 3) return x % 3;
    return x % m_d;
  }

 private:
  std::uint64_t m_d;
  bool m_pow2 = false;
  unsigned m_shift = 0;
};

}  // namespace hx
