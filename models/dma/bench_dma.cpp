#include "models/dma/bench_dma.h"

#include <algorithm>

#include "models/ats/ats_protocol.h"
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
  if (cfg.ats) {
    m_atc = std::make_unique<ats::Tlb>(name + ".atc", cfg.atc);
    auto& reg = StatsRegistry::instance();
    reg.add_counter(name + ".ats_requests", &m_ats_requests, "1", "ATS translation requests sent");
    reg.add_counter(name + ".ats_invalidations", &m_invalidations, "1", "ATS invalidate requests served");
    reg.add_histogram(name + ".ats_rtt", &ats_rtt, "ns", "ATS request handed to the hard block to its completion back");
    reg.add_histogram(name + ".xlate_wait", &xlate_wait, "ns", "time a command waited for its translations");
  }
  if (cfg.retire_in_order)
    StatsRegistry::instance().add_counter(name + ".retire_waits", &retire_waits, "1",
                                          "commands done before an older one and held back to retire in order");
  auto& reg = StatsRegistry::instance();
  reg.add_resource(name + ".issue", [this] { return m_issue_busy; }, 1, "DMA engine command issue (issue_interval, write_interval)");
  reg.add_resource(name + ".contexts", [this] { return m_contexts.busy(now_tick()); }, static_cast<int>(m_slots.size()),
                   "DMA engine command contexts (max_outstanding), each held from issue to retirement");
}

namespace {
constexpr std::uint64_t kPage = 4096;

void take_ledger(Ledger& led, const Tlp& t) {
  if (!t.ledger) sim_fail("bench DMA", "a timed command's TLP came back without its ledger");
  led.copy_from(*t.ledger);
}
}  // namespace

// Every 4 KiB page of the command needs a usable ATC entry before it starts.
void BenchDma::translate(std::size_t s) {
  Cmd& c = m_slots[s];
  // The request reaches the ATS switch after the engine's own command latency.
  const Tick at = c.start;
  c.xlate_pending = 0;
  c.xlate_from = at;
  for (std::uint64_t p = c.addr / kPage * kPage; p < c.addr + c.len; p += kPage) {
    if (const auto* e = m_atc->lookup(p)) {
      c.start = std::max(c.start, e->ready + m_cfg.atc.lookup);
      continue;
    }
    ++c.xlate_pending;
    auto [it, fresh] = m_xlate_wait.try_emplace(p);
    it->second.push_back(s);
    if (fresh) send_ats(p, at + m_cfg.atc.lookup);  // else a request covering this page is already out
  }
  if (c.xlate_pending == 0) c.start += m_cfg.atc.lookup;
}

void BenchDma::translate_page(std::uint64_t va, Ready ready) {
  if (!m_atc) sim_fail(m_name, "a translation asked of a function without ATS");
  const std::uint64_t p = va / kPage * kPage;
  const Tick now = now_tick();
  if (const auto* e = m_atc->lookup(p)) return ready(std::max(now, e->ready) + m_cfg.atc.lookup);
  std::size_t k;
  if (m_other_free.empty()) {
    k = m_other.size();
    m_other.emplace_back();
  } else {
    k = m_other_free.back();
    m_other_free.pop_back();
  }
  m_other[k] = std::move(ready);
  auto [it, fresh] = m_xlate_wait.try_emplace(p);
  it->second.push_back(kOther | k);
  if (fresh) send_ats(p, now + m_cfg.atc.lookup);
}

// An ATS invalidate request: drop the range from the ATC, answer with an
// invalidate completion to the root complex.
void BenchDma::on_write(const Tlp& t) {
  if (t.kind != TlpKind::MsgD || t.msg_code != ats::kInvalidateRequest) return;
  if (!m_atc) sim_fail(m_name, "ATS invalidate request to a function without ATS");
  m_atc->invalidate(t.addr, t.req_len);
  ++m_invalidations;
  Tlp* c = m_ep->make(TlpKind::Msg);
  c->by_id = true;
  c->target = 0;
  c->msg_code = ats::kInvalidateCompletion;
  c->tag = t.tag;
  c->addr = t.addr;
  m_ep->push(m_s_ats, c, now_tick() + m_cfg.atc.lookup);
}

