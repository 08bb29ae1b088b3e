// One end of a serial link, for any protocol that runs over one: the
// transmit serialiser of one link direction and the receive buffer of the
// other. PCIe ports (models/pcie/port.h) and socket links are this engine
// with their own traits. Mechanisms (DESIGN.md section 4):
//  - serialisation: wire bytes of a unit (its header, payload and framing,
//    rounded up to the transmitter's beat, as the traits count them) over
//    the link's bytes per ns;
//  - wake/select: the owner keeps its queues; the end asks it for the next
//    unit (Owner::tx_select) when the wire is free and something could go,
//    and the owner asks for a wake when new work becomes ready. One event
//    at most per transmission. An owner may instead hand a unit straight
//    to the end when nothing else is queued (send_if_idle): it waits in a
//    one-unit transmit buffer behind the unit on the wire, with no event;
//  - flow control per VC and credit class (header and data credits): the
//    transmitter only sends what the receiver advertised; the receiver frees
//    credits when its owner drains the unit and returns them in control
//    packets (PCIe: UpdateFC DLLPs) that occupy its own transmit wire and
//    arrive after the link latency; a return is sent at once when the
//    partner would otherwise starve, else batched by count or timer. A link
//    whose credits ride in headers (LinkLayerConfig::credits_in_header:
//    CHI, CXL.cache, UPI) returns each unit's credits as the unit is
//    drained, with no packet and no timer, after the link latency;
//  - acknowledgements every N units or on a timer, also occupying the
//    reverse wire. An ACK's only effect modelled is that occupancy (no
//    replay buffer), so it costs no event: it is due at a known time and is
//    placed on the wire when the wire next transmits (in the idle gap, or
//    behind the unit on the wire then). ACKs due after a wire's last
//    transmission are not counted;
//  - checks always on: credits never negative, no receive-buffer overflow,
//    no unit on a VC the link does not enable, no release of what was not
//    received; a starved end names its VC, class and credit holder.
// Simplifications: no replay buffer or bit errors (a link is error free), no
// power states.
//
// Traits T (see pcie::PcieLinkTraits for the PCIe one) give:
//  - Unit (with fields vc, ready, rx_start, hops, id, len), EndConfig (vcs,
//    tx_pipeline, hdr_credits(vc, cls), data_credits(vc, cls): 0 = infinite)
//    and Link (derived from LinkLayerConfig);
//  - kClasses and class_name(cls); the statistic names and units of units
//    and control packets;
//  - cls(u), data_credits(u), name(u), head_bytes(u, wire) (bytes before
//    the receiver can act on its header), wire(link, cfg) -> Wire,
//    wire_bytes(u, wire), max_data_credits(cfg) (the largest unit's),
//    check_transmit(from, u) for the protocol's own size rules, and
//    ledger(u): the unit's latency ledger (models/core/ledger.h) or nullptr.
// A unit with a ledger has its queue wait charged when it is transmitted
// (to credit wait as far as it was found lacking credits, else to
// arbitration); its receiver charges the flight (Ledger::land).
#pragma once
#include <algorithm>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/core/fifo.h"
#include "models/core/ledger.h"
#include "models/core/scheduler.h"
#include "models/core/stats.h"
#include "models/link/vc_arbiter.h"

