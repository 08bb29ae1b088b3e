#include "src/sim/rtl_script.h"

#include <algorithm>
#include <array>
#include <cstring>
#include <map>

#include "models/core/error.h"
#include "models/core/payload.h"
#include "models/rtl/rtl_device.h"

namespace hx::sim {

using cfg::Cursor;

namespace {

// A value: a sum of terms, each an integer times names (a buffer's
// address, a named value, a loop's counter): `ring`, `ring+32*i`,
// `ring+stride*i`, `0x1000`. Arithmetic wraps modulo 2^64.
struct Expr {
  struct Term {
    std::uint64_t k = 1;    // -1 is 2^64 - 1
    std::vector<int> syms;  // none: the constant k
  };
  std::vector<Term> terms;
  std::uint64_t eval(const std::vector<std::uint64_t>& env) const {
    std::uint64_t v = 0;
    for (const auto& t : terms) {
      std::uint64_t x = t.k;
      for (const int sym : t.syms) x *= env[static_cast<std::size_t>(sym)];
      v += x;
    }
    return v;
  }
  bool constant() const {
    return std::all_of(terms.begin(), terms.end(), [](const Term& t) { return t.syms.empty(); });
  }
};

// A timer's summary metrics, `<timer><suffix>_ns`: what report() writes and
// what a mark's name must not collide with.
struct TimerStat {
  const char* suffix;
  double (*of)(const Histogram&);
};
constexpr TimerStat kTimerStats[] = {
    {"_min", [](const Histogram& h) { return h.min(); }},
    {"_p50", [](const Histogram& h) { return h.percentile(50); }},
    {"_p99", [](const Histogram& h) { return h.percentile(99); }},
    {"_max", [](const Histogram& h) { return h.max(); }},
    {"_mean", [](const Histogram& h) { return h.mean(); }},
};

enum class Op { Fill, WriteMem, MmioWrite, MmioRead, PollMem, WaitMsi, Delay, Loop, CheckMem, Mark, MmioCopy, Time, Record };
const char* op_name(Op o) {
  switch (o) {
    case Op::Fill: return "fill";
    case Op::WriteMem: return "write_mem";
    case Op::MmioWrite: return "mmio_write";
    case Op::MmioRead: return "mmio_read";
    case Op::PollMem: return "poll_mem";
    case Op::WaitMsi: return "wait_msi";
    case Op::Delay: return "delay";
    case Op::Loop: return "loop";
    case Op::CheckMem: return "check_mem";
    case Op::Mark: return "mark";
    case Op::MmioCopy: return "mmio_copy";
    case Op::Time: return "time";
    case Op::Record: return "record";
  }
  return "?";
}

struct Step {
  Op op = Op::Delay;
  std::string where;             // file:line:col: path, for messages
  Expr at, len, value, mask, equals;  // len: a fill's, copy's or check's bytes; a loop's count
  std::vector<Expr> values;
  int width = 4;                 // bytes of each value (write_mem, mmio, poll)
  bool has_value = false, has_equals = false, pattern = false;
  bool until = false;            // mmio_read: read again until (value & mask) == (read & mask)
  std::uint64_t tries = 0;       // mmio_read with until: reads at most
  std::uint64_t seed = 0;        // fill / check_mem with a pattern; fill's byte value
  int var = -1;                  // loop counter's symbol
  std::uint32_t vector = 0;      // wait_msi
  Tick delay = 0;                // delay; record: what one unit of the value is
  std::string mark;              // mark; time and record: the distribution's name
  std::vector<Step> body;        // loop, time
};

class Parser {
 public:
  explicit Parser(std::uint64_t bar_size) : m_bar_size(bar_size) {}
  std::map<std::string, int> syms;  // buffers first, then loop counters
  std::vector<std::pair<std::string, std::uint64_t>> buffers;
  std::vector<std::string> marks, timers;

