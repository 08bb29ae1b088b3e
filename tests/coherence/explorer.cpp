#include "tests/coherence/explorer.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <tuple>
#include <sstream>
#include <unordered_set>

#include "models/core/error.h"

namespace hx::coherence::test {

namespace {

struct World {
  std::vector<CacheLine> cl;    // [agent * lines + line]
  std::vector<HomeLine> home;   // [line]
  std::vector<Msg> net;         // in flight, sorted (a multiset)
  std::vector<std::uint64_t> golden;  // per line: the last store's value
};

bool holds_data(RnState s) { return rn_readable(s) || s == RnState::WB_P; }

// Values, half by half (explorer.h): canonically 1 (the last store's) or 0.
constexpr std::uint64_t kOne = 0x0000000100000001ull, kTwo = 0x0000000200000002ull;
constexpr std::uint64_t kLowHalf = 0x00000000ffffffffull;  // a partial store's bits: lanes 0-3
// The bits of a line's value its holder holds fresh (all of them, a
// partial line's lanes, none).
std::uint64_t held_bits(const CacheLine& c) {
  return rn_partial(c.state) ? lane_bits(c.valid) : holds_data(c.state) ? ~0ull : 0;
}

// Lines are numbered 0..L-1; agents 0..A-1 are caching agents, A..A+H-1
// the homes, line l's home A + l % H.
struct Explorer : Sink {
  ExploreConfig cfg;
  World* w = nullptr;
  ExploreResult res;
  const RnRow* rn_base;
  const HomeRow* home_base;
  std::vector<Msg> sent;

  explicit Explorer(const ExploreConfig& c) : cfg(c) {
    if (c.homes < 1 || c.agents + c.homes > 64) throw SimError("one to 64 agents and homes in all");
    if (c.silent && (c.atomics || c.once || c.make_unique || c.read_clean || c.nosnp))
      throw SimError("silent evictions go with loads and stores only");
    int n = 0;
    rn_base = rn_rows(&n);
    res.rn_rows_used.assign(static_cast<std::size_t>(n), 0);
    home_base = home_rows(&n);
    res.home_rows_used.assign(static_cast<std::size_t>(n), 0);
  }
  void send(const Msg& m) override {
    if (cfg.mutation == Mutation::LoseSnoop && (m.type == MsgType::SnpToI || m.type == MsgType::SnpToIFwd)) return;
    sent.push_back(m);
    if (cfg.mutation == Mutation::WholePartialLine && msg_partial(m.type)) sent.back().cmp = ~0ull;
  }
  void home_row_taken(const HomeRow& r, const Msg&) override { ++res.home_rows_used[static_cast<std::size_t>(&r - home_base)]; }
  void home_atomic(const Msg& req, std::uint64_t old, std::uint64_t now) override {
    std::uint64_t& g = w->golden[static_cast<std::size_t>(req.line)];
    if (old != g) throw SimError("an atomic at the home read a stale value");
    g = now;
  }
  // A WriteUnique's line is the line's value from now on.
  void home_write(const Msg& req, std::uint64_t) override { w->golden[static_cast<std::size_t>(req.line)] = req.data; }

  CacheLine& line(World& x, int a, int l) { return x.cl[static_cast<std::size_t>(a * cfg.lines + l)]; }
  AgentId home_of(int l) const { return static_cast<AgentId>(cfg.agents + l % cfg.homes); }


  // A message's line data as c(data) (a partial line's lanes only); an
  // atomic's operands are kept (they are the same in every state), its
  // result dropped (nothing reads it); a WriteUnique's (or WriteNoSnp's)
  // line is a value not yet written: 2, as a store's at issue.
  template <class C>
  static void canon_msg(Msg& m, const C& c) {
    if (m.type == MsgType::WriteUnique || m.type == MsgType::WriteNoSnp) m.data = kTwo;
    else if (msg_partial(m.type)) m.data = c(m.data) & m.cmp;
    else if (msg_line_data(m.type)) m.data = c(m.data);
    else if (!msg_atomic(m.type)) m.data = 0;
  }

