#include "models/nic/coherent_nic.h"

#include <systemc>

#include <algorithm>

#include "models/coherence/core_thread.h"
#include "models/core/error.h"

namespace hx::nic {

using coherence::kLineB;

// One ring: its lines, and how far its writer and its reader are.
struct CoherentNic::Ring {
  std::uint64_t desc = 0, buf = 0, tail = 0, head = 0;  // first line of each
  std::uint64_t written = 0, read = 0;  // descriptors
  std::uint64_t w_slot = 0, r_slot = 0;  // slots (per_line to a descriptor line) past the writer's and the reader's
  std::uint64_t head_seen = 0;          // the writer's last look at the head line (a slot)
  std::uint64_t head_told = 0;          // the reader's last report in it
  std::vector<std::uint64_t> ids;       // per slot, the buffer its descriptor names (buffer k: lines buf + k x packet lines)
};

struct CoherentNic::Queue : LoopQueue {
  int index = 0;
  Ring tx, rx;
  std::vector<std::uint64_t> host_pool, nic_pool;  // free buffers (with pools), the next at the back
  sc_core::sc_event freed;                          // the host's RX core put buffers into its pool
  std::unique_ptr<coherence::CoreThread> host_tx, host_rx, nic;
  // The timed packets in flight (from the warm-up on, sent and not yet
  // received), in order: packet k's is led[k - led_first]: its ledger,
  // accounted for up to when its writer found room for it, and when the
  // writer's stores of it (and of the rest of its batch) were done.
  struct Timed {
    Ledger l;
    Tick stored = 0;
  };
  std::deque<Timed> led;
  std::uint64_t led_first = 0;
  // Each timed packet of [first, first + n): f(its entry).
  template <class F>
  void each_timed(std::uint64_t first, std::uint64_t n, F&& f) {
    for (std::uint64_t k = std::max(first, led_first); k < first + n; ++k) f(led.at(k - led_first));
  }
};

CoherentNic::CoherentNic(const std::string& name, const CoherentNicConfig& cfg, coherence::SocketSystem& sys)
    : m_cfg(cfg), m_name(name), m_sys(sys) {
  const auto& s = sys.config();
  if (cfg.nic_socket < 1 || cfg.nic_socket >= s.sockets)
    sim_fail(name, "a NIC on the socket interconnect needs a socket of its own besides the host's socket 0 (nic_socket " +
                       std::to_string(cfg.nic_socket) + " of " + std::to_string(s.sockets) + ")");
  if (cfg.traffic.queues < 1 || 2 * cfg.traffic.queues > s.cores || cfg.traffic.queues > s.cores)
    sim_fail(name, "each queue takes two host cores on socket 0 and one NIC core on the NIC's socket");
  if (cfg.per_line < 1 || cfg.per_line > 4) sim_fail(name, "one to four descriptors per line");
  if (!cfg.inline_signal && cfg.layout != Layout::Packed)
    sim_fail(name, "with tail registers descriptors lie back to back (layout: packed)");
  if (cfg.traffic.ring < 2 || cfg.traffic.batch < 1 || cfg.traffic.batch > cfg.traffic.ring * cfg.per_line / 2)
    sim_fail(name, "a batch is at most half a ring");
  if (cfg.traffic.packet_B < 1 || cfg.traffic.packet_B > 9216) sim_fail(name, "packets of 1 B to 9216 B");
  if (buffer_bytes(cfg) > kRegionB) sim_fail(name, cfg.pools ? "a queue's buffer pools exceed 64 MiB" : "a ring's buffers exceed 64 MiB");
  if (static_cast<std::uint64_t>(cfg.traffic.queues) * kRegionsPerQueue * kRegionB > s.socket_bytes)
    sim_fail(name, "the queues' rings exceed a socket's DRAM");
  for (int q = 0; q < cfg.traffic.queues; ++q) {
    auto x = std::make_unique<Queue>();
    x->index = q;
    // A ring's descriptors, buffers and tail are its writer's; its head is
    // its reader's. The TX ring's writer is the host (socket 0), the RX
    // ring's the NIC.
    const int nic = cfg.nic_socket;
    auto place = [&](Ring& r, int writer, int first) {
      const int reader = writer == 0 ? nic : 0;
      const int w = cfg.writer_homed ? writer : reader;
      auto at = [&](int obj, int socket) { return sys.line_at(socket, (static_cast<std::uint64_t>(q) * kRegionsPerQueue + static_cast<std::uint64_t>(first + obj)) * kRegionB); };
      r.desc = at(0, w);
      r.buf = at(1, w);
      r.tail = at(2, w);
      r.head = at(3, w == 0 ? nic : 0);
    };
    place(x->tx, 0, 0);
    place(x->rx, nic, 4);
    const std::uint64_t slots = static_cast<std::uint64_t>(cfg.traffic.ring) * static_cast<std::uint64_t>(cfg.per_line);
    for (Ring* r : {&x->tx, &x->rx}) {
      r->ids.resize(slots);
      for (std::uint64_t k = 0; k < slots; ++k) r->ids[k] = k;  // a slot's own buffer
    }
    if (cfg.pools) {
      x->rx.buf = x->tx.buf;  // both pools' buffers in one region
      for (std::uint64_t k = 0; k < 2 * slots; ++k) {
        x->host_pool.push_back(k);
        x->nic_pool.push_back(2 * slots + k);
      }
    }
    x->host_tx = std::make_unique<coherence::CoreThread>(sys.core(0, 2 * q));
    x->host_rx = std::make_unique<coherence::CoreThread>(sys.core(0, 2 * q + 1));
    x->nic = std::make_unique<coherence::CoreThread>(sys.core(nic, q));
    x->due.assign(cfg.traffic.warmup + cfg.traffic.packets, 0);
    x->led_first = cfg.traffic.warmup;
    m_queues.push_back(std::move(x));
  }
}

CoherentNic::~CoherentNic() = default;

std::uint64_t CoherentNic::buffer_bytes(const CoherentNicConfig& c) {
  const std::uint64_t lines = (c.traffic.packet_B + kLineB - 1) / kLineB;
  const std::uint64_t buffers = static_cast<std::uint64_t>(c.traffic.ring) * static_cast<std::uint64_t>(c.per_line) * (c.pools ? 4 : 1);
  return buffers * lines * kLineB;
}

void CoherentNic::start() {
  for (auto& q : m_queues) {
    Queue* x = q.get();
    // SystemC process names take no dots.
    std::string n = m_name + "_q" + std::to_string(x->index);
    std::replace(n.begin(), n.end(), '.', '_');
    sc_core::sc_spawn([this, x] { host_tx(*x); }, (n + "_host_tx").c_str());
    sc_core::sc_spawn([this, x] { nic_loop(*x); }, (n + "_nic").c_str());
    sc_core::sc_spawn([this, x] { host_rx(*x); }, (n + "_host_rx").c_str());
  }
}

bool CoherentNic::done() const { return all_finished(m_queues); }

double CoherentNic::progress() const { return mean_progress(m_queues); }

namespace {

// A ring's geometry as both its sides see it.
class Geometry {
 public:
  explicit Geometry(const CoherentNicConfig& c)
      : m_c(c),
        m_lines((c.traffic.packet_B + kLineB - 1) / kLineB),
        m_per(static_cast<std::uint64_t>(c.per_line)),
        m_ring(static_cast<std::uint64_t>(c.traffic.ring)),
        m_cap(m_per * m_ring) {}