// One translation request for page p and the prefetched pages after it.
void BenchDma::send_ats(std::uint64_t p, Tick at) {
  const int n = 1 + std::max(0, m_cfg.atc_prefetch);
  for (int k = 1; k < n; ++k) m_xlate_wait.try_emplace(p + static_cast<std::uint64_t>(k) * kPage);
  Tlp* r = m_ep->make(TlpKind::AtsReq);
  r->addr = p;
  r->addr64 = true;
  r->req_len = static_cast<std::uint32_t>(8 * n);
  r->tag = static_cast<std::uint16_t>(m_tags.size() + (m_ats_tag++ % 256));
  if (m_ats_inflight.count(r->tag)) sim_fail(m_name, "more than 256 ATS requests in flight");
  m_ats_inflight[r->tag] = AtsReq{p, n, at};
  ++m_ats_requests;
  m_ep->push(m_s_ats, r, at);
}

void BenchDma::on_translation(const Tlp& t) {
  auto it = m_ats_inflight.find(t.tag);
  if (it == m_ats_inflight.end()) sim_fail(m_name, "translation completion for an unknown tag");
  const AtsReq req = it->second;
  m_ats_inflight.erase(it);
  const unsigned shift = t.msg_code, n = t.len / 8;
  if (shift < 12 || shift > 40 || n == 0 || t.checksum != ats::translation_checksum(t.addr, shift, n))
    sim_fail(m_name, "malformed translation completion");
  const Tick now = now_tick();
  ats_rtt.add(to_ns(now - req.sent));
  const Tick ready = now + m_cfg.atc_miss;
  const std::uint64_t base = req.page >> shift << shift;
  const std::uint64_t end = base + (static_cast<std::uint64_t>(n) << shift);
  for (unsigned k = 0; k < n; ++k)
    m_atc->insert(base + (static_cast<std::uint64_t>(k) << shift), shift, t.addr + (static_cast<std::uint64_t>(k) << shift), ready);
  // Release the commands waiting for pages this answer covers. A page asked
  // for ahead that it does not cover is forgotten, or, if a command already
  // waits for it, asked for on its own.
  const std::uint64_t asked_end = req.page + static_cast<std::uint64_t>(req.pages) * kPage;
  std::vector<std::uint64_t> again;
  for (auto w = m_xlate_wait.lower_bound(std::min(base, req.page)); w != m_xlate_wait.end() && w->first < std::max(end, asked_end);) {
    const bool covered = w->first >= base && w->first < end;
    if (!covered && !w->second.empty()) {
      if (w->first >= req.page && w->first < asked_end) again.push_back(w->first);
      ++w;
      continue;
    }
    for (std::size_t s : w->second) {
      if (s & kOther) {  // another user of the ATS switch
        const std::size_t k = s & ~kOther;
        Ready cb = std::move(m_other[k]);
        m_other[k] = nullptr;
        m_other_free.push_back(k);
        cb(ready);
        continue;
      }
      Cmd& c = m_slots[s];
      if (--c.xlate_pending == 0) {
        c.start = std::max(c.start, ready);
        xlate_wait.add(to_ns(c.start - c.xlate_from));
        m_ep->scheduler().at(c.start, this, kProgress, s);
      }
    }
    w = m_xlate_wait.erase(w);
  }
  for (std::uint64_t p : again) send_ats(p, now);
}

void BenchDma::attach(pcie::Endpoint& ep) {
  Device::attach(ep);
  m_s_cmd = ep.add_stream("dma", 8);
  m_tags.resize(static_cast<std::size_t>(std::max(1, ep.config().tags)));
  if (m_atc) m_s_ats = ep.add_stream("ats", 16);
}

std::string BenchDma::status() const {
  return std::to_string(m_active) + " commands active, " + std::to_string(m_queue.size()) + " queued" +
         (m_source ? ", more to come" : "");
}