  // Data of line l, half by half, as 1 (the last store's) or 0 (any other).
  void canonical(World& x) {
    for (int l = 0; l < cfg.lines; ++l) {
      const std::uint64_t g = x.golden[static_cast<std::size_t>(l)];
      auto c = [g](std::uint64_t v) -> std::uint64_t {
        return ((v ^ g) & kLowHalf ? 0 : 1) | ((v ^ g) & ~kLowHalf ? 0 : kOne & ~kLowHalf);
      };
      for (int a = 0; a < cfg.agents; ++a) {
        CacheLine& cl = line(x, a, l);
        cl.data = c(cl.data) & held_bits(cl);
      }
      HomeLine& h = x.home[static_cast<std::size_t>(l)];
      h.mem = c(h.mem);
      h.copy = h.has_copy ? c(h.copy) : 0;
      if (h.busy) canon_msg(h.cur, c);
      for (Msg& m : h.waiting) canon_msg(m, c);
      for (Msg& m : x.net)
        if (m.line == static_cast<std::uint64_t>(l)) canon_msg(m, c);
      x.golden[static_cast<std::size_t>(l)] = kOne;
    }
    std::sort(x.net.begin(), x.net.end(), msg_less);
  }

  static void put_msg(std::string& k, const Msg& m) {
    k += static_cast<char>(m.type);
    k += static_cast<char>(m.src);
    k += static_cast<char>(m.dst);
    k += static_cast<char>(m.line);
    k += static_cast<char>(m.data);
    k += static_cast<char>(m.data >> 32);
    k += static_cast<char>(m.fwd);
    k += static_cast<char>(m.cmp);
    k += static_cast<char>(m.cmp >> 32);
  }
  std::string key(const World& x) const {
    std::string k;
    for (const CacheLine& c : x.cl) {
      k += static_cast<char>(c.state);
      k += static_cast<char>(c.valid);
      k += static_cast<char>(c.data);
      k += static_cast<char>(c.data >> 32);
    }
    for (const HomeLine& h : x.home) {
      k += static_cast<char>(h.sharers);
      k += static_cast<char>(h.owner + 1);
      k += static_cast<char>(h.mem);
      k += static_cast<char>(h.mem >> 32);
      k += static_cast<char>(h.busy);
      k += static_cast<char>(h.has_copy ? 2 + h.copy : 0);
      k += static_cast<char>(h.has_copy ? h.copy >> 32 : 0);
      if (h.busy) {
        put_msg(k, h.cur);
        k += static_cast<char>(h.row ? h.row - home_base : 255);
        k += static_cast<char>(h.snoops_left);
        k += static_cast<char>(h.await_ack);
        k += static_cast<char>(h.forwarded);
        k += static_cast<char>(h.early_ack);
      }
      k += static_cast<char>(h.waiting.size());
      for (const Msg& m : h.waiting) put_msg(k, m);
    }
    k += '|';
    for (const Msg& m : x.net) put_msg(k, m);
    return k;
  }

  std::string dump(const World& x) const {
    std::ostringstream os;
    for (int l = 0; l < cfg.lines; ++l) {
      os << " line " << l << ":";
      for (int a = 0; a < cfg.agents; ++a) {
        const CacheLine& c = x.cl[static_cast<std::size_t>(a * cfg.lines + l)];
        const std::uint64_t held = held_bits(c);
        os << " a" << a << "=" << rn_state_name(c.state) << (held ? ((c.data ^ x.golden[l]) & held ? "(stale)" : "(fresh)") : "");
      }
      const HomeLine& h = x.home[static_cast<std::size_t>(l)];
      os << " home dir=" << dir_state_name(h.dir()) << " sharers=" << h.sharers << " owner=" << h.owner
         << " mem=" << (h.mem == x.golden[l] ? "fresh" : "stale") << (h.busy ? " busy with " + describe(h.cur) : "")
         << " waiting=" << h.waiting.size() << ";";
    }
    os << " in flight:";
    for (const Msg& m : x.net) os << " [" << describe(m) << "]";
    return os.str();
  }