  Expr expr(const Cursor& c) const {
    const std::string s = c.scalar();
    Expr e;
    std::size_t i = 0;
    int sign = 1;
    auto fail = [&](const std::string& why) { c.fail("'" + s + "': " + why + " (a value is a sum of products of integers, buffer names, values and loop counters, e.g. ring+32*i)"); };
    while (i <= s.size()) {
      const std::size_t j = s.find_first_of("+-", i == 0 ? 0 : i);
      std::string term = s.substr(i, j == std::string::npos ? std::string::npos : j - i);
      term.erase(std::remove(term.begin(), term.end(), ' '), term.end());
      if (term.empty()) {
        if (i == 0 && j == 0) {  // a leading sign
          sign = s[0] == '-' ? -1 : 1;
          i = 1;
          continue;
        }
        fail("an empty term");
      }
      Expr::Term t;
      t.k = sign < 0 ? ~0ull : 1ull;
      std::size_t a = 0;
      while (a <= term.size()) {
        const std::size_t b = term.find('*', a);
        const std::string f = term.substr(a, b == std::string::npos ? std::string::npos : b - a);
        if (f.empty()) fail("an empty factor");
        if (std::isdigit(static_cast<unsigned char>(f[0]))) {
          std::size_t used = 0;
          unsigned long long v = 0;
          try {
            v = std::stoull(f, &used, 0);
          } catch (...) {
            fail("'" + f + "' is not a number");
          }
          if (used != f.size() || v > (1ull << 62)) fail("'" + f + "' is not a number below 2^62");
          t.k *= v;
        } else {
          const auto it = syms.find(f);
          if (it == syms.end()) fail("no buffer, value or loop counter named '" + f + "'");
          t.syms.push_back(it->second);
        }
        if (b == std::string::npos) break;
        a = b + 1;
      }
      e.terms.push_back(t);
      if (j == std::string::npos) break;
      sign = s[j] == '-' ? -1 : 1;
      i = j + 1;
    }
    return e;
  }

  // A map step's argument keys.
  static void keys(const Cursor& a, const std::set<std::string>& allowed, const std::set<std::string>& required) {
    if (!a.is_map()) a.fail("a map of " + join(allowed));
    a.keys(allowed);
    for (const auto& r : required)
      if (!a.has(r)) a.fail("no " + r);
  }
  static std::string join(const std::set<std::string>& s) {
    std::string o;
    for (const auto& x : s) o += (o.empty() ? "" : ", ") + x;
    return o;
  }
  // One of u8/u32/u64 (exactly one): its width and cursor.
  static Cursor sized(const Cursor& a, int& width) {
    int n = 0;
    Cursor out;
    for (const auto& [k, w] : std::vector<std::pair<const char*, int>>{{"u8", 1}, {"u32", 4}, {"u64", 8}})
      if (a.has(k)) {
        ++n;
        width = w;
        out = a.child(k);
      }
    if (n != 1) a.fail("exactly one of u8, u32, u64 (the value's width)");
    return out;
  }

  std::vector<Step> steps(const Cursor& list) {
    if (!list.node.IsSequence() || list.node.size() == 0) list.fail("a list of steps");
    std::vector<Step> out;
    for (std::size_t i = 0; i < list.node.size(); ++i) out.push_back(step(list.item(i)));
    return out;
  }

