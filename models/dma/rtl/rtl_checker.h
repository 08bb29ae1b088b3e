// Protocol checker for the RTL engine's valid/ready interfaces, fed one
// sample per clock cycle by the co-simulation adapter (the same wires the
// RTL drives). Rules:
//  - a beat offered (valid) and not taken (!ready) stays offered, unchanged,
//    until it is taken;
//  - packets are framed: sop on the first beat, eop on the last, no sop
//    inside a packet;
//  - requester writes carry 1..max_len bytes, never cross a 4 KiB boundary,
//    and end (eop) exactly on the beat that holds their last byte.
// A violation is a simulation error naming the interface and the cycle.
#pragma once
#include <cstdint>
#include <string>

#include "models/core/error.h"

namespace hx::dma {

struct BeatSample {
  bool valid = false, ready = false, sop = false, eop = false;
  std::uint64_t addr = 0;
  std::uint32_t len = 0;
  std::uint64_t payload_hash = 0;  // of data and side fields: must not change while stalled
};

class StreamChecker {
 public:
  StreamChecker(std::string name, std::uint32_t bytes_per_beat, bool tlp_rules, std::uint32_t max_len = 4096)
      : m_name(std::move(name)), m_bytes(bytes_per_beat), m_tlp(tlp_rules), m_max(max_len) {}

  void sample(const BeatSample& s, std::uint64_t cycle) {
    if (m_stalled) {
      if (!s.valid) fail(cycle, "valid dropped before the beat was taken");
      if (s.payload_hash != m_held.payload_hash || s.sop != m_held.sop || s.eop != m_held.eop)
        fail(cycle, "beat changed while waiting for ready");
    }
    m_stalled = s.valid && !s.ready;
    if (m_stalled) m_held = s;  // read only while stalled
    if (!(s.valid && s.ready)) return;
    if (s.sop == m_in_packet) fail(cycle, s.sop ? "sop inside a packet" : "first beat of a packet without sop");
    if (s.sop && m_tlp) {
      if (s.len == 0 || s.len > m_max) fail(cycle, "TLP length " + std::to_string(s.len) + " outside 1.." + std::to_string(m_max));
      if ((s.addr & 4095) + s.len > 4096) fail(cycle, "TLP crosses a 4 KiB boundary");
      m_left = s.len;
    }
    if (m_tlp) {
      const std::uint32_t take = m_left < m_bytes ? m_left : m_bytes;
      m_left -= take;
      if (s.eop != (m_left == 0)) fail(cycle, s.eop ? "eop before the last byte" : "no eop on the last byte");
    }
    m_in_packet = !s.eop;
  }

 private:
  [[noreturn]] void fail(std::uint64_t cycle, const std::string& what) const {
    sim_fail("rtl checker " + m_name, "cycle " + std::to_string(cycle) + ": " + what);
  }
  std::string m_name;
  std::uint32_t m_bytes;
  bool m_tlp;
  std::uint32_t m_max;
  bool m_stalled = false, m_in_packet = false;
  BeatSample m_held;
  std::uint32_t m_left = 0;
};

}  // namespace hx::dma