  // The invariants of one state; an empty string if all hold.
  std::string check(const World& x) {
    for (int l = 0; l < cfg.lines; ++l) {
      const HomeLine& h = x.home[static_cast<std::size_t>(l)];
      const std::uint64_t g = x.golden[static_cast<std::size_t>(l)];
      int readers = 0, writers = 0, transient = 0, dirty = 0;
      std::uint64_t holders = 0;
      for (int a = 0; a < cfg.agents; ++a) {
        const CacheLine& c = x.cl[static_cast<std::size_t>(a * cfg.lines + l)];
        readers += rn_readable(c.state);
        writers += rn_writable(c.state);
        transient += !rn_stable(c.state);
        dirty += rn_dirty(c.state);
        if (rn_readable(c.state) && c.data != g) return "agent " + std::to_string(a) + " holds a stale readable copy";
        // (a partial write-back the home has taken is stale once others write)
        if (rn_partial(c.state) && (c.state != RnState::WBP_P || (h.sharers >> a & 1)) && (c.data ^ g) & lane_bits(c.valid))
          return "agent " + std::to_string(a) + " holds stale bytes of a partial line";
        if (rn_placed(c.state)) {
          holders |= 1ull << a;
          const bool forwarded_to = h.busy && (h.row->ops & kHomeForward) && h.cur.src == a;
          if (!(h.sharers >> a & 1) && !forwarded_to)
            return "the directory does not list agent " + std::to_string(a) + ", which holds the line";
        }
        // A write-back in flight still answers snoops while it is listed.
        if (c.state == RnState::WB_P && (h.sharers >> a & 1) && c.data != g)
          return "agent " + std::to_string(a) + " writes back stale data the directory may still ask for";
      }
      if (writers && readers > 1) return "a writer and another copy at once (single writer broken)";
      bool inflight = false;
      for (const Msg& m : x.net) inflight |= m.line == static_cast<std::uint64_t>(l);
      if (!inflight && !h.busy && !transient) {
        if (cfg.silent ? (holders & ~h.sharers) != 0 : h.sharers != holders)
          return "at rest, the directory lists other agents than those holding the line";
        if (!dirty && h.mem != g) return "at rest, memory is stale with no dirty copy";
        for (int a = 0; a < cfg.agents; ++a) {
          const CacheLine& c = x.cl[static_cast<std::size_t>(a * cfg.lines + l)];
          if (c.state == RnState::UDP && (h.mem ^ g) & ~lane_bits(c.valid))
            return "at rest, memory is stale in the lanes a partial line does not hold";
        }
        if (!h.waiting.empty()) return "at rest, requests wait at the home";
      }
    }
    if (x.net.empty()) {
      for (const CacheLine& c : x.cl)
        if (!rn_stable(c.state)) return "deadlock: an agent waits with nothing in flight";
      for (const HomeLine& h : x.home)
        if (h.busy || !h.waiting.empty()) return "deadlock: the home is busy with nothing in flight";
    }
    return {};
  }

  int outstanding(const World& x, int a) {
    int n = 0;
    for (int l = 0; l < cfg.lines; ++l) n += !rn_stable(x.cl[static_cast<std::size_t>(a * cfg.lines + l)].state);
    return n;
  }

  // Runs one transition on a copy; returns false (and sets res.error) on a violation.
  bool step(const World& from, World& to, const std::string& what, const std::function<void(World&)>& act) {
    to = from;
    w = &to;
    sent.clear();
    try {
      act(to);
    } catch (const SimError& e) {
      res.error = what + ": " + e.what() + "\n  in state:" + dump(from);
      return false;
    }
    for (const Msg& m : sent) to.net.push_back(m);
    const std::string bad = check(to);
    if (!bad.empty()) {
      res.error = what + ": " + bad + "\n  from state:" + dump(from) + "\n  to state:" + dump(to);
      return false;
    }
    canonical(to);
    ++res.transitions;
    return true;
  }

