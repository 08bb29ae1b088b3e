// S000's workloads on a CCIX request agent: latency by path, the shared
// buffer, the lock table.
#include "src/sim/workload_kinds.h"

#include <functional>
#include <map>
#include <set>
#include <vector>

#include "models/core/error.h"
#include "models/coherence/core_thread.h"
#include "models/core/rng.h"

namespace hx::sim {

namespace {

// The translations of [addr, addr+bytes) in a CCIX request agent's ATC,
// untimed (S000 pre-warms it before it measures), from a process of the
// workload's; nothing if the agent works on physical addresses.
void warm_atc(ccix::RequestAgent& ra, std::uint64_t addr, std::uint64_t bytes, unsigned page_shift, sc_core::sc_event& ev) {
  if (!ra.config().ats) return;
  const std::uint64_t page = 1ull << page_shift;
  for (std::uint64_t a = addr; a < addr + bytes; a += page) {
    bool ok = false;
    ra.dma().translate_page(a, [&](Tick) {
      ok = true;
      notify_now(ev);
    });
    if (!ok) sc_core::wait(ev);
  }
}

// S000: the on-FPGA traffic generator. One transfer of `size` at a time,
// timed from issue until all its data has arrived (a read) or its write
// response is back, on one of two paths of the same device: `ccix`, AXI
// requests to the CCIX request agent's system cache (whole lines), or
// `dma`, the device's DMA engine reading or writing host memory (S000's
// TaPaSCo baseline). Patterns: fresh (every transfer on lines and a page
// never touched: a system-cache miss and, with ATS, an ATC miss), warm
// (transfers cycle through a `window` whose pages are translated
// beforehand, and each transfer's lines are flushed from the system cache
// before it, untimed: a miss with an ATC hit, as S000's random addresses
// force), hit (the transfer's lines were brought into the system cache by
// the same operation beforehand, untimed). `op: cas` is an AtomicCompare
// on the transfer's line from the generator (S000 experiment 5), each
// expecting the value it last saw there and swapping in one more (a lock
// word's version; a failure teaches it the value); with `hit`, the line
// was written into the system cache beforehand, unique, and the atomic
// runs there. `allocate: false` makes the transfers streaming ones (AXI's
// allocate bits clear): each line the system cache does not hold is read
// with a ReadOnce or written whole with a WriteUnique, and not kept.
// `snoop: false` puts the buffer in memory no agent caches (a
// non-snoopable region): each line is read with a ReadNoSnp or written
// whole with a WriteNoSnp, no snoop, no copy kept.
class CcixLatency final : public Workload {
 public:
  CcixLatency(const Cursor& c, const topo::Topology& p) : Workload("ccix_lat") {
    c.keys({"type", "name", "device", "path", "op", "size", "reps", "pattern", "window", "page_size", "node", "allocate", "snoop"});
    if (c.has("name")) m_name = c.child("name").str();
    m_dev = device_or_only(c, p, "ccix_ra");
    m_ccix = !c.has("path") || c.child("path").choice({"ccix", "dma"}) == "ccix";
    const std::string op = c.child("op").choice({"rd", "wr", "cas"});
    m_write = op == "wr";
    m_cas = op == "cas";
    if (m_cas && !m_ccix) c.child("op").fail("cas applies to the ccix path (the DMA engine issues no atomics)");
    const bool allocate = !c.has("allocate") || c.child("allocate").boolean();
    if (!allocate && (m_cas || !m_ccix))
      c.child("allocate").fail("allocate applies to reads and writes on the ccix path (the system cache's)");
    const bool snoop = !c.has("snoop") || c.child("snoop").boolean();
    if (!snoop && (m_cas || !m_ccix)) c.child("snoop").fail("snoop applies to reads and writes on the ccix path (the system cache's)");
    if (!snoop && c.has("allocate") && allocate)
      c.child("allocate").fail("a buffer no agent caches (snoop: false) is not kept in the system cache");
    m_keep = !snoop ? Keep::NoSnoop : allocate ? Keep::Allocate : Keep::Stream;
    m_size = c.has("size") ? size32(c.child("size"), 1, 1u << 20) : m_cas ? 8 : 64;
    if (m_cas && m_size > 8) c.child("size").fail("an AtomicCompare swaps one 8 B word: size 8B at most");
    m_n = c.has("reps") ? static_cast<int>(c.child("reps").integer(1, 1000000)) : 1000;
    const std::string pat = c.has("pattern") ? c.child("pattern").choice({"fresh", "warm", "hit"}) : "warm";
    m_fresh = pat == "fresh";
    m_hit = pat == "hit";
    m_backing = backing_of(c, p);
    if (m_hit && !m_ccix) c.child("pattern").fail("hit applies to the ccix path (the DMA engine has no cache)");
    if (m_hit && m_keep == Keep::NoSnoop) c.child("pattern").fail("hit needs the lines in the system cache, and a buffer no agent caches (snoop: false) has none there");
    m_lines = (m_size + 63) / 64 * 64;
    // fresh: a page of its own per transfer; warm: lines one after another
    // around the window.
    const std::uint64_t page = 1ull << m_backing.page_shift;
    m_stride = m_fresh ? (m_lines + page - 1) / page * page : m_lines;
    const std::uint64_t window = c.has("window") ? c.child("window").size() : 65536;
    if (c.has("window") && (m_fresh || m_hit)) c.child("window").fail("window applies to the warm pattern");
    if (window < m_lines) c.child("window").fail("the window must hold one transfer");
    m_window = m_hit ? m_lines : m_fresh ? m_stride * static_cast<std::uint64_t>(m_n) : window / m_lines * m_lines;
  }
  void start(Platform& plat) override {
    m_p = &plat;
    sc_core::sc_spawn([this] {
      auto* ra = m_p->device<ccix::RequestAgent>(m_dev);
      const std::uint64_t buf = m_p->alloc(buffers()).at(0);
      sc_core::sc_event ev;
      Tick done_at = 0;
      bool warming = false;
      Ledger led;  // where each timed transfer's time goes
      auto one = [&](std::uint64_t a, bool flush = false, Ledger* l = nullptr) {
        done_at = 0;
        auto done = [&](Tick t) {
          done_at = t;
          notify_now(ev);
        };
        if (flush) ra->flush(a, m_lines, done);
        else if (m_cas && !warming) {
          coherence::Rmw cas;
          cas.op = coherence::AtomicOp::Compare;
          std::uint64_t& seen = m_seen[a];
          cas.compare = seen;
          cas.operand = seen + 1;
          ra->atomic(a, cas, [&](Tick t, std::uint64_t old) {
            m_swapped += old == seen;
            seen = old == seen ? old + 1 : old;
            done_at = t;
            notify_now(ev);
          }, l);
        } else if (m_cas) ra->transfer(true, a, m_lines, done);  // the line in, unique
        else if (!m_ccix && m_write) ra->dma().write(a, m_size, 0x600, a - buf, done, l);
        else if (!m_ccix) ra->dma().read(a, m_size, kMemoryStream, a, done, l);
        else ra->transfer(m_write, a, m_lines, done, warming ? Keep::Allocate : m_keep, l);
        if (done_at == 0) sc_core::wait(ev);
      };
      // warm: translate every page first (untimed), as S000 does before
      // its measurements; hit: bring the lines in once.
      if (!m_fresh && m_ccix) warm_atc(*ra, buf, m_window, m_backing.page_shift, ev);
      if (m_hit) {
        warming = true;
        one(buf);  // the line in, unique (a cas: written, then one atomic that learns its value)
        warming = false;
        if (m_cas) {
          one(buf);
          m_swapped = 0;
        }
      }
      sc_core::wait(100, sc_core::SC_NS);
      const std::size_t rtts = ra->dma().ats_rtt.count();
      for (int i = 0; i < m_n; ++i) {
        const std::uint64_t a = m_hit ? buf : buf + static_cast<std::uint64_t>(i) * m_stride % m_window;
        if (m_ccix && !m_fresh && !m_hit) {
          one(a, true);  // out of the system cache, untimed
          sc_core::wait(100, sc_core::SC_NS);
        }
        const Tick t0 = now_tick();
        led.open(t0);
        one(a, false, &led);
        m_lat.add(to_ns(done_at - t0));
        m_breakdown.add(led, t0, done_at);
        sc_core::wait(100, sc_core::SC_NS);
      }
      if (ra->dma().ats_rtt.count() > rtts) m_ats_rtt = ra->dma().ats_rtt.percentile(50);
      if (ra->xlate_wait.count()) m_xlate = ra->xlate_wait.percentile(50);
      m_done = true;
    });
  }
  bool done() const override { return m_done; }
  double progress() const override { return m_done ? 1.0 : static_cast<double>(m_lat.count()) / m_n; }
  std::vector<std::string> exclusive_devices() const override { return {m_dev}; }
  std::vector<BufferNeed> buffers() const override {
    const std::uint64_t page = 1ull << m_backing.page_shift;
    return {BufferNeed{(m_window + page - 1) / page * page, page, m_backing}};
  }
  void report(Results& res) const override {
    const std::string what = std::string(m_ccix ? "ccix" : "dma") + "_" + (m_cas ? "cas" : m_write ? "wr" : "rd");
    res.metric(m_name + ".size_B", m_size, "B");
    res.metric(m_name + ".median_ns", m_lat.percentile(50), "ns");
    res.metric(m_name + ".min_ns", m_lat.min(), "ns");
    res.metric(m_name + ".p99_ns", m_lat.percentile(99), "ns");
    res.metric(m_name + ".mean_ns", m_lat.mean(), "ns");
    res.metric(m_name + ".MB_per_s", m_lat.percentile(50) > 0 ? m_size / m_lat.percentile(50) * 1e3 : 0, "MB/s");
    res.hist(m_name + "." + what + "_ns", m_lat, "ns");
    if (m_breakdown.count) res.breakdown(m_name + "." + what + "_ns", m_breakdown);
    if (m_cas) res.metric(m_name + ".swapped", static_cast<double>(m_swapped), "1");
    if (m_ats_rtt > 0) {
      res.metric(m_name + ".ats_rtt_ns", m_ats_rtt, "ns");
      if (m_xlate > 0) res.metric(m_name + ".atc_ns", m_xlate - m_ats_rtt, "ns");
    }
  }

