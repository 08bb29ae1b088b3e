#include "src/sim/coherent_latency.h"

#include <systemc>

#include "models/ccix/home_port.h"
#include "models/coherence/core_thread.h"
#include "models/core/error.h"
#include "src/sim/workload_kinds.h"

namespace hx::sim {

using cfg::Cursor;

namespace {

// One access at a time from socket 0's core 0. Before each, untimed, the
// line is put in place: a line never touched is in its home's DRAM; for
// `from: l2`, a core of the holder's socket (not the reader) stores to it,
// so it is Modified in that core's L2; for `from: llc`, that core then
// gives it up (a write-back), so it is in its home's LLC and no L2. Each
// access takes a fresh line, so every one finds the same state.
class CoherentLatency final : public Workload {
 public:
  CoherentLatency(const Cursor& c, const topo::Topology& t) : Workload("coh_lat") {
    c.keys({"type", "name", "op", "from", "holder", "home", "reps"});
    if (c.has("name")) m_name = c.child("name").str();
    const auto& root = t.nodes[static_cast<std::size_t>(t.root)];
    if (!root.has_sockets)
      c.child("type").fail("coh_lat needs a host with sockets (`sockets:` under the root complex '" + root.name + "')");
    m_write = c.has("op") && c.child("op").choice({"rd", "wr"}) == "wr";
    const std::string from = c.has("from") ? c.child("from").choice({"dram", "l2", "llc"}) : "dram";
    m_l2 = from != "dram";
    m_llc = from == "llc";
    if (m_llc && root.sockets.llc_lines == 0)
      c.child("from").fail("a line in the LLC needs one: set sockets.llc_size on the root complex '" + root.name + "'");
    if (c.has("holder")) {
      // local: the reader's socket (0); remote: socket 1; or a socket's number.
      const Cursor h = c.child("holder");
      const std::string w = h.scalar();
      const bool number = !w.empty() && w.find_first_not_of("0123456789") == std::string::npos;
      if (w != "local" && w != "remote" && !number) h.fail("expected local, remote or a socket's number");
      m_holder = host_socket(h, number ? h.integer(0, 7) : w == "remote" ? 1 : 0, root.sockets.sockets);
    }
    m_remote = m_holder != 0;
    m_reader_homed = c.has("home") && c.child("home").choice({"holder", "reader"}) == "reader";
    m_n = c.has("reps") ? static_cast<int>(c.child("reps").integer(1, 1000000)) : 1000;
    if (m_l2 && !m_remote && root.sockets.cores < 2)
      c.child("holder").fail("a line put in place by another core of the reader's socket needs two cores there (sockets.cores)");
    if (!m_l2 && m_reader_homed)
      c.child("home").fail("a line read from DRAM is homed where its DRAM is: home: holder (the default)");
    m_socket_lines = root.sockets.socket_bytes / coherence::kLineB;
    if (static_cast<std::uint64_t>(m_n) * kStride >= m_socket_lines)
      c.child("reps").fail("more lines than a socket's DRAM holds (sockets.socket_bytes)");
  }

