#include "models/dma/calypte_dma.h"

#include "models/core/error.h"

namespace hx::dma {

using pcie::Tlp;
using pcie::TlpKind;

namespace {
enum : std::uint32_t { kDeliver };
}

CalypteDma::CalypteDma(const std::string& name, const CalypteConfig& cfg)
    : m_name(name), m_cfg(cfg), m_cycle(clock_period(cfg.clock_mhz)), m_ch(static_cast<std::size_t>(cfg.channels)) {}

void CalypteDma::attach(pcie::Endpoint& ep) {
  Device::attach(ep);
  m_s_f2h = ep.add_stream("f2h", 1u << 16);
  m_s_upd = ep.add_stream("h2f_update", 1u << 16);
}

std::string CalypteDma::status() const { return std::to_string(m_inflight) + " H2F packets in flight"; }

void CalypteDma::set_f2h_ring(int ch, std::uint64_t base, std::uint64_t size, std::uint64_t update_addr) {
  Chan& c = m_ch.at(static_cast<std::size_t>(ch));
  c.ring = base;
  c.ring_size = size;
  c.f2h_update = update_addr;
  c.wptr = 0;
}

void CalypteDma::set_h2f_update(int ch, std::uint64_t update_addr) { m_ch.at(static_cast<std::size_t>(ch)).h2f_update = update_addr; }

std::uint64_t CalypteDma::send(int ch, std::uint32_t bytes, std::uint64_t stream, std::uint64_t off,
                               const Ledger* led) {
  Chan& c = m_ch.at(static_cast<std::size_t>(ch));
  if (!c.ring_size) sim_fail(m_name, "F2H channel " + std::to_string(ch) + " has no ring buffer");
  const Tick at = now_tick() + static_cast<Tick>(m_cfg.f2h_cycles) * m_cycle;
  const std::uint64_t start = c.ring + calypte_ring_place(c.wptr, c.ring_size, bytes);
  std::uint64_t done = 0;
  const std::uint32_t seg = static_cast<std::uint32_t>(std::min(m_cfg.segment_B, m_ep->mps()));
  const std::uint64_t beat = static_cast<std::uint64_t>(m_cfg.bus_bits / 8);
  Tick gen = at;
  while (done < bytes) {
    const std::uint64_t addr = start + done;
    const std::uint32_t len = next_chunk(addr, bytes - done, seg);
    Tlp* t = m_ep->make(TlpKind::MemWr);
    t->addr = addr;
    t->addr64 = pcie::needs_addr64(addr);
    t->len = len;
    t->data_stream = stream;
    t->data_off = off + done;
    t->checksum = pattern_checksum(stream, off + done, len);
    m_ep->push(m_s_f2h, t, gen);
    gen += static_cast<Tick>((len + beat - 1) / beat) * m_cycle;
    done += len;
  }
  Tlp* u = calypte_pointer_update(*m_ep, c.f2h_update, c.wptr);
  if ((u->ledger = fork_ledger(led))) u->ledger->charge(Stage::Device, gen);  // the pipeline and the data beats before it
  m_ep->push(m_s_f2h, u, gen);
  return start;
}

void CalypteDma::on_write(const Tlp& t) {
  const std::uint64_t off = t.addr - m_ep->config().bars.at(0).base;
  if (off >= kCalypteH2FData) {
    const std::size_t ch = static_cast<std::size_t>((off - kCalypteH2FData) >> 20);
    if (ch >= m_ch.size()) sim_fail(m_name, "H2F write beyond the last channel");
    if (t.checksum != pattern_checksum(t.data_stream, t.data_off, t.len))
      sim_fail(m_name, "H2F packet data check failed");
    if (m_ch[ch].h2f_bytes == 0) ++m_inflight;
    m_ch[ch].h2f_bytes += t.len;
  } else if (off >= kCalypteH2FHeader && off < kCalypteH2FHeader + 8 * m_ch.size()) {
    const std::size_t ch = static_cast<std::size_t>((off - kCalypteH2FHeader) / 8);
    drop_ledger(m_ch[ch].h2f_led);
    m_ch[ch].h2f_led = fork_ledger(t.ledger);
    // The header follows the fenced data: the packet is complete.
    m_ep->scheduler().at(now_tick() + static_cast<Tick>(m_cfg.h2f_cycles) * m_cycle, this, kDeliver, ch);
  }
}

void CalypteDma::on_action(std::uint32_t kind, std::uint64_t arg, void*) {
  if (kind != kDeliver) return;
  Chan& c = m_ch[arg];
  const std::uint32_t bytes = static_cast<std::uint32_t>(c.h2f_bytes);
  c.h2f_bytes = 0;
  if (bytes) --m_inflight;
  if (c.h2f_update) m_ep->push(m_s_upd, calypte_pointer_update(*m_ep, c.h2f_update, bytes), now_tick());
  if (c.h2f_led) c.h2f_led->charge(Stage::Device, now_tick());  // the H2F pipeline
  if (on_h2f_packet) on_h2f_packet(static_cast<int>(arg), bytes, now_tick(), c.h2f_led);
  drop_ledger(c.h2f_led);
}

void CalypteDma::on_completion(const Tlp&) { sim_fail(m_name, "Calypte issues no reads"); }

}  // namespace hx::dma