 private:
  Platform* m_p = nullptr;
  std::string m_dev;
  bool m_ccix = true, m_write = false, m_cas = false, m_fresh = false, m_hit = false;
  using Keep = ccix::RequestAgent::Keep;
  Keep m_keep = Keep::Allocate;  // how the system cache takes lines it does not hold
  std::uint64_t m_swapped = 0;             // compare-and-swaps that succeeded
  std::map<std::uint64_t, std::uint64_t> m_seen;  // per line: the value its last compare-and-swap saw
  std::uint32_t m_size = 64, m_lines = 64;
  std::uint64_t m_stride = 64, m_window = 64;
  int m_n = 1000;
  Backing m_backing;
  Histogram m_lat;
  Breakdown m_breakdown;
  double m_ats_rtt = 0, m_xlate = 0;
  bool m_done = false;
};

// S000's experiments 4 and 6 share their set-up: host cores at the CCIX
// home and the accelerator's traffic generator working on one buffer at
// once (`cores`, `fpga`), on 2 MiB pages unless `page_size` says, each
// side timing its first m_n operations and going on until every side has
// timed its own, so the fast side's load lasts while the slow one is
// measured. The derived workload parses the rest and runs the sides.
class HostAndFpga : public Workload {
 protected:
  // `keys`: every key the workload takes (checked first).
  HostAndFpga(const char* type, const Cursor& c, const topo::Topology& p, const std::set<std::string>& keys,
              const char* count_key, int count_default, const char* nobody)
      : Workload(type) {
    c.keys(keys);
    if (c.has("name")) m_name = c.child("name").str();
    m_dev = device_or_only(c, p, "ccix_ra");
    m_n = c.has(count_key) ? static_cast<int>(c.child(count_key).integer(1, 1000000)) : count_default;
    const int host_cores = p.nodes[static_cast<std::size_t>(p.root)].ccix_home.cores;
    m_cores = c.has("cores") ? static_cast<int>(c.child("cores").integer(0, 62)) : 1;
    if (m_cores > host_cores)
      c.child("cores").fail(std::to_string(m_cores) + " host cores, but the CCIX home has " + std::to_string(host_cores) +
                            " (ccix.cores under the root complex)");
    m_fpga = c.has("fpga") ? c.child("fpga").boolean() : true;
    if (!m_fpga && m_cores == 0) c.child("fpga").fail(nobody);
    m_backing = backing_of(c, p);
    if (!c.has("page_size")) m_backing.page_shift = 21;  // S000 used huge pages
  }
  BufferNeed pages(std::uint64_t bytes) const {
    const std::uint64_t page = 1ull << m_backing.page_shift;
    return BufferNeed{(bytes + page - 1) / page * page, page, m_backing};
  }
  void begin() { m_running = m_timing = m_cores + (m_fpga ? 1 : 0); }
  // The i-th operation of a side is over: `ns` timed into `h` if it is
  // among the first m_n (h null: over but not timed).
  void timed(Histogram* h, int i, double ns) {
    if (i >= m_n) return;
    if (h) h->add(ns);
    if (i == m_n - 1) --m_timing;
  }
  bool timing(int i) const { return i < m_n || m_timing > 0; }
  // Each side's median, p99, mean (and deciles) and its histogram `<side><hist>`.
  void report_sides(Results& res, const std::string& hist, bool deciles) const {
    for (const auto& [side, h] : {std::pair<const char*, const Histogram*>{"host", &m_host}, {"device", &m_device}}) {
      if (!h->count()) continue;
      const std::string n = m_name + "." + side;
      res.metric(n + "_median_ns", h->percentile(50), "ns");
      res.metric(n + "_p99_ns", h->percentile(99), "ns");
      res.metric(n + "_mean_ns", h->mean(), "ns");
      if (deciles)
        for (int q = 10; q <= 90; q += 10) res.metric(n + "_p" + std::to_string(q) + "_ns", h->percentile(q), "ns");
      res.hist(n + hist, *h, "ns");
    }
  }