 protected:
  bool grouped() const { return m_c.layout == Layout::Grouped; }
  bool flags() const { return m_c.inline_signal && m_c.layout == Layout::Packed; }  // a ready flag per descriptor
  template <class RingT>
  std::uint64_t line_of(const RingT& r, std::uint64_t slot) const { return r.desc + (slot / m_per) % m_ring; }
  template <class RingT>
  std::uint64_t buffer(const RingT& r, std::uint64_t slot, std::uint64_t i) const { return r.buf + r.ids[slot % m_cap] * m_lines + i; }
  // A packed slot's 16 bits of its line, and its ready flag.
  std::uint64_t field(std::uint64_t slot) const { return 0xFFFFull << (16 * (slot % m_per)); }
  std::uint64_t flag(std::uint64_t slot) const { return 1ull << (16 * (slot % m_per)); }
  // A grouped line's signal: the number of descriptors written up to its
  // last, and how many it holds.
  static std::uint64_t signal(std::uint64_t upto, std::uint64_t count) { return upto << 3 | count; }
  static std::uint64_t upto(std::uint64_t signal) { return signal >> 3; }
  static std::uint64_t count(std::uint64_t signal) { return signal & 7; }
  // Lists slot's line in m_l (with value 0 and mask `mask` in m_v and m_m)
  // unless it is the last listed; true if it was listed now.
  template <class RingT>
  bool list_line(const RingT& r, std::uint64_t slot, std::uint64_t mask) {
    if (!m_l.empty() && m_l.back() == line_of(r, slot)) return false;
    m_l.push_back(line_of(r, slot));
    m_v.push_back(0);
    m_m.push_back(mask);
    return true;
  }