  ExploreResult run() {
    World init;
    init.cl.assign(static_cast<std::size_t>(cfg.agents * cfg.lines), CacheLine{});
    init.home.assign(static_cast<std::size_t>(cfg.lines), HomeLine{});
    init.golden.assign(static_cast<std::size_t>(cfg.lines), kOne);
    for (HomeLine& h : init.home) h.mem = kOne;
    std::unordered_set<std::string> seen;
    std::deque<World> todo;
    seen.insert(key(init));
    todo.push_back(init);
    World next;
    const auto visit = [&](World& n) {
      res.max_in_flight = std::max(res.max_in_flight, static_cast<int>(n.net.size()));
      if (seen.insert(key(n)).second) todo.push_back(n);
    };
    while (!todo.empty()) {
      const World cur = std::move(todo.front());
      todo.pop_front();
      ++res.states;
      if (res.states > cfg.max_states) return res;
      // Core operations of every agent on every line.
      for (int a = 0; a < cfg.agents; ++a)
        for (int l = 0; l < cfg.lines; ++l)
          for (RnEvent e : {RnEvent::Load, RnEvent::Store, RnEvent::Replace, RnEvent::AtomicStore, RnEvent::AtomicLoad,
                            RnEvent::AtomicSwap, RnEvent::AtomicCompare, RnEvent::ReadOnce, RnEvent::WriteUnique,
                            RnEvent::StoreLine, RnEvent::ReadClean, RnEvent::ReadNoSnp, RnEvent::WriteNoSnp, RnEvent::Drop,
                            RnEvent::StorePtl}) {
            const bool atomic = e >= RnEvent::AtomicStore && e <= RnEvent::AtomicCompare;
            const bool once = e == RnEvent::ReadOnce || e == RnEvent::WriteUnique;
            const bool nosnp = e == RnEvent::ReadNoSnp || e == RnEvent::WriteNoSnp;
            if ((atomic && !cfg.atomics) || (once && !cfg.once) || (e == RnEvent::StoreLine && !cfg.make_unique) ||
                (e == RnEvent::ReadClean && !cfg.read_clean) || (e == RnEvent::Drop && !cfg.silent) ||
                (e == RnEvent::StorePtl && !cfg.partial))
              continue;
            const bool nosnp_line = cfg.nosnp && l == cfg.lines - 1;
            const bool misuse = cfg.mutation == Mutation::NoSnpToCachedLine && e == RnEvent::ReadNoSnp && l == 0;
            if (nosnp != nosnp_line && !misuse) continue;  // the non-snoopable line takes these only
            const CacheLine& c = x_line(cur, a, l);
            // (A partial store to a line held is a store in the cache.)
            const RnRow* row = rn_row(c.state, e == RnEvent::StorePtl ? core_event(e, c.state) : e);
            if (cfg.mutation == Mutation::DropDirtyLine && e == RnEvent::Drop && c.state == RnState::UD) {
              if (!step(cur, next, "agent " + std::to_string(a) + " drops its dirty line " + std::to_string(l),
                        [&](World& x) { line(x, a, l).state = RnState::I; }))
                return res;
              visit(next);
              continue;
            }
            if (!row) continue;
            if (row->send != MsgType::None && outstanding(cur, a) >= cfg.mshrs) continue;  // no free MSHR
            const std::string what = std::string("agent ") + std::to_string(a) + " " + rn_event_name(e) + " line " + std::to_string(l);
            if (!step(cur, next, what, [&](World& x) { core_op(x, a, l, e); })) return res;
            visit(next);
          }
      // Every distinct message in flight, delivered now.
      for (std::size_t i = 0; i < cur.net.size(); ++i) {
        if (i && !msg_less(cur.net[i - 1], cur.net[i])) continue;  // the same message again
        const Msg m = cur.net[i];
        if (!step(cur, next, "deliver " + describe(m), [&](World& x) { deliver(x, i); })) return res;
        visit(next);
      }
    }
    res.complete = true;
    return res;
  }

