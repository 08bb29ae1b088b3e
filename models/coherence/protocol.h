// The coherence protocol as data: the message set, the caching agent's
// table and the home agent's table. One engine (engine.h) executes these
// tables for every coherent agent, whatever carries its messages (CCIX on
// PCIe VC1, a socket link, a test's network); the exhaustive search of
// tests/coherence runs the very same tables.
//
// The protocol is a home-serialised directory protocol of the MOESI family
// with CCIX/CHI names (CCIX base spec, chapter 3; AMBA CHI, chapter 4):
//  - caching agent line states: I, SC (shared clean), UC (unique clean, may
//    be written silently), UD (unique dirty), SD (shared dirty: the owner of
//    a line others share, memory stale; where a home keeps dirty lines
//    shared, below); transient states while a request is outstanding (one
//    per line, held in the agent's MSHR);
//  - requests: ReadShared, ReadUnique, CleanUnique (an upgrade from SC or
//    SD), Evict (a clean line given up), WriteBack (a dirty line, with
//    data); ReadClean (a read that takes a clean copy only: an agent that
//    must never own dirty data, CachingAgentConfig::read_clean);
//  - requests to a line no agent caches (a non-snoopable region: memory
//    the requesters agree never to cache): ReadNoSnp and WriteNoSnp, served
//    from memory with no snoop (the home's rows cover a line no agent holds
//    only: one held is a protocol error); a ReadNoSnp is
//    answered and acknowledged as a ReadOnce is, a WriteNoSnp as a
//    WriteUnique;
//  - requests of an agent that keeps no copy (an I/O-coherent agent, or a
//    caching agent's streaming access that must not displace its cache):
//    ReadOnce (a snapshot of the line: the home snoops a unique owner to
//    shared, answers CompDataI with the line's data, and waits for the
//    CompAck, so that the value is still the line's when it arrives) and
//    WriteUnique (a whole line, sent with the request: the home invalidates
//    every copy, writes the line over memory and over any dirty data a
//    snoop returned, and answers a dataless Comp);
//  - MakeUnique: a store of a whole line to a line not held takes the line
//    unique without its data (the store overwrites all of it), where an
//    agent is set to (CachingAgentConfig::make_unique); the home
//    invalidates every copy with SnpToMakeI, to which an owner answers
//    without its dirty data (SnpResp_I: the data is about to be
//    overwritten), and grants CompUC;
//  - snoops: SnpToSC (keep a clean shared copy: dirty data goes home),
//    SnpToS (keep a shared copy: a dirty owner may keep its data dirty, in
//    SD, and sends the home a copy for the requester that memory does not
//    take: SnpRespData_SD), SnpToI (invalidate, return dirty data); every
//    snoop gets one response that names the state the line is left in
//    (SnpResp_I/_SC, SnpRespData_I/_SC/_SD with data), from which the home
//    keeps its directory precise;
//  - dirty sharing, where a home is set to keep it (HomePolicy::owned;
//    CCIX's and CHI's SD): a ReadShared that finds a dirty owner snoops it
//    with SnpToS, and the owner stays the line's owner in SD, beside the
//    new sharer, with no memory write; the home's directory keeps that
//    owner among the sharers; an SD owner upgrades by CleanUnique, gives
//    its line up by WriteBack, and answers every later read for it. Without
//    the policy, a read that finds an owner snoops it with SnpToSC, as
//    ReadClean and ReadOnce always do;
//  - direct cache-to-cache forwarding, where a home is set to forward
//    (HomePolicy, engine.h; CHI's DCT): a request that finds a unique owner
//    snoops it with SnpToSFwd or SnpToIFwd, naming the requester; an owner
//    that holds the line sends its data straight to the requester (the
//    CompData the home would have sent) and tells the home with
//    SnpRespFwded_SC/_I (SnpRespDataFwded_SC when dirty data must reach
//    memory because the requester gets a shared copy); one that no longer
//    holds it (an eviction or write-back in flight) answers as to a plain
//    snoop, and the home then grants itself, as without forwarding;
//  - atomics (CCIX's AtomicStore, AtomicLoad, AtomicSwap, AtomicCompare;
//    CHI's far atomics) executed at the home: a requester that does not
//    hold the line sends the operation with its operands; the home
//    invalidates every copy (SnpToI), takes the line's value from memory or
//    from the dirty data a snoop returns, applies the operation, writes the
//    result to memory and answers with the old value (CompDataAtomic) or, for
//    AtomicStore, a dataless Comp; no copy is granted and no CompAck is
//    awaited. An atomic on a line the requester holds runs in its cache
//    instead (a near atomic: a store whose value is computed from the
//    line's, rn_step's `rmw`), as does every atomic of an agent set to
//    execute them near;
//  - partial lines (CHI's UCE and UDP; in CHI a CleanUnique from I ends
//    UCE), where a home is set to grant lines empty (HomePolicy::empty):
//    a CleanUnique from a requester that holds no copy (an upgrade whose
//    copy a snoop took meanwhile, or, from an agent set to take lines
//    empty, CachingAgentConfig::partial, a store of some bytes of a line
//    not held) is granted unique without data (CompUC), every other copy
//    invalidated and an owner's dirty data sent home; the line is then
//    unique and empty (UCE), the store runs on it, and stores make it
//    unique, dirty and partial (UDP: only the bytes written are held)
//    until every byte is written (UD). A near atomic, and a load, of a
//    line held empty or partial asks for its data (ReadShared,
//    which the home answers unique from memory: the agent owns the line)
//    and keeps its own bytes over memory's; a partial line goes home by
//    WriteBackPtl and answers snoops with SnpRespDataPtl, each carrying
//    its byte enables, which the home merges into memory; an empty line
//    answers every snoop without data. The line's 64-bit value stands for
//    its bytes in eight lanes of eight bits (kLanes): a partial line keeps
//    whole lanes, and a store to one writes whole lanes;
//  - the home keeps a precise directory (sharers, or one unique owner),
//    serves one transaction per line at a time (a hazard queue holds the
//    others in arrival order), snoops before it answers, and holds the line
//    until the requester's CompAck: so no snoop ever meets a requester
//    still waiting for its data, and the races left are those the tables
//    name (a snoop meeting an upgrade, an eviction or a write-back in
//    flight).
// Simplifications in this version: a ReadOnce that finds a unique owner
// snoops it to shared (CHI's SnpOnce would leave it unique); a WriteUnique
// writes a whole line (no byte-enabled partial write) from an agent that
// does not hold it (a held line is stored in the cache); a MakeUnique is
// sent from a line not held only (a shared copy upgrades by CleanUnique);
// a partial line is kept in lanes of a 64-bit value, not in bytes, and
// its load fetches the whole line (CHI lets a load of the bytes held hit);
// a WriteBackPtl costs memory a whole line's write; a forwarding or migratory home
// does not keep dirty lines shared (a forwarded shared copy sends dirty
// data home, and HomePolicy::owned is not taken with them); SD is reached
// by snoops only (no grant hands a requester SD: the home grants clean
// copies and unique ones); a ReadOnce snoops an owner with SnpToSC (CHI's
// SnpOnce would leave it unique); without
// forwarding, data returns through the home; a line's value is one 64-bit
// word, and an atomic works on all of it (AtomicStore and AtomicLoad add:
// the other arithmetic operations of CCIX/CHI time the same).
// (The speculative memory read is the timed home's, agents.h.)
#pragma once
#include <cstdint>