  const CoherentNicConfig& m_c;
  const std::uint64_t m_lines, m_per, m_ring, m_cap;  // lines per packet; slots per line; lines per ring; slots per ring
  std::vector<std::uint64_t> m_l, m_v, m_m;  // scratch: lines, values, masks
};

// The writer's side of a ring: descriptors [r.written, r.written + n) for
// packets of the same numbers.
class Writer : Geometry {
 public:
  Writer(const CoherentNicConfig& c, const std::string& who) : Geometry(c), m_who(who) {}
  // With pools, `pool` holds at least n free buffers: each packet takes
  // the one freed last.
  template <class RingT>
  void produce(coherence::CoreThread& core, RingT& r, std::uint64_t n, std::vector<std::uint64_t>* pool = nullptr) {
    const std::uint64_t end = grouped() ? (r.w_slot + n + m_per - 1) / m_per * m_per : r.w_slot + n;
    if (end - r.head_seen > m_cap)
      r.head_seen = core.poll(r.head, m_c.poll_loop, [&](std::uint64_t v) { return end - v <= m_cap; });
    if (pool) {
      if (pool->size() < n) sim_fail(m_who, "a buffer pool ran short");
      for (std::uint64_t k = 0; k < n; ++k) {
        r.ids[(r.w_slot + k) % m_cap] = pool->back();
        pool->pop_back();
      }
    }
    m_room_at = now_tick();
    // The packets' lines, then (once every one is written) their descriptor lines.
    m_l.clear();
    m_v.clear();
    for (std::uint64_t k = 0; k < n; ++k)
      for (std::uint64_t i = 0; i < m_lines; ++i) {
        m_l.push_back(buffer(r, r.w_slot + k, i));
        m_v.push_back(r.written + k + 1);
      }
    core.store_all(m_l, m_v);
    m_l.clear();
    m_v.clear();
    m_m.clear();
    for (std::uint64_t k = 0; k < n; ++k) {
      const std::uint64_t slot = r.w_slot + k, d = r.written + k;
      const bool same = !list_line(r, slot, flags() ? 0 : ~0ull);
      if (flags()) {
        m_v.back() |= flag(slot);
        m_m.back() |= field(slot);
      } else if (grouped()) {
        m_v.back() = signal(d + 1, same ? count(m_v.back()) + 1 : 1);
      } else {
        m_v.back() = d + 1;  // (tail registers) the number of its last descriptor
      }
    }
    core.store_all(m_l, m_v, m_m);
    r.written += n;
    r.w_slot = end;
    if (!m_c.inline_signal) core.store(r.tail, r.written);
  }
  // When the last produce() found room in the ring (its stores began).
  Tick room_at() const { return m_room_at; }

 private:
  std::string m_who;
  Tick m_room_at = 0;
};

// The reader's side: waits for at least one descriptor, takes up to
// `batch`, reads their packets (checking each line holds its packet), and
// reports the slot it has read up to in the head line every quarter ring.
// Returns the first descriptor taken; r.read is past the last. With a flag
// per descriptor, release() clears the flags once the packets are dealt
// with, and reports then.
class Reader : Geometry {
 public:
  Reader(const CoherentNicConfig& c, const std::string& who) : Geometry(c), m_who(who) {}
  template <class RingT>
  std::uint64_t consume(coherence::CoreThread& core, RingT& r) {
    const std::uint64_t first = r.read;
    const auto batch = static_cast<std::uint64_t>(m_c.traffic.batch);
    m_slots.clear();
    if (!m_c.inline_signal) take_announced(core, r, batch);
    else if (flags()) take_flagged(core, r, batch);
    else take_grouped(core, r, batch);
    const std::uint64_t avail = m_slots.size();
    m_l.clear();
    m_ids.clear();
    for (std::uint64_t slot : m_slots) {
      m_ids.push_back(r.ids[slot % m_cap]);
      for (std::uint64_t i = 0; i < m_lines; ++i) m_l.push_back(buffer(r, slot, i));
    }
    const auto& v = core.load_all(m_l);
    for (std::size_t i = 0; i < v.size(); ++i)
      if (v[i] != first + i / m_lines + 1)
        sim_fail(m_who, "packet " + std::to_string(first + i / m_lines) + " read as " + std::to_string(v[i]) +
                            " after its descriptor: the packet's stores were not visible before the descriptor's");
    m_loaded_at = now_tick();
    r.read = first + avail;
    if (!flags()) report(core, r);
    return first;
  }
  // When the last consume() had its packets' lines (before its report).
  Tick loaded_at() const { return m_loaded_at; }
  // With pools: puts the buffers of the packets taken last into `pool`.
  void free_to(std::vector<std::uint64_t>& pool) const { pool.insert(pool.end(), m_ids.begin(), m_ids.end()); }
  // Once the packets taken are dealt with (packed, inline): hands their
  // descriptors back by clearing their flags, line by line, then reports.
  template <class RingT>
  void release(coherence::CoreThread& core, RingT& r) {
    if (!flags()) return;
    m_l.clear();
    m_v.clear();
    m_m.clear();
    for (std::uint64_t slot : m_slots) {
      list_line(r, slot, 0);
      m_m.back() |= field(slot);
    }
    core.store_all(m_l, m_v, m_m);
    report(core, r);
  }