 public:
  std::vector<std::string> exclusive_devices() const override { return {m_dev}; }
  bool done() const override { return m_running == 0; }
  double progress() const override {
    const int sides = m_cores + (m_fpga ? 1 : 0);
    return static_cast<double>(m_host.count() + m_device.count()) / (static_cast<double>(sides) * m_n);
  }

 protected:
  std::string m_dev;
  int m_n = 1, m_cores = 1;
  bool m_fpga = true;
  Backing m_backing;
  int m_running = -1, m_timing = -1;  // sides still running, and still timing
  Histogram m_host, m_device;
};

// S000 experiment 4: the host's cores and the accelerator read-modify-write
// random lines of one shared buffer at the same time. Each side repeats,
// one access at a time: a random line of the buffer (its own random
// stream), a load of it, then a store of the value plus one; an access is
// timed from the load's issue to the store's completion. The device's
// side is the traffic generator's AXI read then write of the line through
// the system cache (translations warmed first, as in `ccix_lat`'s warm
// pattern); each host core's is its private cache at the CCIX home. Every
// side times its first `accesses` and goes on until all sides have timed
// theirs, so the fast side's contention lasts as long as the slow side is
// measured. With `cores: 0` the device runs alone, with `fpga: false` the
// host alone: the baselines that contention is measured against.
class CcixShare final : public HostAndFpga {
 public:
  CcixShare(const Cursor& c, const topo::Topology& p)
      : HostAndFpga("ccix_share", c, p, {"type", "name", "device", "buffer", "accesses", "cores", "fpga", "page_size", "node"},
                    "accesses", 1024, "nothing would access the buffer: cores: 0 and fpga: false") {
    m_bytes = c.has("buffer") ? c.child("buffer").size() : 32768;
    if (m_bytes < coherence::kLineB || m_bytes % coherence::kLineB || m_bytes > (1ull << 30))
      c.child("buffer").fail("a whole number of lines, 1 GiB at most");
  }
  std::vector<BufferNeed> buffers() const override { return {pages(m_bytes)}; }
  void start(Platform& plat) override {
    auto* ra = plat.device<ccix::RequestAgent>(m_dev);
    ccix::HomePort* home = plat.ccix_home();
    const std::uint64_t buf = plat.alloc(buffers()).at(0);
    const std::uint64_t lines = m_bytes / coherence::kLineB;
    begin();
    for (int k = 0; k < m_cores; ++k) {
      sc_core::sc_spawn([this, home, k, buf, lines] {
        coherence::CoreThread core(home->core(k));
        Rng rng(global_seed(), m_name + ".core" + std::to_string(k));
        Ledger led;
        for (int i = 0; timing(i); ++i) {
          const std::uint64_t line = buf / coherence::kLineB + rng.below(lines);
          const Tick t0 = now_tick();
          led.open(t0);
          core.time_next(&led);
          const std::uint64_t v = core.load(line);
          core.time_next(&led);  // the store goes on from the load's end
          core.store(line, v + 1);
          core.fence();  // timed to the store's commit (with a store buffer, not to its entry)
          if (i < m_n) m_host_bd.add(led, t0, core.done_at());
          timed(&m_host, i, to_ns(core.done_at() - t0));
        }
        --m_running;
      });
    }
    if (!m_fpga) return;
    sc_core::sc_spawn([this, ra, buf, lines] {
      sc_core::sc_event ev;
      Tick done_at = 0;
      Ledger led;
      auto one = [&](bool write, std::uint64_t a) {
        done_at = 0;
        ra->transfer(write, a, coherence::kLineB, [&](Tick t) {
          done_at = t;
          notify_now(ev);
        }, ccix::RequestAgent::Keep::Allocate, &led);
        if (done_at == 0) sc_core::wait(ev);
      };
      warm_atc(*ra, buf, m_bytes, m_backing.page_shift, ev);
      Rng rng(global_seed(), m_name + ".fpga");
      for (int i = 0; timing(i); ++i) {
        const std::uint64_t a = buf + rng.below(lines) * coherence::kLineB;
        const Tick t0 = now_tick();
        led.open(t0);
        one(false, a);
        one(true, a);  // the write goes on from the read's end
        if (i < m_n) m_device_bd.add(led, t0, done_at);
        timed(&m_device, i, to_ns(done_at - t0));
      }
      --m_running;
    });
  }
  void report(Results& res) const override {
    report_sides(res, "_ns", true);
    if (m_host_bd.count) res.breakdown(m_name + ".host_ns", m_host_bd);
    if (m_device_bd.count) res.breakdown(m_name + ".device_ns", m_device_bd);
  }