void BenchDma::read(std::uint64_t addr, std::uint32_t len, std::uint64_t stream, std::uint64_t off, Done done, Ledger* led) {
  m_queue.push_back(Cmd{false, addr, len, stream, off, std::move(done), led});
  pump();
}

void BenchDma::write(std::uint64_t addr, std::uint32_t len, std::uint64_t stream, std::uint64_t off, Done done, Ledger* led) {
  m_queue.push_back(Cmd{true, addr, len, stream, off, std::move(done), led});
  pump();
}

// Until its first TLP the command was the engine's: queued, then its
// command latency; then its translations (ATS); then the engine again
// (TLP formation, waiting for tags, stream space or older commands).
Ledger* BenchDma::Cmd::fork(Tick now) const {
  Ledger* l = fork_ledger(led);
  if (l) {
    l->charge(Stage::Device, xlate_from);
    l->charge(Stage::Translation, std::max(xlate_from, start));
    l->charge(Stage::Device, now);
  }
  return l;
}

void BenchDma::feed(std::function<bool(Command&)> next) {
  m_source = std::move(next);
  pump();
}

bool BenchDma::has_next() {
  if (m_queue.empty() && m_source) {
    Command c;
    if (m_source(c)) {
      m_queue.push_back(Cmd{c.write, c.addr, c.len, c.stream, c.off, std::move(c.done), c.led});
    } else {
      m_source = nullptr;
    }
  }
  return !m_queue.empty();
}

void BenchDma::pump() {
  const Tick now = now_tick();
  while (m_active < m_slots.size() && has_next()) {
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
    m_contexts.add(1, now);
    Tick period = m_cfg.issue_interval;
    if (c.write) {
      const Tick path = m_cfg.write_interval + static_cast<Tick>(write_tlps(c) - 1) * m_cfg.write_tlp_interval;
      period = std::max(path, period + static_cast<Tick>(c.len) * m_cfg.write_byte_time);
    } else if (c.len % 4) {
      period = std::max(period, m_cfg.read_partial_interval);
    }
    m_next_issue = now + period;
    m_issue_busy += period;
    c.start = now + m_cfg.cmd_latency;
    c.xlate_from = c.start;
    if (c.len) m_ready.push_back(s);
    if (m_atc && m_translate) translate(s);
    if (c.xlate_pending == 0) m_ep->scheduler().at(c.start, this, kProgress, s);
  }
}

std::uint32_t BenchDma::write_tlp_max() const {
  std::uint32_t max_len = static_cast<std::uint32_t>(m_ep->mps());
  if (m_cfg.write_payload) max_len = std::min(max_len, m_cfg.write_payload);
  return max_len;
}

std::uint64_t BenchDma::write_tlps(const Cmd& c) const {
  if (!m_cfg.write_tlp_interval) return 1;  // the count matters only with a per-TLP interval
  const std::uint32_t max_len = write_tlp_max();
  std::uint64_t n = 0;
  for (std::uint64_t at = 0; at < c.len; ++n) at += next_chunk(c.addr + at, c.len - at, max_len);
  return std::max<std::uint64_t>(n, 1);
}