 private:
  template <class RingT>
  void report(coherence::CoreThread& core, RingT& r) {
    if (r.r_slot - r.head_told >= m_cap / 4) {
      r.head_told = r.r_slot;
      core.store(r.head, r.r_slot);
    }
  }
  // Tail registers: the tail says how many are written; their lines are
  // then read.
  template <class RingT>
  void take_announced(coherence::CoreThread& core, RingT& r, std::uint64_t batch) {
    const std::uint64_t first = r.read;
    const std::uint64_t tail = core.poll(r.tail, m_c.poll_loop, [&](std::uint64_t x) { return x > first; });
    const std::uint64_t avail = std::min(tail - first, batch);
    m_l.clear();
    m_v.clear();
    m_m.clear();
    for (std::uint64_t k = 0; k < avail; ++k) {
      m_slots.push_back(r.r_slot + k);
      list_line(r, r.r_slot + k, 0);
    }
    const auto& v = core.load_all(m_l);
    for (std::size_t i = 0; i < m_l.size(); ++i)
      if (v[i] <= first) sim_fail(m_who, "a descriptor line behind the tail that announced it");
    r.r_slot += avail;
  }
  // Grouped: the next line's signal says how many it holds; when the batch
  // has room for more, the lines after it are read all at once and taken
  // up to the first that is not ready or would overfill the batch.
  template <class RingT>
  void take_grouped(coherence::CoreThread& core, RingT& r, std::uint64_t batch) {
    const std::uint64_t first = r.read;
    const std::uint64_t v = core.poll(line_of(r, r.r_slot), m_c.poll_loop,
                                      [&](std::uint64_t x) { return upto(x) > first && upto(x) <= first + m_cap; });
    take_line(r, v);
    const std::uint64_t have = m_slots.size();
    if (have >= batch) return;
    m_l.clear();
    for (std::uint64_t k = 0; k < (batch - have + m_per - 1) / m_per; ++k) m_l.push_back(line_of(r, r.r_slot + k * m_per));
    const auto& next = core.load_all(m_l);
    for (std::uint64_t x : next) {
      const std::uint64_t at = first + m_slots.size();
      if (upto(x) <= at || upto(x) > at + m_cap || m_slots.size() + count(x) > batch) break;
      take_line(r, x);
    }
  }
  template <class RingT>
  void take_line(RingT& r, std::uint64_t x) {
    const std::uint64_t n = count(x);
    if (n < 1 || n > m_per || upto(x) != r.read + m_slots.size() + n)
      sim_fail(m_who, "a descriptor line whose signal (" + std::to_string(upto(x)) + " written, " + std::to_string(n) +
                          " in the line) does not follow the descriptors read before it");
    for (std::uint64_t k = 0; k < n; ++k) m_slots.push_back(r.r_slot + k);
    r.r_slot += m_per;
  }
  // Packed with a flag per descriptor: the next slot's flag, then those
  // after it in its line; when the batch has room and the line is used
  // up, the lines after it are read all at once and their slots taken up
  // to the first not flagged.
  template <class RingT>
  void take_flagged(coherence::CoreThread& core, RingT& r, std::uint64_t batch) {
    const std::uint64_t s0 = r.r_slot;
    const std::uint64_t v = core.poll(line_of(r, s0), m_c.poll_loop, [&](std::uint64_t x) { return (x & flag(s0)) != 0; });
    std::uint64_t s = s0;
    while (s - s0 < batch && (s == s0 || s % m_per) && (v & flag(s))) m_slots.push_back(s++);
    if (s - s0 < batch && s % m_per == 0) {
      m_l.clear();
      for (std::uint64_t t = s; t < s0 + batch; t += m_per) m_l.push_back(line_of(r, t));
      const auto& next = core.load_all(m_l);
      for (std::size_t i = 0; i < next.size() && s - s0 < batch; ++i) {
        const std::uint64_t line_end = s + m_per;
        while (s < line_end && s - s0 < batch && (next[i] & flag(s))) m_slots.push_back(s++);
        if (s < line_end) break;
      }
    }
    r.r_slot = s;
  }

