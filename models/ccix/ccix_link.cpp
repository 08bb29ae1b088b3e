#include "models/ccix/ccix_link.h"

#include <algorithm>

#include "models/core/error.h"
#include "models/core/pool.h"
#include "models/pcie/message.h"

namespace hx::ccix {

namespace {
enum : std::uint32_t { kPump };
const char* const kClassName[] = {"request", "snoop", "response", "data"};
}  // namespace

// What one CCIX packet carries, beside its TLP (the TLP's ctx points here).
struct CcixLink::Bundle {
  static constexpr const char* kPoolName = "a CCIX packet";
  static constexpr int kMax = 32;  // messages in one packet, at most
  std::uint64_t id = 0;
  int n = 0;
  Packet* msgs[kMax] = {};
  std::array<int, kClasses> credits{};  // credits returned to the receiver
};

CcixLink::CcixLink(const std::string& name, const CcixConfig& cfg, TlpPort& pcie)
    : m_name(name), m_cfg(cfg), m_pcie(pcie), m_sched(name) {
  if (cfg.format.max_packet_B != 128 && cfg.format.max_packet_B != 256 && cfg.format.max_packet_B != 512)
    throw InputError(name + ": a CCIX MaxPacketSize is 128, 256 or 512 B, not " + std::to_string(cfg.format.max_packet_B));
  for (int c = 0; c < kClasses; ++c) {
    const auto i = static_cast<std::size_t>(c);
    if (cfg.credits[i] < 1) throw InputError(name + ": every CCIX message class needs at least one credit");
    const std::uint32_t biggest = static_cast<std::uint32_t>(cfg.format.msg_B[i]) + coherence::class_data_bytes(static_cast<coherence::MsgClass>(c)) +
                                  static_cast<std::uint32_t>(cfg.format.credit_B);
    if (cfg.format.msg_B[i] < 4 || biggest > static_cast<std::uint32_t>(cfg.format.max_packet_B))
      throw InputError(name + ": a CCIX " + kClassName[c] + " message must be at least 4 B and fit one packet");
  }
  auto& reg = StatsRegistry::instance();
  reg.add_counter(name + ".tx_packets", &tx_packets, "TLP", "CCIX packets sent (PCIe TLPs on the CCIX VC)");
  reg.add_counter(name + ".tx_messages", &tx_messages, "message", "CCIX messages sent");
  reg.add_counter(name + ".tx_credit_only", &tx_credit_only, "TLP", "packets sent only to return credits");
  reg.add_counter(name + ".tx_bytes", &tx_bytes, "B", "CCIX bytes in those packets (message and credit headers, data)");
}

CcixLink::~CcixLink() = default;

void CcixLink::connect(CcixLink& a, CcixLink& b) {
  if (a.m_peer || b.m_peer) sim_fail(a.m_name, "a CCIX end connected twice");
  const CcixFormat& f = a.m_cfg.format;
  const CcixFormat& g = b.m_cfg.format;
  if (f.optimised != g.optimised || f.packing != g.packing || f.max_packet_B != g.max_packet_B || f.msg_B != g.msg_B ||
      f.credit_B != g.credit_B || f.vc != g.vc)
    sim_fail(a.m_name, "the two ends of a CCIX link (" + a.m_name + ", " + b.m_name + ") make packets in different formats");
  a.m_peer = &b;
  b.m_peer = &a;
  for (std::size_t c = 0; c < kClasses; ++c) {
    a.m_avail[c] = a.m_grant[c] = b.m_cfg.credits[c];
    b.m_avail[c] = b.m_grant[c] = a.m_cfg.credits[c];
  }
}

std::uint32_t CcixLink::msg_bytes(const Packet& p) const {
  const int c = coherence::CohLinkTraits::cls(p);
  return static_cast<std::uint32_t>(m_cfg.format.msg_B[static_cast<std::size_t>(c)]) + p.len;
}

void CcixLink::send(Packet* p) {
  if (!m_peer) sim_fail(m_name, "a message sent on an unconnected CCIX end");
  p->len = coherence::msg_data_bytes(p->msg.type);
  m_q.push(p);
  pump_at(std::max(p->ready, now_tick()));
}

void CcixLink::release(const Packet& p) {
  const auto c = static_cast<std::size_t>(coherence::CohLinkTraits::cls(p));
  if (m_held[c] <= 0) sim_fail(m_name, std::string("a ") + kClassName[c] + " message released that was not received");
  --m_held[c];
  if (m_owed == std::array<int, kClasses>{}) m_owed_since = now_tick();
  ++m_owed[c];
  // Alone, a return waits to ride on a message, unless the partner may
  // starve first.
  pump_at(return_due());
}

// When the credits owed must go, alone if nothing else carries them: at
// once when half a class's grant is owed (the partner may starve first),
// else credit_return_delay after the first was freed; kNever if none is.
Tick CcixLink::return_due() const {
  if (m_owed == std::array<int, kClasses>{}) return kNever;
  for (std::size_t c = 0; c < kClasses; ++c)
    if (m_owed[c] > 0 && 2 * m_owed[c] >= m_grant[c]) return now_tick();
  return m_owed_since + m_cfg.credit_return_delay;
}

void CcixLink::pump_at(Tick t) {
  if (t >= m_pump_at) return;  // one already scheduled by then
  m_pump_at = t;
  m_sched.at(t, this, kPump);
}

void CcixLink::on_action(std::uint32_t, std::uint64_t, void*) {
  if (m_pump_at > now_tick()) return;  // superseded by an earlier pump
  m_pump_at = kNever;
  pump();
}

void CcixLink::on_room() { pump_at(now_tick()); }

// Forms packets while the PCIe side has room: the ready messages in class
// order while their credits last and they fit, with the credits owed.
void CcixLink::pump() {
  const Tick now = now_tick();
  const auto max_B = static_cast<std::uint32_t>(m_cfg.format.max_packet_B);
  while (m_pcie.room()) {
    const bool owe = m_owed != std::array<int, kClasses>{};
    const bool urgent = owe && return_due() <= now;
    std::uint32_t bytes = owe ? static_cast<std::uint32_t>(m_cfg.format.credit_B) : 0u;
    Bundle* b = Pool<Bundle>::instance().get();
    while (b->n < Bundle::kMax && (m_cfg.format.packing || b->n == 0)) {
      Packet* p = m_q.select(now, [&](const Packet& u) {
        const auto c = static_cast<std::size_t>(coherence::CohLinkTraits::cls(u));
        return m_avail[c] > 0 && bytes + msg_bytes(u) <= max_B;
      });
      if (!p) break;
      const auto c = static_cast<std::size_t>(coherence::CohLinkTraits::cls(*p));
      --m_avail[c];
      bytes += msg_bytes(*p);
      b->msgs[b->n++] = p;
    }
    if (b->n == 0 && !urgent) {
      Pool<Bundle>::instance().put(b);
      break;
    }
    if (owe) {
      b->credits = m_owed;
      m_owed = {};
      m_owed_since = kNever;
    }
    pcie::Tlp* t = m_pcie.new_message();
    t->vc = static_cast<std::uint8_t>(m_cfg.format.vc);
    t->msg_code = pcie::kVendorMsgType1;
    t->short_header_B = m_cfg.format.optimised ? 4 : 0;
    t->len = (bytes + 3u) & ~3u;
    t->ctx = b;
    ++tx_packets;
    tx_messages += static_cast<std::uint64_t>(b->n);
    if (b->n == 0) ++tx_credit_only;
    tx_bytes += t->len;
    bool timed = false;
    for (int i = 0; i < b->n; ++i) {
      Packet* p = b->msgs[i];
      if (p->hops++ > 0) sim_fail(m_name, "a coherence message sent twice");
      if (p->ledger) {  // queued for credits or for room on the PCIe side until now
        p->ledger->charge(Stage::Arbitration, now);
        timed = true;
      }
    }
    if (timed) {
      // The packet's own way (the CCIX layers, then PCIe), shared by the
      // timed messages it carries: each appends it when it arrives.
      t->ledger = LedgerPool::instance().get();
      t->ledger->open(now);
      t->ledger->charge(Stage::Coherence, now + m_cfg.latency);
    }
    m_pcie.transmit(t, now + m_cfg.latency);
  }
  // Wake for what is left: a message not ready yet, or a return alone.
  if (!m_q.empty()) {
    const Tick r = m_q.next_ready();
    if (r > now && r != kNever) pump_at(r);
  }
  if (m_owed != std::array<int, kClasses>{}) pump_at(std::max(return_due(), now));
}

void CcixLink::on_tlp(const pcie::Tlp& t) {
  auto* b = static_cast<Bundle*>(t.ctx);
  if (!b) sim_fail(m_name, "a CCIX packet without its messages");
  if (!m_agent) sim_fail(m_name, "a CCIX packet for an end bound to no agent");
  const Tick at = now_tick() + m_cfg.latency;
  for (std::size_t c = 0; c < kClasses; ++c) {
    m_avail[c] += b->credits[c];
    if (m_avail[c] > m_grant[c])
      sim_fail(m_name, std::string("more ") + kClassName[c] + " credits returned than were granted (" +
                           std::to_string(m_avail[c]) + " of " + std::to_string(m_grant[c]) + ")");
  }
  for (int i = 0; i < b->n; ++i) {
    Packet* p = b->msgs[i];
    const auto c = static_cast<std::size_t>(coherence::CohLinkTraits::cls(*p));
    if (++m_held[c] > m_cfg.credits[c]) sim_fail(m_name, std::string("more ") + kClassName[c] + " messages received than credits granted");
    if (p->ledger) {
      if (!t.ledger) sim_fail(m_name, "a CCIX packet came without the ledger of the timed message it carries");
      p->ledger->extend(*t.ledger);
      p->ledger->charge(Stage::Coherence, at);
    }
    m_agent->arrive(*this, p, at);
  }
  const bool credits_back = b->credits != std::array<int, kClasses>{};
  Pool<Bundle>::instance().put(b);
  if (credits_back && !m_q.empty()) pump_at(now_tick());
}

bool CcixLink::whole() const {
  return m_q.empty() && m_avail == m_grant && m_held == std::array<int, kClasses>{} &&
         m_owed == std::array<int, kClasses>{};
}

std::string CcixLink::credits() const {
  std::string s = m_name + " credits:";
  for (int c = 0; c < kClasses; ++c) {
    const auto i = static_cast<std::size_t>(c);
    s += std::string(" ") + kClassName[c] + " " + std::to_string(m_avail[i]) + "/" + std::to_string(m_grant[i]) + " (held " +
         std::to_string(m_held[i]) + ", owed " + std::to_string(m_owed[i]) + ")";
  }
  return s;
}

std::string CcixLink::blocked_reason() const {
  for (int c = 0; c < kClasses; ++c) {
    const auto i = static_cast<std::size_t>(c);
    if (m_q.size(c) > 0 && m_avail[i] == 0)
      return m_name + ": " + std::to_string(m_q.size(c)) + " " + kClassName[c] + " message(s) wait for CCIX credits (" +
             std::to_string(m_grant[i]) + " granted, none back)";
  }
  if (!m_q.empty()) return m_name + ": messages wait for room on the PCIe side";
  return {};
}

}  // namespace hx::ccix
