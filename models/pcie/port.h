// One end of a PCIe link: the transmit serialiser of one link direction and
// the receive buffer of the other. Mechanisms (DESIGN.md section 4):
//  - serialisation: wire bytes (header + payload + framing/DLL, rounded up to
//    the transmitter's datapath beat) over lane rate x width x encoding;
//  - flow control per VC and class (P/NP/Cpl x header/data credits): the
//    transmitter only sends what the receiver advertised; the receiver frees
//    credits when its owner drains the TLP and returns them in UpdateFC DLLPs
//    that occupy its own transmit wire and arrive after the link latency;
//  - ACK DLLPs every N TLPs or on a timer, also occupying the reverse wire.
//    An ACK's only effect modelled is that occupancy (no replay buffer), so
//    it costs no event: it is due at a known time and is placed on the wire
//    when the wire next transmits (in the idle gap, or behind the TLP on the
//    wire then). ACKs due after a wire's last transmission are not counted.
// Simplifications: no replay buffer or bit errors (a link is error free), no
// power states; SKP ordered sets as a constant fraction of the line rate.
#pragma once
#include <algorithm>
#include <array>
#include <deque>
#include <vector>
#include <string>

#include "models/core/scheduler.h"
#include "models/core/stats.h"
#include "models/pcie/protocol.h"
#include "models/pcie/tlp.h"

namespace hx::pcie {

struct LinkConfig {
  int gen = 3;
  int width = 8;
  // A lane rate other than the generation's (CCIX ESM: 20 or 25 GT/s on a
  // Gen4 link), 0: the generation's; and its encoding, if not the
  // generation's (framing and DLLP sizes follow the encoding).
  double rate_gts = 0;
  bool encoding_set = false;
  Encoding encoding = Encoding::k128b130b;
  Tick latency = 0;            // PHY + SerDes + propagation, one direction
  bool skp = true;             // SKP ordered-set overhead (S010: 4 B every 1538 B)
  int ack_every = 4;           // ACK DLLP after this many TLPs...
  Tick ack_timeout = 0;        // ...or this long after the first un-ACKed TLP
  int fc_update_every = 4;     // UpdateFC after this many freed TLPs of a class...
  Tick fc_update_timeout = 0;  // ...or this long after the first unreported free
};

// How an egress port chooses among its VCs (the PCIe base spec's VC
// arbitration, under its virtual channel mechanism): round robin over the VCs with something to send; strict
// priority, the highest-numbered VC first; or weighted round robin, up to
// weights[vc] TLPs of a VC in turn. Port arbitration (among the ingress
// ports or streams of one VC) comes after it, round robin.
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
  // when it took a TLP of that VC; the first grant ends the round. Returns
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

struct PortConfig {
  int mps = 128;               // programmed Max_Payload_Size of this port
  int tx_align_B = 4;          // transmitter datapath beat: TLPs start on a beat
  Tick tx_pipeline = 0;        // transaction-layer TX pipeline after arbitration (endpoints)
  int vcs = 1;
  // Receive buffer advertised to the link partner for each VC; 0 = infinite.
  std::array<int, kFcClasses> credits_hdr{{32, 32, 0}};
  std::array<int, kFcClasses> credits_data{{256, 0, 0}};
  // Per-VC buffers where they differ: entry k for VC k, -1 = the values above.
  struct VcCredits {
    std::array<int, kFcClasses> hdr{{-1, -1, -1}}, data{{-1, -1, -1}};
  };
  std::vector<VcCredits> vc_credits;
  int hdr_credits(int vc, int cls) const {
    const int v = static_cast<std::size_t>(vc) < vc_credits.size() ? vc_credits[static_cast<std::size_t>(vc)].hdr[static_cast<std::size_t>(cls)] : -1;
    return v >= 0 ? v : credits_hdr[static_cast<std::size_t>(cls)];
  }
  int data_credits(int vc, int cls) const {
    const int v = static_cast<std::size_t>(vc) < vc_credits.size() ? vc_credits[static_cast<std::size_t>(vc)].data[static_cast<std::size_t>(cls)] : -1;
    return v >= 0 ? v : credits_data[static_cast<std::size_t>(cls)];
  }
  VcArbConfig vc_arb;  // at this port's egress (switch, root port and endpoint alike)
  // Completion credits infinite on every VC (endpoints and root ports, sec. 2.6.1).
  void infinite_completion_credits() {
    credits_hdr[2] = credits_data[2] = 0;
    for (auto& v : vc_credits) v.hdr[2] = v.data[2] = 0;
  }
};

// The link's lane rate and encoding: the generation's unless overridden.
double lane_gts(const LinkConfig& l);
Encoding link_encoding(const LinkConfig& l);
// Data bytes per ns one direction carries before TLP overheads: lane rate x
// width x encoding efficiency, less SKP ordered sets where counted.
double link_bytes_per_ns(const LinkConfig& l);
// Wire bytes of one TLP: header, payload in whole DWs, the encoding's
// framing and an ECRC if any, rounded up to whole beats of `align` bytes
// (lanes on x4 and wider, or the transmitter's datapath beat).
inline std::uint32_t tlp_wire_bytes(int header_B, std::uint32_t payload_wire_B, std::uint32_t framing_B, bool ecrc,
                                    std::uint32_t align) {
  const std::uint32_t b = static_cast<std::uint32_t>(header_B) + payload_wire_B + framing_B + (ecrc ? 4u : 0u);
  return (b + align - 1) & ~(align - 1);
}
// The transmitter's beat on a link: 4-byte symbol columns on x4 and wider
// links (PCIe sec. 4.2.1), coarser if its datapath is.
inline int tlp_align(const LinkConfig& l, int tx_align_B) { return std::max(std::min(l.width, 4), tx_align_B); }
// Payload bytes per ns of back-to-back writes of `payload` bytes with 4-DW
// headers, as the port serialises them (DLLPs of the reverse traffic aside).
double write_payload_bytes_per_ns(const LinkConfig& l, int payload, int tx_align_B);

class PciePort;

class PortOwner {
 public:
  virtual ~PortOwner() = default;
  // Pick the next TLP for `p` (use p.can_send()); nullptr if none is
  // eligible now. An owner whose work becomes ready later calls p.wake_at().
  virtual Tlp* tx_select(PciePort& p) = 0;
  // A TLP will arrive: its header at `head`, its last byte at `tail`.
  virtual void rx_tlp(PciePort& p, Tlp* t, Tick head, Tick tail) = 0;
  // A TLP left on the wire [start, end).
  virtual void tx_done(PciePort& p, const Tlp& t, Tick start, Tick end) {}
  // Whether anything is queued for `p` (it then wakes when its wire frees).
  virtual bool tx_pending(const PciePort& p) const { return true; }
  // Whether every TLP queued for `p` that is ready by `at` is sure to lack
  // credits then (ordering rules aside), so that selecting at `at` would
  // find nothing; `next_ready` gets the earliest ready time after `at`.
  // False when unsure: the port then simply tries at `at`.
  virtual bool tx_none_eligible(const PciePort& p, Tick at, Tick& next_ready) const { return false; }
  virtual Scheduler& scheduler() = 0;
};

class PciePort final : public Actor {
 public:
  PciePort(PortOwner& owner, std::string name, const PortConfig& cfg);
  static void connect(PciePort& a, PciePort& b, const LinkConfig& link);

