// Litmus tests on the coherence engine: each core runs a tiny program of
// loads, stores and fences in order over the protocol tables, with an
// unordered network and evictions at any moment. Every interleaving is
// searched, and the outcomes (the registers at the end) must be exactly
// those of the cores' memory model computed apart on a flat memory: none
// more (the protocol keeps each line coherent and adds no reordering of
// its own), none fewer (it forbids nothing the model allows). Three kinds
// of core:
//  - blocking in-order cores, one access at a time: sequential
//    consistency, the strongest model a host allows. Some accesses keep no
//    copy (ReadOnce, WriteUnique);
//  - x86-TSO cores (the S002 hosts): a store enters the core's store buffer
//    and completes; the buffer drains its oldest store into the cache, one
//    at a time, at any moment, through the protocol; a load takes the
//    youngest buffered store to its line, or goes to the cache; a fence
//    (MFENCE, and what a locked instruction implies) waits for the buffer
//    to drain. Store buffering's relaxed outcome must appear, and a fence
//    must forbid it;
//  - cores whose buffered stores drain in any order across lines (a store
//    waits only for older ones to its own line), with a fence that drains
//    all (Arm's DMB between stores): message passing's relaxed outcome,
//    which Arm allows without a barrier, must appear, and the barrier must
//    forbid it;
//  - Arm cores: those stores, and accesses that perform out of program
//    order, except two to the same line (coherence) and any two a barrier
//    (DMB) separates: a load may go before an older load or store to
//    another line, a store before an older load (the core issues one
//    access at a time, in any order these rules allow; a load marked with
//    an address dependency, or a store with an address, data or control
//    dependency, goes after the core's older loads). Message passing needs
//    a barrier on both sides, or a barrier on the writer's and an address
//    dependency on the reader's; load buffering's and IRIW's relaxed
//    outcomes appear, and barriers forbid them again, as do dependencies
//    of both stores on their cores' loads for load buffering.
// The outcomes every one of these models forbids (CoRR, CoWR, CoRW, CoWW's
// incoherence; IRIW's disagreement, as x86 and multi-copy-atomic Arm do;
// MP and LB's under TSO) are named and checked absent as well, and three
// broken cores (a store buffer not forwarding to the core's own loads; a
// TSO buffer draining out of order; an Arm core whose loads pass older
// loads to their own line) must be caught.
#include <gtest/gtest.h>

#include <algorithm>
#include <deque>
#include <functional>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <unordered_set>
#include <vector>

#include "models/coherence/engine.h"
#include "models/core/error.h"
#include "tests/coherence/explorer.h"

