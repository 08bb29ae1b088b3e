#include "models/coherence/agents.h"

#include <algorithm>

#include "models/coherence/checker.h"
#include "models/core/error.h"
#include "models/core/pool.h"

namespace hx::coherence {

namespace {
enum : std::uint32_t { kAccess, kReceive, kCacheData };
using PacketPool = Pool<Packet>;

// A cache of `lines` lines (0: none or unlimited) in sets of `ways`.
bool whole_sets(int lines, int ways) { return lines == 0 || (lines > 0 && ways >= 1 && lines % ways == 0); }

Packet* packet_of(const Msg& m) {
  Packet* p = PacketPool::instance().get();
  p->msg = m;
  p->len = msg_data_bytes(m.type);
  p->ready = now_tick();
  return p;
}
}  // namespace

// --- caching agent ---

CachingAgent::CachingAgent(const std::string& name, const CachingAgentConfig& cfg)
    : CachingAgent(name, cfg, nullptr) {}

CachingAgent::CachingAgent(const std::string& name, const CachingAgentConfig& cfg, Channel& channel)
    : CachingAgent(name, cfg, &channel) {}

CachingAgent::CachingAgent(const std::string& name, const CachingAgentConfig& cfg, Channel* channel)
    : m_cfg(cfg), m_sched(name), m_channel(channel), m_name(name),
      m_mshr(name + ".mshr", static_cast<unsigned>(cfg.mshrs), static_cast<unsigned>(cfg.merge)) {
  if (!m_channel) {
    m_direct = std::make_unique<DirectLink>(*this, name + ".port", cfg.port);
    m_channel = m_direct.get();
  }
  if (!whole_sets(cfg.capacity, cfg.ways))
    sim_fail(name, "a private cache's capacity must be a multiple of its ways");
  if (cfg.silent && (cfg.make_unique || cfg.read_clean))
    sim_fail(name, "a core that gives clean lines up silently has loads and stores only (no MakeUnique, no ReadClean)");
  if (cfg.capacity > 0) m_sets.resize(static_cast<std::size_t>(cfg.capacity / cfg.ways));
  if (!whole_sets(cfg.l1_lines, cfg.l1_ways))
    sim_fail(name, "an L1's capacity must be a multiple of its ways");
  if (cfg.l1_lines > 0 && cfg.capacity > 0 && cfg.l1_lines > cfg.capacity)
    sim_fail(name, "an L1 holds some of its private cache's lines: it cannot be larger than that cache");
  if (cfg.l1_lines > 0)
    m_l1 = std::make_unique<cache::TagArray<std::uint64_t>>(static_cast<std::size_t>(cfg.l1_lines / cfg.l1_ways),
                                                            static_cast<unsigned>(cfg.l1_ways), cache::Policy::Lru,
                                                            name + ".l1");
  if (cfg.victims < 0) sim_fail(name, "a replacement buffer's size must not be negative");
  auto& reg = StatsRegistry::instance();
  reg.add_counter(name + ".accesses", &accesses, "1", "core loads and stores");
  reg.add_counter(name + ".hits", &hits, "1", "accesses done without a request");
  reg.add_counter(name + ".misses", &misses, "1", "accesses that sent a request");
  if (m_l1) reg.add_counter(name + ".l1_hits", &l1_hits, "1", "accesses timed as hits in the core's L1 when issued (a snoop may still make one a miss)");
  reg.add_counter(name + ".merged", &merged, "1", "accesses merged into a request outstanding for their line");
  reg.add_counter(name + ".prefetches", &prefetches, "line", "lines read by the next-line prefetcher");
  reg.add_counter(name + ".evictions", &evictions, "line", "lines given up for room in the private cache");
  if (cfg.silent) reg.add_counter(name + ".drops", &drops, "line", "clean lines given up for room without telling their home");
  reg.add_counter(name + ".writebacks", &writebacks, "line", "dirty lines written back for room in the private cache");
  reg.add_counter(name + ".victim_waits", &victim_waits, "1", "misses held back while the replacement buffer was full");
  reg.add_counter(name + ".forwards", &forwards, "line", "lines sent straight to a requesting agent on a forwarding snoop");
  reg.add_counter(name + ".atomics_far", &atomics_far, "1", "atomics sent to the home (the line not held)");
  reg.add_counter(name + ".atomics_near", &atomics_near, "1", "atomics run in this cache");
  reg.add_counter(name + ".uncached", &uncached, "1", "accesses that kept no copy (a ReadOnce, WriteUnique, ReadNoSnp or WriteNoSnp sent to the home)");
}

CohPort& CachingAgent::port() {
  if (!m_direct) sim_fail(m_name, "the agent has no direct link: its messages travel on a channel");
  return m_direct->port();
}

void CachingAgent::watch(std::uint64_t line, LineWatcher& w) {
  if (!rn_readable(state(line))) {
    w.line_lost(line);
    return;
  }
  if (!m_watch.emplace(line, &w).second) sim_fail(m_name, "line " + std::to_string(line) + " is watched already");
}

RnState CachingAgent::state(std::uint64_t line) const {
  const CacheLine* l = m_lines.find(line);
  return l ? l->state : RnState::I;
}

std::uint64_t CachingAgent::data(std::uint64_t line) const {
  const CacheLine* l = m_lines.find(line);
  return l ? l->data : 0;
}

void CachingAgent::access(bool store, std::uint64_t line, std::uint64_t value, std::uint64_t tag, CoreSide& core,
                          std::uint64_t mask, Ledger* led) {
  issue(store ? RnEvent::Store : RnEvent::Load, line, value, mask, tag, core, led);
}

void CachingAgent::loads_and_stores_only(const char* what) const {
  if (m_cfg.silent) sim_fail(m_name, std::string(what) + " from a core that gives clean lines up silently (it has loads and stores only)");
}

void CachingAgent::access_once(bool store, std::uint64_t line, std::uint64_t value, std::uint64_t tag, CoreSide& core,
                               Ledger* led) {
  loads_and_stores_only(store ? "a WriteUnique" : "a ReadOnce");
  issue(store ? RnEvent::WriteUnique : RnEvent::ReadOnce, line, value, ~0ull, tag, core, led);
}

void CachingAgent::access_nosnp(bool store, std::uint64_t line, std::uint64_t value, std::uint64_t tag, CoreSide& core,
                                Ledger* led) {
  loads_and_stores_only(store ? "a WriteNoSnp" : "a ReadNoSnp");
  issue(store ? RnEvent::WriteNoSnp : RnEvent::ReadNoSnp, line, value, ~0ull, tag, core, led);
}

void CachingAgent::evict(std::uint64_t line, std::uint64_t tag, CoreSide& core) {
  issue(RnEvent::Replace, line, 0, ~0ull, tag, core, nullptr);
}

void CachingAgent::atomic(const Rmw& rmw, std::uint64_t line, std::uint64_t tag, CoreSide& core, Ledger* led) {
  loads_and_stores_only("an atomic");
  issue(RnEvent::Count, line, 0, ~0ull, tag, core, led)->rmw = rmw;  // the event is chosen at look-up
}

CachingAgent::Access* CachingAgent::issue(RnEvent op, std::uint64_t line, std::uint64_t value, std::uint64_t mask,
                                          std::uint64_t tag, CoreSide& core, Ledger* led) {
  // Between issue and look-up the access waits in the process's pool.
  Access* a = Pool<Access>::instance().get();
  a->op = op;
  a->line = line;
  a->value = value;
  a->mask = mask;
  a->tag = tag;
  a->rmw = Rmw{};
  a->core = &core;
  a->led = led;
  a->l1 = false;
  a->next = nullptr;
  const Tick at = now_tick() + lookup_of(op, line, &a->l1);
  if (m_batch_tail && m_batch_at == at && Scheduler::posted() == m_batch_posted) {
    m_batch_tail->next = a;
    m_batch_tail = a;
    return a;
  }
  m_sched.at(at, this, kAccess, 0, a);
  m_batch_tail = a;
  m_batch_at = at;
  m_batch_posted = Scheduler::posted();
  return a;
}

void CachingAgent::on_action(std::uint32_t kind, std::uint64_t, void* ptr) {
  if (kind == kAccess) {
    m_batch_tail = nullptr;  // no access joins a batch once one has started
    for (Access* p = static_cast<Access*>(ptr); p;) {
      const Access a = *p;
      Pool<Access>::instance().put(p);
      p = a.next;
      ++accesses;
      run(a);
    }
  } else {
    receive(static_cast<Packet*>(ptr));
  }
}

Tick CachingAgent::lookup_of(RnEvent op, std::uint64_t line, bool* in_l1) {
  if (!m_l1 && !m_cfg.hit) return m_cfg.lookup;
  if ((op != RnEvent::Load && op != RnEvent::Store) || m_mshr.outstanding(line)) return m_cfg.lookup;
  const CacheLine* l = m_lines.find(line);
  if (!l || !(op == RnEvent::Load ? rn_readable(l->state) : rn_writable(l->state))) return m_cfg.lookup;
  if (m_l1 && m_l1->find(m_l1->set_of(line), [line](std::uint64_t t) { return t == line; })) {
    ++l1_hits;
    *in_l1 = true;
    return m_cfg.l1_hit;
  }
  return m_cfg.hit ? m_cfg.hit : m_cfg.lookup;
}

void CachingAgent::l1_fill(std::uint64_t line, RnState state) {
  if (!m_l1 || !rn_readable(state)) return;
  m_l1->place(m_l1->set_of(line), [line](std::uint64_t t) { return t == line; }) = line;
}

void CachingAgent::l1_drop(std::uint64_t line) {
  if (m_l1) m_l1->invalidate(m_l1->set_of(line), [line](std::uint64_t t) { return t == line; });
}

// One access at the controller: it hits, joins the request outstanding for
// its line, waits for an MSHR, or sends a request.
void CachingAgent::run(const Access& a) {
  if (a.led) a.led->charge(Stage::Coherence, now_tick());  // the look-up, and any wait for an MSHR or a victim
  if (m_mshr.outstanding(a.line)) {
    if (m_mshr.request(a.line, a) == cache::MshrTable<Access>::Outcome::Merged) ++merged;
    else m_blocked.push_back(a);  // its entry is full of accesses: wait
    return;
  }
  if (!m_victims.empty() && m_victims.count(a.line)) {  // being given up for room: wait until it is gone
    m_blocked.push_back(a);
    return;
  }
  CacheLine& l = m_lines[a.line];
  // An atomic runs at the home from a line not held (far), here otherwise
  // (near: a store whose value is the operation's).
  const bool atomic = a.op == RnEvent::Count;
  const bool far = atomic && m_cfg.far_atomics && l.state == RnState::I;
  // An access that keeps no copy goes to the home from a line not held
  // and is loaded or stored here from one held (core_event); a whole-line
  // store takes its line by MakeUnique where the agent is set to.
  // A load of a line not held asks for it as the agent is set to (read_load()).
  // A store of some lanes takes its line empty where the agent is set to
  // (CleanUnique, protocol.h). A near atomic, or a store of part of a
  // lane, to a line held empty or partial fetches the line whole first
  // (the load's row; the access runs again when the line is here).
  const bool whole = a.op == RnEvent::Store && m_cfg.make_unique && a.mask == ~0ull;
  const bool part = a.op == RnEvent::Store && m_cfg.partial && a.mask != ~0ull && lane_aligned(a.mask);
  const bool fetch = (l.state == RnState::UCE || l.state == RnState::UDP) &&
                     ((atomic && !far) || (a.op == RnEvent::Store && !lane_aligned(a.mask)));
  const RnEvent e = fetch    ? RnEvent::Load
                    : atomic ? (far ? atomic_event(a.rmw.op) : RnEvent::Store)
                             : core_event(whole  ? RnEvent::StoreLine
                                          : part ? RnEvent::StorePtl
                                          : a.op == RnEvent::Load ? read_load()
                                                                  : a.op,
                                          l.state);
  if ((e == RnEvent::ReadNoSnp || e == RnEvent::WriteNoSnp) && l.state != RnState::I)
    sim_fail_with(m_name, [&] {
      return std::string("a ") + rn_event_name(e) + " to line " + hex(a.line) + ", which this agent holds (" +
             rn_state_name(l.state) + "): a line no agent caches must not be cached";
    });
  if (e == RnEvent::Replace && l.state == RnState::I) {  // nothing to give up
    ++hits;
    a.core->access_done(a.tag, 0, now_tick());
    return;
  }
  const RnRow* row = rn_row(l.state, e);
  if (!row)
    sim_fail_with(m_name, [&] {
      return std::string("a core access found line in ") + rn_state_name(l.state) + " with no request outstanding";
    });
  if (row->send != MsgType::None && m_mshr.full()) {
    m_blocked.push_back(a);
    return;
  }
  // A miss that will fill a full set needs a victim's entry: it waits
  // while the replacement buffer is full (a request that brings no line,
  // or an upgrade of a line held, needs none).
  if (l.state == RnState::I &&
      (row->next == RnState::IS_P || row->next == RnState::IM_P || row->next == RnState::MU_P || row->next == RnState::SMI_P) &&
      no_room_for(a.line)) {
    ++victim_waits;
    m_blocked.push_back(a);
    return;
  }
  const RnState before = l.state;
  m_step_led = a.led;
  const RnStep r = rn_step(l, e, nullptr, m_cfg.id, home_of(a.line), a.line, a.value, *this, a.mask, atomic ? &a.rmw : nullptr);
  m_step_led = nullptr;
  check(a.line, before, l.state, r);
  placed(a.line, before, l.state);
  if (atomic) ++(far ? atomics_far : atomics_near);
  if (e == RnEvent::ReadOnce || e == RnEvent::WriteUnique || e == RnEvent::ReadNoSnp || e == RnEvent::WriteNoSnp) ++uncached;
  if (r.loaded || r.stored) {
    ++hits;
    if (!a.l1) l1_fill(a.line, l.state);  // (an L1 hit's use was its look-up)
    a.core->access_done(a.tag, r.rmw ? r.old : r.value, now_tick());
    return;
  }
  ++misses;
  m_mshr.request(a.line, a);
  if (m_cfg.prefetch > 0 && a.core) prefetch_after(a.line);
}

// The prefetcher's reads: shared copies of the lines after `line`, as
// loads with no core to tell (an access merged behind one runs again when
// it is done, as behind any request).
void CachingAgent::prefetch_after(std::uint64_t line) {
  constexpr std::uint64_t kPageLines = 4096 / kLineB;
  for (std::uint64_t next = line + 1; next <= line + static_cast<std::uint64_t>(m_cfg.prefetch); ++next) {
    if (next / kPageLines != line / kPageLines || m_mshr.in_use() + 1 >= m_mshr.capacity()) return;
    if (no_room_for(next)) continue;  // no room to make
    if (m_mshr.outstanding(next)) continue;
    CacheLine& l = m_lines[next];
    if (l.state != RnState::I) continue;
    const RnStep r = rn_step(l, read_load(), nullptr, m_cfg.id, home_of(next), next, 0, *this);
    check(next, RnState::I, l.state, r);
    Access a;
    a.op = RnEvent::Load;
    a.line = next;
    ++prefetches;
    m_mshr.request(next, a);
  }
}

// Every step goes past the checker (checker.h): single writer, last value.
void CachingAgent::check(std::uint64_t line, RnState before, RnState after, const RnStep& r) {
  CoherenceChecker& c = CoherenceChecker::instance();
  c.observe(m_cfg.id, line, before, after, r.loaded, r.stored && !r.rmw, r.value, r.mask);
  if (r.rmw) c.atomic(m_cfg.id, line, r.old, r.value, false);
}

void CachingAgent::send(const Msg& m) {
  if (m.type == MsgType::CompDataSC || m.type == MsgType::CompDataUC) ++forwards;  // only a home grants otherwise
  Packet* p = packet_of(m);
  if (msg_class(m.type) == MsgClass::Req) p->ready += m_cfg.request_latency;
  if (m_step_led) {
    p->ledger = fork_ledger(m_step_led);
    p->ledger->charge(Stage::Coherence, p->ready);
  }
  m_channel->send(p);
}

void CachingAgent::arrive(Channel&, Packet* p, Tick tail) { m_sched.at(tail + m_cfg.lookup, this, kReceive, 0, p); }

void CachingAgent::receive(Packet* p) {
  m_channel->release(*p);
  const Msg m = p->msg;
  // A timed transaction's message: its path so far, on which the messages
  // this step sends and the access it completes go on.
  Ledger* led = p->ledger;
  p->ledger = nullptr;
  PacketPool::instance().put(p);
  if (led) led->charge(Stage::Coherence, now_tick());
  const RnEvent e = rn_event_of(m.type);
  if (e == RnEvent::Count) sim_fail_with(m_name, [&] { return "received " + describe(m); });
  // A store completing on this message writes the value (the bits of its
  // mask) of the access that sent the request (the first of its MSHR entry).
  const Access* first = m_mshr.first(m.line);
  const std::uint64_t value = first ? first->value : 0;
  const std::uint64_t mask = first ? first->mask : ~0ull;
  const Rmw* rmw = first && first->op == RnEvent::Count ? &first->rmw : nullptr;  // a near atomic's store
  CacheLine& l = m_lines[m.line];
  const RnState before = l.state;
  m_step_led = led;
  const RnStep r = rn_step(l, e, &m, m_cfg.id, home_of(m.line), m.line, value, *this, mask, rmw);
  m_step_led = nullptr;
  check(m.line, before, l.state, r);
  if (rn_readable(before) && !rn_readable(l.state)) lost(m.line);
  placed(m.line, before, l.state);
  if (!(r.row->ops & kOpRetire)) return drop_ledger(led);
  if (!m_victims.empty() && m_victims.erase(m.line)) {  // a victim is gone: sets beyond their ways, then the accesses that waited
    drop_ledger(led);
    evict_overfull();
    retry_blocked();
    return;
  }
  // The request is over: its access is done, and the accesses merged
  // behind it run again, in order (a load behind a store now hits). The
  // access itself runs again if the answer did not do it (r.again: a store
  // whose line came empty), or did a load for it (a store or near atomic
  // whose line, held empty or partial, was fetched whole first).
  // (Scratch lists are members: nothing is allocated here once they have grown.)
  m_again.clear();
  bool head = true;
  const bool again = r.again || (first && (first->op == RnEvent::Store || first->op == RnEvent::Count) && r.loaded && !r.stored);
  const Tick done = now_tick() + (r.stored ? m_cfg.store_fill : 0);
  m_mshr.complete(m.line, [&](const Access& a) {
    if (!head || again) {
      m_again.push_back(a);
    } else if (a.core) {  // (a prefetch tells no core)
      l1_fill(m.line, l.state);
      if (a.led) {  // the access's time went where its request's answer's did
        if (led) a.led->copy_from(*led);
        a.led->charge(Stage::Coherence, done);
      }
      a.core->access_done(a.tag, r.rmw ? r.old : a.op == RnEvent::WriteUnique || a.op == RnEvent::WriteNoSnp ? a.value : r.value, done);
    }
    head = false;
  });
  drop_ledger(led);
  for (const Access& a : m_again) run(a);
  retry_blocked();  // an MSHR is free
}

// The accesses that waited for an MSHR or a victim, oldest first.
void CachingAgent::retry_blocked() {
  if (m_blocked.empty()) return;
  m_retry.assign(m_blocked.begin(), m_blocked.end());
  m_blocked.clear();
  for (const Access& a : m_retry) run(a);
}

std::string CachingAgent::status() const {
  std::string s;
  m_lines.for_each([&](std::uint64_t line, const CacheLine& l) {
    if (!rn_stable(l.state)) s += " line " + hex(line) + " in " + rn_state_name(l.state) + ";";
  });
  if (!m_blocked.empty()) s += " " + std::to_string(m_blocked.size()) + " access(es) held back;";
  if (!m_victims.empty()) s += " " + std::to_string(m_victims.size()) + " victim(s) awaiting WBAck;";
  if (!m_overfull.empty()) s += " " + std::to_string(m_overfull.size()) + " set(s) beyond their ways awaiting a victim's entry;";
  return s;
}

void CachingAgent::lost(std::uint64_t line) {
  if (m_watch.empty()) return;
  const auto it = m_watch.find(line);
  if (it == m_watch.end()) return;
  LineWatcher* w = it->second;
  m_watch.erase(it);
  w->line_lost(line);
}

// A line that came to hold data goes to the most recently used end of its
// set, one that was used moves there, one that lost its data leaves; a set
// over its ways gives up its least recently used line that has no request
// outstanding (an upgrade's line stays, the line just placed never goes).
void CachingAgent::placed(std::uint64_t line, RnState before, RnState after) {
  const bool had = rn_placed(before), has = rn_placed(after);  // (a line held empty or partial has a place too)
  if (rn_readable(before) && !rn_readable(after)) l1_drop(line);
  if (m_sets.empty()) return;
  if (!had && !has) return;
  std::vector<std::uint64_t>& set = m_sets[line % m_sets.size()];
  if (had) {
    const auto it = std::find(set.begin(), set.end(), line);
    if (it == set.end())
      sim_fail_with(m_name,
                    [&] { return "line " + std::to_string(line) + " holds data but is in no set of the cache"; });
    set.erase(it);
  }
  if (!has) return;
  set.push_back(line);
  if (set.size() <= static_cast<std::size_t>(m_cfg.ways)) return;
  if (victims_full()) {  // the line stays beyond its set's ways until an entry frees
    m_overfull.push_back(line);
    return;
  }
  evict_from(set, line);
}

bool CachingAgent::evict_from(std::vector<std::uint64_t>& set, std::uint64_t keep) {
  for (auto v = set.begin(); v != set.end(); ++v) {
    if (*v == keep) continue;
    CacheLine& victim = m_lines[*v];
    if (!rn_stable(victim.state)) continue;
    const std::uint64_t vl = *v;
    set.erase(v);
    const RnState vb = victim.state;
    const bool silent = (vb == RnState::SC || vb == RnState::UC) && m_cfg.silent && m_cfg.homes &&
                        m_cfg.homes->drops_silently(m_cfg.id, vl);
    const RnStep r = rn_step(victim, silent ? RnEvent::Drop : RnEvent::Replace, nullptr, m_cfg.id, home_of(vl), vl, 0, *this);
    check(vl, vb, victim.state, r);
    l1_drop(vl);
    ++evictions;
    if (silent) {  // no message, nothing to wait for: the line is gone
      ++drops;
      lost(vl);
      return true;
    }
    if (rn_dirty(vb)) ++writebacks;
    m_victims.insert(vl);
    if (m_cfg.victims > 0 && m_victims.size() > static_cast<std::size_t>(m_cfg.victims))
      sim_fail_with(m_name, [&] {
        return "the replacement buffer holds more victims than its " + std::to_string(m_cfg.victims) + " entries";
      });
    lost(vl);
    return true;
  }
  return false;
}

// An entry freed: the sets that went beyond their ways meanwhile give up
// their least recently used lines, oldest first, while entries last (a set
// that has since lost lines needs none; the line that overfilled it, if
// still held, stays).
void CachingAgent::evict_overfull() {
  while (!m_overfull.empty() && !victims_full()) {
    const std::uint64_t line = m_overfull.front();
    m_overfull.pop_front();
    std::vector<std::uint64_t>& set = set_of(line);
    if (set.size() > static_cast<std::size_t>(m_cfg.ways)) evict_from(set, line);
  }
}

// --- home agent ---

HomeAgent::HomeAgent(const std::string& name, const HomeAgentConfig& cfg, mem::MemoryController& memory)
    : m_cfg(cfg), m_name(name), m_sched(name), m_mem(memory), m_pipe(cfg.lookup_interval) {
  for (std::size_t i = 0; i < cfg.ports.size(); ++i) {
    m_direct.push_back(std::make_unique<DirectLink>(*this, name + ".port" + std::to_string(i), cfg.ports[i]));
    m_direct.back()->port().index = static_cast<int>(i);
    m_channels.push_back(m_direct.back().get());
  }
  if (cfg.cache.lines) {
    const auto ways = static_cast<unsigned>(std::min<std::uint64_t>(cfg.cache.lines, static_cast<std::uint64_t>(std::max(1, cfg.cache.ways))));
    if (cfg.cache.lines % ways || cfg.cache.interleave < 1) sim_fail(name, "a home's cache must be whole sets of its ways");
    m_cache = std::make_unique<cache::TagArray<std::uint64_t>>(static_cast<std::size_t>(cfg.cache.lines / ways), ways,
                                                               cache::Policy::Lru, name + ".cache");
    m_interleave = Divisor(cfg.cache.interleave);
  }
  auto& reg = StatsRegistry::instance();
  reg.add_counter(name + ".requests", &requests, "1", "requests served");
  reg.add_counter(name + ".snoops", &snoops, "1", "snoops sent");
  reg.add_counter(name + ".memory_reads", &memory_reads, "line", "lines read from memory for grants");
  reg.add_counter(name + ".memory_writes", &memory_writes, "line", "dirty lines written to memory");
  reg.add_counter(name + ".forwarded", &forwarded, "1", "requests whose data an owner sent the requester (the memory read wasted)");
  reg.add_counter(name + ".atomics", &atomics, "1", "atomics executed at the home");
  reg.add_counter(name + ".dirty_shared", &dirty_shared, "1", "reads served from the copy of an owner that kept its line dirty (SD)");
  reg.add_counter(name + ".whole_writes", &whole_writes, "line", "whole lines written by agents that keep no copy (WriteUnique, WriteNoSnp)");
  if (m_pipe.interval()) {
    reg.add_counter(name + ".pipeline_waits", &pipeline_waits, "1",
                    "messages that found their first slot of the home's pipeline taken (home_interval)");
    reg.add_resource(name + ".pipeline", [this] { return m_pipe.busy(); }, 1, "a home's pipeline (home_interval a message)");
  }
  if (m_cache) {
    reg.add_counter(name + ".cache_hits", &cache_hits, "line", "grants' lines read from the home's cache (the LLC) instead of memory");
    reg.add_counter(name + ".cache_fills", &cache_fills, "line", "lines written home into the home's cache (memory_writes: those it gave up)");
  }
}

CohPort& HomeAgent::port(AgentId agent) {
  if (agent >= m_cfg.ports.size()) sim_fail(m_name, "agent " + std::to_string(agent) + " has no configured direct link to this home");
  return m_direct[agent]->port();
}

void HomeAgent::attach(AgentId agent, Channel& channel) {
  if (agent >= m_channels.size()) m_channels.resize(agent + 1u, nullptr);
  if (m_channels[agent]) sim_fail(m_name, "agent " + std::to_string(agent) + " has a channel already");
  m_channels[agent] = &channel;
}

CohPort& HomeAgent::add_port(AgentId agent, const CohEndConfig& cfg) {
  m_direct.push_back(std::make_unique<DirectLink>(*this, m_name + ".port" + std::to_string(agent), cfg));
  m_direct.back()->port().index = static_cast<int>(agent);
  attach(agent, *m_direct.back());
  return m_direct.back()->port();
}

Channel& HomeAgent::channel(AgentId agent) {
  Channel* c = agent < m_channels.size() ? m_channels[agent] : nullptr;
  if (!c) sim_fail_with(m_name, [&] { return "no channel to agent " + std::to_string(agent); });
  return *c;
}

bool HomeAgent::idle() const {
  bool busy = false;
  m_lines.for_each([&](std::uint64_t, const Line& l) { busy = busy || l.dir.busy || !l.dir.waiting.empty(); });
  if (busy || !m_parked.empty() || !m_cache_reads.empty()) return false;
  for (const Channel* c : m_channels)
    if (c && c->pending()) return false;
  return true;
}

std::string HomeAgent::status() const {
  std::string s;
  m_lines.for_each([&](std::uint64_t line, const Line& l) {
    const HomeLine& h = l.dir;
    if (!h.busy && h.waiting.empty()) return;
    s += " line " + hex(line) + ": directory " + dir_state_name(h.dir());
    if (h.busy) {
      s += ", serving " + describe(h.cur);
      if (h.snoops_left > 0) s += ", awaiting " + std::to_string(h.snoops_left) + " snoop response(s)";
      if (h.await_ack) s += ", awaiting the CompAck";
      if (m_parked.count(l.wait.seq)) s += ", awaiting memory";
    }
    if (!h.waiting.empty()) s += ", " + std::to_string(h.waiting.size()) + " request(s) queued";
    s += ";";
  });
  if (!m_parked.empty()) s += " " + std::to_string(m_parked.size()) + " grant(s) awaiting memory;";
  if (!m_cache_reads.empty()) s += " " + std::to_string(m_cache_reads.size()) + " line(s) on their way from its cache;";
  return s;
}

void HomeAgent::arrive(Channel&, Packet* p, Tick tail) {
  Tick start = tail;
  if (m_pipe.interval()) {
    start = m_pipe.reserve(std::max(tail, now_tick()), now_tick());
    const Tick iv = m_pipe.interval();
    if (start > m_pipe.slot_of(tail + iv - 1) * iv) ++pipeline_waits;  // its first slot was taken
  }
  m_sched.at(start + m_cfg.lookup, this, kReceive, 0, p);
}

void HomeAgent::on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) {
  if (kind == kCacheData) {
    if (m_cache_reads.empty() || m_cache_reads.front().first != arg)
      sim_fail_with(m_name, [&] { return "a line from its cache came out of order: " + hex(arg); });
    mem::MemRequest r;
    r.addr = arg * kLineB;
    r.tag = m_cache_reads.front().second;
    m_cache_reads.pop_front();
    memory_done(r, now_tick());
    return;
  }
  Packet* p = static_cast<Packet*>(ptr);
  channel(p->msg.src).release(*p);
  const Msg m = p->msg;
  Ledger* led = p->ledger;
  p->ledger = nullptr;
  PacketPool::instance().put(p);
  m_cur_line = m.line;
  Line& l = m_lines[m.line];
  m_cur = &l;
  if (led) {
    // A timed request waits for its transaction (home_row_taken); a
    // response to the line's timed transaction is that transaction's path
    // from now on (the last snoop response to come is the critical one).
    led->charge(Stage::Coherence, now_tick());
    if (msg_class(m.type) == MsgClass::Req) {
      Ledger*& slot = m_timed[{m.line, m.src}];
      if (slot)
        sim_fail_with(m_name,
                      [&] { return "two timed requests outstanding from one agent for one line: " + describe(m); });
      slot = led;
    } else {
      if (l.wait.led) l.wait.led->copy_from(*led);
      drop_ledger(led);
    }
  }
  if (msg_forwarded(m.type)) ++forwarded;
  if (m.type == MsgType::SnpRespData_SD) ++dirty_shared;
  if (msg_line_data(m.type) && msg_class(m.type) != MsgClass::Req) {
    // A snoop's dirty data comes home: memory is written (its channel is
    // occupied; an SD owner's copy for the requester is not written), and
    // a grant of this transaction need not wait for memory. (A request's
    // line, a write-back's or a whole line's, is written when the engine
    // writes it: home_memory_write.) A partial line's lanes do not make
    // the line whole: its grant still waits for memory's.
    if (msg_to_memory(m.type)) memory_write(m.line, now_tick());
    if (!msg_partial(m.type)) l.wait.dirty_in = true;
  }
  home_receive(l.dir, m, m_cfg.id, *this, m_cfg.policy);
  if (!l.dir.busy) drop_ledger(l.wait.led);  // the transaction is over
  m_cur = nullptr;
}