namespace hx::link {

// The link layer's policies, whatever the physical layer below. The
// defaults are those declared for a PCIe link (src/config/params/pcie.cpp,
// link_params; a unit test holds the two equal).
struct LinkLayerConfig {
  Tick latency = 10 * kNs;             // PHY + SerDes + propagation, one direction
  int ack_every = 4;                   // ACK after this many units...
  Tick ack_timeout = 200 * kNs;        // ...or this long after the first un-ACKed unit
  int fc_update_every = 4;             // credit return after this many freed units of a class...
  Tick fc_update_timeout = 200 * kNs;  // ...or this long after the first unreported free
  // Credits go back one unit at a time, as each is drained, in a field of
  // the reverse direction's headers or on a sideband (CHI's per-channel
  // LCRDV, CXL.cache's flit-header credit return, UPI's), taking no wire
  // time of their own and arriving after the link latency; the two
  // settings above then do not apply. Off: PCIe's UpdateFC packets.
  bool credits_in_header = false;
  // A power-saving idle state of the transmitter (PCIe's ASPM L0s): one
  // that has sent no unit for `idle_entry` enters it, and the next unit
  // waits `idle_exit` while the transmitter leaves it (the receiver regains
  // lock on fast training sequences), the wire taken meanwhile. Off with
  // idle_exit 0. Control packets (ACKs, credit returns) neither wake it nor
  // keep it awake.
  Tick idle_entry = 0;
  Tick idle_exit = 0;
};

// What one end's wire costs, fixed when the link is connected.
struct Wire {
  double ps_per_byte = 1.0;
  std::uint32_t align = 4;      // units start on a beat of this many bytes
  std::uint32_t framing_B = 0;  // added to every unit (PCIe: PHY framing + DLL)
  std::uint32_t ctrl_B = 0;     // one control packet (PCIe: a DLLP)
};

template <class T>
class LinkEnd;

// What an end will find queued when its wire frees (Owner::tx_outlook).
enum class TxOutlook : std::uint8_t {
  Empty,         // nothing: new work wakes the end
  NoneEligible,  // only units sure not to go then (not ready, or short of credits)
  Maybe,         // something may go then: the end tries
};

// The component an end belongs to: it queues what the end transmits and
// takes what it receives.
template <class T>
class Owner {
 public:
  using Unit = typename T::Unit;
  virtual ~Owner() = default;
  // Pick the next unit for `p` (use p.can_send()); nullptr if none is
  // eligible now. An owner whose work becomes ready later calls p.wake_at().
  virtual Unit* tx_select(LinkEnd<T>& p) = 0;
  // A unit will arrive: its header at `head`, its last byte at `tail`.
  virtual void rx_arrive(LinkEnd<T>& p, Unit* u, Tick head, Tick tail) = 0;
  // A unit left on the wire [start, end).
  virtual void tx_done(LinkEnd<T>& p, const Unit& u, Tick start, Tick end) {}
  // Whether anything is queued for `p` (it then wakes when its wire frees).
  virtual bool tx_pending(const LinkEnd<T>& p) const { return true; }
  // What `p` will find queued when its wire frees at `at`, asked after each
  // unit it sends: NoneEligible when every unit queued for it that is ready
  // by `at` is sure to lack credits then (ordering rules aside), so that
  // selecting at `at` would find nothing; `next_ready` then gets the
  // earliest ready time after `at`. Maybe when unsure. One call where two
  // (pending, then eligible) cost a second indirect call a unit.
  virtual TxOutlook tx_outlook(const LinkEnd<T>& p, Tick at, Tick& next_ready) const {
    return tx_pending(p) ? TxOutlook::Maybe : TxOutlook::Empty;
  }
};

template <class T>
class LinkEnd final : public Actor {
 public:
  using Unit = typename T::Unit;
  using Config = typename T::EndConfig;
  using Link = typename T::Link;
  static constexpr int kClasses = T::kClasses;

  LinkEnd(Owner<T>& owner, std::string name, const Config& cfg);
  static void connect(LinkEnd& a, LinkEnd& b, const Link& link);

  const std::string& name() const { return m_name; }
  bool connected() const { return m_peer != nullptr; }
  LinkEnd* peer() const { return m_peer; }
  const Config& config() const { return m_cfg; }
  const Link& link() const { return m_link; }
  int index = 0;  // owner's port index

  void wake_at(Tick t);  // retry selection at t
  // The owner queued u (ready at u.ready): retry when it could go, or, when
  // it could not have credits then, when credits come back (design note 17).
  void wake_for(const Unit& u);
  // For an owner with nothing else queued on this end: u takes the end's
  // one-unit transmit buffer, if the buffer is free (the unit on the wire
  // at u's ready time, if any, has started by then) and u's credits are
  // there by the time the wire frees; it is then transmitted at once, to
  // start when it is ready and the wire is free, with no wake; false:
  // queue it and wake_for() it as usual. Whatever is queued after u (of
  // any class) and the control packets this end sends before u starts
  // (credit returns) go behind it on the wire.
  bool send_if_idle(Unit& u);
  bool can_send(const Unit& u);
  // Whether u would have credits at `at`, counting those in flight by then.
  bool credits_at(const Unit& u, Tick at) const;
  // For an owner's tx_outlook: whether queue head h could go at `at`
  // (ready and with credits); a head not yet ready lowers `next_ready`.
  bool head_sendable(const Unit& h, Tick at, Tick& next_ready) const;
  void release(const Unit& u);  // the owner drained u from this end's receive buffer