  const CacheLine& x_line(const World& x, int a, int l) const { return x.cl[static_cast<std::size_t>(a * cfg.lines + l)]; }

  void core_op(World& x, int a, int l, RnEvent e) {
    const std::uint64_t value = kTwo;  // distinct from every canonical value (0 and 1), half by half
    // A partial store writes the low half: a store in the cache of a line
    // held, a StorePtl from a line not held.
    const std::uint64_t mask = e == RnEvent::StorePtl ? kLowHalf : ~0ull;
    if (e == RnEvent::StorePtl) e = core_event(e, line(x, a, l).state);
    // A far atomic's operands: 2 again, and a compare with the last
    // store's value (1), so that a compare-and-swap writes.
    Rmw rmw;
    const bool atomic = e >= RnEvent::AtomicStore && e <= RnEvent::AtomicCompare;
    if (atomic) {
      rmw.op = atomic_op_of(e);
      rmw.operand = value;
      rmw.compare = kOne;
    }
    const RnStep r = rn_step(line(x, a, l), e, nullptr, static_cast<AgentId>(a), home_of(l), static_cast<std::uint64_t>(l), value,
                             *this, mask, atomic ? &rmw : nullptr);
    account(x, r, l);
  }

  void deliver(World& x, std::size_t i) {
    const Msg m = x.net[i];
    x.net.erase(x.net.begin() + static_cast<std::ptrdiff_t>(i));
    const int l = static_cast<int>(m.line);
    if (m.dst >= cfg.agents) {
      if (m.dst != home_of(l)) throw SimError(describe(m) + " reached a home that is not its line's");
      HomePolicy policy;
      policy.forward = cfg.forward;
      policy.migratory = cfg.migratory;
      policy.owned = cfg.owned;
      policy.empty = cfg.partial;
      home_receive(x.home[static_cast<std::size_t>(l)], m, home_of(l), *this, policy);
      return;
    }
    const RnEvent e = rn_event_of(m.type);
    if (e == RnEvent::Count) throw SimError("a caching agent received " + describe(m));
    CacheLine& c = line(x, m.dst, l);
    const RnState before = c.state;
    // A store completing on this message writes a value no copy holds (2,
    // as at issue): a reused value would pass a stale copy for a fresh one.
    const RnStep r = rn_step(c, e, &m, m.dst, home_of(l), m.line, kTwo, *this);
    if (cfg.mutation == Mutation::IgnoreInvalidation && before == RnState::SC && e == RnEvent::SnpToI) c.state = RnState::SC;
    if (cfg.mutation == Mutation::KeepForwardedLine && rn_writable(before) && e == RnEvent::SnpToIFwd) c.state = before;
    if (cfg.mutation == Mutation::DropDirtyShared && before == RnState::UD && e == RnEvent::SnpToS) {
      c.state = RnState::SC;
      for (Msg& s : sent)
        if (s.type == MsgType::SnpRespData_SD) {
          Msg r;
          r.type = MsgType::SnpResp_SC;
          r.src = s.src;
          r.dst = s.dst;
          r.line = s.line;
          s = r;
        }
    }
    if ((cfg.mutation == Mutation::AtomicKeepsCopy && e == RnEvent::CompDataAtomic) ||
        (cfg.mutation == Mutation::ReadOnceKeepsCopy && e == RnEvent::CompDataI)) {
      c.state = RnState::SC;
      c.data = m.data;
    }
    account(x, r, l);
  }

  void account(World& x, const RnStep& r, int l) {
    if (r.row) ++res.rn_rows_used[static_cast<std::size_t>(r.row - rn_base)];
    std::uint64_t& g = x.golden[static_cast<std::size_t>(l)];
    if (r.loaded && r.value != g) throw SimError("a load returned a stale value");
    if (r.stored) g = merge_bits(g, r.value, r.mask);
  }
};

}  // namespace

ExploreResult explore(const ExploreConfig& cfg) {
  Explorer e(cfg);
  return e.run();
}

}  // namespace hx::coherence::test