void HomeAgent::home_row_taken(const HomeRow& row, const Msg& req) {
  ++requests;
  Wait& w = m_cur->wait;
  drop_ledger(w.led);
  w = Wait{};
  w.seq = ++m_seq;
  if (!m_timed.empty()) {
    const auto it = m_timed.find({req.line, req.src});
    if (it != m_timed.end()) {
      w.led = it->second;
      m_timed.erase(it);
      w.led->charge(Stage::Coherence, now_tick());  // behind the line's transactions before it (the hazard queue)
    }
  }
  const bool atomic = row.ops & kHomeAtomic;
  w.atomic = atomic;
  if (atomic) ++atomics;
  if (!msg_has_data(row.grant) && !atomic) return;
  // The grant carries data, or an atomic needs the line's: read it now,
  // beside the snoops, from the home's cache if it holds it, else memory.
  w.reading = true;
  if (m_cache && cache_holds(m_cur_line)) {
    ++cache_hits;
    m_cache_reads.emplace_back(m_cur_line, w.seq);
    m_sched.at(now_tick() + m_cfg.cache.hit, this, kCacheData, m_cur_line);
    return;
  }
  ++memory_reads;
  mem::MemRequest r;
  r.op = mem::MemOp::ReadLine;
  r.addr = m_cur_line * kLineB;
  r.requester = m_cfg.id;
  r.tag = w.seq;
  m_mem.request(r, now_tick(), *this);
}