  void start(Platform& p) override {
    m_sys = p.sockets();
    sc_core::sc_spawn([this] {
      coherence::CoreThread reader(m_sys->core(0, 0));
      const int holder = m_holder;
      const int home = m_reader_homed ? 0 : holder;
      for (int i = 0; i < m_n; ++i) {
        // Fresh lines a few apart, so that successive ones go to other slices.
        const std::uint64_t line = m_sys->line_at(home, (static_cast<std::uint64_t>(i) + 1) * kStride * coherence::kLineB);
        const std::uint64_t value = static_cast<std::uint64_t>(i) + 1;
        if (m_l2) {
          coherence::CoreThread writer(m_sys->core(holder, holder == 0 ? 1 : 0));
          writer.store(line, value);
          writer.fence();  // in its cache (with a store buffer, not only in the buffer)
          if (m_llc) writer.give_up(line);  // written back: in its home's LLC
        }
        sc_core::wait(100, sc_core::SC_NS);
        const Tick t0 = now_tick();
        Ledger led;
        led.open(t0);
        reader.time_next(&led);
        std::uint64_t got = value + 1;
        if (m_write) {
          reader.store(line, got);
          reader.fence();  // timed to the store's commit (with a store buffer, not to its entry)
        } else {
          got = reader.load(line);
        }
        m_lat.add(to_ns(reader.done_at() - t0));
        m_breakdown.add(led, t0, reader.done_at());
        const std::uint64_t want = m_write ? value + 1 : m_l2 ? value : 0;
        if (got != want)
          throw SimError(m_name + ": an access to line " + std::to_string(line) + " returned " + std::to_string(got) + ", not " +
                         std::to_string(want));
        sc_core::wait(100, sc_core::SC_NS);
      }
      m_finished = true;
    });
  }
  bool done() const override { return m_finished; }
  double progress() const override { return m_finished ? 1.0 : static_cast<double>(m_lat.count()) / m_n; }
  void report(Results& r) const override {
    r.metric(m_name + ".median_ns", m_lat.percentile(50), "ns");
    r.metric(m_name + ".min_ns", m_lat.min(), "ns");
    r.metric(m_name + ".p99_ns", m_lat.percentile(99), "ns");
    r.metric(m_name + ".mean_ns", m_lat.mean(), "ns");
    r.hist(m_name + (m_write ? ".wr_ns" : ".rd_ns"), m_lat, "ns");
    if (m_breakdown.count) r.breakdown(m_name + (m_write ? ".wr_ns" : ".rd_ns"), m_breakdown);
  }