  Step step(const Cursor& c) {
    static const std::vector<std::string> ops = {"fill", "write_mem", "mmio_write", "mmio_read", "poll_mem",
                                                 "wait_msi", "delay", "loop", "check_mem", "mark", "mmio_copy", "time",
                                                 "record"};
    if (!c.is_map() || c.node.size() != 1) c.fail("a step is a map with one key: " + join({ops.begin(), ops.end()}));
    const std::string key = c.node.begin()->first.Scalar();
    const auto it = std::find(ops.begin(), ops.end(), key);
    if (it == ops.end()) c.fail("unknown step '" + key + "'; steps: " + join({ops.begin(), ops.end()}));
    Step s;
    s.op = static_cast<Op>(it - ops.begin());
    const Cursor a = c.child(key);
    s.where = a.where();
    switch (s.op) {
      case Op::Fill:
        keys(a, {"at", "bytes", "pattern", "value"}, {"at", "bytes"});
        s.at = expr(a.child("at"));
        s.len = expr(a.child("bytes"));
        if (a.has("pattern") == a.has("value")) a.fail("one of pattern (a seed: deterministic bytes) or value (one byte)");
        s.pattern = a.has("pattern");
        s.seed = s.pattern ? static_cast<std::uint64_t>(a.child("pattern").integer(0, 1ll << 62))
                           : static_cast<std::uint64_t>(a.child("value").integer(0, 255));
        break;
      case Op::WriteMem: {
        keys(a, {"at", "u8", "u32", "u64"}, {"at"});
        s.at = expr(a.child("at"));
        const Cursor v = sized(a, s.width);
        if (!v.node.IsSequence() || v.node.size() == 0) v.fail("a list of values");
        if (v.node.size() * static_cast<std::size_t>(s.width) > PayloadBytes::kMax) v.fail("more than 4 KiB at once");
        for (std::size_t k = 0; k < v.node.size(); ++k) s.values.push_back(expr(v.item(k)));
        break;
      }
      case Op::MmioWrite:
      case Op::PollMem: {
        const bool mmio = s.op == Op::MmioWrite;
        keys(a, mmio ? std::set<std::string>{"offset", "u32", "u64"} : std::set<std::string>{"at", "u32", "u64", "mask"},
             {mmio ? "offset" : "at"});
        s.at = expr(a.child(mmio ? "offset" : "at"));
        s.value = expr(sized(a, s.width));
        if (s.width == 1) a.fail("u32 or u64");
        if (a.has("mask")) s.mask = expr(a.child("mask"));
        else s.mask.terms.push_back({~0ull, {}});
        if (mmio) bar_offset(a.child("offset"), s.at, static_cast<std::uint32_t>(s.width));
        break;
      }
      case Op::MmioRead:
        keys(a, {"offset", "bytes", "expect", "until", "mask", "tries"}, {"offset"});
        s.at = expr(a.child("offset"));
        register_width(a, s);
        if (a.has("expect") && a.has("until")) a.fail("expect (one read) or until (reads until it matches), not both");
        if ((s.has_value = a.has("expect"))) s.value = expr(a.child("expect"));
        if ((s.until = a.has("until"))) s.value = expr(a.child("until"));
        if ((a.has("mask") || a.has("tries")) && !s.until) a.fail("mask and tries go with until");
        if (a.has("mask")) s.mask = expr(a.child("mask"));
        else s.mask.terms.push_back({~0ull, {}});
        s.tries = a.has("tries") ? static_cast<std::uint64_t>(a.child("tries").integer(1, 1ll << 30)) : 100000;
        break;
      case Op::Record:
        keys(a, {"name", "offset", "bytes", "unit"}, {"name", "offset", "unit"});
        s.at = expr(a.child("offset"));
        register_width(a, s);
        s.delay = a.child("unit").time();
        if (s.delay == 0) a.child("unit").fail("a unit of more than 0 ns");
        s.mark = name(a.child("name"));
        if (std::find(timers.begin(), timers.end(), s.mark) != timers.end())
          a.child("name").fail("'" + s.mark + "' is already a timer or another record's name");
        timers.push_back(s.mark);
        break;
      case Op::WaitMsi:
        s.vector = static_cast<std::uint32_t>(a.integer(0, 31));
        break;
      case Op::Delay:
        s.delay = a.time();
        break;
      case Op::Loop: {
        keys(a, {"count", "var", "steps"}, {"count", "steps"});
        s.len = expr(a.child("count"));
        if (s.len.constant() && s.len.eval({}) > (1ull << 40)) a.child("count").fail("at most 2^40 repetitions");
        if (a.has("var")) {
          const std::string v = a.child("var").scalar();
          if (v.empty() || !(std::isalpha(static_cast<unsigned char>(v[0])) || v[0] == '_')) a.child("var").fail("a name");
          if (syms.count(v)) a.child("var").fail("'" + v + "' is already a buffer, a value or an outer loop's counter");
          s.var = static_cast<int>(syms.size());
          syms[v] = s.var;
          s.body = steps(a.child("steps"));
          syms.erase(v);  // its scope ends (its slot stays: counters never share one)
          m_slots = std::max(m_slots, s.var + 1);
        } else {
          s.body = steps(a.child("steps"));
        }
        break;
      }
      case Op::CheckMem:
        keys(a, {"at", "bytes", "equals", "pattern"}, {"at", "bytes"});
        s.at = expr(a.child("at"));
        s.len = expr(a.child("bytes"));
        if (a.has("equals") == a.has("pattern")) a.fail("one of equals (another region's address) or pattern (the seed it was filled with)");
        if ((s.has_equals = a.has("equals"))) s.equals = expr(a.child("equals"));
        else s.seed = static_cast<std::uint64_t>(a.child("pattern").integer(0, 1ll << 62));
        break;
      case Op::Mark:
        s.mark = name(a);
        if (std::find(marks.begin(), marks.end(), s.mark) == marks.end()) marks.push_back(s.mark);
        break;
      case Op::MmioCopy:
        keys(a, {"offset", "from", "bytes"}, {"offset", "from", "bytes"});
        s.at = expr(a.child("offset"));
        s.equals = expr(a.child("from"));
        s.len = expr(a.child("bytes"));
        if (s.len.constant()) {
          const std::uint64_t n = s.len.eval({});
          if (n == 0 || n > (1u << 24)) a.child("bytes").fail("1 B to 16 MiB");
          bar_offset(a.child("offset"), s.at, static_cast<std::uint32_t>(n));
        }
        break;
      case Op::Time: {
        keys(a, {"name", "steps"}, {"name", "steps"});
        s.mark = name(a.child("name"));
        if (std::find(timers.begin(), timers.end(), s.mark) != timers.end())
          a.child("name").fail("'" + s.mark + "' is already a timer or a record's name");
        timers.push_back(s.mark);
        s.body = steps(a.child("steps"));
        break;
      }
    }
    return s;
  }
  // A register's width (bytes: 4 or 8; 4 unless given), its offset checked.
  void register_width(const Cursor& a, Step& s) const {
    s.width = a.has("bytes") ? static_cast<int>(a.child("bytes").integer(4, 8)) : 4;
    if (s.width != 4 && s.width != 8) a.child("bytes").fail("4 or 8");
    bar_offset(a.child("offset"), s.at, static_cast<std::uint32_t>(s.width));
  }
  int slots() const { return std::max(m_slots, fixed); }
  int fixed = 0;  // symbols before any loop counter: buffers, then values
  // A mark's or a timer's name: a metric's name part.
  static std::string name(const Cursor& c) {
    const std::string n = c.scalar();
    if (n.empty() || n.find_first_not_of("abcdefghijklmnopqrstuvwxyz0123456789_") != std::string::npos)
      c.fail("a name of lower-case letters, digits and _");
    return n;
  }