HomeAgent::Wait& HomeAgent::wait_of(std::uint64_t line) {
  return m_cur && line == m_cur_line ? m_cur->wait : m_lines[line].wait;  // no look-up for the line being handled
}

void HomeAgent::send(const Msg& m) {
  const Wait& w = wait_of(m.line);
  Ledger* led = fork_ledger(w.led);  // each message of a timed transaction carries its path so far
  if (msg_class(m.type) == MsgClass::Snp) {
    ++snoops;
    transmit(m, false, false, led);
    return;
  }
  if (w.reading && !w.dirty_in) m_parked[w.seq] = Parked{m, w.atomic, w.atomic_write, led};  // the data comes from memory: wait for it
  else transmit(m, w.atomic, w.atomic_write, led);
}

void HomeAgent::home_atomic(const Msg& req, std::uint64_t old, std::uint64_t now) {
  CoherenceChecker::instance().atomic(req.src, req.line, old, now, true);
  wait_of(req.line).atomic_write = old != now;
}

void HomeAgent::home_memory_write(const Msg& req) { memory_write(req.line, now_tick()); }

std::size_t HomeAgent::cache_set(std::uint64_t line) const { return m_cache->set_of(m_interleave.div(line)); }

bool HomeAgent::cache_holds(std::uint64_t line) {
  return m_cache->find(cache_set(line), [line](std::uint64_t t) { return t == line; }) != nullptr;
}

