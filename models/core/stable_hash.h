// A hash that is the same on every build, machine and run (std::hash is
// not: its value may change with the library), for fingerprints that are
// written to files and compared later: FNV-1a over 128 bits
// (Fowler, Noll, Vo; the 128-bit prime 2^88 + 2^8 + 0x3b).
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace hx {

class StableHash {
 public:
  StableHash& add(std::string_view s) {
    for (const unsigned char c : s) {
      m_h ^= c;
      m_h *= kPrime;
    }
    return *this;
  }
  // A field boundary: "ab"+"c" and "a"+"bc" hash apart.
  StableHash& field(std::string_view s) {
    add(std::to_string(s.size()));
    add(":");
    return add(s);
  }
  // 32 hexadecimal digits.
  std::string hex() const {
    static const char* digits = "0123456789abcdef";
    std::string out(32, '0');
    unsigned __int128 h = m_h;
    for (int i = 31; i >= 0; --i, h >>= 4) out[static_cast<std::size_t>(i)] = digits[static_cast<unsigned>(h & 0xf)];
    return out;
  }
  std::uint64_t low64() const { return static_cast<std::uint64_t>(m_h); }

 private:
  static constexpr unsigned __int128 kPrime = (static_cast<unsigned __int128>(1) << 88) + 0x13b;
  unsigned __int128 m_h = (static_cast<unsigned __int128>(0x6c62272e07bb0142ull) << 64) | 0x62b821756295c58dull;
};

}  // namespace hx