namespace hx::coherence {
namespace {

using test::msg_less;

struct Op {
  bool store;
  int line;
  int value;  // a store's value; a load's register index
  bool once = false;  // keeps no copy: a ReadOnce or WriteUnique from a line not held
  bool fence = false;  // waits for the core's store buffer to drain (no access)
  // A dependency on the core's loads before it: a load's or a store's
  // address computed from their values, or a store's value (a data
  // dependency) or its execution (behind a branch on them: a control
  // dependency): it performs after them (Arm orders these so; a load
  // behind a branch may still be performed early, so a control
  // dependency orders stores only).
  bool dep = false;
};
using Program = std::vector<Op>;
using Outcome = std::vector<int>;  // every register, by index

// The cores' memory model (above).
enum class Model { SC, TSO, WeakStores, Arm };
const char* model_name(Model m) {
  return m == Model::SC ? "SC" : m == Model::TSO ? "TSO" : m == Model::WeakStores ? "stores reordered" : "Arm";
}

// A broken store buffer, to show the tests catch one.
enum class Fault { None, NoForwarding, TsoOutOfOrder, LoadsPassSameLine };

int registers(const std::vector<Program>& ps) {
  int n = 0;
  for (const Program& p : ps)
    for (const Op& o : p)
      if (!o.store && !o.fence) n = std::max(n, o.value + 1);
  return n;
}

// A core's store buffer: (line, value), oldest first.
using Buffer = std::vector<std::pair<int, int>>;

// The buffered store that may drain next at position i: under TSO the
// oldest only; with stores reordered, the oldest to its line.
bool may_drain(const Buffer& b, std::size_t i, Model m, Fault f) {
  if (m == Model::TSO && f != Fault::TsoOutOfOrder) return i == 0;
  for (std::size_t j = 0; j < i; ++j)
    if (b[j].first == b[i].first) return false;
  return true;
}

// The youngest buffered store to `line`, or nullptr.
const std::pair<int, int>* forwarded(const Buffer& b, int line) {
  for (auto it = b.rbegin(); it != b.rend(); ++it)
    if (it->first == line) return &*it;
  return nullptr;
}

// Whether op i of p may perform next, the ops in `done` performed: the
// first one not done, in program order; on Arm cores, any one not done
// that no older op not done precedes (a barrier, or an access to its line;
// a broken core lets a load pass an older load to its line).
bool may_go(const Program& p, std::uint32_t done, std::size_t i, Model m, Fault f = Fault::None) {
  if (done >> i & 1) return false;
  for (std::size_t j = 0; j < i; ++j) {
    if (done >> j & 1) continue;
    const bool loads = !p[i].store && !p[j].store;
    const bool same_line = p[j].line == p[i].line && !(f == Fault::LoadsPassSameLine && loads);
    const bool dependent = p[i].dep && !p[j].store && !p[j].fence;
    if (m != Model::Arm || p[j].fence || p[i].fence || same_line || dependent) return false;
  }
  return true;
}
bool all_done(const Program& p, std::uint32_t done) { return done == (std::uint32_t{1} << p.size()) - 1; }

int lines_of(const std::vector<Program>& ps) {
  int n = 0;
  for (const Program& p : ps)
    for (const Op& o : p) n = std::max(n, o.line + 1);
  return n;
}

// The model on a flat memory, memory initially 0: every interleaving of
// the programs' steps (in program order, or on Arm cores any order may_go
// allows) and, with store buffers, of their drains, each atomic. Under SC
// a store writes memory at once.
std::set<Outcome> model_outcomes(const std::vector<Program>& ps, Model model) {
  std::set<Outcome> out;
  std::vector<std::uint32_t> done(ps.size(), 0);  // per core: the ops performed
  std::vector<Buffer> sb(ps.size());
  std::vector<int> mem(static_cast<std::size_t>(lines_of(ps)), 0);
  Outcome regs(static_cast<std::size_t>(registers(ps)), 0);
  std::function<void()> go = [&] {
    bool any = false;
    for (std::size_t c = 0; c < ps.size(); ++c) {
      // A buffered store drains into memory.
      for (std::size_t i = 0; i < sb[c].size(); ++i) {
        if (!may_drain(sb[c], i, model, Fault::None)) continue;
        any = true;
        const auto e = sb[c][i];
        const int saved = mem[static_cast<std::size_t>(e.first)];
        mem[static_cast<std::size_t>(e.first)] = e.second;
        sb[c].erase(sb[c].begin() + static_cast<std::ptrdiff_t>(i));
        go();
        sb[c].insert(sb[c].begin() + static_cast<std::ptrdiff_t>(i), e);
        mem[static_cast<std::size_t>(e.first)] = saved;
      }
      for (std::size_t i = 0; i < ps[c].size(); ++i) {
        if (!may_go(ps[c], done[c], i, model)) continue;
        const Op o = ps[c][i];
        if (o.fence && !sb[c].empty()) continue;
        any = true;
        done[c] |= std::uint32_t{1} << i;
        if (o.fence) {
          go();
        } else if (o.store && model != Model::SC) {
          sb[c].emplace_back(o.line, o.value);
          go();
          sb[c].pop_back();
        } else if (o.store) {
          const int saved = mem[static_cast<std::size_t>(o.line)];
          mem[static_cast<std::size_t>(o.line)] = o.value;
          go();
          mem[static_cast<std::size_t>(o.line)] = saved;
        } else {
          int& r = regs[static_cast<std::size_t>(o.value)];
          const int saved = r;
          const auto* f = forwarded(sb[c], o.line);
          r = f ? f->second : mem[static_cast<std::size_t>(o.line)];
          go();
          r = saved;
        }
        done[c] &= ~(std::uint32_t{1} << i);
      }
    }
    if (!any) out.insert(regs);
  };
  go();
  return out;
}

// The same programs on the coherence engine, every interleaving.
struct Machine : Sink {
  std::vector<Program> progs;
  int lines;
  bool evictions = true;
  HomePolicy policy;
  Model model = Model::SC;
  Fault fault = Fault::None;
  AgentId home_id;
  std::vector<Msg> sent;
  void send(const Msg& m) override { sent.push_back(m); }