void HomeAgent::memory_write(std::uint64_t line, Tick at) {
  if (m_cache) {
    ++cache_fills;
    bool evicts = false;
    std::uint64_t& e = m_cache->place(cache_set(line), [line](std::uint64_t t) { return t == line; }, &evicts);
    const std::uint64_t victim = e;
    e = line;
    if (!evicts) return;  // a refill, or a way free
    line = victim;        // every line in the cache came home written: the victim goes to memory
  }
  ++memory_writes;
  m_mem.write(line * kLineB, kLineB, at);
}

void HomeAgent::home_write(const Msg& req, std::uint64_t old) {
  CoherenceChecker::instance().written_at_home(req.src, req.line, old, req.data);
  ++whole_writes;
}

void HomeAgent::memory_done(const mem::MemRequest& r, Tick) {
  Wait& w = m_lines[r.addr / kLineB].wait;
  if (w.seq == r.tag) w.reading = false;  // (a later transaction's read is its own)
  const auto it = m_parked.find(r.tag);
  if (it == m_parked.end()) return;  // the grant left on dirty data, or is not made yet
  const Parked p = it->second;
  m_parked.erase(it);
  if (p.led) p.led->charge(Stage::Memory, now_tick());
  transmit(p.grant, p.atomic, p.atomic_write, p.led);
}

void HomeAgent::transmit(const Msg& m, bool atomic, bool atomic_write, Ledger* led) {
  Packet* p = packet_of(m);
  if (atomic) {  // an atomic's answer: the operation, and its result to memory
    p->ready += m_cfg.atomic_latency;
    if (atomic_write) memory_write(m.line, p->ready);
  }
  if (led) {
    led->charge(Stage::Coherence, p->ready);
    p->ledger = led;
  }
  channel(m.dst).send(p);
}

}  // namespace hx::coherence