  std::uint32_t wire_bytes(const Unit& u) const { return T::wire_bytes(u, m_wire); }
  Tick serialize(std::uint32_t bytes) const {
    return static_cast<Tick>(static_cast<double>(bytes) * m_wire.ps_per_byte + 0.5);  // round half up (never negative)
  }
  double bytes_per_ns() const { return 1000.0 / m_wire.ps_per_byte; }
  Tick wire_free() const { return m_wire_free; }

  // Diagnosis for the deadlock watchdog: what the transmitter waits for.
  std::string blocked_reason();
  bool has_rx_occupancy() const;

  void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) override;

  // statistics
  Counter tx_units, tx_bytes, tx_payload, tx_ctrl, busy_ps, credit_stalls;
  Counter wakes;  // units that found the transmitter idle (registered where the idle state is on)

 private:
  enum : std::uint32_t { kWake, kFcDue };
  // The rules' failures and the trace's first use, out of line: the checks
  // run on every unit, and a message built in place would weigh on each.
  [[noreturn, gnu::cold, gnu::noinline]] void fail_vc(int vc) const;
  [[noreturn, gnu::cold, gnu::noinline]] void fail(const char* what) const;
  [[noreturn, gnu::cold, gnu::noinline]] void fail_ledger(Tick ready, Tick mark) const;
  [[noreturn, gnu::cold, gnu::noinline]] void fail_overflow(const char* credits, int cls) const;
  [[noreturn, gnu::cold, gnu::noinline]] void fail_unbuffered() const;
  [[gnu::cold, gnu::noinline]] void open_tracks();
  struct Credits {
    int hdr = 0, data = 0;
    bool inf_hdr = false, inf_data = false;
    bool cover(const Unit& u) const { return (inf_hdr || hdr >= 1) && (inf_data || data >= T::data_credits(u)); }
  };
  struct InFlight {
    Tick t;
    int vc, cls, hdr, data;
  };
  // One VC's credit state, transmitter's and receiver's side by side: a
  // link nearly always carries one VC, whose state then takes two cache
  // lines instead of one line of each of seven [VC][class] arrays.
  struct alignas(64) VcState {
    std::array<Credits, kClasses> tx{};                     // the peer's buffers this end may fill
    std::array<int, kClasses> rx_hdr{}, rx_data{};          // occupancy of this end's receive buffer
    std::array<int, kClasses> fc_hdr{}, fc_data{}, fc_units{};  // freed, unreported
    std::array<bool, kClasses> fc_timer{};
    std::array<int, kClasses> adv_hdr{}, adv_data{};        // this end's advertised buffer (0: infinite)
  };

  void try_send();
  Tick wake_time_for(const Unit& u);
  Tick credit_after(Tick at) const;  // the first credit return in flight arriving after `at`
  void check_vc(const Unit& u) const;  // fails on a VC this link does not enable
  void transmit(Unit* u, Tick now);
  void refresh_credits(Tick now);
  Tick send_ctrl(Tick at);
  void place_ctrl(Tick due);
  void place_due_acks(Tick now);
  void on_received(const Unit& u, Tick tail);
  void flush_fc(int vc, int cls);

  Owner<T>& m_owner;
  Link m_link;
  LinkEnd* m_peer = nullptr;
  Wire m_wire;
  Tick m_ctrl_time = 0;

  // transmitter
  int m_trace_tx = -1, m_trace_rx = -1;  // trace tracks, made on first use
  Tick m_wire_free = 0;
  Tick m_last_start = 0;            // when the last unit went (or goes) on the wire
  Tick m_last_end = 0;              // when the last unit's wire time ended (idle since)
  Tick m_next_wake = kNever;        // the earliest wake pending
  bool m_selecting = false;         // inside the owner's tx_select
  Tick m_deferred_wake = kNever;    // wakes asked for meanwhile
  std::vector<const Unit*> m_deferred_units;  // units queued meanwhile
  Fifo<InFlight> m_credit_inflight;  // in order of arrival
  bool m_blocked = false;

  // receiver
  int m_unacked = 0;
  Tick m_last_rx_tail = 0;
  Fifo<Tick> m_acks_due;  // ACKs this end owes its wire

  // Per VC (after the scalars above, which then share a few cache lines).
  std::array<VcState, kMaxVcs> m_vc{};

  // Read when the end is made, connected or fails (after the state above,
  // which every unit touches).
  std::string m_name;
  Config m_cfg;
  // The end posts its own wakes and FC timers (the dispatcher is one per
  // process; asking the owner for its handle cost a virtual call a unit).
  Scheduler m_sched;
};

}  // namespace hx::link