 private:
  // A constant register offset must lie in BAR0 (one that depends on a loop is checked as it runs).
  void bar_offset(const Cursor& c, const Expr& e, std::uint32_t n) const {
    if (!e.constant()) return;
    const std::uint64_t off = e.eval({});
    if (off + n > m_bar_size) c.fail("offset " + hex(off) + " + " + std::to_string(n) + " B lies outside BAR0 (" + std::to_string(m_bar_size) + " B)");
    if (off % 4) c.fail("offset " + hex(off) + " is not 4-byte aligned");
  }
  std::uint64_t m_bar_size;
  int m_slots = 0;
};

class RtlScript final : public Workload {
 public:
  RtlScript(const Cursor& c, const topo::Topology& p) : Workload("script") {
    c.keys({"type", "name", "device", "core", "buffers", "values", "steps"});
    if (c.has("name")) m_name = c.child("name").str();
    if (!c.has("device")) c.fail("no device: the endpoint with device: rtl the script drives");
    m_dev = c.child("device").str();
    const topo::NodeSpec* node = nullptr;
    for (const auto& n : p.nodes)
      if (n.name == m_dev && n.type == topo::NodeType::Endpoint && n.device == "rtl") node = &n;
    if (!node) c.child("device").fail("'" + m_dev + "' is not an endpoint with device: rtl");
    m_bar_size = node->ep.bar_size;
    const int cores = p.nodes[static_cast<std::size_t>(p.root)].cpu.cores;
    m_core = c.has("core") ? static_cast<int>(c.child("core").integer(0, 4095)) : 0;
    if (m_core >= cores) c.child("core").fail("no core " + std::to_string(m_core));
    Parser ps(m_bar_size);
    named(c, "buffers", "buffer", "sizes", [&](const std::string& name, const Cursor& sz) {
      const std::uint64_t bytes = sz.size();
      if (bytes == 0) sz.fail("an empty buffer");
      ps.syms[name] = static_cast<int>(ps.buffers.size());
      ps.buffers.emplace_back(name, bytes);
    });
    // Named integers the steps use (a packet size, a stride): what a sweep sets.
    named(c, "values", "value", "integers", [&](const std::string& name, const Cursor& x) {
      if (ps.syms.count(name)) x.fail("'" + name + "' is also a buffer");
      ps.syms[name] = static_cast<int>(ps.buffers.size() + m_values.size());
      m_values.push_back(static_cast<std::uint64_t>(x.integer(0, 1ll << 62)));
    });
    ps.fixed = static_cast<int>(ps.syms.size());
    if (!c.has("steps")) c.fail("no steps: what the driver does");
    m_steps = ps.steps(c.child("steps"));
    for (const auto& t : ps.timers)
      for (const TimerStat& st : kTimerStats)
        if (std::find(ps.marks.begin(), ps.marks.end(), t + st.suffix) != ps.marks.end())
          c.child("steps").fail("mark '" + t + st.suffix + "' and timer '" + t + "' would both write metric " + t + st.suffix + "_ns");
    m_buffers = ps.buffers;
    m_marks = ps.marks;
    for (const auto& t : ps.timers) m_timers[t];
    m_slots = ps.slots();
  }

