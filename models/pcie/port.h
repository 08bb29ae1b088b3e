// A PCIe port: one end of a PCIe link, the link engine (models/link) with
// PCIe's traits. What PCIe adds to the engine:
//  - wire bytes per TLP: header + payload in whole DWs + the encoding's
//    framing and DLL bytes (+ ECRC), rounded up to the transmitter's beat
//    (4-byte symbol columns on x4 and wider links, or a coarser datapath);
//  - lane rate x width x encoding efficiency, less SKP ordered sets;
//  - flow-control classes P/NP/Cpl with header and data credits (16 B units);
//  - ACK and UpdateFC DLLPs as the engine's control packets (8 B, or the
//    encoding's DLLP size);
//  - MPS: a TLP above the transmitter's or the receiver's MPS is malformed.
// Simplifications: those of the engine (no replay buffer or bit errors, no
// power states); SKP ordered sets as a constant fraction of the line rate.
#pragma once
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "models/link/link_end.h"
#include "models/link/vc_arbiter.h"
#include "models/pcie/protocol.h"
#include "models/pcie/tlp.h"

namespace hx::pcie {

using link::VcArbConfig;
using link::VcArbiter;
using link::VcArbitration;

struct LinkConfig : link::LinkLayerConfig {
  int gen = 3;
  int width = 8;
  // A lane rate other than the generation's (CCIX ESM: 20 or 25 GT/s on a
  // Gen4 link), 0: the generation's; and its encoding, if not the
  // generation's (framing and DLLP sizes follow the encoding).
  double rate_gts = 0;
  bool encoding_set = false;
  Encoding encoding = Encoding::k128b130b;
  bool skp = true;  // SKP ordered-set overhead (S010: 4 B every 1538 B)
};

struct PortConfig {
  int mps = 128;               // programmed Max_Payload_Size of this port
  int tx_align_B = 4;          // transmitter datapath beat: TLPs start on a beat
  Tick tx_pipeline = 0;        // transaction-layer TX pipeline after arbitration (endpoints)
  int vcs = 1;
  // Receive buffer advertised to the link partner for each VC; 0 = infinite.
  std::array<int, kFcClasses> credits_hdr{{32, 32, 32}};
  std::array<int, kFcClasses> credits_data{{256, 0, 256}};
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

// What PCIe tells the link engine.
struct PcieLinkTraits {
  using Unit = Tlp;
  using EndConfig = PortConfig;
  using Link = LinkConfig;
  static constexpr int kClasses = kFcClasses;
  static constexpr const char* kUnitStat = "tx_tlps";
  static constexpr const char* kUnitUnit = "TLP";
  static constexpr const char* kUnitStatDesc = "TLPs transmitted";
  static constexpr const char* kPayloadStatDesc = "TLP payload bytes transmitted";
  static constexpr const char* kBytesStatDesc = "bytes on the wire incl. framing and DLLPs";
  static constexpr const char* kCtrlStat = "tx_dllps";
  static constexpr const char* kCtrlUnit = "DLLP";
  static constexpr const char* kCtrlStatDesc = "ACK and UpdateFC DLLPs transmitted";
  static constexpr const char* kLargestUnit = "an MPS TLP";
  static const char* class_name(int cls);
  static int cls(const Tlp& t) { return static_cast<int>(t.fc()); }
  static int data_credits(const Tlp& t) { return t.data_credits(); }
  static const char* name(const Tlp& t) { return kind_name(t.kind); }
  static Ledger* ledger(const Tlp& t) { return t.ledger; }
  // The receiver acts on a TLP once its header and the first DW behind it are in.
  static std::uint32_t head_bytes(const Tlp& t, const link::Wire&) { return static_cast<std::uint32_t>(t.header_B() + 4); }
  static link::Wire wire(const LinkConfig& l, const PortConfig& tx);
  static std::uint32_t wire_bytes(const Tlp& t, const link::Wire& w) {
    return tlp_wire_bytes(t.header_B(), t.payload_wire_B(), w.framing_B, t.ecrc, w.align);
  }
  static int max_data_credits(const PortConfig& c) { return (c.mps + kCreditDataUnit - 1) / kCreditDataUnit; }
  // A TLP with data above the transmitter's or the receiver's MPS is malformed (sec. 2.2.2).
  static void check_transmit(const link::LinkEnd<PcieLinkTraits>& tx, const Tlp& t);
};

using PciePort = link::LinkEnd<PcieLinkTraits>;
using PortOwner = link::Owner<PcieLinkTraits>;

}  // namespace hx::pcie

namespace hx::link {
extern template class LinkEnd<pcie::PcieLinkTraits>;
}  // namespace hx::link