 private:
  static constexpr std::uint64_t kStride = 17;  // lines between two accesses' lines
  coherence::SocketSystem* m_sys = nullptr;
  bool m_write = false, m_l2 = false, m_llc = false, m_remote = false, m_reader_homed = false;
  int m_holder = 0;  // the holder's socket
  int m_n = 1000;
  std::uint64_t m_socket_lines = 0;
  Histogram m_lat;
  Breakdown m_breakdown;
  bool m_finished = false;
};

// A host core's access to host memory through a CCIX home (`type:
// home_lat`): one at a time from one of the home's host cores, a load, a
// store or an AtomicCompare of a line. `line: fresh` takes a line never
// touched each time (in DRAM, in no cache); `line: same` the same line
// every time (a lock word): after the first, where the last access left
// it (a load or store hits in the core; a far atomic finds the line at the
// home, in the memory's LLC where one is configured). Each compare expects
// the value the last one saw and swaps in one more, so each succeeds.
class HomeLatency final : public Workload {
 public:
  HomeLatency(const Cursor& c, const topo::Topology& t) : Workload("home_lat") {
    c.keys({"type", "name", "op", "line", "core", "reps"});
    if (c.has("name")) m_name = c.child("name").str();
    const auto& root = t.nodes[static_cast<std::size_t>(t.root)];
    if (root.ccix_home.cores < 1)
      c.child("type").fail("home_lat needs host cores at the CCIX home (`ccix: {cores: N}` under the root complex '" + root.name + "')");
    const std::string op = c.has("op") ? c.child("op").choice({"rd", "wr", "cas"}) : "rd";
    m_op = op == "wr" ? 1 : op == "cas" ? 2 : 0;
    m_same = c.has("line") && c.child("line").choice({"fresh", "same"}) == "same";
    m_core = c.has("core") ? static_cast<int>(c.child("core").integer(0, root.ccix_home.cores - 1)) : 0;
    m_n = c.has("reps") ? static_cast<int>(c.child("reps").integer(1, 100000)) : 100;
  }
  std::vector<BufferNeed> buffers() const override { return {BufferNeed{static_cast<std::uint64_t>(m_n) * kStride * coherence::kLineB}}; }
  void start(Platform& p) override {
    ccix::HomePort* home = p.ccix_home();
    const std::uint64_t buf = p.alloc(buffers()).at(0);
    sc_core::sc_spawn([this, home, buf] {
      coherence::CoreThread core(home->core(m_core));
      std::uint64_t seen = 0, value = 0;
      for (int i = 0; i < m_n; ++i) {
        const std::uint64_t line = buf / coherence::kLineB + (m_same ? 0 : static_cast<std::uint64_t>(i) * kStride);
        if (!m_same) seen = 0;
        sc_core::wait(100, sc_core::SC_NS);
        const Tick t0 = now_tick();
        Ledger led;
        led.open(t0);
        core.time_next(&led);
        if (m_op == 0) {
          core.load(line);
        } else if (m_op == 1) {
          core.store(line, ++value);
          core.fence();  // timed to the store's commit (with a store buffer, not to its entry)
        } else {
          coherence::Rmw cas;
          cas.op = coherence::AtomicOp::Compare;
          cas.compare = seen;
          cas.operand = seen + 1;
          const std::uint64_t old = core.atomic(line, cas);
          m_swapped += old == seen;
          seen = old == seen ? old + 1 : old;
        }
        m_lat.add(to_ns(core.done_at() - t0));
        m_breakdown.add(led, t0, core.done_at());
      }
      m_finished = true;
    });
  }
  bool done() const override { return m_finished; }
  double progress() const override { return m_finished ? 1.0 : static_cast<double>(m_lat.count()) / m_n; }
  void report(Results& r) const override {
    static const char* const kOp[] = {"rd", "wr", "cas"};
    r.metric(m_name + ".median_ns", m_lat.percentile(50), "ns");
    r.metric(m_name + ".min_ns", m_lat.min(), "ns");
    r.metric(m_name + ".p99_ns", m_lat.percentile(99), "ns");
    r.metric(m_name + ".mean_ns", m_lat.mean(), "ns");
    if (m_op == 2) r.metric(m_name + ".swapped", static_cast<double>(m_swapped), "1");
    r.hist(m_name + "." + kOp[m_op] + "_ns", m_lat, "ns");
    if (m_breakdown.count) r.breakdown(m_name + "." + kOp[m_op] + "_ns", m_breakdown);
  }

 private:
  static constexpr std::uint64_t kStride = 17;  // lines between two accesses' lines
  int m_op = 0, m_core = 0, m_n = 100;
  bool m_same = false;
  std::uint64_t m_swapped = 0;
  Histogram m_lat;
  Breakdown m_breakdown;
  bool m_finished = false;
};

}  // namespace

std::unique_ptr<Workload> make_home_latency(const Cursor& c, const topo::Topology& t) {
  return std::make_unique<HomeLatency>(c, t);
}

std::unique_ptr<Workload> make_coherent_latency(const Cursor& c, const topo::Topology& t) {
  return std::make_unique<CoherentLatency>(c, t);
}

std::string coherent_latency_reference() {
  return "| `coh_lat` | `op` (rd, wr: a 64 B load or store by socket 0's core 0), `from` (dram: a line nobody caches; l2: a line "
         "Modified in another core's L2; llc: a line that core wrote back, in its home's LLC and no L2, with sockets.llc_size), `holder` (local: the reader's socket, 0; remote: socket 1; or a socket's number), `home` (holder: the line "
         "is homed on its holder's socket, as DRAM lines always are; reader: on the reader's), `reps` | S002 latency by cache "
         "state and homing; by route length on a host of more sockets |\n"
         "| `home_lat` | `op` (rd, wr, cas: a 64 B load, a store, an AtomicCompare of one word, by a host core at the CCIX home), "
         "`line` (fresh: a line never touched each time; same: one line every time, a lock word), `core`, `reps` | S000 "
         "experiment 5, host side |\n";
}

}  // namespace hx::sim