  std::string m_who;
  Tick m_loaded_at = 0;
  std::vector<std::uint64_t> m_slots;  // the slots of the descriptors taken, in order
  std::vector<std::uint64_t> m_ids;    // their buffers (the writer may name others in those slots once they are reported read)
};

}  // namespace

void CoherentNic::host_tx(Queue& q) {
  Writer w(m_cfg, m_name + ".q" + std::to_string(q.index) + ".host_tx");
  Pacer pace(m_cfg.traffic, q.due, q.received, q.rx_ev);
  for (std::uint64_t k = 0; k < q.due.size();) {
    const std::uint64_t n = pace.next(k);
    for (std::uint64_t i = std::max(k, q.led_first); i < k + n; ++i) {
      q.led.emplace_back();
      q.led.back().l.open(q.due[i]);
    }
    wait_for(m_cfg.host_per_packet * n);
    while (m_cfg.pools && q.host_pool.size() < n) sc_core::wait(q.freed);
    w.produce(*q.host_tx, q.tx, n, m_cfg.pools ? &q.host_pool : nullptr);
    ++m_host_batches;
    // Its wait and work, and room in the ring (and buffers): the driver's.
    q.each_timed(k, n, [&](auto& t) {
      t.l.charge(Stage::Software, w.room_at());
      t.stored = now_tick();
    });
    k += n;
  }
}

namespace {
// The packets a reader took, [first, first + n), as it began to look at
// `from` and had their lines at `loaded`: the writer's stores, the poll
// and the loads are coherent transfers, except, when the reader began
// after the stores were done, the wait for it (its own: `own`).
template <class Q>
void taken(Q& q, std::uint64_t first, std::uint64_t n, Tick from, Tick loaded, Stage own) {
  q.each_timed(first, n, [&](auto& t) {
    if (from > t.stored) {
      t.l.charge(Stage::Coherence, t.stored);
      t.l.charge(own, from);
    }
    t.l.charge(Stage::Coherence, loaded);
  });
}
}  // namespace

void CoherentNic::nic_loop(Queue& q) {
  Reader rd(m_cfg, m_name + ".q" + std::to_string(q.index) + ".nic");
  Writer w(m_cfg, m_name + ".q" + std::to_string(q.index) + ".nic");
  const std::uint64_t total = q.due.size();
  while (q.tx.read < total) {
    const Tick from = now_tick();
    const std::uint64_t first = rd.consume(*q.nic, q.tx);
    const std::uint64_t n = q.tx.read - first;
    taken(q, first, n, from, rd.loaded_at(), Stage::Device);
    wait_for(m_cfg.nic_per_packet * n);
    // The packets are sent: their buffers take the ones received.
    if (m_cfg.pools) rd.free_to(q.nic_pool);
    w.produce(*q.nic, q.rx, n, m_cfg.pools ? &q.nic_pool : nullptr);
    ++m_nic_batches;
    q.each_timed(first, n, [&](auto& t) {
      t.l.charge(Stage::Device, w.room_at());  // its report, its work, room in the RX ring
      t.stored = now_tick();
    });
    rd.release(*q.nic, q.tx);
  }
}

void CoherentNic::host_rx(Queue& q) {
  Reader rd(m_cfg, m_name + ".q" + std::to_string(q.index) + ".host_rx");
  const std::uint64_t total = q.due.size();
  while (q.rx.read < total) {
    const Tick from = now_tick();
    const std::uint64_t first = rd.consume(*q.host_rx, q.rx);
    taken(q, first, q.rx.read - first, from, rd.loaded_at(), Stage::Software);
    wait_for(m_cfg.host_per_packet * (q.rx.read - first));
    for (std::uint64_t k = first; k < q.rx.read; ++k) {
      m_timing.received(k, q.due[k], m_cfg.traffic.warmup);
      if (k < q.led_first) continue;
      Ledger& l = q.led.front().l;
      l.charge(Stage::Software, now_tick());  // its report, the driver's work on it
      m_breakdown.add(l, q.due[k], now_tick());
      q.led.pop_front();
      ++q.led_first;
    }
    q.received = q.rx.read;
    q.rx_ev.notify(sc_core::SC_ZERO_TIME);
    if (m_cfg.pools) {
      rd.free_to(q.host_pool);
      q.freed.notify(sc_core::SC_ZERO_TIME);
    }
    rd.release(*q.host_rx, q.rx);
  }
  q.finished = true;
}

}  // namespace hx::nic