  const std::string& name() const { return m_name; }
  bool connected() const { return m_peer != nullptr; }
  PciePort* peer() const { return m_peer; }
  const PortConfig& config() const { return m_cfg; }
  const LinkConfig& link() const { return m_link; }
  int index = 0;  // owner's port index

  void wake_at(Tick t);        // retry selection at t
  // The owner queued t (ready at t.ready): retry when it could go, or, when
  // it could not have credits then, when credits come back (design note 17).
  void wake_for(const Tlp& t);
  bool can_send(const Tlp& t);
  // Whether t would have credits at `at`, counting those in flight by then.
  bool credits_at(const Tlp& t, Tick at) const;
  // For an owner's tx_none_eligible: whether queue head h could go at `at`
  // (ready and with credits); a head not yet ready lowers `next_ready`.
  bool head_sendable(const Tlp& h, Tick at, Tick& next_ready) const;
  void release(const Tlp& t);  // the owner drained t from this port's receive buffer

  std::uint32_t wire_bytes(const Tlp& t) const;
  Tick serialize(std::uint32_t bytes) const;
  double bytes_per_ns() const { return 1000.0 / m_ps_per_byte; }
  Tick wire_free() const { return m_wire_free; }

  // Diagnosis for the deadlock watchdog: what the transmitter waits for.
  std::string blocked_reason();
  bool has_rx_occupancy() const;

  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;

  // statistics
  Counter tx_tlps, tx_bytes, tx_payload, tx_dllps, busy_ps, credit_stalls;

 private:
  enum : std::uint32_t { kWake, kFcDue };
  struct Credits {
    int hdr = 0, data = 0;
    bool inf_hdr = false, inf_data = false;
  };
  struct InFlight {
    Tick t;
    int vc, cls, hdr, data;
  };
  void try_send();
  Tick wake_time_for(const Tlp& t);
  Tick credit_after(Tick at) const;  // the first credit return in flight arriving after `at`
  void check_vc(const Tlp& t) const;  // fails on a VC this link does not enable
  void transmit(Tlp* t, Tick now);
  void refresh_credits(Tick now);
  Tick send_dllp(Tick at);
  void place_dllp(Tick due);
  void place_due_acks(Tick now);
  void on_received(const Tlp& t, Tick tail);
  void flush_fc(int vc, int cls);

  PortOwner& m_owner;
  std::string m_name;
  PortConfig m_cfg;
  LinkConfig m_link;
  PciePort* m_peer = nullptr;
  double m_ps_per_byte = 1.0;
  int m_align = 4;
  std::uint32_t m_framing_B = 0, m_dllp_B = 0;  // of the link's encoding, kept from connect()
  Tick m_dllp_time = 0;

  // transmitter
  int m_trace_tx = -1, m_trace_rx = -1;  // trace tracks, made on first use
  Tick m_wire_free = 0;
  Tick m_next_wake = kNever;       // the earliest wake pending
  bool m_selecting = false;         // inside the owner's tx_select
  Tick m_deferred_wake = kNever;    // wakes asked for meanwhile
  std::vector<const Tlp*> m_deferred_tlps;  // TLPs queued meanwhile
  std::array<std::array<Credits, kFcClasses>, kMaxVcs> m_tx_credits{};
  std::deque<InFlight> m_credit_inflight;
  bool m_blocked = false;

  // receiver
  std::array<std::array<int, kFcClasses>, kMaxVcs> m_rx_hdr{}, m_rx_data{};  // occupancy
  std::array<std::array<int, kFcClasses>, kMaxVcs> m_fc_hdr{}, m_fc_data{}, m_fc_tlps{};  // freed, unreported
  std::array<std::array<bool, kFcClasses>, kMaxVcs> m_fc_timer{};
  int m_unacked = 0;
  Tick m_last_rx_tail = 0;
  std::deque<Tick> m_acks_due;  // ACK DLLPs this port owes its wire
};

}  // namespace hx::pcie
