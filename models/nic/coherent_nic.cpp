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
  std::uint64_t head_seen = 0;          // the writer's last look at the head line
  std::uint64_t head_told = 0;          // the reader's last report in it
};

struct CoherentNic::Queue : LoopQueue {
  int index = 0;
  Ring tx, rx;
  std::unique_ptr<coherence::CoreThread> host_tx, host_rx, nic;
};

CoherentNic::CoherentNic(const std::string& name, const CoherentNicConfig& cfg, coherence::SocketSystem& sys)
    : m_cfg(cfg), m_name(name), m_sys(sys) {
  const auto& s = sys.config();
  if (s.sockets != 2) sim_fail(name, "a NIC on the socket interconnect needs two sockets");
  if (cfg.traffic.queues < 1 || 2 * cfg.traffic.queues > s.cores || cfg.traffic.queues > s.cores)
    sim_fail(name, "each queue takes two host cores on socket 0 and one NIC core on socket 1");
  if (cfg.per_line < 1 || cfg.per_line > 4) sim_fail(name, "one to four descriptors per line");
  if (cfg.traffic.ring < 2 || cfg.traffic.batch < 1 || cfg.traffic.batch > cfg.traffic.ring * cfg.per_line / 2)
    sim_fail(name, "a batch is at most half a ring");
  if (cfg.traffic.packet_B < 1 || cfg.traffic.packet_B > 9216) sim_fail(name, "packets of 1 B to 9216 B");
  if (buffer_bytes(cfg) > kRegionB) sim_fail(name, "a ring's buffers exceed 64 MiB");
  if (static_cast<std::uint64_t>(cfg.traffic.queues) * kRegionsPerQueue * kRegionB > s.socket_bytes)
    sim_fail(name, "the queues' rings exceed a socket's DRAM");
  for (int q = 0; q < cfg.traffic.queues; ++q) {
    auto x = std::make_unique<Queue>();
    x->index = q;
    // A ring's descriptors, buffers and tail are its writer's; its head is
    // its reader's. The TX ring's writer is the host (socket 0).
    auto place = [&](Ring& r, int writer, int first) {
      const int w = cfg.writer_homed ? writer : 1 - writer;
      auto at = [&](int obj, int socket) { return sys.line_at(socket, (static_cast<std::uint64_t>(q) * kRegionsPerQueue + static_cast<std::uint64_t>(first + obj)) * kRegionB); };
      r.desc = at(0, w);
      r.buf = at(1, w);
      r.tail = at(2, w);
      r.head = at(3, 1 - w);
    };
    place(x->tx, 0, 0);
    place(x->rx, 1, 4);
    x->host_tx = std::make_unique<coherence::CoreThread>(sys.core(0, 2 * q));
    x->host_rx = std::make_unique<coherence::CoreThread>(sys.core(0, 2 * q + 1));
    x->nic = std::make_unique<coherence::CoreThread>(sys.core(1, q));
    x->due.assign(cfg.traffic.warmup + cfg.traffic.packets, 0);
    m_queues.push_back(std::move(x));
  }
}

CoherentNic::~CoherentNic() = default;