  struct State {
    std::vector<CacheLine> cl;  // [core * lines + line]
    std::vector<HomeLine> home;
    std::vector<Msg> net;
    std::vector<std::uint32_t> done;  // per core: the ops performed
    std::vector<int> op;       // per core: the op its access waits for, or -1
    std::vector<int> waiting;  // per core: the line its access waits for, or -1
    Outcome regs;
    std::vector<Buffer> sb;             // per core: its store buffer
    std::vector<int> draining;          // per core: the line of the buffered store draining, or -1
    std::vector<std::size_t> drain_at;  // ... and its place in the buffer
  };

  static void put(std::string& k, std::uint64_t v) { k.append(reinterpret_cast<const char*>(&v), sizeof v); }
  std::string key(const State& s) const {
    std::string k;
    for (const CacheLine& c : s.cl) put(k, static_cast<std::uint64_t>(c.state) << 32 | c.data);
    for (const HomeLine& h : s.home) {
      put(k, h.sharers);
      put(k, static_cast<std::uint64_t>(h.owner + 1) << 40 | static_cast<std::uint64_t>(h.busy) << 32 | h.mem);
      put(k, static_cast<std::uint64_t>(h.cur.type) << 48 | static_cast<std::uint64_t>(h.cur.src) << 32 |
                 static_cast<std::uint64_t>(h.snoops_left) << 8 | static_cast<std::uint64_t>(h.forwarded) << 2 |
                 static_cast<std::uint64_t>(h.early_ack) << 1 | h.await_ack);
      put(k, h.cur.data);
      for (const Msg& m : h.waiting) put(k, static_cast<std::uint64_t>(m.type) << 48 | static_cast<std::uint64_t>(m.src) << 32 | m.data);
      k += '/';
    }
    for (const Msg& m : s.net) {
      put(k, static_cast<std::uint64_t>(m.type) << 48 | static_cast<std::uint64_t>(m.src) << 32 | static_cast<std::uint64_t>(m.dst) << 16 | m.line);
      put(k, m.data << 16 | m.fwd);
    }
    k += '|';
    // waiting is -2 (an eviction outstanding), -1 or a line, and op -1 or
    // an op: shifted to be non-negative, so that neither hides the
    // accesses performed.
    for (std::size_t c = 0; c < s.done.size(); ++c)
      put(k, static_cast<std::uint64_t>(s.done[c]) << 16 | static_cast<std::uint64_t>(s.op[c] + 1) << 8 |
                 static_cast<std::uint64_t>(s.waiting[c] + 2));
    for (int r : s.regs) put(k, static_cast<std::uint64_t>(r));
    for (std::size_t c = 0; c < s.sb.size(); ++c) {
      k += '#';
      put(k, static_cast<std::uint64_t>(s.draining[c] + 1) << 32 | s.drain_at[c]);
      for (const auto& e : s.sb[c]) put(k, static_cast<std::uint64_t>(e.first) << 32 | static_cast<std::uint32_t>(e.second));
    }
    return k;
  }

  // A buffered store completed in the cache: it leaves the buffer.
  static void drained(State& s, int c) {
    Buffer& b = s.sb[static_cast<std::size_t>(c)];
    b.erase(b.begin() + static_cast<std::ptrdiff_t>(s.drain_at[static_cast<std::size_t>(c)]));
    s.draining[static_cast<std::size_t>(c)] = -1;
  }

  // Completes the access of core c if `r` is it (a WriteUnique's is the
  // home's Comp: the request retires with nothing loaded or stored here).
  void complete(State& s, int c, const RnStep& r) {
    if (!r.loaded && !r.stored && !(r.row && (r.row->ops & kOpRetire))) return;
    const std::size_t i = static_cast<std::size_t>(s.op[static_cast<std::size_t>(c)]);
    const Op o = progs[static_cast<std::size_t>(c)][i];
    if (!o.store && r.loaded) s.regs[static_cast<std::size_t>(o.value)] = static_cast<int>(r.value);
    s.done[static_cast<std::size_t>(c)] |= std::uint32_t{1} << i;
    s.op[static_cast<std::size_t>(c)] = -1;
    s.waiting[static_cast<std::size_t>(c)] = -1;
  }