 private:
  std::uint64_t m_bytes = 32768;
  Breakdown m_host_bd, m_device_bd;  // where the timed accesses' time went, per side
};

// S000 experiment 6: a lock table in host memory shared by host cores and
// the accelerator. Each bucket is one line whose word holds the bucket's
// lock queue: four 16-bit slots of locker ids (id + 1; 0 empty), the
// owner first. A locker takes `locks` locks one after another, each on a
// random bucket of `buckets` (fewer buckets: more contention): it joins
// the queue by compare-and-swap (appending its id; a CAS that finds
// another value retries with it; a full queue waits `retry` and reads
// again), waits until it is at the head, holds the lock `hold`, and
// releases it by CAS, shifting the queue so the next waiter is the owner.
// A host core waits by polling the word in its cache (a load, then nothing
// until a store takes its copy); the accelerator, which has no such watch,
// reads the word at the home with an AtomicLoad of 0 every `retry`. The
// lock latency is from the first CAS to being the owner. Every locker
// times its first `locks` and goes on until all have timed theirs. A
// locker whose CASes keep finding the word changed (the others change it
// faster than its CAS's round trip) gives the lock up after `patience`:
// counted as starved, not timed.
// With `lock: ticket` the word is a ticket lock instead (the next ticket in
// its low 32 bits, the ticket being served in its high 32): a locker takes
// a ticket with an AtomicLoad that adds 1 (it always succeeds, so nobody
// starves and the lock goes in order of arrival), waits until its ticket
// is served (as a queue's locker waits for the head), and releases with an
// AtomicStore that adds 1 to the served ticket.
class CcixLocks final : public HostAndFpga {
 public:
  CcixLocks(const Cursor& c, const topo::Topology& p)
      : HostAndFpga("ccix_locks", c, p,
                    {"type", "name", "device", "lock", "buckets", "locks", "cores", "fpga", "hold", "think", "retry",
                     "patience", "page_size", "node"},
                    "locks", 256, "nobody would take a lock: cores: 0 and fpga: false") {
    m_ticket = c.has("lock") && c.child("lock").choice({"queue", "ticket"}) == "ticket";
    if (m_ticket && c.has("patience")) c.child("patience").fail("patience applies to lock: queue (a ticket is never given up)");
    m_buckets = c.has("buckets") ? c.child("buckets").integer(1, 1 << 20) : 64;
    m_hold = c.has("hold") ? c.child("hold").time() : 200 * kNs;
    m_think = c.has("think") ? c.child("think").time() : 500 * kNs;
    m_retry = c.has("retry") ? c.child("retry").time() : 200 * kNs;
    if (m_retry == 0) c.child("retry").fail("a retry interval above zero (a zero one spins at one instant)");
    m_patience = c.has("patience") ? c.child("patience").time() : 100 * kUs;
    if (m_patience == 0) c.child("patience").fail("a patience above zero");
  }
  std::vector<BufferNeed> buffers() const override { return {pages(m_buckets * coherence::kLineB)}; }

