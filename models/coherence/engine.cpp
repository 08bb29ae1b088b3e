#include "models/coherence/engine.h"

#include <sstream>

#include "models/core/error.h"

namespace hx::coherence {

namespace {

// A protocol rule broken: the agent, the line and what happened. The names
// are made by who() and what() only when it fails, out of line: the checks
// run on every step, and messages built in place would weigh on each.
template <class Who, class What>
[[noreturn, gnu::cold, gnu::noinline]] void fail_at(std::uint64_t line, Who who, What what) {
  throw SimError(who() + " line " + hex(line) + ": " + what());
}

std::string agent(AgentId a) { return "agent " + std::to_string(a); }
}  // namespace

std::string describe(const Msg& m) {
  return std::string(msg_name(m.type)) + " from agent " + std::to_string(m.src) + " to agent " + std::to_string(m.dst) +
         " for line " + hex(m.line);
}

RnStep rn_step(CacheLine& l, RnEvent e, const Msg* in, AgentId self, AgentId home, std::uint64_t line,
               std::uint64_t store_value, Sink& out, std::uint64_t store_mask, const Rmw* rmw) {
  RnStep r;
  r.row = rn_row(l.state, e);
  if (!r.row) {
    if (in) fail_at(line, [&] { return agent(self); },
        [&] { return std::string("in ") + rn_state_name(l.state) + " received " + describe(*in) +
            ", which the protocol has no row for"; });
    return r;  // a core operation that waits for the outstanding request
  }
  const std::uint16_t ops = r.row->ops;
  RnState next = r.row->next;
  if (ops & kOpInstall) {
    if (!in || !msg_has_data(in->type)) fail_at(line, [&] { return agent(self); },
        [&] { return std::string("a row installs data from a message without data"); });
    l.data = in->data;
  }
  if (ops & kOpMerge) {  // memory's lanes where the line holds none
    if (!in || !msg_line_data(in->type)) fail_at(line, [&] { return agent(self); },
        [&] { return std::string("a row merges a line from a message without one"); });
    const std::uint64_t own = lane_bits(l.valid);
    l.data = merge_bits(in->data, l.data, own);
    l.valid = kAllLanes;
  }
  if (ops & kOpLoad) {
    r.loaded = true;
    r.value = l.data;
  }
  if (ops & kOpStore) {
    if (next == RnState::UDP) {  // a store to a line held empty or partial: its lanes
      if (rmw) fail_at(line, [&] { return agent(self); },
          [&] { return std::string("a near atomic in ") + rn_state_name(l.state) + ", without the line's data"; });
      if (!lane_aligned(store_mask))
        fail_at(line, [&] { return agent(self); },
            [&] { return "a store of part of a lane (mask " + hex(store_mask) + ") to a line held " +
                rn_state_name(l.state); });
      l.valid = static_cast<std::uint8_t>((l.state == RnState::UDP ? l.valid : 0) | lanes_of(store_mask));
      if (l.valid == kAllLanes) next = RnState::UD;
    }
    r.mask = store_mask;
    if (rmw) {
      r.rmw = true;
      r.old = l.data;
      l.data = rmw_apply(*rmw, l.data);
      r.mask = ~0ull;
    } else {
      l.data = merge_bits(l.data, store_value, store_mask);
    }
    r.stored = true;
    r.value = l.data;
  }
  if (ops & kOpResult) {
    if (!in || in->type != MsgType::CompDataAtomic) fail_at(line, [&] { return agent(self); },
        [&] { return std::string("an atomic's result from a message without one"); });
    r.result = true;
    r.value = in->data;
  }
  r.again = ops & kOpAgain;
  // A forwarded line leaves before the response to the home: it is what
  // the requester waits for (both may take the same socket link).
  if (r.row->forward != MsgType::None) {
    if (!in) fail_at(line, [&] { return agent(self); },
        [&] { return std::string("a row forwards data with no snoop to name the requester"); });
    Msg m;
    m.type = r.row->forward;
    m.src = self;
    m.dst = in->fwd;
    m.line = line;
    m.data = l.data;
    out.send(m);
  }
  if (r.row->send != MsgType::None) {
    Msg m;
    m.type = r.row->send;
    m.src = self;
    m.dst = home;
    m.line = line;
    if (ops & kOpData) m.data = l.data;
    if (msg_partial(m.type)) m.cmp = lane_bits(l.valid);  // its byte enables
    if (ops & kOpStoreData) {
      if (store_mask != ~0ull) fail_at(line, [&] { return agent(self); },
          [&] { return std::string("a ") + msg_name(m.type) + " writes a whole line, not some of its bytes"; });
      m.data = store_value;
    }
    if (ops & kOpOperands) {
      if (!rmw || atomic_request(rmw->op) != m.type) fail_at(line, [&] { return agent(self); },
          [&] { return std::string("a ") + msg_name(m.type) + " without its operation's operands"; });
      m.data = rmw->operand;
      m.cmp = rmw->compare;
    }
    out.send(m);
  }
  if (ops & kOpAck) {
    Msg m;
    m.type = MsgType::CompAck;
    m.src = self;
    m.dst = home;
    m.line = line;
    out.send(m);
  }
  l.state = next;
  if (next == RnState::UCE) l.valid = 0;
  else if (!rn_partial(next)) l.valid = kAllLanes;
  return r;
}

std::uint64_t line_written(std::uint64_t mem, const Msg& m) {
  return msg_partial(m.type) ? merge_bits(mem, m.data, m.cmp) : m.data;
}

DirCond HomeLine::cond_of(AgentId req) const {
  const bool member = sharers >> req & 1;
  if (owner >= 0) return owner == req ? DirCond::OwnerReq : member ? DirCond::OwnerSharerReq : DirCond::Owner;
  if (sharers) return member ? DirCond::SharerReq : DirCond::Sharers;
  return DirCond::Invalid;
}

namespace {
// The requester's place in the directory, once its transaction is granted.
void update_directory(HomeLine& h, AgentId self) {
  const HomeRow& row = *h.row;
  const AgentId req = h.cur.src;
  const std::uint64_t bit = 1ull << req;
  switch (row.update) {
    case DirUpdate::Keep:
      break;
    case DirUpdate::AddSharer:  // (an owner's response said whether it stays the owner)
      h.sharers |= bit;
      break;
    case DirUpdate::MakeOwner:
      if (h.sharers & ~bit) fail_at(h.cur.line, [&] { return "home " + std::to_string(self); },
          [&] { return "made agent " + std::to_string(req) + " owner while others still hold the line"; });
      h.sharers = bit;
      h.owner = req;
      break;
    case DirUpdate::Remove:
      h.sharers &= ~bit;
      if (h.owner == req) h.owner = -1;
      break;
  }
}

void grant(HomeLine& h, AgentId self, Sink& out) {
  const HomeRow& row = *h.row;
  const AgentId req = h.cur.src;
  update_directory(h, self);
  Msg g;
  g.type = row.grant;
  g.src = self;
  g.dst = req;
  g.line = h.cur.line;
  if (row.ops & kHomeAtomic) {
    // Every copy is gone: memory (or the dirty data a snoop returned) holds
    // the line's value.
    Rmw rmw;
    rmw.op = atomic_op_of(h.cur.type);
    rmw.operand = h.cur.data;
    rmw.compare = h.cur.cmp;
    const std::uint64_t old = h.mem;
    if (h.sharers) fail_at(h.cur.line, [&] { return "home " + std::to_string(self); },
        [&] { return "an atomic executed while agents still hold the line: " + describe(h.cur); });
    h.mem = rmw_apply(rmw, old);
    out.home_atomic(h.cur, old, h.mem);
    g.data = old;
  } else if (row.ops & kHomeWriteLine) {
    // Every copy is gone: the line is the request's, whatever memory or a
    // snoop's dirty data held.
    if (h.sharers) fail_at(h.cur.line, [&] { return "home " + std::to_string(self); },
        [&] { return "a whole-line write done while agents still hold the line: " + describe(h.cur); });
    const std::uint64_t old = h.mem;
    h.mem = h.cur.data;
    out.home_write(h.cur, old);
    out.home_memory_write(h.cur);
  } else if (msg_has_data(g.type)) {
    g.data = h.has_copy ? h.copy : h.mem;  // an SD owner's copy, or memory's (with any dirty data a snoop sent home)
  }
  h.await_ack = !(row.ops & kHomeNoAck);
  out.send(g);
}

void finish(HomeLine& h, AgentId self, Sink& out, const HomePolicy& policy);
void snoops_done(HomeLine& h, AgentId self, Sink& out, const HomePolicy& policy);

void start(HomeLine& h, const Msg& m, AgentId self, Sink& out, const HomePolicy& policy) {
  const DirCond c = h.cond_of(m.src);
  const HomeRow* row = home_row(m.type, c, policy.forward, policy.migratory, policy.owned, policy.empty);
  if (!row)
    fail_at(m.line, [&] { return "home " + std::to_string(self); },
        [&] { return std::string("directory ") + dir_state_name(h.dir()) + " (requester " + dir_cond_name(c) +
            ") received " + describe(m) + ", which the protocol has no row for"; });
  out.home_row_taken(*row, m);
  h.busy = true;
  h.cur = m;
  h.row = row;
  h.snoops_left = 0;
  h.await_ack = false;
  h.forwarded = false;
  h.early_ack = false;
  h.has_copy = false;
  h.copy = 0;
  if (row->ops & kHomeMemWrite) {
    h.mem = line_written(h.mem, m);
    out.home_memory_write(m);
  }
  std::uint64_t targets = 0;
  if (row->snoop == SnoopWhom::Owner) targets = 1ull << h.owner;
  else if (row->snoop == SnoopWhom::Others) targets = h.sharers & ~(1ull << m.src);
  for (AgentId a = 0; targets; ++a, targets >>= 1) {
    if (!(targets & 1)) continue;
    Msg s;
    s.type = row->snoop_type;
    s.src = self;
    s.dst = a;
    s.line = m.line;
    if (row->ops & kHomeForward) s.fwd = m.src;
    out.send(s);
    ++h.snoops_left;
  }
  if (h.snoops_left == 0) snoops_done(h, self, out, policy);
}

// Every snoop is answered: grant, unless the owner forwarded the line (the
// requester has it; only its CompAck is awaited, unless already here).
void snoops_done(HomeLine& h, AgentId self, Sink& out, const HomePolicy& policy) {
  if (h.forwarded) {
    update_directory(h, self);
    h.await_ack = true;
    if (h.early_ack) finish(h, self, out, policy);
    return;
  }
  if (h.early_ack) fail_at(h.cur.line, [&] { return "home " + std::to_string(self); },
      [&] { return "a CompAck came before the requester had its data: " + describe(h.cur); });
  grant(h, self, out);
  if (!h.await_ack) finish(h, self, out, policy);
}

void finish(HomeLine& h, AgentId self, Sink& out, const HomePolicy& policy) {
  h.busy = false;
  h.row = nullptr;
  h.await_ack = false;
  h.forwarded = false;
  h.early_ack = false;
  if (!h.waiting.empty()) {
    const Msg next = h.waiting.front();
    h.waiting.pop_front();
    start(h, next, self, out, policy);
  }
}
}  // namespace

void home_receive(HomeLine& h, const Msg& m, AgentId self, Sink& out, const HomePolicy& policy) {
  const auto who = [self] { return "home " + std::to_string(self); };  // named only on failure
  switch (m.type) {
    case MsgType::ReadShared:
    case MsgType::ReadUnique:
    case MsgType::CleanUnique:
    case MsgType::Evict:
    case MsgType::WriteBack:
    case MsgType::AtomicStore:
    case MsgType::AtomicLoad:
    case MsgType::AtomicSwap:
    case MsgType::AtomicCompare:
    case MsgType::ReadOnce:
    case MsgType::WriteUnique:
    case MsgType::MakeUnique:
    case MsgType::ReadClean:
    case MsgType::ReadNoSnp:
    case MsgType::WriteNoSnp:
    case MsgType::WriteBackPtl:
      if (h.busy) h.waiting.push_back(m);  // serialised: one transaction per line
      else start(h, m, self, out, policy);
      return;
    case MsgType::SnpResp_I:
    case MsgType::SnpResp_SC:
    case MsgType::SnpRespData_I:
    case MsgType::SnpRespData_SC:
    case MsgType::SnpRespData_SD:
    case MsgType::SnpRespFwded_I:
    case MsgType::SnpRespFwded_SC:
    case MsgType::SnpRespDataFwded_SC:
    case MsgType::SnpRespDataPtl: {
      if (!h.busy || h.snoops_left <= 0) fail_at(m.line, [&] { return who(); },
          [&] { return "a snoop response nobody waits for: " + describe(m); });
      if (!(h.sharers >> m.src & 1)) fail_at(m.line, [&] { return who(); },
          [&] { return "a snoop response from an agent the directory does not list: " + describe(m); });
      if (msg_forwarded(m.type)) {
        if (!(h.row->ops & kHomeForward)) fail_at(m.line, [&] { return who(); },
            [&] { return "a forwarded response to a snoop that asked for none: " + describe(m); });
        h.forwarded = true;
      }
      if (m.type == MsgType::SnpRespData_SD) {  // the owner keeps its dirty line: a copy for the requester
        if (h.owner != m.src) fail_at(m.line, [&] { return who(); },
            [&] { return "a shared-dirty response from an agent the directory does not name owner: " + describe(m); });
        h.has_copy = true;
        h.copy = m.data;
      } else {
        if (msg_has_data(m.type)) h.mem = line_written(h.mem, m);  // dirty data comes home (a partial line's lanes)
        if (h.owner == m.src) h.owner = -1;
      }
      if (m.type == MsgType::SnpResp_I || m.type == MsgType::SnpRespData_I || m.type == MsgType::SnpRespFwded_I ||
          m.type == MsgType::SnpRespDataPtl)
        h.sharers &= ~(1ull << m.src);
      if (--h.snoops_left == 0) snoops_done(h, self, out, policy);
      return;
    }
    case MsgType::CompAck:
      // A requester that got its data from the owner may ack before the
      // owner's response reaches the home.
      if (h.busy && !h.await_ack && !h.early_ack && m.src == h.cur.src && (h.row->ops & kHomeForward) && h.snoops_left > 0) {
        h.early_ack = true;
        return;
      }
      if (!h.busy || !h.await_ack || m.src != h.cur.src) fail_at(m.line, [&] { return who(); },
          [&] { return "a CompAck nobody waits for: " + describe(m); });
      finish(h, self, out, policy);
      return;
    default:
      fail_at(m.line, [&] { return who(); },
          [&] { return "received " + describe(m) + ", which only caching agents receive"; });
  }
}

}  // namespace hx::coherence
