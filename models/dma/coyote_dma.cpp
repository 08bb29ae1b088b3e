#include "models/dma/coyote_dma.h"

#include <algorithm>

#include "models/core/error.h"

namespace hx::dma {

using pcie::Tlp;
using pcie::TlpKind;

namespace {
enum : std::uint32_t { kAdvance, kReads, kWrite };
constexpr std::uint64_t kWritebackStream = 0xc0707eull;
constexpr unsigned kLargeShift = 21;
}  // namespace

CoyoteDma::CoyoteDma(const std::string& name, const CoyoteConfig& cfg)
    : m_name(name),
      m_cfg(cfg),
      m_cycle(clock_period(cfg.clock_mhz)),
      m_stlb(name + ".stlb", cfg.stlb),
      m_ltlb(name + ".ltlb", cfg.ltlb) {
  auto& reg = StatsRegistry::instance();
  reg.add_counter(name + ".tlb_misses", &tlb_misses, "1", "MMU misses served by the host driver");
  reg.add_counter(name + ".packets", &packets, "1", "page-sized packets moved host -> user logic -> host");
  reg.add_counter(name + ".writebacks", &writebacks, "1", "completion writebacks to host memory");
  reg.add_resource(name + ".mmu", [this] { return m_mmu_busy; }, 1, "shell MMU: one translation at a time (tlb_cycles; a miss holds it until the driver's fill)");
  reg.add_resource(name + ".stream", [this] { return m_stream_busy; }, 1, "user-logic stream: one bus-wide beat a cycle");
}

void CoyoteDma::attach(pcie::Endpoint& ep) {
  Device::attach(ep);
  m_s_rd = ep.add_stream("rd", 1u << 16);
  m_s_wr = ep.add_stream("wr", 1u << 16);
  m_tags.assign(static_cast<std::size_t>(std::max(1, ep.config().tags)), -1);
}

std::string CoyoteDma::status() const {
  return std::to_string(m_xfers.size()) + " transfers running, " + std::to_string(m_packets.size()) + " packets in flight" +
         (m_missing ? ", MMU waiting for the driver" : "") + ", " + std::to_string(m_posted.size()) + " not invoked";
}

void CoyoteDma::map(std::uint64_t addr, std::uint64_t len, unsigned page_shift, std::uint64_t install) {
  m_maps.push_back({addr, len, page_shift});
  const bool large = page_shift >= kLargeShift;
  const unsigned s = large ? kLargeShift : 12;
  for (std::uint64_t va = addr >> s << s; va < addr + std::min(install, len); va += 1ull << s) fill(va, large, 0);
}

// A buffer in pages of 2 MiB or more takes 2 MiB entries of the large-page
// TLB; others 4 KiB entries of the small-page TLB.
void CoyoteDma::fill(std::uint64_t va, bool large, Tick ready) {
  const unsigned s = large ? kLargeShift : 12;
  (large ? m_ltlb : m_stlb).insert(va, s, va >> s << s, ready);
}

void CoyoteDma::post(std::uint64_t src, std::uint64_t dst, std::uint32_t len) {
  if (len == 0) throw InputError(m_name + ": a transfer needs at least one byte");
  m_posted.push_back(Xfer{src, dst, len});
}

CoyoteDma::Packet* CoyoteDma::packet(std::uint64_t id) {
  for (auto& p : m_packets)
    if (p.id == id) return &p;
  sim_fail(m_name, "no packet " + std::to_string(id) + " in flight");
}

CoyoteDma::Xfer* CoyoteDma::xfer(std::uint64_t seq) {
  for (auto& x : m_xfers)
    if (x.seq == seq) return &x;
  sim_fail(m_name, "no running transfer " + std::to_string(seq));
}

void CoyoteDma::on_write(const Tlp& t) {
  const auto& bar = m_ep->config().bars.at(0);
  if (!bar.contains(t.addr)) return;
  const std::uint64_t off = t.addr - bar.base;
  const Tick now = now_tick();
  if (off == kCoyoteInvoke) {
    if (m_posted.empty()) sim_fail(m_name, "invocation without a posted transfer");
    m_xfers.push_back(m_posted.front());
    m_posted.pop_front();
    m_xfers.back().seq = m_next_seq++;
    m_xfers.back().led = fork_ledger(t.ledger);
    m_ep->scheduler().at(now + static_cast<Tick>(m_cfg.cmd_cycles) * m_cycle, this, kAdvance);
  } else if (off == kCoyoteTlbFill) {
    if (!m_missing) sim_fail(m_name, "TLB fill without a miss");
    fill(m_miss_va, large_page(m_miss_va), now);
    m_missing = false;
    if (now > m_miss_at) m_mmu_busy += now - m_miss_at;  // held by the miss
    m_ep->scheduler().at(now + static_cast<Tick>(m_cfg.tlb_cycles) * m_cycle, this, kAdvance);
  }
}

// Buffers in pages of 2 MiB or more are translated by the large-page TLB.
bool CoyoteDma::large_page(std::uint64_t va) const {
  for (const auto& m : m_maps)
    if (va >= m.addr && va < m.addr + m.len) return m.shift >= kLargeShift;
  sim_fail(m_name, "DMA to a virtual address no buffer maps");
}

// One translation by the MMU, in order; false on a miss (then the driver is asked).
bool CoyoteDma::translate(std::uint64_t va, Tick& ready) {
  ready = std::max(ready, m_mmu_free) + static_cast<Tick>(m_cfg.tlb_cycles) * m_cycle;
  m_mmu_free = ready;
  m_mmu_busy += static_cast<Tick>(m_cfg.tlb_cycles) * m_cycle;
  if ((large_page(va) ? m_ltlb : m_stlb).lookup(va)) return true;
  ++tlb_misses;
  m_missing = true;
  m_miss_va = va;
  m_miss_at = ready;
  m_ep->push(m_s_wr, m_ep->make_msi(m_cfg.msi_vector), ready);
  return false;
}

// Cut the running transfers into packets, translating each in order.
void CoyoteDma::advance() {
  const Tick now = now_tick();
  const std::uint32_t pmtu = static_cast<std::uint32_t>(m_cfg.pmtu_B);
  for (auto& x : m_xfers) {
    while (!m_missing && x.cut < x.len && m_packets.size() < static_cast<std::size_t>(m_cfg.outstanding)) {
      const std::uint32_t len = std::min(next_chunk(x.src + x.cut, x.len - x.cut, pmtu), next_chunk(x.dst + x.cut, x.len - x.cut, pmtu));
      Tick ready = now;
      // A miss's round trip through the driver is the packet's translation.
      const Tick from = m_xlate_from != kNever ? m_xlate_from : now;
      if (!translate(x.src + x.cut, ready) || !translate(x.dst + x.cut, ready)) {
        m_xlate_from = from;
        return;
      }
      m_xlate_from = kNever;
      m_packets.push_back(Packet{m_next_packet++, x.seq, x.src + x.cut, x.dst + x.cut, len});
      if (Ledger* l = m_packets.back().led = fork_ledger(x.led)) {
        l->charge(Stage::Device, from);  // the invocation's command cycles, a slot among the packets in flight
        l->charge(Stage::Translation, ready);
      }
      m_packets.back().translated = ready;
      m_packets.back().first = x.cut == 0;
      x.cut += len;
      m_packets.back().last = x.cut == x.len;
      ++packets;
      m_ep->scheduler().at(ready, this, kReads);
    }
    if (x.cut < x.len) return;  // packets leave in order
  }
}

void CoyoteDma::request_reads() {
  const std::uint32_t mrrs = static_cast<std::uint32_t>(m_ep->config().mrrs);
  const Tick now = now_tick();
  for (auto& p : m_packets) {
    if (p.translated > now) return;  // in order: its kReads comes when the MMU is done with it
    while (p.requested < p.len) {
      auto it = std::find(m_tags.begin(), m_tags.end(), -1);
      if (it == m_tags.end()) return;
      const std::uint64_t a = p.src + p.requested;
      const std::uint32_t len = next_chunk(a, p.len - p.requested, mrrs);
      *it = static_cast<std::int64_t>(p.id);
      Tlp* t = m_ep->make(TlpKind::MemRd);
      t->addr = a;
      t->addr64 = pcie::needs_addr64(a);
      t->req_len = len;
      t->tag = static_cast<std::uint16_t>(it - m_tags.begin());
      if ((t->ledger = fork_ledger(p.led))) t->ledger->charge(Stage::Device, now_tick());  // waited for a tag
      m_ep->push(m_s_rd, t, now_tick());
      p.requested += len;
    }
  }
}

void CoyoteDma::on_completion(const Tlp& t) {
  if (t.tag >= m_tags.size() || m_tags[t.tag] < 0) sim_fail(m_name, "completion for an unknown tag");
  if (t.checksum != pattern_checksum(kMemoryStream, t.addr, t.len))
    sim_fail(m_name, "read data check failed at 0x" + std::to_string(t.addr));
  Packet* p = packet(static_cast<std::uint64_t>(m_tags[t.tag]));
  if (t.addr < p->src || t.addr + t.len > p->src + p->len) sim_fail(m_name, "completion outside its packet");
  if (p->got == 0) p->first_data = now_tick();
  p->got += t.len;
  if (t.req_len == t.len) m_tags[t.tag] = -1;  // the request's last completion
  if (p->got == p->len && p->led) {
    if (!t.ledger) sim_fail(m_name, "a timed packet's last completion came back without its ledger");
    p->led->copy_from(*t.ledger);
  }
  if (p->got == p->len) enter_user_logic();
  request_reads();
}

// Packets pass the user logic stream in order, cut through: a packet's beats
// follow its data in, one a cycle, from its first completion or when the
// stream is free, whichever is later; a transfer's first packet waits for
// the gap after the previous transfer's last beat. Called when a packet's
// data is all in: the complete packets at the head of the queue pass.
void CoyoteDma::enter_user_logic() {
  const Tick now = now_tick();
  for (auto& p : m_packets) {
    if (p.streamed) continue;
    if (p.got < p.len) return;
    Tick start = std::max(p.first_data, m_stream_free);
    if (p.first) start = std::max(start, m_xfer_gate);
    const Tick beats = static_cast<Tick>((p.len + m_cfg.bus_B - 1) / m_cfg.bus_B);
    m_stream_free = std::max(start + beats * m_cycle, now);
    m_stream_busy += beats * m_cycle;
    if (p.last) m_xfer_gate = m_stream_free + static_cast<Tick>(m_cfg.xfer_gap_cycles) * m_cycle;
    p.streamed = true;
    m_ep->scheduler().at(m_stream_free + static_cast<Tick>(m_cfg.loop_cycles) * m_cycle, this, kWrite, p.id);
  }
}

// The packet's data, back from the user logic, written to its destination.
void CoyoteDma::write_back(Packet& p) {
  const std::uint32_t mps = static_cast<std::uint32_t>(m_ep->mps());
  for (std::uint32_t done = 0; done < p.len;) {
    const std::uint32_t len = next_chunk(p.dst + done, p.len - done, mps);
    Tlp* t = m_ep->make(TlpKind::MemWr);
    t->addr = p.dst + done;
    t->addr64 = pcie::needs_addr64(t->addr);
    t->len = len;
    t->data_stream = kMemoryStream;  // the bytes read from the source
    t->data_off = p.src + done;
    t->checksum = pattern_checksum(kMemoryStream, p.src + done, len);
    t->ctx = reinterpret_cast<void*>(static_cast<std::uintptr_t>(p.seq + 1));
    done += len;
    if (done == p.len && p.led) {  // the user logic's stream and loopback, then the packet's last write
      p.led->charge(Stage::Device, now_tick());
      t->ledger = fork_ledger(p.led);
    }
    m_ep->push(m_s_wr, t, now_tick());
  }
}

void CoyoteDma::on_sent(const Tlp& t, Tick, Tick end) {
  if (t.kind != TlpKind::MemWr || !t.ctx) return;
  Xfer* x = xfer(reinterpret_cast<std::uintptr_t>(t.ctx) - 1);
  x->written += t.len;
  if (x->written < x->len) return;
  // Transfers finish in order (one write queue); report and retire it.
  ++m_completed;
  if (m_writeback) {
    Tlp* w = m_ep->make(TlpKind::MemWr);
    w->addr = m_writeback + 8 * ((m_completed - 1) % 512);  // one slot per transfer, a 4 KiB ring
    w->addr64 = pcie::needs_addr64(w->addr);
    w->len = 8;
    w->data_stream = kWritebackStream;
    w->data_off = 8 * m_completed;
    w->checksum = pattern_checksum(kWritebackStream, 8 * m_completed, 8);
    if (x->led) {  // the transfer's last write on the wire, then the done logic
      if (!t.ledger) sim_fail(m_name, "a timed transfer's last write left without its ledger");
      w->ledger = fork_ledger(t.ledger);
      w->ledger->charge(Stage::Serialisation, end);
      w->ledger->charge(Stage::Device, end + static_cast<Tick>(m_cfg.done_cycles) * m_cycle);
    }
    m_ep->push(m_s_wr, w, end + static_cast<Tick>(m_cfg.done_cycles) * m_cycle);
    ++writebacks;
  }
  if (m_xfers.front().seq != x->seq) sim_fail(m_name, "transfers finished out of order");
  drop_ledger(x->led);
  m_xfers.pop_front();
}

void CoyoteDma::on_tx_space(int) {}

void CoyoteDma::on_action(std::uint32_t kind, std::uint64_t arg, void*) {
  if (kind == kAdvance) {
    advance();
  } else if (kind == kReads) {
    request_reads();
  } else if (kind == kWrite) {
    Packet& p = *packet(arg);
    write_back(p);
    drop_ledger(p.led);
    m_packets.erase(std::find_if(m_packets.begin(), m_packets.end(), [&](const Packet& q) { return q.id == arg; }));
    advance();
  }
}

}  // namespace hx::dma