namespace hx::coherence {

constexpr std::uint32_t kLineBytes = 64;  // a line's data in a message

// A line's value stands for its bytes in eight lanes of eight bits: what a
// partial line (UDP) holds, and what a WriteBackPtl or SnpRespDataPtl
// carries (their byte enables, Msg::cmp), is a set of whole lanes.
constexpr int kLanes = 8;
constexpr std::uint8_t kAllLanes = 0xff;
// The bits of the lanes in `lanes` (bit i: lane i, bits 8i..8i+7).
constexpr std::uint64_t lane_bits(std::uint8_t lanes) {
  std::uint64_t b = 0;
  for (int i = 0; i < kLanes; ++i)
    if (lanes >> i & 1) b |= 0xffull << (8 * i);
  return b;
}
// The lanes whose every bit `mask` covers, and whether it covers whole lanes only.
constexpr std::uint8_t lanes_of(std::uint64_t mask) {
  std::uint8_t l = 0;
  for (int i = 0; i < kLanes; ++i)
    if ((mask >> (8 * i) & 0xff) == 0xff) l = static_cast<std::uint8_t>(l | 1u << i);
  return l;
}
constexpr bool lane_aligned(std::uint64_t mask) { return lane_bits(lanes_of(mask)) == mask; }
// `old` with the bits of `mask` taken from `value`: a store of some bits,
// a partial line merged into memory's, memory's lanes into a partial line.
constexpr std::uint64_t merge_bits(std::uint64_t old, std::uint64_t value, std::uint64_t mask) {
  return (old & ~mask) | (value & mask);
}

// Message classes, each with credits of its own on a transport, so that
// snoops and responses never wait behind requests.
enum class MsgClass : std::uint8_t { Req, Snp, Rsp, Dat };

// X-macro: name, class, data bytes carried (a line's 64, an atomic's
// operands: 8 B, or compare and swap values for AtomicCompare; its old value).
#define HX_COHERENCE_MESSAGES(X)  \
  X(ReadShared, Req, 0)           \
  X(ReadUnique, Req, 0)           \
  X(CleanUnique, Req, 0)          \
  X(Evict, Req, 0)                \
  X(WriteBack, Req, 64)           \
  X(AtomicStore, Req, 8)          \
  X(AtomicLoad, Req, 8)           \
  X(AtomicSwap, Req, 8)           \
  X(AtomicCompare, Req, 16)       \
  X(ReadOnce, Req, 0)             \
  X(WriteUnique, Req, 64)         \
  X(MakeUnique, Req, 0)           \
  X(ReadClean, Req, 0)            \
  X(ReadNoSnp, Req, 0)            \
  X(WriteNoSnp, Req, 64)          \
  X(WriteBackPtl, Req, 64)        \
  X(SnpToS, Snp, 0)               \
  X(SnpToSC, Snp, 0)              \
  X(SnpToI, Snp, 0)               \
  X(SnpToSFwd, Snp, 0)            \
  X(SnpToIFwd, Snp, 0)            \
  X(SnpToMakeI, Snp, 0)           \
  X(SnpResp_I, Rsp, 0)            \
  X(SnpResp_SC, Rsp, 0)           \
  X(SnpRespData_I, Dat, 64)       \
  X(SnpRespData_SC, Dat, 64)      \
  X(SnpRespData_SD, Dat, 64)      \
  X(SnpRespFwded_I, Rsp, 0)       \
  X(SnpRespFwded_SC, Rsp, 0)      \
  X(SnpRespDataFwded_SC, Dat, 64) \
  X(SnpRespDataPtl, Dat, 64)      \
  X(CompAck, Rsp, 0)              \
  X(CompDataSC, Dat, 64)          \
  X(CompDataUC, Dat, 64)          \
  X(CompDataAtomic, Dat, 8)       \
  X(CompDataI, Dat, 64)           \
  X(CompUC, Rsp, 0)               \
  X(Comp, Rsp, 0)                 \
  X(WBAck, Rsp, 0)

enum class MsgType : std::uint8_t {
#define HX_X(n, c, d) n,
  HX_COHERENCE_MESSAGES(HX_X)
#undef HX_X
      None
};
constexpr int kMsgTypes = static_cast<int>(MsgType::None);

// Each message's name, class and data bytes, from the X-macro. In the
// header, so that the lookups below inline where messages are handled
// (every message asks them several times).
struct MsgInfo {
  const char* name;
  MsgClass cls;
  std::uint32_t bytes;
};
inline constexpr MsgInfo kMsgInfo[] = {
#define HX_X(n, c, b) {#n, MsgClass::c, b},
    HX_COHERENCE_MESSAGES(HX_X)
#undef HX_X
};

const char* msg_name(MsgType m);
inline MsgClass msg_class(MsgType m) { return kMsgInfo[static_cast<int>(m)].cls; }
// How many bytes of data it carries (a line, or an atomic's operands or result).
inline std::uint32_t msg_data_bytes(MsgType m) { return m == MsgType::None ? 0 : kMsgInfo[static_cast<int>(m)].bytes; }
inline bool msg_has_data(MsgType m) { return msg_data_bytes(m) > 0; }
bool msg_line_data(MsgType m);           // the data is a copy of the line
// The line's data is for memory: a snoop's dirty data, a write-back, or a
// whole line written (not a grant's, nor an SD owner's copy for a
// requester, SnpRespData_SD, whose data stays dirty at the owner).
bool msg_to_memory(MsgType m);
// A partial line's data: the bytes of the lanes its byte enables (Msg::cmp)
// name, which the home merges into memory's (line_written).
bool msg_partial(MsgType m);
std::uint32_t class_data_bytes(MsgClass c);  // the most data a message of the class carries

// An atomic operation on a line's value: what the message carries and
// what a near atomic applies in the cache.
enum class AtomicOp : std::uint8_t { Store, Load, Swap, Compare };
struct Rmw {
  AtomicOp op = AtomicOp::Compare;
  std::uint64_t operand = 0;  // the addend (Store, Load), the new value (Swap, Compare)
  std::uint64_t compare = 0;  // Compare: the value the line must hold to be swapped
};
// The line's value after `rmw` on `old` (unchanged when a compare fails).
std::uint64_t rmw_apply(const Rmw& rmw, std::uint64_t old);
// The far atomic's request for an operation, and the operation a request is.
MsgType atomic_request(AtomicOp op);
bool msg_atomic(MsgType m);
AtomicOp atomic_op_of(MsgType m);

// Caching agent line states, stable then transient (the request that is
// outstanding, and what the line is meanwhile).
enum class RnState : std::uint8_t {
  I,
  SC,
  UC,
  UD,
  SD,     // shared dirty: the owner of a line others may share (memory stale)
  UCE,    // unique, empty: no byte held (written silently; a load asks for the data)
  UDP,    // unique, dirty, partial: the lanes of CacheLine::valid held, dirty (memory has the others)
  IS_P,   // ReadShared or ReadClean outstanding
  IM_P,   // ReadUnique outstanding
  SM_P,   // CleanUnique outstanding, the SC copy still readable
  SMI_P,  // CleanUnique outstanding, the copy lost to a snoop meanwhile
  SDM_P,  // CleanUnique outstanding from SD, the dirty copy still readable (and owed to snoops)
  EV_P,   // Evict outstanding, the line gone
  WB_P,   // WriteBack outstanding, the dirty data kept for snoops
  WBI_P,  // WriteBack outstanding, the data already given to a snoop
  AT_P,   // an atomic outstanding at the home, the line not held
  RO_P,   // ReadOnce or ReadNoSnp outstanding, the line not held
  WU_P,   // WriteUnique or WriteNoSnp outstanding, the line not held
  MU_P,   // MakeUnique outstanding, the line not held (its store waits for the grant)
  UDR_P,  // ReadShared outstanding from UDP (a load), the partial dirty data kept (and owed to snoops)
  WBP_P,  // WriteBackPtl outstanding, the partial dirty data kept for snoops
  Count
};
constexpr int kRnStates = static_cast<int>(RnState::Count);
const char* rn_state_name(RnState s);
// The states' classes, inline: every step of the caching agent asks them.
// A load hits.
inline bool rn_readable(RnState s) {
  return s == RnState::SC || s == RnState::UC || s == RnState::UD || s == RnState::SD || s == RnState::SM_P ||
         s == RnState::SDM_P;
}
// A store hits.
inline bool rn_writable(RnState s) {
  return s == RnState::UC || s == RnState::UD || s == RnState::UCE || s == RnState::UDP;
}
bool rn_stable(RnState s);
bool rn_dirty(RnState s);     // holds data memory does not have (UD, SD, UDP, and their transients that keep it)
// Holds some lanes only (UDP, UDR_P, WBP_P: CacheLine::valid).
inline bool rn_partial(RnState s) { return s == RnState::UDP || s == RnState::UDR_P || s == RnState::WBP_P; }
// Takes a place in a cache's set: a line it can read, or one held unique
// without all its data (UCE, UDP, and UDP's load outstanding).
inline bool rn_placed(RnState s) {
  return rn_readable(s) || s == RnState::UCE || s == RnState::UDP || s == RnState::UDR_P;
}

// What happens to a caching agent's line: its core's operations, then the
// messages it receives.
enum class RnEvent : std::uint8_t {
  Load,
  Store,
  Replace,  // the line is chosen as a victim
  AtomicStore,  // a far atomic (the line not held)
  AtomicLoad,
  AtomicSwap,
  AtomicCompare,
  ReadOnce,     // a load that keeps no copy (the line not held)
  WriteUnique,  // a whole-line store that keeps no copy (the line not held)
  StoreLine,    // a whole-line store that takes the line unique without its data (the line not held)
  ReadClean,    // a load that takes a clean copy only (the line not held)
  ReadNoSnp,    // a load of a line no agent caches (the line not held)
  WriteNoSnp,   // a whole-line store to a line no agent caches (the line not held)
  StorePtl,     // a store of some lanes that takes the line unique without its data (the line not held)
  Drop,         // a clean line given up without telling its home (a silent eviction): the home's directory
                // still lists the agent, and snoops it until it answers that it holds nothing
  SnpToS,
  SnpToSC,
  SnpToI,
  SnpToSFwd,
  SnpToIFwd,
  SnpToMakeI,
  CompDataSC,
  CompDataUC,
  CompDataAtomic,
  CompDataI,
  CompUC,
  Comp,
  WBAck,
  Count
};
constexpr int kRnEvents = static_cast<int>(RnEvent::Count);
const char* rn_event_name(RnEvent e);
RnEvent rn_event_of(MsgType m);  // the event a received message is; Count if none
// The core event an access `e` is in state `s`: a ReadOnce, WriteUnique,
// ReadClean, whole-line store (StoreLine) or partial one (StorePtl) goes to the home from a line
// not held only; from a line held it is a load or store in the cache. (A
// ReadNoSnp or WriteNoSnp stays what it is: a line held has no row for it.)
RnEvent core_event(RnEvent e, RnState s);
// A far atomic's core event for an operation, and the operation of one
// (an event that is not a far atomic has none: a SimError).
RnEvent atomic_event(AtomicOp op);
AtomicOp atomic_op_of(RnEvent e);

// What a row does, as flags applied in this order.
enum RnOp : std::uint16_t {
  kOpLoad = 1,      // the load completes: it reads the line's data
  kOpStore = 2,     // the store completes: it writes the line's data
  kOpInstall = 4,   // the data of the received message becomes the line's
  kOpData = 8,      // the message sent carries the line's data
  kOpAck = 16,      // a CompAck goes to the home as well
  kOpRetire = 32,   // the outstanding request is over (the MSHR entry frees)
  kOpOperands = 64, // the message sent carries the atomic's operands
  kOpResult = 128,  // the atomic completes with the value the message carries
  kOpStoreData = 256,  // the message sent carries the store's value (a WriteUnique's line)
  // The data of the received message fills the lanes the line does not
  // hold; its own (dirty) lanes stay: the line is whole again.
  kOpMerge = 512,
  // The access this response was for is not done: it runs again on the
  // line as it now is (a store whose line was granted empty).
  kOpAgain = 1024,
};

struct RnRow {
  RnState state;
  RnEvent event;
  RnState next;
  MsgType send;  // to the home (a request, or the response to a snoop); None if nothing
  std::uint16_t ops;
  // To the requester a forwarding snoop names, with the line's data (a
  // CompData, as the home would have granted); None if nothing.
  MsgType forward = MsgType::None;
};

// The row for (state, event); nullptr if the protocol has none (an event
// that must never happen in that state: a protocol error if it does).
const RnRow* rn_row(RnState s, RnEvent e);

// The home's directory of one line.
// U: a unique owner; O: an owner (SD) and other sharers.
enum class DirState : std::uint8_t { I, S, U, O };
const char* dir_state_name(DirState s);

// The requester's standing in the directory when its request is served.
enum class DirCond : std::uint8_t {
  Invalid,     // no holder
  Sharers,     // sharers, the requester not among them
  SharerReq,   // sharers, the requester among them
  Owner,       // an owner other than the requester (unique, or SD among sharers), the requester not a holder
  OwnerReq,    // the requester is the owner (unique, or SD among sharers)
  OwnerSharerReq,  // an owner other than the requester, the requester among its sharers (SD only)
  Count
};
const char* dir_cond_name(DirCond c);

enum class SnoopWhom : std::uint8_t { None, Owner, Others };

// The requester's place in the directory once its transaction is granted
// (the snooped agents' places follow from their responses).
enum class DirUpdate : std::uint8_t {
  Keep,       // unchanged (a stale Evict or WriteBack)
  AddSharer,  // one more sharer
  MakeOwner,  // the unique owner, every other holder gone
  Remove,     // no longer a holder
};

// How the home serves a request, as flags.
enum HomeOp : std::uint8_t {
  kHomeMemWrite = 1,   // the request's data is written to memory
  kHomeNoAck = 2,      // the transaction ends with the response (no CompAck awaited)
  // The snoop asks the owner to forward the line to the requester: if its
  // response says it did (SnpRespFwded_*), the home sends no grant and
  // waits for the requester's CompAck, which may arrive before that
  // response; if it did not, the home grants as the row says.
  kHomeForward = 4,
  // An atomic: once every snoop is answered, the home applies the
  // request's operation to the line (memory's value, or the dirty data a
  // snoop returned), writes the result to memory, and the grant carries
  // the old value.
  kHomeAtomic = 8,
  // Migratory sharing, a home's policy: a read for a shared copy that finds
  // a unique owner takes the line unique, the owner invalidated, as a
  // ReadUnique would; a read-modify-write that then writes the line needs
  // no upgrade, at the cost of the owner's copy. Not for a forwarding home.
  kHomeMigrate = 16,
  // A WriteUnique: once every snoop is answered (no copy is left), the
  // request's line is written over memory's value, and over any dirty data
  // a snoop returned.
  kHomeWriteLine = 32,
  // Dirty sharing, a home's policy (HomePolicy::owned): a ReadShared that
  // finds an owner lets a dirty one keep its line, shared dirty (SnpToS).
  // Not for a forwarding or migratory home.
  kHomeOwned = 64,
  // Empty grants, a home's policy (HomePolicy::empty; CHI's): a CleanUnique
  // from a requester that holds no copy is granted without data (CompUC),
  // the line unique and empty at the requester (UCE).
  kHomeEmpty = 128,
};

struct HomeRow {
  MsgType req;
  DirCond cond;
  SnoopWhom snoop;
  MsgType snoop_type;  // the snoop sent (None with SnoopWhom::None)
  MsgType grant;       // the response to the requester, sent once every snoop is answered
  DirUpdate update;    // the requester's place in the directory then
  std::uint8_t ops;
};

// The row for (req, c) under a home's policy: with `forward`, the
// forwarding row where there is one; otherwise, with `owned`, the dirty
// sharing one; otherwise, with `migrate`, the migratory one (a home takes
// one policy's rows: forwarding before dirty sharing before migration);
// with `empty` (beside any of those), an empty grant's row where the
// policy before has none. nullptr if the protocol has none.
const HomeRow* home_row(MsgType req, DirCond c, bool forward = false, bool migrate = false, bool owned = false,
                        bool empty = false);
bool msg_forwarded(MsgType m);  // a snoop response saying the data went to the requester

// Every row, for the checks that every (state, event) pair either has a row
// or is proved unreachable.
const RnRow* rn_rows(int* n);
const HomeRow* home_rows(int* n);

}  // namespace hx::coherence
