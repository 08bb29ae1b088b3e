#include "models/dma/bench_dma.h"

#include <algorithm>

#include "models/core/error.h"

namespace hx::dma {

using pcie::Tlp;
using pcie::TlpKind;

namespace {
enum : std::uint32_t { kPump, kProgress, kDone };
}

BenchDma::BenchDma(const std::string& name, const BenchDmaConfig& cfg) : m_name(name), m_cfg(cfg) {
  m_slots.resize(static_cast<std::size_t>(std::max(1, cfg.max_outstanding)));
  m_slot_used.assign(m_slots.size(), false);
}

void BenchDma::attach(pcie::Endpoint& ep) {
  Device::attach(ep);
  m_s_cmd = ep.add_stream("dma", 8);
  m_tags.resize(static_cast<std::size_t>(std::max(1, ep.config().tags)));
}

std::string BenchDma::status() const {
  return std::to_string(m_active) + " commands active, " + std::to_string(m_queue.size()) + " queued";
}

void BenchDma::read(std::uint64_t addr, std::uint32_t len, std::uint64_t stream, std::uint64_t off, Done done) {
  m_queue.push_back(Cmd{false, addr, len, stream, off, std::move(done)});
  pump();
}

void BenchDma::write(std::uint64_t addr, std::uint32_t len, std::uint64_t stream, std::uint64_t off, Done done) {
  m_queue.push_back(Cmd{true, addr, len, stream, off, std::move(done)});
  pump();
}

void BenchDma::pump() {
  const Tick now = now_tick();
  while (!m_queue.empty() && m_active < m_slots.size()) {
    if (m_next_issue > now) {
      if (m_pump_at != m_next_issue) {
        m_pump_at = m_next_issue;
        m_ep->scheduler().at(m_next_issue, this, kPump);
      }
      return;
    }
    std::size_t s = 0;
    while (m_slot_used[s]) ++s;
    m_slots[s] = std::move(m_queue.front());
    m_queue.pop_front();
    Cmd& c = m_slots[s];
    c.seq = m_cmd_seq++;
    c.next = 0;
    c.left = c.len;
    c.data_done = 0;
    m_slot_used[s] = true;
    ++m_active;
    m_next_issue = now + m_cfg.issue_interval + (c.write ? static_cast<Tick>(c.len) * m_cfg.write_byte_time : 0);
    c.start = now + m_cfg.cmd_latency;
    m_ep->scheduler().at(c.start, this, kProgress, s);
  }
}

void BenchDma::progress(std::size_t s) {
  if (!m_slot_used[s]) return;
  Cmd& c = m_slots[s];
  const Tick now = now_tick();
  if (c.write) {
    const std::uint32_t mps = static_cast<std::uint32_t>(m_ep->mps());
    while (c.next < c.len && !m_ep->stream_full(m_s_cmd)) {
      const std::uint64_t addr = c.addr + c.next;
      const std::uint32_t len = next_chunk(addr, c.len - c.next, mps);
      Tlp* t = m_ep->make(TlpKind::MemWr);
      t->addr = addr;
      t->addr64 = true;
      t->len = len;
      t->data_stream = c.stream;
      t->data_off = c.off + c.next;
      t->checksum = pcie::pattern_checksum(c.stream, c.off + c.next, len);
      t->ctx = reinterpret_cast<void*>(s + 1);
      m_ep->push(m_s_cmd, t, now);
      c.next += len;
    }
    return;
  }
  const std::uint32_t mrrs = static_cast<std::uint32_t>(m_ep->config().mrrs);
  while (c.next < c.len && !m_ep->stream_full(m_s_cmd)) {
    auto it = std::find_if(m_tags.begin(), m_tags.end(), [](const Tag& t) { return !t.used; });
    if (it == m_tags.end()) return;
    const std::uint64_t addr = c.addr + c.next;
    const std::uint32_t len = next_chunk(addr, c.len - c.next, mrrs);
    *it = Tag{true, s, addr, len, 0};
    Tlp* t = m_ep->make(TlpKind::MemRd);
    t->addr = addr;
    t->addr64 = true;
    t->req_len = len;
    t->tag = static_cast<std::uint16_t>(it - m_tags.begin());
    m_ep->push(m_s_cmd, t, now);
    c.next += len;
  }
}

void BenchDma::on_tx_space(int) {
  // Oldest command first, so TLPs leave in command order.
  std::vector<std::size_t> order;
  for (std::size_t s = 0; s < m_slots.size(); ++s)
    if (m_slot_used[s] && m_slots[s].next < m_slots[s].len) order.push_back(s);
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return m_slots[a].seq < m_slots[b].seq; });
  const Tick now = now_tick();
  for (std::size_t s : order) {
    if (m_slots[s].start > now) break;
    progress(s);
    if (m_slots[s].next < m_slots[s].len) break;  // blocked: younger commands wait behind it
  }
}

void BenchDma::on_sent(const Tlp& t, Tick, Tick end) {
  if (t.kind != TlpKind::MemWr || !t.ctx) return;
  const std::size_t s = reinterpret_cast<std::size_t>(t.ctx) - 1;
  Cmd& c = m_slots[s];
  c.left -= t.len;
  if (c.left == 0) complete(s, end + m_cfg.done_latency);
}

void BenchDma::on_completion(const Tlp& t) {
  if (t.tag >= m_tags.size() || !m_tags[t.tag].used) sim_fail(m_name, "completion for an unknown tag");
  Tag& g = m_tags[t.tag];
  if (t.addr != g.addr + g.got) sim_fail(m_name, "completion out of order within a request");
  Cmd& c = m_slots[g.slot];
  if (t.checksum != pcie::pattern_checksum(c.stream, c.off + (t.addr - c.addr), t.len))
    sim_fail(m_name, "read data check failed at 0x" + std::to_string(t.addr));
  g.got += t.len;
  const Tick now = now_tick();
  c.data_done = std::max(c.data_done, now) + static_cast<Tick>(t.len) * m_cfg.read_byte_time;
  c.left -= t.len;
  const std::size_t slot = g.slot;
  if (g.got == g.len) g.used = false;
  if (c.left == 0) complete(slot, c.data_done + m_cfg.done_latency);
  on_tx_space(m_s_cmd);
}

void BenchDma::complete(std::size_t s, Tick when) { m_ep->scheduler().at(when, this, kDone, s); }

void BenchDma::on_action(std::uint32_t kind, std::uint64_t arg, void*) {
  if (kind == kPump) {
    if (now_tick() == m_pump_at) m_pump_at = kNever;
    pump();
  } else if (kind == kProgress) {
    on_tx_space(0);
  } else if (kind == kDone) {
    Cmd& c = m_slots[arg];
    Done d = std::move(c.done);
    m_slot_used[arg] = false;
    --m_active;
    if (d) d(now_tick());
    pump();
  }
}

}  // namespace hx::dma
