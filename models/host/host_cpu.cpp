#include "models/host/host_cpu.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "models/core/error.h"

namespace hx::host {

using pcie::TlpKind;

HostCpu::HostCpu(sc_core::sc_module_name name, const HostCpuConfig& cfg, RootComplex& rc)
    : sc_core::sc_module(name), m_cfg(cfg), m_rc(rc), m_rng(global_seed(), std::string(name)) {
  m_rc.attach_host(this);
  for (int c = 0; c < std::max(1, cfg.cores); ++c)
    m_tick_phase.push_back(cfg.os_tick_period ? m_rng.below(cfg.os_tick_period) : 0);
  m_far.assign(m_tick_phase.size(), false);
  m_cores.resize(m_tick_phase.size());
  for (std::size_t c = 0; c < m_tick_phase.size(); ++c) m_ports.emplace_back(*this, m_rc.memory(), static_cast<int>(c));
  auto& reg = StatsRegistry::instance();
  const std::string n(name);
  reg.add_counter(n + ".uc_writes", &uc_writes, "1", "UC MMIO stores");
  reg.add_counter(n + ".wc_lines", &wc_lines, "line", "WC lines flushed as MWr");
  reg.add_counter(n + ".mmio_reads", &mmio_reads, "1", "MMIO reads (round trips)");
  reg.add_counter(n + ".polls_detected", &polls_detected, "1", "memory polls that saw a device write");
  reg.add_counter(n + ".irqs", &irqs, "1", "interrupts taken");
  reg.add_counter(n + ".os_ticks", &os_ticks, "1", "OS timer ticks that stalled a thread");
}

Tick HostCpu::now() const { return now_tick(); }

MemoryPort& HostCpu::port(int core) {
  if (core < 0 || static_cast<std::size_t>(core) >= m_ports.size()) sim_fail(basename(), "no core " + std::to_string(core));
  return m_ports[static_cast<std::size_t>(core)];
}

void HostCpu::spawn(const std::string& name, int core, std::function<void(int)> body) {
  if (core < 0 || core >= std::max(1, m_cfg.cores)) sim_fail(basename(), "no core " + std::to_string(core));
  const int id = static_cast<int>(m_threads.size());
  m_threads.push_back({name, {}});
  sc_core::sc_spawn_options o;
  m_threads.back().handle = sc_core::sc_spawn(
      [this, body, core, id] {
        take(core, id);
        body(core);
        give(core);
      },
      (std::string(basename()) + "_" + name).c_str(), &o);
}

void HostCpu::take(int core, int thread) {
  Core& c = m_cores[static_cast<std::size_t>(core)];
  if (c.owner < 0 && c.ready.empty()) {
    c.owner = thread;
    return;
  }
  c.ready.push_back(thread);
  if (!c.ev) c.ev = std::make_unique<sc_core::sc_event>();
  while (c.owner != thread) sc_core::wait(*c.ev);
}

void HostCpu::give(int core) {
  Core& c = m_cores[static_cast<std::size_t>(core)];
  c.owner = -1;
  if (c.ready.empty()) return;
  c.owner = c.ready.front();
  c.ready.pop_front();
  c.ev->notify(sc_core::SC_ZERO_TIME);
}

int HostCpu::caller_on(int core) const {
  const int o = m_cores[static_cast<std::size_t>(core)].owner;
  return o >= 0 && m_threads[static_cast<std::size_t>(o)].handle == sc_core::sc_get_current_process_handle() ? o : -1;
}

std::string HostCpu::status() const {
  std::string s;
  for (std::size_t k = 0; k < m_cores.size(); ++k) {
    const Core& c = m_cores[k];
    if (c.ready.empty()) continue;
    s += "\n  core " + std::to_string(k) + " runs thread '" + (c.owner >= 0 ? m_threads[static_cast<std::size_t>(c.owner)].name : "?") +
         "' (a core runs one thread at a time, and a thread gives its core up only to sleep until an interrupt); waiting for it:";
    for (int t : c.ready) s += " '" + m_threads[static_cast<std::size_t>(t)].name + "'";
  }
  return s;
}

// Stretch [start, end) by the OS timer ticks that fall inside it.
Tick HostCpu::noisy_end(int core, Tick start, Tick end) {
  if (!m_cfg.os_tick_period || !m_cfg.os_tick_cost) return end;
  const Tick P = m_cfg.os_tick_period, phase = m_tick_phase[static_cast<std::size_t>(core)];
  Tick t = start;
  while (true) {
    // first tick strictly after t
    const Tick k = (t >= phase) ? (t - phase) / P + 1 : 0;
    const Tick tick = phase + k * P;
    if (tick >= end) return end;
    ++os_ticks;
    end += m_cfg.os_tick_cost;
    t = tick;
  }
}

void HostCpu::wait_until(Tick t) {
  const Tick now = now_tick();
  if (t > now) sc_core::wait(sc_core::sc_time::from_value(t - now));
  else software_step("a zero-length wait");
}

void HostCpu::compute(int core, Tick d) {
  const Tick now = now_tick();
  wait_until(noisy_end(core, now, now + d));
}

void HostCpu::send_write(std::uint64_t addr, std::uint32_t len, std::uint64_t stream, std::uint64_t off,
                         std::uint64_t checksum, const std::uint8_t* bytes, Ledger* led) {
  Tlp* t = pcie::TlpPool::instance().get();
  t->kind = TlpKind::MemWr;
  t->addr = addr;
  t->addr64 = pcie::needs_addr64(addr);
  t->len = len;
  t->data_stream = stream;
  t->data_off = off;
  t->checksum = checksum;
  if (bytes) t->set_bytes(bytes, len);
  t->created = now_tick();
  if (led) {
    led->charge(Stage::Software, t->created);
    t->ledger = fork_ledger(led);
  }
  m_rc.issue_mmio(t);
}

void HostCpu::uc_store(int core, const std::function<void()>& send, Ledger* led) {
  if (m_far.at(static_cast<std::size_t>(core))) {
    if (led) led->charge(Stage::Software, now_tick());
    // The store goes on the socket link toward the card's socket, in the
    // first slot of the link that no line holds.
    wait_until(m_far_rc->store_toward(m_rc.config().socket, now_tick()));
    compute(core, m_cfg.far_mmio);
    if (led) led->charge(Stage::Memory, now_tick());
  }
  send();
  ++uc_writes;
  compute(core, m_cfg.uc_write_cost);
}

void HostCpu::mmio_write_uc(int core, std::uint64_t addr, std::uint32_t len, std::uint64_t stream,
                            std::uint64_t off, Ledger* led) {
  uc_store(core, [&] { send_write(addr, len, stream, off, pattern_checksum(stream, off, len), nullptr, led); }, led);
}

void HostCpu::mmio_write_bytes(int core, std::uint64_t addr, const std::uint8_t* p, std::uint32_t len, Ledger* led) {
  uc_store(core, [&] { send_write(addr, len, 0, 0, 0, p, led); }, led);
}

void HostCpu::mmio_write_wc(int core, std::uint64_t addr, std::uint32_t len, std::uint64_t stream,
                            std::uint64_t off, Ledger* led) {
  // Whole 64 B lines leave as they fill; the tail leaves at the fence.
  std::uint64_t a = addr;
  const std::uint64_t end = addr + len;
  while (a < end) {
    const std::uint64_t stop = std::min(end, (a / 64 + 1) * 64);
    compute(core, m_cfg.wc_line_cost);
    const std::uint32_t n = static_cast<std::uint32_t>(stop - a);
    send_write(a, n, stream, off + (a - addr), pattern_checksum(stream, off + (a - addr), n), nullptr,
               stop == end ? led : nullptr);
    ++wc_lines;
    a = stop;
  }
}

void HostCpu::mmio_copy_wc(int core, std::uint64_t dst, std::uint64_t src, std::uint32_t len,
                           std::uint64_t stream, std::uint64_t off) {
  copy_wc(core, dst, src, len, [&](std::uint64_t a, std::uint32_t n, const std::uint8_t* b) {
    // The bytes are what memory holds now: a corrupted or misplaced DMA write
    // shows up as a checksum mismatch at the device.
    send_write(a, n, stream, off + (a - dst), bytes_checksum(b, n));
  });
}

void HostCpu::mmio_copy_wc(int core, std::uint64_t dst, std::uint64_t src, std::uint32_t len, Ledger* led) {
  copy_wc(core, dst, src, len, [&](std::uint64_t a, std::uint32_t n, const std::uint8_t* b) {
    send_write(a, n, 0, 0, 0, b, a + n == dst + len ? led : nullptr);
  });
}

template <class Send>
void HostCpu::copy_wc(int core, std::uint64_t dst, std::uint64_t src, std::uint32_t len, const Send& send) {
  // Loads of the source and WC stores of the copy overlap line by line.
  std::uint64_t a = dst;
  const std::uint64_t end = dst + len;
  std::vector<std::uint8_t> buf;
  while (a < end) {
    const std::uint64_t stop = std::min(end, (a / 64 + 1) * 64);
    compute(core, m_cfg.wc_line_cost + m_cfg.copy_line_cost);
    const std::uint32_t n = static_cast<std::uint32_t>(stop - a);
    buf.resize(n);
    port(core).load(src + (a - dst), buf.data(), n);
    send(a, n, buf.data());
    ++wc_lines;
    a = stop;
  }
}

void HostCpu::fence(int core) { compute(core, m_cfg.fence_cost); }

void HostCpu::set_far(int core, bool far) {
  if (core < 0 || core >= m_cfg.cores) sim_fail(name(), "no core " + std::to_string(core));
  if (far && !m_far_rc) sim_fail(name(), "core " + std::to_string(core) + " on socket 1, which has no root complex");
  m_far[static_cast<std::size_t>(core)] = far;
}

bool HostCpu::mmio_read(int core, std::uint64_t addr, std::uint32_t len, std::uint8_t* out, Ledger* led) {
  Tlp* t = pcie::TlpPool::instance().get();
  t->kind = TlpKind::MemRd;
  t->addr = addr;
  t->addr64 = pcie::needs_addr64(addr);
  t->req_len = len;
  t->tag = m_next_tag++;
  t->want_bytes = out != nullptr;
  t->created = now_tick();
  t->ledger = fork_ledger(led);
  auto& r = m_reads[t->tag];
  r.ev = std::make_unique<sc_core::sc_event>();
  r.addr = addr;
  r.len = len;
  r.out = out;
  r.led = led;
  r.timed = false;
  sc_core::sc_event* e = r.ev.get();
  ++mmio_reads;
  const std::uint16_t tag = t->tag;
  m_rc.issue_mmio(t);
  sc_core::wait(*e);
  const Tick now = now_tick();
  wait_until(noisy_end(core, now, now));
  if (!m_reads.at(tag).timed) return false;
  led->charge(Stage::Software, now_tick());  // an OS tick that held the core
  return true;
}

void HostCpu::on_mmio_completion(const Tlp& t, Tick) {
  auto it = m_reads.find(t.tag);
  if (it == m_reads.end() || !it->second.ev) sim_fail(basename(), "completion for an MMIO read that is not outstanding");
  MmioRead& r = it->second;
  if (!t.payload_intact()) sim_fail(basename(), "payload check failed on an MMIO read completion from " + hex(t.addr));
  if (r.out && t.len) {
    if (t.addr < r.addr || t.addr - r.addr >= r.len)
      sim_fail(basename(), "an MMIO read completion for " + hex(t.addr) + " lies outside its request");
    std::uint8_t buf[PayloadBytes::kMax];
    t.payload(buf);
    const std::uint64_t at = t.addr - r.addr;
    std::memcpy(r.out + at, buf, std::min<std::uint64_t>(t.len, r.len - at));
  }
  // A read answered by several completions ends with the last one.
  if (t.req_len > t.len) return;
  if (r.led && t.ledger) {
    r.led->copy_from(*t.ledger);
    r.timed = true;
  }
  notify_now(*r.ev);
  // The event object must outlive the notification: keep it until the next read reuses the tag.
}

int HostCpu::arm_watch(std::uint64_t addr, std::uint32_t len, int core, Ledger* into) {
  const int id = m_next_watch++;
  Watch& w = m_watches[id];
  w.addr = addr;
  w.len = len;
  w.core = core;
  w.into = into;
  m_undetected.push_back(id);
  return id;
}

void HostCpu::wait_watch(int id) {
  const auto it = m_watches.find(id);
  if (it == m_watches.end()) sim_fail(basename(), "wait for a poll watch that is not armed");
  if (!it->second.done) {
    it->second.waiting = true;
    it->second.ev = std::make_unique<sc_core::sc_event>();
    sc_core::wait(*it->second.ev);  // notified at the detection time
  }
  // The event has fired (or was never notified): the watch can go.
  const Tick detected = m_watches.at(id).detected;
  m_watches.erase(id);
  wait_until(detected);
}

int HostCpu::arm_ring(std::uint64_t addr, std::uint32_t slot_B, std::uint32_t slots, int core) {
  if (!slot_B || !slots) sim_fail(basename(), "a polled ring of no slots");
  Ring r{addr, slot_B, slots, core, std::vector<Tick>(slots, kNever), std::vector<Tick>(slots, kNever), -1,
         std::make_unique<sc_core::sc_event>(), {}, {}, {}};
  m_rings.push_back(std::move(r));
  return static_cast<int>(m_rings.size() - 1);
}

Tick HostCpu::ring_seen(int ring, std::uint32_t s) const { return m_rings.at(static_cast<std::size_t>(ring)).seen.at(s); }
Tick HostCpu::ring_commit(int ring, std::uint32_t s) const { return m_rings.at(static_cast<std::size_t>(ring)).commit.at(s); }

void HostCpu::wait_ring(int ring, std::uint32_t s) {
  while (!wait_ring_until(ring, s)) {
  }  // a kick does not end this wait
}

bool HostCpu::wait_ring_until(int ring, std::uint32_t s, Tick until) {
  Ring& r = m_rings.at(static_cast<std::size_t>(ring));
  if (r.waiting >= 0) sim_fail(basename(), "two threads wait on one polled ring");
  r.kicked = false;
  while (r.seen.at(s) == kNever) {
    if (r.kicked || now_tick() >= until) return false;
    r.waiting = s;
    if (until != kNever) notify_at(*r.ev, until);  // a write seen sooner moves it earlier
    sc_core::wait(*r.ev);
    r.waiting = -1;
  }
  wait_until(r.seen[s]);
  return true;
}

void HostCpu::kick_ring(int ring) {
  Ring& r = m_rings.at(static_cast<std::size_t>(ring));
  if (r.waiting < 0) return;
  r.kicked = true;
  notify_now(*r.ev);
}

void HostCpu::clear_ring(int ring, std::uint32_t s) {
  Ring& r = m_rings.at(static_cast<std::size_t>(ring));
  r.seen.at(s) = kNever;
  r.commit.at(s) = kNever;
  if (!r.timed.empty()) r.timed[s] = 0;
}

HostCpu::PollSeen HostCpu::poll_sees(int core, std::uint64_t addr, Tick commit) {
  // Seen on the next poll iteration after the commit, plus the line fetch,
  // which crosses the socket interconnect when the line is homed on the
  // other socket than the polling core (S003's far run: the application
  // polls the driver's writeback buffer, near the card, from the far node).
  const Tick phase = m_cfg.poll_period ? m_rng.below(m_cfg.poll_period) : 0;
  const bool far = m_far[static_cast<std::size_t>(core)];
  const Tick fetch = (far && m_far_rc ? *m_far_rc : m_rc).fetch_line(addr, commit + phase);
  return PollSeen{commit + phase, fetch + m_cfg.poll_miss, noisy_end(core, commit, fetch + m_cfg.poll_miss)};
}

void HostCpu::charge_poll(Ledger& l, const PollSeen& p) {
  l.charge(Stage::Software, p.phase_end);
  l.charge(Stage::Memory, p.fetched);
  l.charge(Stage::Software, p.seen);
}

bool HostCpu::ring_ledger(int ring, std::uint32_t s, bool polled, Ledger& into) const {
  const Ring& r = m_rings.at(static_cast<std::size_t>(ring));
  if (r.timed.empty() || !r.timed.at(s)) return false;
  into.copy_from(r.led[s]);
  if (polled) charge_poll(into, r.poll[s]);
  return true;
}

void HostCpu::on_memory_write(std::uint64_t addr, std::uint32_t len, Tick commit, const Ledger* led) {
  for (Ring& r : m_rings) {
    const std::uint64_t end = r.addr + static_cast<std::uint64_t>(r.slot_B) * r.slots;
    if (addr >= end || r.addr >= addr + len) continue;
    ++polls_detected;
    const PollSeen poll = poll_sees(r.core, addr, commit);
    const Tick seen = poll.seen;
    const std::uint64_t first = (std::max(addr, r.addr) - r.addr) / r.slot_B;
    const std::uint64_t last = (std::min(addr + len, end) - 1 - r.addr) / r.slot_B;
    if (led && r.timed.empty()) {
      r.led.resize(r.slots);
      r.poll.resize(r.slots);
      r.timed.assign(r.slots, 0);
    }
    for (std::uint64_t s = first; s <= last; ++s) {
      if (!r.timed.empty()) {
        r.timed[s] = led != nullptr;
        if (led) {
          r.led[s].copy_from(*led);
          r.poll[s] = poll;
        }
      }
      r.seen[s] = seen;
      r.commit[s] = commit;
      if (r.waiting == static_cast<std::int64_t>(s)) notify_at(*r.ev, seen);
    }
  }
  std::size_t keep = 0;
  for (std::size_t i = 0; i < m_undetected.size(); ++i) {
    const int id = m_undetected[i];
    Watch& w = m_watches.at(id);
    if (addr >= w.addr + w.len || w.addr >= addr + len) {
      m_undetected[keep++] = id;
      continue;
    }
    w.done = true;
    ++polls_detected;
    if (w.into) {
      if (!led) sim_fail(basename(), "a timed poll of " + hex(w.addr) + " was satisfied by a write that carries no latency ledger");
      w.into->copy_from(*led);
    }
    const PollSeen poll = poll_sees(w.core, addr, commit);
    if (w.into) charge_poll(*w.into, poll);
    w.detected = poll.seen;
    if (w.waiting) notify_at(*w.ev, w.detected);
  }
  m_undetected.resize(keep);
}

void HostCpu::on_msi(std::uint32_t vector, Tick at) {
  auto& m = m_msi[vector];
  if (!m.ev) m.ev = std::make_unique<sc_core::sc_event>();
  ++m.pending;
  m.last = at;
  notify_now(*m.ev);
}

void HostCpu::kick_msi(std::uint32_t vector) {
  auto it = m_msi.find(vector);
  if (it == m_msi.end() || !it->second.sleeping) return;
  it->second.kicked = true;
  notify_now(*it->second.ev);
}

bool HostCpu::wait_msi(int core, std::uint32_t vector, Tick until) {
  auto& m = m_msi[vector];
  if (!m.ev) m.ev = std::make_unique<sc_core::sc_event>();
  // Asleep, the thread leaves its core to the others; it takes it back to wake.
  const int me = m.pending == 0 ? caller_on(core) : -1;
  if (me >= 0) give(core);
  m.kicked = false;
  m.sleeping = true;
  while (m.pending == 0 && !m.kicked && now_tick() < until) {
    if (until != kNever) notify_at(*m.ev, until);  // an MSI sooner moves it earlier
    sc_core::wait(*m.ev);
  }
  m.sleeping = false;
  if (me >= 0) take(core, me);
  if (m.pending == 0) return false;  // kicked, or `until` came first
  --m.pending;
  ++irqs;
  const Tick now = now_tick();
  wait_until(noisy_end(core, now, std::max(now, m.last + m_cfg.irq_latency)));
  return true;
}

}  // namespace hx::host