  // The queue in a bucket's word: slot i is bits 16i..16i+15.
  static std::uint64_t slot(std::uint64_t v, int i) { return v >> (16 * i) & 0xffff; }
  static bool full(std::uint64_t v) { return slot(v, 3) != 0; }
  static std::uint64_t append(std::uint64_t v, std::uint64_t who) {
    int i = 0;
    while (slot(v, i)) ++i;
    return v | who << (16 * i);
  }

  void start(Platform& plat) override {
    auto* ra = plat.device<ccix::RequestAgent>(m_dev);
    ccix::HomePort* home = plat.ccix_home();
    const std::uint64_t base = plat.alloc(buffers()).at(0) / coherence::kLineB;
    begin();
    for (int k = 0; k < m_cores; ++k) {
      sc_core::sc_spawn([this, home, k, base] {
        coherence::CoreThread core(home->core(k));
        const std::uint64_t me = static_cast<std::uint64_t>(k) + 1;
        Side side;
        side.cas = [&core, &side](std::uint64_t line, std::uint64_t expect, std::uint64_t swap) {
          coherence::Rmw r;
          r.op = coherence::AtomicOp::Compare;
          r.compare = expect;
          r.operand = swap;
          core.time_next(side.led);
          return core.atomic(line, r);
        };
        side.wait_head = [this, &core, me](std::uint64_t line) {
          core.poll(line, 0, [me](std::uint64_t v) { return slot(v, 0) == me; });
        };
        side.wait_room = [this, &core](std::uint64_t line) {
          sc_core::wait(sc_core::sc_time::from_value(m_retry));
          return core.load(line);
        };
        side.add = [&core, &side](std::uint64_t line, std::uint64_t n, bool store) {
          core.time_next(side.led);
          return core.atomic(line, add(n, store));
        };
        side.wait_turn = [&core](std::uint64_t line, std::uint64_t ticket) {
          core.poll(line, 0, [ticket](std::uint64_t v) { return serving(v) == ticket; });
        };
        run(side, me, base, m_host, m_host_bd, m_host_starved, "core" + std::to_string(k));
      });
    }
    if (!m_fpga) return;
    sc_core::sc_spawn([this, ra, base] {
      const std::uint64_t me = static_cast<std::uint64_t>(m_cores) + 1;
      sc_core::sc_event ev;
      auto atomic = [&](std::uint64_t line, const coherence::Rmw& r, Ledger* led = nullptr) {
        bool done = false;
        std::uint64_t got = 0;
        ra->atomic(line * coherence::kLineB, r, [&](Tick, std::uint64_t v) {
          got = v;
          done = true;
          notify_now(ev);
        }, led);
        if (!done) sc_core::wait(ev);
        return got;
      };
      auto peek = [&](std::uint64_t line) {
        coherence::Rmw r;
        r.op = coherence::AtomicOp::Load;  // adds 0: the word as the home has it
        return atomic(line, r);
      };
      warm_atc(*ra, base * coherence::kLineB, m_buckets * coherence::kLineB, m_backing.page_shift, ev);
      Side side;
      side.between = Stage::Device;  // the FPGA's own logic waits and retries
      side.cas = [&](std::uint64_t line, std::uint64_t expect, std::uint64_t swap) {
        coherence::Rmw r;
        r.op = coherence::AtomicOp::Compare;
        r.compare = expect;
        r.operand = swap;
        return atomic(line, r, side.led);
      };
      side.wait_head = [&, me](std::uint64_t line) {
        while (slot(peek(line), 0) != me) sc_core::wait(sc_core::sc_time::from_value(m_retry));
      };
      side.wait_room = [&](std::uint64_t line) {
        sc_core::wait(sc_core::sc_time::from_value(m_retry));
        return peek(line);
      };
      side.add = [&](std::uint64_t line, std::uint64_t n, bool store) { return atomic(line, add(n, store), side.led); };
      side.wait_turn = [&](std::uint64_t line, std::uint64_t ticket) {
        while (serving(peek(line)) != ticket) sc_core::wait(sc_core::sc_time::from_value(m_retry));
      };
      run(side, me, base, m_device, m_device_bd, m_device_starved, "fpga");
    });
  }
  void report(Results& res) const override {
    report_sides(res, "_lock_ns", false);
    if (m_host_bd.count) res.breakdown(m_name + ".host_lock_ns", m_host_bd);
    if (m_device_bd.count) res.breakdown(m_name + ".device_lock_ns", m_device_bd);
    if (m_cores) res.metric(m_name + ".host_starved", static_cast<double>(m_host_starved), "1");
    if (m_fpga) res.metric(m_name + ".device_starved", static_cast<double>(m_device_starved), "1");
    res.metric(m_name + ".cas_retries", static_cast<double>(m_retries), "1");
    res.metric(m_name + ".queued", static_cast<double>(m_queued), "1");
  }

