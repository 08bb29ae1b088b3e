// A point-to-point coherence link: the link engine (models/link) carrying
// coherence messages in four classes (request, snoop, response, data), each
// with message credits of its own at the receiver, so that snoops and
// responses never wait for request buffers (the deadlock-freedom argument
// of CHI-style protocols). A message occupies a header of `header_B` on the
// wire, plus a line (kLineB) when it carries data; ACKs take `ctrl_B`.
// Credits go back in headers, one message's at a time as its receiver
// takes it (LinkLayerConfig::credits_in_header), as CHI, CXL.cache and UPI
// links return theirs; a link set otherwise returns them in control
// packets of `ctrl_B`, batched as PCIe does. This is the transport of agents
// wired directly (tests, a socket's mesh); CCIX carries the same messages
// in PCIe TLPs on VC1 instead; both are a Channel (below) to the agents.
// A message of a timed transaction carries its ledger (Packet::ledger); the
// link charges it as it charges a TLP's.
// Simplifications: one message per wire unit (no flit packing of several
// headers), no replay.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "models/coherence/engine.h"
#include "models/core/fifo.h"
#include "models/core/ledger.h"
#include "models/link/link_end.h"
#include "models/memory/memory.h"

namespace hx::coherence {

struct Packet {
  static constexpr const char* kPoolName = "a coherence packet";
  Msg msg;
  std::uint8_t vc = 0;
  // A socket system's link end whose buffer holds it until its agent takes
  // it (socket.h; kNoLinkEnd: none). At most 224 ends: 8 sockets, every
  // pair joined by 4 links.
  static constexpr std::uint8_t kNoLinkEnd = 0xff;
  std::uint8_t via = kNoLinkEnd;
  std::uint16_t hops = 0;
  std::uint32_t len = 0;  // data bytes carried
  std::uint64_t id = 0;
  Tick ready = 0, rx_start = 0;
  // Where a timed transaction's time went, up to `ready` when it is queued
  // (models/core/ledger.h): its critical path's message carries one.
  Ledger* ledger = nullptr;
  void release_parts() { drop_ledger(ledger); }
};

constexpr int kMsgClasses = 4;
// A coherent line, as memory keeps it: line numbers times this are addresses.
constexpr std::uint32_t kLineB = mem::MemoryConfig::line_B;
static_assert(kLineB == kLineBytes, "the protocol's messages carry lines of memory's size");

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
  CohLinkConfig() { credits_in_header = true; }
  double GBps = 20.0;      // one direction, after encoding
  int header_B = 16;       // one message's header on the wire
  int ctrl_B = 8;          // an ACK (or a credit return, where credits take packets)
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
  static constexpr const char* kCtrlStatDesc = "ACKs (and credit returns, where they take packets) transmitted";
  static constexpr const char* kLargestUnit = "a message";
  static const char* class_name(int cls);
  static int cls(const Packet& p) { return static_cast<int>(msg_class(p.msg.type)); }
  static int data_credits(const Packet&) { return 0; }
  static const char* name(const Packet& p) { return msg_name(p.msg.type); }
  static Ledger* ledger(const Packet& p) { return p.ledger; }
  static std::uint32_t head_bytes(const Packet&, const link::Wire& w) { return w.framing_B; }  // the header
  static link::Wire wire(const CohLinkConfig& l, const CohEndConfig&);
  static std::uint32_t wire_bytes(const Packet& p, const link::Wire& w) { return w.framing_B + p.len; }
  static int max_data_credits(const CohEndConfig&) { return 0; }
  static void check_transmit(const link::LinkEnd<CohLinkTraits>&, const Packet&) {}
};

using CohPort = link::LinkEnd<CohLinkTraits>;
using CohPortOwner = link::Owner<CohLinkTraits>;

// What carries an agent's messages to one partner: a direct coherence link
// (DirectLink below), or CCIX messages packed into PCIe TLPs on VC1
// (models/ccix). An agent only queues and releases; the channel owns the
// queues, the order between classes and the credits.
class Channel {
 public:
  virtual ~Channel() = default;
  // Queue `p` (ready at p->ready) for the partner; the channel owns it
  // until it is delivered.
  virtual void send(Packet* p) = 0;
  // The receiver is done with `p`: the buffer it took is free again (its
  // credit goes back to the sender).
  virtual void release(const Packet& p) = 0;
  virtual bool pending() const = 0;  // messages queued, not yet sent
};

// The agent behind a channel.
class Receiver {
 public:
  virtual ~Receiver() = default;
  // A message from `from` whose last byte arrives at `tail`; the receiver
  // calls from.release(*p) once it has taken it.
  virtual void arrive(Channel& from, Packet* p, Tick tail) = 0;
};

// Messages waiting for a link, per class, sent responses first.
class ClassQueues {
 public:
  void push(Packet* p) { m_q[static_cast<std::size_t>(CohLinkTraits::cls(*p))].push_back(p); }
  // The first message, data and responses first, then snoops, then
  // requests, that is ready at `now` and that `sendable` accepts.
  template <class F>
  Packet* select(Tick now, F&& sendable) {
    static constexpr int kOrder[] = {3, 2, 1, 0};  // Dat, Rsp, Snp, Req
    for (int c : kOrder) {
      auto& q = m_q[static_cast<std::size_t>(c)];
      if (q.empty() || q.front()->ready > now || !sendable(*q.front())) continue;
      Packet* p = q.front();
      q.pop_front();
      return p;
    }
    return nullptr;
  }
  bool empty() const;
  std::size_t size(int cls) const { return m_q[static_cast<std::size_t>(cls)].size(); }
  // The earliest time a queued message is ready (kNever if none is queued).
  Tick next_ready() const;

 private:
  std::array<Fifo<Packet*>, kMsgClasses> m_q;
};

// A channel on one end of a point-to-point coherence link.
class DirectLink final : public Channel, public CohPortOwner {
 public:
  DirectLink(Receiver& owner, const std::string& name, const CohEndConfig& cfg);
  CohPort& port() { return m_port; }

  void send(Packet* p) override;
  void release(const Packet& p) override { m_port.release(p); }
  bool pending() const override { return !m_tx.empty(); }

  Packet* tx_select(CohPort& p) override;
  void rx_arrive(CohPort&, Packet* u, Tick, Tick tail) override {
    if (u->ledger) u->ledger->land(tail);
    m_owner.arrive(*this, u, tail);
  }
  bool tx_pending(const CohPort&) const override { return !m_tx.empty(); }

 private:
  Receiver& m_owner;
  CohPort m_port;
  ClassQueues m_tx;
};

}  // namespace hx::coherence

namespace hx::link {
extern template class LinkEnd<coherence::CohLinkTraits>;
}  // namespace hx::link
