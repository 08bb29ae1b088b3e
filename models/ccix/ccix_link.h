// CCIX on PCIe: one end of the connection between two CCIX agents (a
// request agent in a device, the home agent behind the root complex),
// carrying the coherence engine's messages (models/coherence) in PCIe
// TLPs on VC1. It is a coherence::Channel: the agents are those of
// models/coherence, unchanged.
// Mechanisms (CCIX base specification, transport and protocol layers):
//  - a CCIX packet is a PCIe Vendor_Defined Type 1 message routed by ID
//    (the PCIe-compatible header, 16 B) or, with `optimised` headers, a
//    4 B CCIX header in place of the PCIe one;
//  - each message adds its own header (per class: request, snoop,
//    response, data) and a data message its line; with `packing`, the
//    messages ready when a packet is formed share it up to `max_packet_B`
//    (MaxPacketSize) of payload; without, one message per packet;
//  - protocol credits per message class, end to end: the receiver grants
//    as many as its trackers take (`credits`), the sender spends one per
//    message and gets it back when the receiver has taken the message.
//    Returns ride in the next packet towards the sender, or go alone once
//    half a class's grant is owed or `credit_return_delay` has passed. They
//    are on top of PCIe's own VC1 link credits;
//  - the transmit order between classes is data, responses, snoops, then
//    requests (coherence::ClassQueues);
//  - packets are formed only when the PCIe transmit queue has room, so
//    messages that wait behind a busy link are packed together;
//  - `latency`: the CCIX transaction and link layers, once on each side;
//  - a timed message (one with a ledger) is charged its wait in the class
//    queues; its packet's TLP then carries a ledger of the packet's own
//    way (the CCIX layers, the PCIe path), which every timed message the
//    packet holds appends when it arrives.
// Checks always on: credits never negative nor above the grant, no release
// of a message not received; a blocked end names the class and what it
// waits for.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/coherence/transport.h"
#include "models/core/stats.h"
#include "models/pcie/tlp.h"

namespace hx::ccix {

using coherence::Packet;
constexpr int kClasses = coherence::kMsgClasses;

// How a link's packets are made: one format for both of its ends.
struct CcixFormat {
  bool optimised = false;   // the 4 B CCIX header instead of the PCIe-compatible one
  bool packing = true;      // several messages per packet (NoMessagePack false)
  int max_packet_B = 256;   // MaxPacketSize: message bytes in one packet (128, 256, 512)
  // Message header bytes per class (Req, Snp, Rsp, Dat); a Dat message
  // carries its line beside. Estimates from the message formats' fields.
  std::array<int, kClasses> msg_B{{16, 12, 8, 8}};
  int credit_B = 4;         // a credit return carried in a packet
  int vc = 1;
};

struct CcixConfig {
  CcixFormat format;
  // Messages of each class this end takes (its trackers): the credits its
  // partner gets.
  std::array<int, kClasses> credits{{16, 16, 32, 32}};
  Tick credit_return_delay = 100 * kNs;
  Tick latency = 0;         // CCIX layers, per side
};

// The PCIe side one end sends on: an endpoint's transmit stream, or a root port.
class TlpPort {
 public:
  virtual ~TlpPort() = default;
  virtual pcie::Tlp* new_message() = 0;  // a MsgD routed by ID to the partner
  virtual bool room() const = 0;         // the PCIe transmit queue takes another TLP now
  virtual void transmit(pcie::Tlp* t, Tick ready) = 0;
};

class CcixLink final : public coherence::Channel, public Actor {
 public:
  CcixLink(const std::string& name, const CcixConfig& cfg, TlpPort& pcie);
  ~CcixLink() override;
  // The agent the messages received go to (before any arrives).
  void bind(coherence::Receiver& agent) { m_agent = &agent; }
  // Each end gets the credits the other grants.
  static void connect(CcixLink& a, CcixLink& b);
  const CcixConfig& config() const { return m_cfg; }
  const std::string& name() const { return m_name; }

  void send(Packet* p) override;
  void release(const Packet& p) override;
  bool pending() const override { return !m_q.empty(); }
  // A CCIX packet for this end has arrived.
  void on_tlp(const pcie::Tlp& t);
  // The PCIe transmit queue has room again.
  void on_room();
  // Whether every credit granted is back and nothing waits (at quiesce).
  bool whole() const;
  // Its credits, per class: available / granted, held, owed.
  std::string credits() const;
  std::string blocked_reason() const;
  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;

  Counter tx_packets, tx_messages, tx_credit_only, tx_bytes;

 private:
  struct Bundle;
  void pump();
  void pump_at(Tick t);
  Tick return_due() const;
  std::uint32_t msg_bytes(const Packet& p) const;
  std::string m_name;
  CcixConfig m_cfg;
  coherence::Receiver* m_agent = nullptr;
  TlpPort& m_pcie;
  Scheduler m_sched;
  CcixLink* m_peer = nullptr;
  coherence::ClassQueues m_q;
  std::array<int, kClasses> m_avail{};  // credits to send with, per class
  std::array<int, kClasses> m_grant{};  // what the partner granted
  std::array<int, kClasses> m_owed{};   // freed here, not yet returned
  std::array<int, kClasses> m_held{};   // received, not yet released
  Tick m_owed_since = kNever;
  Tick m_pump_at = kNever;
};

}  // namespace hx::ccix
