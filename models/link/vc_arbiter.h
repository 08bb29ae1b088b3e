// Virtual channels and how an egress chooses among them, for any link that
// has them (PCIe VCs, a socket link's message classes on VNs).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>

namespace hx::link {

constexpr int kMaxVcs = 8;  // PCIe VC0-VC7 (PCIe base spec sec. 2.5)

// How an egress port chooses among its VCs (the PCIe base spec's VC
// arbitration, under its virtual channel mechanism): round robin over the
// VCs with something to send; strict priority, the highest-numbered VC
// first; or weighted round robin, up to weights[vc] units of a VC in turn.
// Port arbitration (among the ingress ports or streams of one VC) comes
// after it, round robin.
// Simplifications: weighted arbitration gives a VC its weight in units
// (TLPs or messages) per turn, not the spec's VC arbitration table of
// phases; no time-based weighted round robin; port arbitration has no
// table of its own.
enum class VcArbitration : std::uint8_t { RoundRobin, Strict, Weighted };

struct VcArbConfig {
  VcArbitration policy = VcArbitration::RoundRobin;
  std::array<int, kMaxVcs> weights{{1, 1, 1, 1, 1, 1, 1, 1}};
};

class VcArbiter {
 public:
  VcArbiter(const VcArbConfig& cfg, int vcs) : m_cfg(cfg), m_vcs(std::max(1, vcs)) {
    m_left = m_cfg.weights[0];
  }
  // Offers the VCs in the policy's order to grant(vc), which returns true
  // when it took a unit of that VC; the first grant ends the round. Returns
  // whether any VC was granted.
  template <class Grant>
  bool pick(Grant&& grant) {
    if (m_vcs == 1) return grant(0);
    switch (m_cfg.policy) {
      case VcArbitration::Strict:
        for (int vc = m_vcs - 1; vc >= 0; --vc)
          if (grant(vc)) return true;
        return false;
      case VcArbitration::RoundRobin:
        for (int k = 0; k < m_vcs; ++k) {
          const int vc = (m_next + k) % m_vcs;
          if (grant(vc)) {
            m_next = (vc + 1) % m_vcs;
            return true;
          }
        }
        return false;
      case VcArbitration::Weighted:
        break;
    }
    // Weighted: the current VC while its quota lasts (m_left >= 1: a spent
    // quota moves on to the next VC at once), then the next ones.
    for (int k = 0; k < m_vcs; ++k) {
      const int vc = (m_next + k) % m_vcs;
      if (!grant(vc)) continue;
      if (vc != m_next) m_left = m_cfg.weights[static_cast<std::size_t>(vc)];
      m_next = vc;
      if (--m_left <= 0) {
        m_next = (vc + 1) % m_vcs;
        m_left = m_cfg.weights[static_cast<std::size_t>(m_next)];
      }
      return true;
    }
    return false;
  }

 private:
  VcArbConfig m_cfg;
  int m_vcs;
  int m_next = 0, m_left = 1;
};

}  // namespace hx::link
