// A point-to-point coherence link: the link engine (models/link) carrying
// coherence messages in four classes (request, snoop, response, data), each
// with message credits of its own at the receiver, so that snoops and
// responses never wait for request buffers (the deadlock-freedom argument
// of CHI-style protocols). A message occupies a header of `header_B` on the
// wire, plus a line (kLineB) when it carries data; control packets
// (credit returns, ACKs) take `ctrl_B`. This is the transport of agents
// wired directly (tests, a socket's mesh); CCIX carries the same messages
// in PCIe TLPs on VC1 instead.
// Simplifications: one message per wire unit (no flit packing of several
// headers), no replay.
#pragma once
#include <array>
#include <cstdint>

#include "models/coherence/engine.h"
#include "models/link/link_end.h"
#include "models/memory/memory.h"

namespace hx::coherence {

struct Packet {
  static constexpr const char* kPoolName = "a coherence packet";
  Msg msg;
  std::uint8_t vc = 0;
  std::uint32_t len = 0;  // data bytes carried
  std::uint64_t id = 0;
  Tick ready = 0, rx_start = 0;
  std::uint16_t hops = 0;
};

constexpr int kMsgClasses = 4;
// A coherent line, as memory keeps it: line numbers times this are addresses.
constexpr std::uint32_t kLineB = mem::MemoryConfig::line_B;

struct CohEndConfig {
  int vcs = 1;
  Tick tx_pipeline = 0;
  // Messages of each class (Req, Snp, Rsp, Dat) this end can buffer: the
  // credits its partner gets; 0 = infinite.
  std::array<int, kMsgClasses> credits{{16, 16, 16, 16}};
  int hdr_credits(int, int cls) const { return credits[static_cast<std::size_t>(cls)]; }
  int data_credits(int, int) const { return 0; }  // credits count messages, not bytes
};

struct CohLinkConfig : link::LinkLayerConfig {
  double GBps = 20.0;      // one direction, after encoding
  int header_B = 16;       // one message's header on the wire
  int ctrl_B = 8;          // a credit return or ACK
};

struct CohLinkTraits {
  using Unit = Packet;
  using EndConfig = CohEndConfig;
  using Link = CohLinkConfig;
  static constexpr int kClasses = kMsgClasses;
  static constexpr const char* kUnitStat = "tx_messages";
  static constexpr const char* kUnitUnit = "message";
  static constexpr const char* kUnitStatDesc = "coherence messages transmitted";
  static constexpr const char* kPayloadStatDesc = "data bytes transmitted";
  static constexpr const char* kBytesStatDesc = "bytes on the wire incl. headers and control packets";
  static constexpr const char* kCtrlStat = "tx_ctrl";
  static constexpr const char* kCtrlUnit = "packet";
  static constexpr const char* kCtrlStatDesc = "credit returns and ACKs transmitted";
  static constexpr const char* kLargestUnit = "a message";
  static const char* class_name(int cls);
  static int cls(const Packet& p) { return static_cast<int>(msg_class(p.msg.type)); }
  static int data_credits(const Packet&) { return 0; }
  static const char* name(const Packet& p) { return msg_name(p.msg.type); }
  static std::uint32_t head_bytes(const Packet&, const link::Wire& w) { return w.framing_B; }  // the header
  static link::Wire wire(const CohLinkConfig& l, const CohEndConfig&);
  static std::uint32_t wire_bytes(const Packet& p, const link::Wire& w) { return w.framing_B + p.len; }
  static int max_data_credits(const CohEndConfig&) { return 0; }
  static void check_transmit(const link::LinkEnd<CohLinkTraits>&, const Packet&) {}
};

using CohPort = link::LinkEnd<CohLinkTraits>;
using CohPortOwner = link::Owner<CohLinkTraits>;

}  // namespace hx::coherence

namespace hx::link {
extern template class LinkEnd<coherence::CohLinkTraits>;
}  // namespace hx::link