  std::set<Outcome> run(std::size_t* states) {
    const int cores = static_cast<int>(progs.size());
    home_id = static_cast<AgentId>(cores);
    State init;
    init.cl.assign(static_cast<std::size_t>(cores * lines), CacheLine{});
    init.home.assign(static_cast<std::size_t>(lines), HomeLine{});
    init.done.assign(progs.size(), 0);
    init.op.assign(progs.size(), -1);
    init.waiting.assign(progs.size(), -1);
    init.regs.assign(static_cast<std::size_t>(registers(progs)), 0);
    init.sb.assign(progs.size(), Buffer{});
    init.draining.assign(progs.size(), -1);
    init.drain_at.assign(progs.size(), 0);
    std::set<Outcome> out;
    std::unordered_set<std::string> seen{key(init)};
    std::deque<State> todo{init};
    const auto push = [&](State& n) {
      for (const Msg& m : sent) n.net.push_back(m);
      std::sort(n.net.begin(), n.net.end(), msg_less);
      if (seen.insert(key(n)).second) todo.push_back(std::move(n));
    };
    while (!todo.empty()) {
      const State s = std::move(todo.front());
      todo.pop_front();
      ++*states;
      bool done = s.net.empty();
      for (int c = 0; c < cores; ++c)
        done &= all_done(progs[static_cast<std::size_t>(c)], s.done[static_cast<std::size_t>(c)]) && s.sb[static_cast<std::size_t>(c)].empty();
      if (done) out.insert(s.regs);
      for (int c = 0; c < cores; ++c) {
        const Buffer& sb = s.sb[static_cast<std::size_t>(c)];
        // A buffered store drains: a store in the cache, one at a time.
        for (std::size_t i = 0; i < sb.size() && s.draining[static_cast<std::size_t>(c)] < 0; ++i) {
          if (!may_drain(sb, i, model, fault)) continue;
          State n = s;
          sent.clear();
          CacheLine& l = n.cl[static_cast<std::size_t>(c * lines + sb[i].first)];
          const RnStep r = rn_step(l, core_event(RnEvent::Store, l.state), nullptr, static_cast<AgentId>(c), home_id,
                                   static_cast<std::uint64_t>(sb[i].first), static_cast<std::uint64_t>(sb[i].second), *this);
          if (!r.row) continue;  // the line is busy (an eviction in flight): later
          n.draining[static_cast<std::size_t>(c)] = sb[i].first;
          n.drain_at[static_cast<std::size_t>(c)] = i;
          if (r.stored) drained(n, c);
          push(n);
        }
        // The core's next step, each op that may go next, if it is not
        // already waiting for an access (a lambda: its returns leave the
        // step, not the core's other moves).
        for (std::size_t pc = 0; pc < progs[static_cast<std::size_t>(c)].size(); ++pc) [&] {
          if (!may_go(progs[static_cast<std::size_t>(c)], s.done[static_cast<std::size_t>(c)], pc, model, fault) ||
              s.waiting[static_cast<std::size_t>(c)] >= 0)
            return;
          const Op o = progs[static_cast<std::size_t>(c)][pc];
          if (model != Model::SC && !o.once && (o.fence || o.store || (fault != Fault::NoForwarding && forwarded(sb, o.line)))) {
            // Done in the core: a fence once the buffer is empty, a store
            // into the buffer, a load from the youngest buffered store.
            if (o.fence && !sb.empty()) return;
            State n = s;
            if (o.store) n.sb[static_cast<std::size_t>(c)].emplace_back(o.line, o.value);
            else if (!o.fence) n.regs[static_cast<std::size_t>(o.value)] = forwarded(sb, o.line)->second;
            n.done[static_cast<std::size_t>(c)] |= std::uint32_t{1} << pc;
            sent.clear();
            push(n);
            return;
          }
          if (o.fence) {  // no buffer: nothing to wait for
            State n = s;
            n.done[static_cast<std::size_t>(c)] |= std::uint32_t{1} << pc;
            sent.clear();
            push(n);
            return;
          }
          State n = s;
          sent.clear();
          CacheLine& l = n.cl[static_cast<std::size_t>(c * lines + o.line)];
          const RnEvent e = core_event(o.once ? (o.store ? RnEvent::WriteUnique : RnEvent::ReadOnce)
                                              : (o.store ? RnEvent::Store : RnEvent::Load),
                                       l.state);
          const RnStep r = rn_step(l, e, nullptr, static_cast<AgentId>(c), home_id,
                                   static_cast<std::uint64_t>(o.line), static_cast<std::uint64_t>(o.value), *this);
          if (r.row) {
            n.op[static_cast<std::size_t>(c)] = static_cast<int>(pc);
            if (r.loaded || r.stored) complete(n, c, r);
            else n.waiting[static_cast<std::size_t>(c)] = o.line;
            push(n);
          }
        }();
        // An eviction of any stable line the core holds, at any moment.
        for (int line = 0; evictions && line < lines; ++line) {
          const CacheLine& l = s.cl[static_cast<std::size_t>(c * lines + line)];
          if (!rn_row(l.state, RnEvent::Replace) || s.waiting[static_cast<std::size_t>(c)] >= 0) continue;
          State n = s;
          sent.clear();
          n.waiting[static_cast<std::size_t>(c)] = -2;  // an eviction outstanding: the core's next access waits
          rn_step(n.cl[static_cast<std::size_t>(c * lines + line)], RnEvent::Replace, nullptr, static_cast<AgentId>(c), home_id,
                  static_cast<std::uint64_t>(line), 0, *this);
          push(n);
        }
      }
      for (std::size_t i = 0; i < s.net.size(); ++i) {
        if (i && !msg_less(s.net[i - 1], s.net[i])) continue;
        State n = s;
        sent.clear();
        const Msg m = n.net[i];
        n.net.erase(n.net.begin() + static_cast<std::ptrdiff_t>(i));
        if (m.dst == home_id) {
          home_receive(n.home[static_cast<std::size_t>(m.line)], m, home_id, *this, policy);
        } else {
          // A store completing on this message writes its value: the
          // draining buffered store's, or its program's.
          const bool drain = n.draining[m.dst] == static_cast<int>(m.line);
          std::uint64_t value = 0;
          if (drain) value = static_cast<std::uint64_t>(n.sb[m.dst][n.drain_at[m.dst]].second);
          else if (n.waiting[m.dst] == static_cast<int>(m.line))
            value = static_cast<std::uint64_t>(progs[m.dst][static_cast<std::size_t>(n.op[m.dst])].value);
          const RnStep r = rn_step(n.cl[static_cast<std::size_t>(m.dst * lines + static_cast<int>(m.line))], rn_event_of(m.type), &m,
                                   m.dst, home_id, m.line, value, *this);
          if (drain) {
            if (r.stored) drained(n, m.dst);
          } else if (n.waiting[m.dst] == -2 && r.row && (r.row->ops & kOpRetire)) {
            n.waiting[m.dst] = -1;  // the eviction is over
          } else if (n.waiting[m.dst] == static_cast<int>(m.line)) {
            complete(n, m.dst, r);
          }
        }
        push(n);
      }
    }
    return out;
  }
};

std::set<Outcome> on_engine(const std::vector<Program>& ps, bool evictions, const HomePolicy& policy, Model model, Fault fault,
                            std::size_t* states) {
  Machine m;
  m.progs = ps;
  m.lines = lines_of(ps);
  m.evictions = evictions;
  m.policy = policy;
  m.model = model;
  m.fault = fault;
  return m.run(states);
}

Op ld(int line, int reg) { return Op{false, line, reg}; }
Op st(int line, int value) { return Op{true, line, value}; }
Op ld_once(int line, int reg) { return Op{false, line, reg, true}; }
Op st_once(int line, int value) { return Op{true, line, value, true}; }
Op fence() { return Op{false, 0, 0, false, true}; }
// A load whose address depends on the core's older loads.
Op ld_dep(int line, int reg) { return Op{false, line, reg, false, false, true}; }
// A store whose address, value or execution depends on the core's older loads.
Op st_dep(int line, int value) { return Op{true, line, value, false, false, true}; }

// Runs a litmus test on cores of `model`, with homes that return data
// themselves, homes that have owners forward it, and homes that keep dirty
// lines shared (an SD owner answers for the stale memory): the engine's
// outcomes equal the model's on a flat memory, none is forbidden, and each
// of `relaxed` (outcomes the model allows and SC does not) is observed.
// With `evictions`, any core may also give up any line it holds at any
// moment.
void litmus(const char* name, const std::vector<Program>& ps, const std::set<Outcome>& forbidden, bool evictions = true,
            Model model = Model::SC, const std::set<Outcome>& relaxed = {}) {
  for (const Program& p : ps)
    for (const Op& o : p)
      if (o.once && model != Model::SC) FAIL() << name << ": accesses that keep no copy are tested on SC cores only";
  const std::set<Outcome> want = model_outcomes(ps, model);
  const std::set<Outcome> sc = model_outcomes(ps, Model::SC);
  for (const Outcome& r : relaxed) {
    EXPECT_EQ(sc.count(r), 0u) << name << ": the relaxed outcome is allowed by SC (a wrong test)";
    EXPECT_EQ(want.count(r), 1u) << name << ": the relaxed outcome is not allowed by " << model_name(model) << " (a wrong test)";
  }
  for (const int p : {0, 1, 2}) {
    HomePolicy policy;
    policy.forward = p == 1;
    policy.owned = p == 2;
    std::size_t states = 0;
    const std::set<Outcome> got = on_engine(ps, evictions, policy, model, Fault::None, &states);
    const char* how = p == 1 ? "forwarding" : p == 2 ? "dirty sharing" : "through the home";
    EXPECT_EQ(got, want) << name << ", " << model_name(model) << ", " << how;
    for (const Outcome& f : forbidden) {
      EXPECT_EQ(want.count(f), 0u) << name << ": the forbidden outcome is allowed by " << model_name(model) << " itself (a wrong test)";
      EXPECT_EQ(got.count(f), 0u) << name << ", " << how << ": a forbidden outcome was observed";
    }
    for (const Outcome& r : relaxed) EXPECT_EQ(got.count(r), 1u) << name << ", " << how << ": a relaxed outcome never seen";
    std::printf("%s, %s, %s: %zu outcomes, %zu states\n", name, model_name(model), how, got.size(), states);
  }
}

constexpr int x = 0, y = 1;

// Coherence of one location: two reads in order never see writes out of order.
TEST(CoherenceLitmus, CoRR) { litmus("CoRR", {{st(x, 1)}, {ld(x, 0), ld(x, 1)}}, {{1, 0}}); }
// A read after a core's own write sees it or a later write, never the older value.
TEST(CoherenceLitmus, CoWR) { litmus("CoWR", {{st(x, 1), ld(x, 0)}, {st(x, 2)}}, {{0}}); }
// A read before a core's own write never sees that write.
TEST(CoherenceLitmus, CoRW) { litmus("CoRW", {{ld(x, 0), st(x, 1)}, {st(x, 2)}}, {{1}}); }
// Two writes of one core reach every reader in order.
TEST(CoherenceLitmus, CoWW) { litmus("CoWW", {{st(x, 1), st(x, 2)}, {ld(x, 0), ld(x, 1)}}, {{2, 1}}); }
// Message passing: the flag seen set, the data seen old is forbidden (TSO; Arm with barriers).
TEST(CoherenceLitmus, MessagePassing) { litmus("MP", {{st(x, 1), st(y, 1)}, {ld(y, 0), ld(x, 1)}}, {{1, 0}}); }
// Store buffering: both reads old is allowed by TSO and Arm, but not by SC cores.
TEST(CoherenceLitmus, StoreBuffering) { litmus("SB", {{st(x, 1), ld(y, 0)}, {st(y, 1), ld(x, 1)}}, {{0, 0}}); }
// The same with accesses that keep no copy (an I/O-coherent device's
// ReadOnce and WriteUnique) beside caching ones: two snapshots in order
// never see writes out of order, and a producer that writes its data whole
// at the home before setting a flag is never seen with the flag set and
// the data old.
TEST(CoherenceLitmus, CoRROnce) { litmus("CoRR once", {{st_once(x, 1)}, {ld_once(x, 0), ld_once(x, 1)}}, {{1, 0}}); }
TEST(CoherenceLitmus, CoWWOnce) { litmus("CoWW once", {{st_once(x, 1), st(x, 2)}, {ld_once(x, 0), ld(x, 1)}}, {{2, 1}}); }
TEST(CoherenceLitmus, MessagePassingOnce) {
  litmus("MP once", {{st_once(x, 1), st(y, 1)}, {ld(y, 0), ld_once(x, 1)}}, {{1, 0}});
  litmus("MP once, flag too", {{st(x, 1), st_once(y, 1)}, {ld_once(y, 0), ld(x, 1)}}, {{1, 0}});
}
// Independent reads of independent writes: two readers disagreeing on the
// order is forbidden (TSO, multi-copy-atomic Arm). Four cores: searched
// without evictions, which multiply its states past a CI budget.
TEST(CoherenceLitmus, Iriw) {
  litmus("IRIW", {{st(x, 1)}, {st(y, 1)}, {ld(x, 0), ld(y, 1)}, {ld(y, 2), ld(x, 3)}}, {{1, 0, 1, 0}}, false);
}

// x86-TSO cores (the S002 hosts): the coherence tests, message passing
// (CC-NIC's inline flag: a descriptor's data, then its ready flag) and
// load buffering stay forbidden; store buffering's both-old outcome
// appears, and an MFENCE between each store and load forbids it again.
// The four coherence tests on cores of `model` (CoWR: the core's own store
// is seen at once, from its buffer).
void coherence_tests(Model model) {
  litmus("CoRR", {{st(x, 1)}, {ld(x, 0), ld(x, 1)}}, {{1, 0}}, true, model);
  litmus("CoWR", {{st(x, 1), ld(x, 0)}, {st(x, 2)}}, {{0}}, true, model);
  litmus("CoRW", {{ld(x, 0), st(x, 1)}, {st(x, 2)}}, {{1}}, true, model);
  litmus("CoWW", {{st(x, 1), st(x, 2)}, {ld(x, 0), ld(x, 1)}}, {{2, 1}}, true, model);
}
TEST(CoherenceLitmus, TsoCoherence) { coherence_tests(Model::TSO); }
TEST(CoherenceLitmus, TsoMessagePassing) {
  litmus("MP", {{st(x, 1), st(y, 1)}, {ld(y, 0), ld(x, 1)}}, {{1, 0}}, true, Model::TSO);
  litmus("LB", {{ld(x, 0), st(y, 1)}, {ld(y, 1), st(x, 1)}}, {{1, 1}}, true, Model::TSO);
}
TEST(CoherenceLitmus, TsoStoreBuffering) {
  litmus("SB", {{st(x, 1), ld(y, 0)}, {st(y, 1), ld(x, 1)}}, {}, true, Model::TSO, {{0, 0}});
  litmus("SB+mfences", {{st(x, 1), fence(), ld(y, 0)}, {st(y, 1), fence(), ld(x, 1)}}, {{0, 0}}, true, Model::TSO);
}
TEST(CoherenceLitmus, TsoIriw) {
  litmus("IRIW", {{st(x, 1)}, {st(y, 1)}, {ld(x, 0), ld(y, 1)}, {ld(y, 2), ld(x, 3)}}, {{1, 0, 1, 0}}, false, Model::TSO);
}

// Cores whose stores drain in any order across lines (Arm's, without its
// load reordering): message passing's flag-set, data-old outcome appears,
// and a barrier between the producer's stores forbids it; the coherence
// tests stay forbidden.
TEST(CoherenceLitmus, WeakStores) {
  coherence_tests(Model::WeakStores);
  litmus("MP", {{st(x, 1), st(y, 1)}, {ld(y, 0), ld(x, 1)}}, {}, true, Model::WeakStores, {{1, 0}});
  litmus("MP+dmb", {{st(x, 1), fence(), st(y, 1)}, {ld(y, 0), ld(x, 1)}}, {{1, 0}}, true, Model::WeakStores);
}

// Arm cores (S000's N1 hosts): accesses to other lines perform in any
// order, so message passing needs a barrier on both sides, and load
// buffering's and IRIW's relaxed outcomes appear until barriers forbid
// them; accesses to one line stay in order (the coherence tests).
TEST(CoherenceLitmus, ArmCoherence) { coherence_tests(Model::Arm); }
TEST(CoherenceLitmus, ArmMessagePassing) {
  litmus("MP", {{st(x, 1), st(y, 1)}, {ld(y, 0), ld(x, 1)}}, {}, true, Model::Arm, {{1, 0}});
  // A barrier on the writer's side only: the reader's loads still pass each other.
  litmus("MP+dmb.w", {{st(x, 1), fence(), st(y, 1)}, {ld(y, 0), ld(x, 1)}}, {}, true, Model::Arm, {{1, 0}});
  litmus("MP+dmbs", {{st(x, 1), fence(), st(y, 1)}, {ld(y, 0), fence(), ld(x, 1)}}, {{1, 0}}, true, Model::Arm);
  // The reader's data load addressed through the flag's value (a
  // descriptor's buffer found through its ring entry) needs no barrier.
  litmus("MP+dmb.w+addr", {{st(x, 1), fence(), st(y, 1)}, {ld(y, 0), ld_dep(x, 1)}}, {{1, 0}}, true, Model::Arm);
}
TEST(CoherenceLitmus, ArmLoadAndStoreBuffering) {
  litmus("LB", {{ld(x, 0), st(y, 1)}, {ld(y, 1), st(x, 1)}}, {}, true, Model::Arm, {{1, 1}});
  litmus("LB+dmbs", {{ld(x, 0), fence(), st(y, 1)}, {ld(y, 1), fence(), st(x, 1)}}, {{1, 1}}, true, Model::Arm);
  // Each store depending on its core's load (its value computed from it,
  // or behind a branch on it) forbids it as barriers do; a dependency on
  // one side alone does not.
  litmus("LB+deps", {{ld(x, 0), st_dep(y, 1)}, {ld(y, 1), st_dep(x, 1)}}, {{1, 1}}, true, Model::Arm);
  litmus("LB+dep+po", {{ld(x, 0), st_dep(y, 1)}, {ld(y, 1), st(x, 1)}}, {}, true, Model::Arm, {{1, 1}});
  litmus("SB", {{st(x, 1), ld(y, 0)}, {st(y, 1), ld(x, 1)}}, {}, true, Model::Arm, {{0, 0}});
  litmus("SB+dmbs", {{st(x, 1), fence(), ld(y, 0)}, {st(y, 1), fence(), ld(x, 1)}}, {{0, 0}}, true, Model::Arm);
}
// Arm is multi-copy atomic: the readers disagree only by reading out of
// order, which a barrier between their loads forbids.
TEST(CoherenceLitmus, ArmIriw) {
  litmus("IRIW", {{st(x, 1)}, {st(y, 1)}, {ld(x, 0), ld(y, 1)}, {ld(y, 2), ld(x, 3)}}, {}, false, Model::Arm, {{1, 0, 1, 0}});
  litmus("IRIW+dmbs", {{st(x, 1)}, {st(y, 1)}, {ld(x, 0), fence(), ld(y, 1)}, {ld(y, 2), fence(), ld(x, 3)}}, {{1, 0, 1, 0}}, false,
         Model::Arm);
}

// The checks above can fail: a store buffer that does not forward to its
// core's own loads lets a core miss its own store (CoWR), a TSO buffer
// that drains out of order lets message passing's reader see the flag
// without the data, and an Arm core whose loads pass older loads to their
// own line reads a line's writes out of order (CoRR). Each is seen on the
// engine and named.
TEST(CoherenceLitmus, BrokenStoreBuffersAreCaught) {
  const std::vector<Program> cowr = {{st(x, 1), ld(x, 0)}, {st(x, 2)}};
  const std::vector<Program> mp = {{st(x, 1), st(y, 1)}, {ld(y, 0), ld(x, 1)}};
  std::size_t states = 0;
  const auto no_fwd = on_engine(cowr, true, HomePolicy{}, Model::TSO, Fault::NoForwarding, &states);
  EXPECT_EQ(no_fwd.count(Outcome{0}), 1u) << "a core that does not see its own buffered store was not caught";
  EXPECT_NE(no_fwd, model_outcomes(cowr, Model::TSO));
  const auto unordered = on_engine(mp, true, HomePolicy{}, Model::TSO, Fault::TsoOutOfOrder, &states);
  EXPECT_EQ(unordered.count(Outcome{1, 0}), 1u) << "a TSO store buffer draining out of order was not caught";
  EXPECT_NE(unordered, model_outcomes(mp, Model::TSO));
  const std::vector<Program> corr = {{st(x, 1)}, {ld(x, 0), ld(x, 1)}};
  const auto passing = on_engine(corr, true, HomePolicy{}, Model::Arm, Fault::LoadsPassSameLine, &states);
  EXPECT_EQ(passing.count(Outcome{1, 0}), 1u) << "an Arm core reading one line out of order was not caught";
  EXPECT_NE(passing, model_outcomes(corr, Model::Arm));
}

}  // namespace
}  // namespace hx::coherence