void BenchDma::progress(std::size_t s) {
  if (!m_slot_used[s]) return;
  Cmd& c = m_slots[s];
  const Tick now = now_tick();
  if (c.write) {
    const std::uint32_t max_len = write_tlp_max();
    while (c.next < c.len && !m_ep->stream_full(m_s_cmd)) {
      const std::uint64_t addr = c.addr + c.next;
      const std::uint32_t len = next_chunk(addr, c.len - c.next, max_len);
      Tlp* t = m_ep->make(TlpKind::MemWr);
      t->addr = addr;
      t->addr64 = pcie::needs_addr64(addr);
      t->at = m_atc && m_translate ? 2 : 0;
      t->len = len;
      t->data_stream = c.stream;
      t->data_off = c.off + c.next;
      t->checksum = pattern_checksum(c.stream, c.off + c.next, len);
      t->ctx = reinterpret_cast<void*>(s + 1);
      t->ledger = c.fork(now);
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
    t->addr64 = pcie::needs_addr64(addr);
    t->at = m_atc && m_translate ? 2 : 0;
    t->req_len = len;
    t->tag = static_cast<std::uint16_t>(it - m_tags.begin());
    t->ledger = c.fork(now);
    m_ep->push(m_s_cmd, t, now);
    c.next += len;
  }
}

void BenchDma::on_tx_space(int) {
  // Oldest command first, so TLPs leave in command order.
  const Tick now = now_tick();
  while (!m_ready.empty()) {
    const std::size_t s = m_ready.front();
    if (m_slots[s].start > now || m_slots[s].xlate_pending) break;
    progress(s);
    if (m_slots[s].next < m_slots[s].len) break;  // blocked: younger commands wait behind it
    m_ready.pop_front();
  }
}

void BenchDma::on_sent(const Tlp& t, Tick, Tick end) {
  if (t.kind != TlpKind::MemWr || !t.ctx) return;
  const std::size_t s = reinterpret_cast<std::size_t>(t.ctx) - 1;
  Cmd& c = m_slots[s];
  c.left -= t.len;
  if (c.left == 0) {
    // A write is done when its last TLP has left: that TLP's path is its.
    if (c.led) {
      take_ledger(*c.led, t);
      c.led->charge(Stage::Serialisation, end);
    }
    complete(s, end + m_cfg.done_latency);
  }
}

void BenchDma::on_completion(const Tlp& t) {
  if (m_atc && t.tag >= m_tags.size()) return on_translation(t);
  if (t.tag >= m_tags.size() || !m_tags[t.tag].used) sim_fail(m_name, "completion for an unknown tag");
  Tag& g = m_tags[t.tag];
  if (t.addr != g.addr + g.got) sim_fail(m_name, "completion out of order within a request");
  Cmd& c = m_slots[g.slot];
  if (t.checksum != pattern_checksum(c.stream, c.off + (t.addr - c.addr), t.len))
    sim_fail(m_name, "read data check failed at 0x" + std::to_string(t.addr));
  g.got += t.len;
  const Tick now = now_tick();
  c.data_done = std::max(c.data_done, now) + static_cast<Tick>(t.len) * m_cfg.read_byte_time;
  c.left -= t.len;
  const std::size_t slot = g.slot;
  if (g.got == g.len) g.used = false;
  if (c.left == 0) {
    // Its last data came with this completion: that path is the command's.
    if (c.led) take_ledger(*c.led, t);
    complete(slot, c.data_done + m_cfg.done_latency);
  }
  on_tx_space(m_s_cmd);
}

void BenchDma::complete(std::size_t s, Tick when) {
  if (!m_cfg.retire_in_order) {
    m_ep->scheduler().at(when, this, kDone, s);
    return;
  }
  const std::uint64_t seq = m_slots[s].seq;
  if (seq != m_next_retire) ++retire_waits;
  m_retire.emplace(seq, std::make_pair(s, when));
  // Retire from the oldest while it is done, each no earlier than the one before.
  for (auto it = m_retire.begin(); it != m_retire.end() && it->first == m_next_retire; it = m_retire.erase(it)) {
    m_last_retire = std::max(m_last_retire, it->second.second);
    m_ep->scheduler().at(m_last_retire, this, kDone, it->second.first);
    ++m_next_retire;
  }
}

void BenchDma::on_action(std::uint32_t kind, std::uint64_t arg, void*) {
  if (kind == kPump) {
    if (now_tick() == m_pump_at) m_pump_at = kNever;
    pump();
  } else if (kind == kProgress) {
    on_tx_space(0);
  } else if (kind == kDone) {
    Cmd& c = m_slots[arg];
    if (c.led) c.led->charge(Stage::Device, now_tick());  // data handling, done latency, in-order retirement
    Done d = std::move(c.done);
    m_slot_used[arg] = false;
    --m_active;
    m_contexts.add(-1, now_tick());
    if (d) d(now_tick());
    pump();
  }
}

}  // namespace hx::dma