  void start(Platform& plat) override {
    m_p = &plat;
    m_bar = plat.endpoint(m_dev).config().bars.at(0).base;
    auto* dev = plat.device<rtl::RtlDevice>(m_dev);
    if (!dev) sim_fail(m_name, "'" + m_dev + "' carries no RTL device");
    const std::vector<std::uint64_t> at = plat.alloc(buffers());
    std::vector<std::uint64_t> env(static_cast<std::size_t>(m_slots), 0);
    for (std::size_t i = 0; i < at.size(); ++i) env[i] = at[i];
    for (std::size_t i = 0; i < m_values.size(); ++i) env[at.size() + i] = m_values[i];
    plat.cpu().spawn(m_name, m_core, [this, dev, env](int core) mutable {
      m_t0 = m_p->cpu().now();
      run(m_steps, env, core);
      m_elapsed = m_p->cpu().now() - m_t0;
      dev->quiesce();
      m_at = nullptr;
      m_done = true;
    });
  }
  bool done() const override { return m_done; }
  std::string status() const override {
    if (m_done) return "done";
    return m_at ? std::string("at step ") + op_name(m_at->op) + " (" + m_at->where + ")" : "not started";
  }
  std::vector<std::string> exclusive_devices() const override { return {m_dev}; }
  std::vector<BufferNeed> buffers() const override {
    std::vector<BufferNeed> b;
    for (const auto& [name, bytes] : m_buffers) b.emplace_back(bytes);
    return b;
  }
  void report(Results& r) const override {
    r.metric(m_name + ".elapsed_ns", to_ns(m_elapsed), "ns");
    for (const auto& m : m_marks) {
      const auto it = m_mark_at.find(m);
      if (it != m_mark_at.end()) r.metric(m_name + "." + m + "_ns", to_ns(it->second - m_t0), "ns");
    }
    for (const auto& [t, h] : m_timers) {
      // Each run of the timed steps, in ns: summary metrics and the distribution.
      for (const TimerStat& st : kTimerStats) r.metric(m_name + "." + t + st.suffix + "_ns", st.of(h), "ns");
      r.hist(m_name + "." + t + "_ns", h, "ns");
    }
    r.metric(m_name + ".checked_bytes", static_cast<double>(m_checked), "B");
    r.metric(m_name + ".mmio_reads", static_cast<double>(m_reads), "1");
  }