std::uint64_t CoherentNic::buffer_bytes(const CoherentNicConfig& c) {
  const std::uint64_t lines = (c.traffic.packet_B + kLineB - 1) / kLineB;
  return static_cast<std::uint64_t>(c.traffic.ring) * static_cast<std::uint64_t>(c.per_line) * lines * kLineB;
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

// The writer's side of a ring: descriptors [r.written, r.written + n) for
// packets of the same numbers.
class Writer {
 public:
  Writer(const CoherentNicConfig& c) : m_c(c), m_lines((c.traffic.packet_B + kLineB - 1) / kLineB) {}
  template <class RingT>
  void produce(coherence::CoreThread& core, RingT& r, std::uint64_t n) {
    const std::uint64_t cap = static_cast<std::uint64_t>(m_c.traffic.ring) * static_cast<std::uint64_t>(m_c.per_line);
    if (r.written + n - r.head_seen > cap)
      r.head_seen = core.poll(r.head, m_c.poll_loop, [&](std::uint64_t v) { return r.written + n - v <= cap; });
    // The packets' lines, then (once every one is written) their descriptor lines.
    m_l.clear();
    m_v.clear();
    for (std::uint64_t d = r.written; d < r.written + n; ++d)
      for (std::uint64_t i = 0; i < m_lines; ++i) {
        m_l.push_back(r.buf + (d % cap) * m_lines + i);
        m_v.push_back(d + 1);
      }
    core.store_all(m_l, m_v);
    m_l.clear();
    m_v.clear();
    const auto per = static_cast<std::uint64_t>(m_c.per_line);
    for (std::uint64_t d = r.written; d < r.written + n; ++d) {
      const std::uint64_t line = r.desc + (d / per) % static_cast<std::uint64_t>(m_c.traffic.ring);
      if (!m_l.empty() && m_l.back() == line) m_v.back() = d + 1;  // the line's signal: its last descriptor's number
      else {
        m_l.push_back(line);
        m_v.push_back(d + 1);
      }
    }
    core.store_all(m_l, m_v);
    r.written += n;
    if (!m_c.inline_signal) core.store(r.tail, r.written);
  }

 private:
  const CoherentNicConfig& m_c;
  std::uint64_t m_lines;
  std::vector<std::uint64_t> m_l, m_v;
};

// The reader's side: waits for at least one descriptor, takes up to
// `batch`, reads their packets (checking each line holds its packet) and
// reports its progress in the head line every quarter ring. Returns the
// first descriptor taken; r.read is past the last.
class Reader {
 public:
  Reader(const CoherentNicConfig& c, const std::string& who)
      : m_c(c), m_who(who), m_lines((c.traffic.packet_B + kLineB - 1) / kLineB) {}
  template <class RingT>
  std::uint64_t consume(coherence::CoreThread& core, RingT& r) {
    const std::uint64_t first = r.read;
    const auto per = static_cast<std::uint64_t>(m_c.per_line), ring = static_cast<std::uint64_t>(m_c.traffic.ring);
    const auto batch = static_cast<std::uint64_t>(m_c.traffic.batch);
    auto line_of = [&](std::uint64_t d) { return r.desc + (d / per) % ring; };
    std::uint64_t avail = 0;
    if (m_c.inline_signal) {
      // The next descriptor's line says how many are ready; when the batch
      // has room for more, the lines after it are read all at once and
      // taken up to the first that is not ready.
      const std::uint64_t v = core.poll(line_of(first), m_c.poll_loop, [&](std::uint64_t x) { return x > first && x <= first + per * ring; });
      avail = std::min(v - first, batch);
      if (avail < batch && (first + avail) % per == 0) {
        m_l.clear();
        for (std::uint64_t d = first + avail; d < first + batch; d += per) m_l.push_back(line_of(d));
        const auto& next = core.load_all(m_l);
        for (std::size_t i = 0; i < next.size(); ++i) {
          const std::uint64_t at = first + avail;
          if (next[i] <= at || next[i] > at + per * ring) break;
          avail = std::min(next[i] - first, batch);
          if (avail % per) break;  // a line not full yet: the next one cannot hold anything newer
        }
      }
    } else {
      const std::uint64_t tail = core.poll(r.tail, m_c.poll_loop, [&](std::uint64_t x) { return x > first; });
      avail = std::min(tail - first, batch);
      m_l.clear();
      for (std::uint64_t d = first; d < first + avail; ++d)
        if (m_l.empty() || m_l.back() != line_of(d)) m_l.push_back(line_of(d));
      const auto& v = core.load_all(m_l);
      for (std::size_t i = 0; i < m_l.size(); ++i)
        if (v[i] <= first) sim_fail(m_who, "a descriptor line behind the tail that announced it");
    }
    m_l.clear();
    for (std::uint64_t d = first; d < first + avail; ++d)
      for (std::uint64_t i = 0; i < m_lines; ++i) m_l.push_back(r.buf + (d % (per * ring)) * m_lines + i);
    const auto& v = core.load_all(m_l);
    for (std::size_t i = 0; i < v.size(); ++i)
      if (v[i] != first + i / m_lines + 1)
        sim_fail(m_who, "packet " + std::to_string(first + i / m_lines) + " read as " + std::to_string(v[i]) +
                            " after its descriptor: the packet's stores were not visible before the descriptor's");
    r.read = first + avail;
    if (r.read - r.head_told >= per * ring / 4) {
      r.head_told = r.read;
      core.store(r.head, r.read);
    }
    return first;
  }

 private:
  const CoherentNicConfig& m_c;
  std::string m_who;
  std::uint64_t m_lines;
  std::vector<std::uint64_t> m_l;
};

}  // namespace

void CoherentNic::host_tx(Queue& q) {
  Writer w(m_cfg);
  Pacer pace(m_cfg.traffic, q.due, q.received, q.rx_ev);
  for (std::uint64_t k = 0; k < q.due.size();) {
    const std::uint64_t n = pace.next(k);
    wait_for(m_cfg.host_per_packet * n);
    w.produce(*q.host_tx, q.tx, n);
    k += n;
  }
}

void CoherentNic::nic_loop(Queue& q) {
  Reader rd(m_cfg, m_name + ".q" + std::to_string(q.index) + ".nic");
  Writer w(m_cfg);
  const std::uint64_t total = q.due.size();
  while (q.tx.read < total) {
    const std::uint64_t first = rd.consume(*q.nic, q.tx);
    const std::uint64_t n = q.tx.read - first;
    wait_for(m_cfg.nic_per_packet * n);
    w.produce(*q.nic, q.rx, n);
  }
}

void CoherentNic::host_rx(Queue& q) {
  Reader rd(m_cfg, m_name + ".q" + std::to_string(q.index) + ".host_rx");
  const std::uint64_t total = q.due.size();
  while (q.rx.read < total) {
    const std::uint64_t first = rd.consume(*q.host_rx, q.rx);
    wait_for(m_cfg.host_per_packet * (q.rx.read - first));
    for (std::uint64_t k = first; k < q.rx.read; ++k) m_timing.received(k, q.due[k], m_cfg.traffic.warmup);
    q.received = q.rx.read;
    q.rx_ev.notify(sc_core::SC_ZERO_TIME);
  }
  q.finished = true;
}

}  // namespace hx::nic