 private:
  // A ticket lock's word: the ticket being served is its high half.
  static std::uint64_t serving(std::uint64_t v) { return v >> 32; }
  static constexpr std::uint64_t kServeNext = std::uint64_t{1} << 32;
  // An atomic that adds n: AtomicStore (no value back) or AtomicLoad.
  static coherence::Rmw add(std::uint64_t n, bool store) {
    coherence::Rmw r;
    r.op = store ? coherence::AtomicOp::Store : coherence::AtomicOp::Load;
    r.operand = n;
    return r;
  }

  // How one side reaches a bucket's word.
  struct Side {
    std::function<std::uint64_t(std::uint64_t, std::uint64_t, std::uint64_t)> cas;  // line, expected, new: the old value
    std::function<void(std::uint64_t)> wait_head;                                    // until this locker owns the lock
    std::function<std::uint64_t(std::uint64_t)> wait_room;                          // a while, then the word again
    std::function<std::uint64_t(std::uint64_t, std::uint64_t, bool)> add;  // line, n, store: an atomic add; the old value
    std::function<void(std::uint64_t, std::uint64_t)> wait_turn;          // line, ticket: until it is served
    // While a lock is being taken, its ledger: cas and add charge their
    // atomics' stages to it; the waits between them are `between`'s.
    Ledger* led = nullptr;
    Stage between = Stage::Software;
  };
  // The time since the ledger's mark went to the side's own waits.
  static void waited(const Side& s) {
    if (s.led && now_tick() > s.led->mark) s.led->charge(s.between, now_tick());
  }
  // A lock taken at now: its latency since t0, and its breakdown.
  void taken(Side& s, Histogram& lat, Breakdown& bd, int i, Tick t0) {
    waited(s);
    if (i < m_n && s.led->mark == now_tick()) bd.add(*s.led, t0, now_tick());  // (a store still merging is past it: not timed)
    s.led = nullptr;  // its release is not timed
    timed(&lat, i, to_ns(now_tick() - t0));
  }
  void run(Side& s, std::uint64_t me, std::uint64_t base, Histogram& lat, Breakdown& bd, std::uint64_t& starved,
           const std::string& who) {
    Rng rng(global_seed(), m_name + "." + who);
    Ledger led;
    for (int i = 0; timing(i); ++i) {
      const std::uint64_t line = base + rng.below(m_buckets);
      const Tick t0 = now_tick();
      led.open(t0);
      s.led = &led;
      if (m_ticket) {
        // Take a ticket (the word it read holds the ticket being served);
        // wait for it to be served; hold; serve the next.
        const std::uint64_t v = s.add(line, 1, false);
        const std::uint64_t ticket = v & 0xffffffffu;
        if (serving(v) != ticket) {
          ++m_queued;
          s.wait_turn(line, ticket);
        }
        taken(s, lat, bd, i, t0);
        sc_core::wait(sc_core::sc_time::from_value(m_hold));
        s.add(line, kServeNext, true);
        sc_core::wait(sc_core::sc_time::from_value(m_think));
        continue;
      }
      // Join the queue, or give up after `patience`.
      std::uint64_t v = 0;
      bool joined = false;
      while (now_tick() - t0 < m_patience) {
        if (full(v)) {
          v = s.wait_room(line);
          continue;
        }
        waited(s);
        const std::uint64_t old = s.cas(line, v, append(v, me));
        if (old == v) {
          joined = true;
          break;
        }
        ++m_retries;
        v = old;
      }
      if (!joined) {
        if (i < m_n) ++starved;
        s.led = nullptr;
        timed(nullptr, i, 0);
        continue;
      }
      if (slot(v, 0) != 0) {  // someone holds it: wait to be at the head
        ++m_queued;
        s.wait_head(line);
      }
      taken(s, lat, bd, i, t0);
      sc_core::wait(sc_core::sc_time::from_value(m_hold));
      // Release: shift the queue (others may have joined meanwhile).
      v = static_cast<std::uint64_t>(me);
      while (true) {
        const std::uint64_t old = s.cas(line, v, v >> 16);
        if (old == v) break;
        if (slot(old, 0) != me) throw SimError(m_name + ": " + who + " released a lock it does not hold");
        ++m_retries;
        v = old;
      }
      sc_core::wait(sc_core::sc_time::from_value(m_think));
    }
    --m_running;
  }
  bool m_ticket = false;
  std::uint64_t m_buckets = 64;
  Tick m_hold = 0, m_think = 0, m_retry = 0, m_patience = 0;
  std::uint64_t m_retries = 0, m_queued = 0, m_host_starved = 0, m_device_starved = 0;
  Breakdown m_host_bd, m_device_bd;  // where the timed locks' time went, per side
};

}  // namespace

std::unique_ptr<Workload> make_ccix_lat(const Cursor& c, const topo::Topology& p) { return std::make_unique<CcixLatency>(c, p); }
std::unique_ptr<Workload> make_ccix_share(const Cursor& c, const topo::Topology& p) { return std::make_unique<CcixShare>(c, p); }
std::unique_ptr<Workload> make_ccix_locks(const Cursor& c, const topo::Topology& p) { return std::make_unique<CcixLocks>(c, p); }

}  // namespace hx::sim