 private:
  static double to_ns(Tick t) { return static_cast<double>(t) / 1000.0; }
  [[noreturn]] void fail(const Step& s, const std::string& what) const { sim_fail(m_name, s.where + ": " + what); }
  // Each entry of the map `key` (names of `what`s to `of`), its name checked.
  template <class F>
  static void named(const Cursor& c, const char* key, const char* what, const char* of, const F& each) {
    if (!c.has(key)) return;
    const Cursor m = c.child(key);
    if (!m.is_map()) m.fail(std::string("a map of ") + what + " names to " + of);
    for (auto it = m.node.begin(); it != m.node.end(); ++it) {
      const std::string name = it->first.Scalar();
      const Cursor at = m.child(name);
      if (name.empty() || !(std::isalpha(static_cast<unsigned char>(name[0])) || name[0] == '_') ||
          name.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_") != std::string::npos)
        at.fail("'" + name + "' is not a " + std::string(what) + " name (letters, digits, _)");
      each(name, at);
    }
  }

  void touch(const Step& s, std::uint64_t addr, std::uint64_t len) {
    const std::uint64_t dram = m_p->rc().config().dram_base, size = m_p->rc().config().dram_size;
    if (addr < dram || addr + len > dram + size || addr + len < addr)
      fail(s, "[" + hex(addr) + ", +" + std::to_string(len) + ") is not in host memory");
  }
  static void le(std::uint64_t v, int width, std::uint8_t* out) {
    for (int i = 0; i < width; ++i) out[i] = static_cast<std::uint8_t>(v >> (8 * i));
  }

  void run(const std::vector<Step>& steps, std::vector<std::uint64_t>& env, int core) {
    auto& cpu = m_p->cpu();
    // Every access to host memory is the core's, through its memory port:
    // a fill and a write of values are copies (copy_line each 64 B), a
    // poll and a check are loads.
    host::MemoryPort& mem = cpu.port(core);
    for (const Step& s : steps) {
      m_at = &s;
      switch (s.op) {
        case Op::Fill: {
          const std::uint64_t a = s.at.eval(env), n = s.len.eval(env);
          touch(s, a, n);
          if (s.pattern) mem.copy_pattern(a, s.seed, 0, n);
          else mem.fill(a, static_cast<std::uint8_t>(s.seed), n);
          break;
        }
        case Op::WriteMem: {
          const std::uint64_t a = s.at.eval(env);
          std::vector<std::uint8_t>& b = m_scratch[0];
          b.resize(s.values.size() * static_cast<std::size_t>(s.width));
          for (std::size_t i = 0; i < s.values.size(); ++i) le(s.values[i].eval(env), s.width, b.data() + i * static_cast<std::size_t>(s.width));
          touch(s, a, b.size());
          mem.copy_in(a, b.data(), b.size());
          break;
        }
        case Op::MmioWrite: {
          const std::uint64_t off = s.at.eval(env);
          if (off + static_cast<std::uint64_t>(s.width) > m_bar_size) fail(s, "offset " + hex(off) + " lies outside BAR0");
          std::uint8_t b[8];
          le(s.value.eval(env), s.width, b);
          cpu.mmio_write_bytes(core, m_bar + off, b, static_cast<std::uint32_t>(s.width));
          break;
        }
        case Op::MmioRead: {
          const std::uint64_t off = s.at.eval(env);
          const std::uint64_t width_mask = s.width == 8 ? ~0ull : 0xffffffffull;
          std::uint64_t v = read_register(s, off, core);
          if (s.has_value) {
            const std::uint64_t want = s.value.eval(env) & width_mask;
            if (v != want) fail(s, "register " + hex(off) + " reads " + hex(v) + ", expected " + hex(want));
          }
          if (s.until) {
            // A status register polled by reading it again: each read a round trip.
            const std::uint64_t mask = s.mask.eval(env) & width_mask, want = s.value.eval(env) & mask;
            for (std::uint64_t n = 1; (v & mask) != want; ++n) {
              if (n == s.tries)
                fail(s, "register " + hex(off) + " still reads " + hex(v) + " after " + std::to_string(n) + " reads, waiting for " +
                            hex(want) + " under mask " + hex(mask));
              v = read_register(s, off, core);
            }
          }
          break;
        }
        case Op::Record: {
          const std::uint64_t off = s.at.eval(env);
          const std::uint64_t v = read_register(s, off, core);
          m_timers.at(s.mark).add(static_cast<double>(v) * to_ns(s.delay));
          break;
        }
        case Op::PollMem: {
          const std::uint64_t a = s.at.eval(env), want = s.value.eval(env), mask = s.mask.eval(env);
          touch(s, a, static_cast<std::uint64_t>(s.width));
          // Checking and arming happen at one instant: no write can slip between.
          while ((mem.load_le(a, s.width) & mask) != (want & mask)) mem.wait_watch(mem.arm_watch(a, static_cast<std::uint32_t>(s.width)));
          break;
        }
        case Op::WaitMsi:
          cpu.wait_msi(core, s.vector);
          break;
        case Op::Delay:
          cpu.compute(core, s.delay);
          break;
        case Op::Loop: {
          const std::uint64_t n = s.len.eval(env);
          if (n > (1ull << 40)) fail(s, std::to_string(n) + " repetitions: at most 2^40");
          for (std::uint64_t i = 0; i < n; ++i) {
            if (s.var >= 0) env[static_cast<std::size_t>(s.var)] = i;
            run(s.body, env, core);
          }
          break;
        }
        case Op::CheckMem: {
          const std::uint64_t a = s.at.eval(env), n = s.len.eval(env);
          touch(s, a, n);
          const std::uint64_t b = s.has_equals ? s.equals.eval(env) : 0;
          if (s.has_equals) touch(s, b, n);
          std::vector<std::uint8_t>& x = m_scratch[0];
          std::vector<std::uint8_t>& y = m_scratch[1];
          for (std::uint64_t off = 0; off < n;) {
            const std::uint32_t k = static_cast<std::uint32_t>(std::min<std::uint64_t>(n - off, 1u << 16));
            x.resize(k);
            y.resize(k);
            mem.load(a + off, x.data(), k);
            if (s.has_equals) mem.load(b + off, y.data(), k);
            else pattern_fill(s.seed, off, y.data(), k);
            if (x != y) {
              std::size_t d = 0;
              while (x[d] == y[d]) ++d;
              fail(s, "byte " + std::to_string(off + d) + " at " + hex(a + off + d) + " is " + hex(x[d]) + ", expected " + hex(y[d]) +
                          (s.has_equals ? " (as at " + hex(b + off + d) + ")" : " (the pattern)"));
            }
            off += k;
          }
          m_checked += n;
          break;
        }
        case Op::Mark:
          m_mark_at[s.mark] = cpu.now();
          break;
        case Op::MmioCopy: {
          const std::uint64_t off = s.at.eval(env), from = s.equals.eval(env), n = s.len.eval(env);
          if (n == 0 || n > (1u << 24)) fail(s, std::to_string(n) + " B: a copy is 1 B to 16 MiB");
          if (off + n > m_bar_size) fail(s, "[" + hex(off) + ", +" + std::to_string(n) + ") lies outside BAR0");
          if (off % 4) fail(s, "offset " + hex(off) + " is not 4-byte aligned");
          touch(s, from, n);
          cpu.mmio_copy_wc(core, m_bar + off, from, static_cast<std::uint32_t>(n));
          cpu.fence(core);
          break;
        }
        case Op::Time: {
          const Tick t0 = cpu.now();
          run(s.body, env, core);
          m_timers.at(s.mark).add(to_ns(cpu.now() - t0));
          m_at = &s;
          break;
        }
      }
    }
  }

  // One read of a register of the design, its little-endian value.
  std::uint64_t read_register(const Step& s, std::uint64_t off, int core) {
    if (off + static_cast<std::uint64_t>(s.width) > m_bar_size) fail(s, "offset " + hex(off) + " lies outside BAR0");
    std::uint8_t b[8] = {};
    m_p->cpu().mmio_read(core, m_bar + off, static_cast<std::uint32_t>(s.width), b);
    ++m_reads;
    std::uint64_t v = 0;
    for (int i = 0; i < s.width; ++i) v |= static_cast<std::uint64_t>(b[i]) << (8 * i);
    return v;
  }

  std::string m_dev;
  int m_core = 0;
  std::uint64_t m_bar_size = 0, m_bar = 0;
  std::vector<std::pair<std::string, std::uint64_t>> m_buffers;
  std::vector<std::uint64_t> m_values;  // after the buffers in the symbol table
  std::vector<std::string> m_marks;
  std::vector<Step> m_steps;
  int m_slots = 0;
  Platform* m_p = nullptr;
  const Step* m_at = nullptr;
  Tick m_t0 = 0, m_elapsed = 0;
  std::map<std::string, Tick> m_mark_at;
  std::map<std::string, Histogram> m_timers;
  std::uint64_t m_checked = 0, m_reads = 0;
  // Bytes a step builds or compares, kept from step to step (a check after
  // every round trip would otherwise allocate and zero two buffers each).
  std::array<std::vector<std::uint8_t>, 2> m_scratch;
  bool m_done = false;
};

}  // namespace

std::unique_ptr<Workload> make_rtl_script(const Cursor& c, const topo::Topology& t) { return std::make_unique<RtlScript>(c, t); }

std::string rtl_script_reference() {
  return "| step | arguments | what the driver does |\n|---|---|---|\n"
         "| `fill` | `at`, `bytes`, `pattern: SEED` or `value: BYTE` | writes deterministic bytes (the pattern of SEED) or one byte value over a region: a copy by the core (`copy_line` each 64 B), its lines then in the LLC |\n"
         "| `write_mem` | `at`, one of `u8`, `u32`, `u64`: a list of values | writes little-endian values from `at` (a descriptor, a ring entry), copied as `fill`'s bytes are |\n"
         "| `mmio_write` | `offset`, `u32` or `u64`: a value | a UC store to BAR0 + offset (a register, a doorbell) |\n"
         "| `mmio_read` | `offset`, `bytes` (4 or 8), `expect`, or `until`, `mask`, `tries` | a read of BAR0 + offset, answered by the design; with `expect`, a different value stops the run; with `until`, the register is read again until its value under `mask` (all bits if none) is `until`'s, at most `tries` reads (100000 if none; then the run stops) |\n"
         "| `poll_mem` | `at`, `u32` or `u64`: a value, `mask` | polls host memory until the masked value matches |\n"
         "| `wait_msi` | a vector | waits for that MSI |\n"
         "| `delay` | a time | the driver computes for that long |\n"
         "| `loop` | `count` (a value), `var` (a counter, 0 up), `steps` | repeats its steps |\n"
         "| `check_mem` | `at`, `bytes`, `equals: ADDRESS` or `pattern: SEED` | compares a region byte for byte with another or with a pattern; a difference stops the run (exit 3) |\n"
         "| `mark` | a name | records the time: metric `<name>_ns` from the script's start |\n"
         "| `mmio_copy` | `offset`, `from`, `bytes` | copies host memory at `from` to BAR0 + offset with write-combined stores (64 B lines), then a fence (a packet, a header) |\n"
         "| `time` | `name`, `steps` | times its steps each time they run: metrics `<name>_min_ns`, `_p50_ns`, `_p99_ns`, `_max_ns`, `_mean_ns` and the distribution |\n"
         "| `record` | `name`, `offset`, `bytes` (4 or 8), `unit`: a time | reads a register the design measured something in (a count of its clock cycles) and adds its value times `unit` to the distribution `name`: metrics as `time`'s |\n\n"
         "Values are sums of integers, buffer names (their addresses), names from `values` and loop counters, each term a product of integers and names: "
         "`ring`, `ring+32*i`, `ring+stride*i`, `0x10`.\n";
}

}  // namespace hx::sim
