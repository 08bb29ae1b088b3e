#include "models/coherence/protocol.h"

#include <algorithm>
#include <array>
#include <string>

#include "models/core/error.h"

namespace hx::coherence {

namespace {
using S = RnState;
using E = RnEvent;
using M = MsgType;
constexpr std::uint16_t L = kOpLoad, St = kOpStore, In = kOpInstall, D = kOpData, A = kOpAck, R = kOpRetire,
                        Op = kOpOperands, Res = kOpResult, Sd = kOpStoreData, Me = kOpMerge, Ag = kOpAgain;

// The caching agent's table. A core operation without a row waits (the
// line has a request outstanding); a message without a row is a protocol
// error, and the exhaustive search proves that none reaches its state.
constexpr RnRow kRn[] = {
    // stable states: core operations
    {S::I, E::Load, S::IS_P, M::ReadShared, 0},
    {S::I, E::Store, S::IM_P, M::ReadUnique, 0},
    {S::SC, E::Load, S::SC, M::None, L},
    {S::SC, E::Store, S::SM_P, M::CleanUnique, 0},
    {S::SC, E::Replace, S::EV_P, M::Evict, 0},
    {S::UC, E::Load, S::UC, M::None, L},
    {S::UC, E::Store, S::UD, M::None, St},  // a unique line is written silently
    {S::UC, E::Replace, S::EV_P, M::Evict, 0},
    {S::UD, E::Load, S::UD, M::None, L},
    {S::UD, E::Store, S::UD, M::None, St},
    {S::UD, E::Replace, S::WB_P, M::WriteBack, D},
    {S::SD, E::Load, S::SD, M::None, L},
    {S::SD, E::Store, S::SDM_P, M::CleanUnique, 0},  // the others' copies go first
    {S::SD, E::Replace, S::WB_P, M::WriteBack, D},
    // far atomics, from a line not held (one held runs its atomic near)
    {S::I, E::AtomicStore, S::AT_P, M::AtomicStore, Op},
    {S::I, E::AtomicLoad, S::AT_P, M::AtomicLoad, Op},
    {S::I, E::AtomicSwap, S::AT_P, M::AtomicSwap, Op},
    {S::I, E::AtomicCompare, S::AT_P, M::AtomicCompare, Op},
    // accesses that keep no copy, from a line not held (one held is
    // loaded or stored in the cache)
    {S::I, E::ReadOnce, S::RO_P, M::ReadOnce, 0},
    {S::I, E::WriteUnique, S::WU_P, M::WriteUnique, Sd},
    // a whole-line store that allocates: the line unique, without its data
    {S::I, E::StoreLine, S::MU_P, M::MakeUnique, 0},
    // a read that takes a clean copy only
    {S::I, E::ReadClean, S::IS_P, M::ReadClean, 0},
    // accesses to a line no agent caches: served as ReadOnce and
    // WriteUnique are
    {S::I, E::ReadNoSnp, S::RO_P, M::ReadNoSnp, 0},
    {S::I, E::WriteNoSnp, S::WU_P, M::WriteNoSnp, Sd},
    // a clean line given up silently (a home that allows it: the requests
    // these cores issue are loads and stores alone)
    {S::SC, E::Drop, S::I, M::None, 0},
    {S::UC, E::Drop, S::I, M::None, 0},
    // stable states: snoops
    {S::SC, E::SnpToI, S::I, M::SnpResp_I, 0},
    {S::UC, E::SnpToSC, S::SC, M::SnpResp_SC, 0},
    {S::UC, E::SnpToI, S::I, M::SnpResp_I, 0},
    {S::UD, E::SnpToSC, S::SC, M::SnpRespData_SC, D},
    {S::UD, E::SnpToI, S::I, M::SnpRespData_I, D},
    // ... a dirty owner asked to share may keep its line dirty (SD): its
    // copy for the requester goes to the home, and memory does not take it
    {S::UC, E::SnpToS, S::SC, M::SnpResp_SC, 0},
    {S::UD, E::SnpToS, S::SD, M::SnpRespData_SD, D},
    {S::SD, E::SnpToS, S::SD, M::SnpRespData_SD, D},
    {S::SD, E::SnpToSC, S::SC, M::SnpRespData_SC, D},
    {S::SD, E::SnpToI, S::I, M::SnpRespData_I, D},
    // ... and a MakeUnique's: every copy goes, dirty data with it (the
    // requester overwrites the whole line)
    {S::SC, E::SnpToMakeI, S::I, M::SnpResp_I, 0},
    {S::UC, E::SnpToMakeI, S::I, M::SnpResp_I, 0},
    {S::UD, E::SnpToMakeI, S::I, M::SnpResp_I, 0},
    {S::SD, E::SnpToMakeI, S::I, M::SnpResp_I, 0},
    // stable states: forwarding snoops (an owner's), the data to the
    // requester. A dirty line forwarded unique stays dirty at its new
    // owner; forwarded shared, its dirty data goes home as well.
    {S::UC, E::SnpToSFwd, S::SC, M::SnpRespFwded_SC, 0, M::CompDataSC},
    {S::UC, E::SnpToIFwd, S::I, M::SnpRespFwded_I, 0, M::CompDataUC},
    {S::UD, E::SnpToSFwd, S::SC, M::SnpRespDataFwded_SC, D, M::CompDataSC},
    {S::UD, E::SnpToIFwd, S::I, M::SnpRespFwded_I, 0, M::CompDataUC},
    // requests outstanding: their responses
    {S::IS_P, E::CompDataSC, S::SC, M::None, In | L | A | R},
    {S::IS_P, E::CompDataUC, S::UC, M::None, In | L | A | R},
    {S::IM_P, E::CompDataUC, S::UD, M::None, In | St | A | R},
    {S::SM_P, E::Load, S::SM_P, M::None, L},
    {S::SM_P, E::CompUC, S::UD, M::None, St | A | R},
    {S::SMI_P, E::CompDataUC, S::UD, M::None, In | St | A | R},
    {S::SDM_P, E::Load, S::SDM_P, M::None, L},
    {S::SDM_P, E::CompUC, S::UD, M::None, St | A | R},
    {S::EV_P, E::WBAck, S::I, M::None, R},
    {S::WB_P, E::WBAck, S::I, M::None, R},
    {S::WBI_P, E::WBAck, S::I, M::None, R},
    {S::AT_P, E::CompDataAtomic, S::I, M::None, Res | R},
    {S::AT_P, E::Comp, S::I, M::None, R},
    // the snapshot is loaded on its way through: the line is not kept
    {S::RO_P, E::CompDataI, S::I, M::None, In | L | A | R},
    {S::WU_P, E::Comp, S::I, M::None, R},
    {S::MU_P, E::CompUC, S::UD, M::None, St | A | R},
    // requests outstanding: snoops that race with them
    {S::SM_P, E::SnpToI, S::SMI_P, M::SnpResp_I, 0},
    // an SD owner's upgrade: it still owes its dirty data to every snoop
    {S::SDM_P, E::SnpToS, S::SDM_P, M::SnpRespData_SD, D},
    {S::SDM_P, E::SnpToSC, S::SM_P, M::SnpRespData_SC, D},  // now a clean sharer's upgrade
    {S::SDM_P, E::SnpToI, S::SMI_P, M::SnpRespData_I, D},
    {S::SDM_P, E::SnpToMakeI, S::SMI_P, M::SnpResp_I, 0},
    {S::EV_P, E::SnpToS, S::EV_P, M::SnpResp_I, 0},
    {S::WB_P, E::SnpToS, S::WBI_P, M::SnpRespData_I, D},
    {S::EV_P, E::SnpToSC, S::EV_P, M::SnpResp_I, 0},
    {S::EV_P, E::SnpToI, S::EV_P, M::SnpResp_I, 0},
    {S::WB_P, E::SnpToSC, S::WBI_P, M::SnpRespData_I, D},
    {S::WB_P, E::SnpToI, S::WBI_P, M::SnpRespData_I, D},
    {S::SM_P, E::SnpToMakeI, S::SMI_P, M::SnpResp_I, 0},
    {S::EV_P, E::SnpToMakeI, S::EV_P, M::SnpResp_I, 0},
    {S::WB_P, E::SnpToMakeI, S::WBI_P, M::SnpResp_I, 0},  // its write-back is stale once the home has this answer
    // ... and snoops of a line given up silently, the directory not told:
    // nothing held, whatever the snoop, in I or with a request of its own
    // on the way (the home serves that one after the snoop's transaction)
    {S::I, E::SnpToI, S::I, M::SnpResp_I, 0},
    {S::I, E::SnpToSC, S::I, M::SnpResp_I, 0},
    {S::I, E::SnpToS, S::I, M::SnpResp_I, 0},
    {S::I, E::SnpToSFwd, S::I, M::SnpResp_I, 0},
    {S::I, E::SnpToIFwd, S::I, M::SnpResp_I, 0},
    {S::IS_P, E::SnpToI, S::IS_P, M::SnpResp_I, 0},
    {S::IS_P, E::SnpToSC, S::IS_P, M::SnpResp_I, 0},
    {S::IS_P, E::SnpToS, S::IS_P, M::SnpResp_I, 0},
    {S::IS_P, E::SnpToSFwd, S::IS_P, M::SnpResp_I, 0},
    {S::IS_P, E::SnpToIFwd, S::IS_P, M::SnpResp_I, 0},
    {S::IM_P, E::SnpToI, S::IM_P, M::SnpResp_I, 0},
    {S::IM_P, E::SnpToSC, S::IM_P, M::SnpResp_I, 0},
    {S::IM_P, E::SnpToS, S::IM_P, M::SnpResp_I, 0},
    {S::IM_P, E::SnpToSFwd, S::IM_P, M::SnpResp_I, 0},
    {S::IM_P, E::SnpToIFwd, S::IM_P, M::SnpResp_I, 0},
    {S::SMI_P, E::SnpToI, S::SMI_P, M::SnpResp_I, 0},  // a partial store's CleanUnique from I
    {S::SMI_P, E::SnpToSC, S::SMI_P, M::SnpResp_I, 0},
    {S::SMI_P, E::SnpToS, S::SMI_P, M::SnpResp_I, 0},
    {S::SMI_P, E::SnpToSFwd, S::SMI_P, M::SnpResp_I, 0},
    {S::SMI_P, E::SnpToIFwd, S::SMI_P, M::SnpResp_I, 0},
    // ... and forwarding snoops: an eviction or write-back in flight does
    // not forward; it answers as to a plain snoop, and the home grants.
    {S::EV_P, E::SnpToSFwd, S::EV_P, M::SnpResp_I, 0},
    {S::EV_P, E::SnpToIFwd, S::EV_P, M::SnpResp_I, 0},
    {S::WB_P, E::SnpToSFwd, S::WBI_P, M::SnpRespData_I, D},
    {S::WB_P, E::SnpToIFwd, S::WBI_P, M::SnpRespData_I, D},
    // Partial lines (an agent that takes lines empty, a home that grants
    // them: protocol.h). A store of some lanes to a line not held asks for
    // the line unique, without its data; an empty grant leaves the line
    // UCE, and the store runs again on it (kOpAgain).
    {S::I, E::StorePtl, S::SMI_P, M::CleanUnique, 0},
    {S::SMI_P, E::CompUC, S::UCE, M::None, A | R | Ag},
    // A store writes its lanes (UDP; every lane written: UD, rn_step); a
    // load asks for the line's data, which the home grants unique from
    // memory (the agent owns it), and keeps its own lanes over it.
    {S::UCE, E::Store, S::UDP, M::None, St},
    {S::UCE, E::Load, S::IS_P, M::ReadShared, 0},
    {S::UCE, E::Replace, S::EV_P, M::Evict, 0},
    {S::UDP, E::Store, S::UDP, M::None, St},
    {S::UDP, E::Load, S::UDR_P, M::ReadShared, 0},
    {S::UDP, E::Replace, S::WBP_P, M::WriteBackPtl, D},
    {S::UDR_P, E::CompDataUC, S::UD, M::None, Me | L | A | R},
    {S::WBP_P, E::WBAck, S::I, M::None, R},
    // ... snoops: an empty line has no data to give; a partial one sends
    // its lanes home (never forwarded: the requester needs a whole line),
    // but not to a MakeUnique's snoop (the line is about to be overwritten).
    {S::UCE, E::SnpToS, S::I, M::SnpResp_I, 0},
    {S::UCE, E::SnpToSC, S::I, M::SnpResp_I, 0},
    {S::UCE, E::SnpToI, S::I, M::SnpResp_I, 0},
    {S::UCE, E::SnpToSFwd, S::I, M::SnpResp_I, 0},
    {S::UCE, E::SnpToIFwd, S::I, M::SnpResp_I, 0},
    {S::UCE, E::SnpToMakeI, S::I, M::SnpResp_I, 0},
    {S::UDP, E::SnpToS, S::I, M::SnpRespDataPtl, D},
    {S::UDP, E::SnpToSC, S::I, M::SnpRespDataPtl, D},
    {S::UDP, E::SnpToI, S::I, M::SnpRespDataPtl, D},
    {S::UDP, E::SnpToSFwd, S::I, M::SnpRespDataPtl, D},
    {S::UDP, E::SnpToIFwd, S::I, M::SnpRespDataPtl, D},
    {S::UDP, E::SnpToMakeI, S::I, M::SnpResp_I, 0},
    // ... and while a partial line's load or write-back is outstanding (the
    // load's request is then served as from an agent that holds nothing)
    {S::UDR_P, E::SnpToS, S::IS_P, M::SnpRespDataPtl, D},
    {S::UDR_P, E::SnpToSC, S::IS_P, M::SnpRespDataPtl, D},
    {S::UDR_P, E::SnpToI, S::IS_P, M::SnpRespDataPtl, D},
    {S::UDR_P, E::SnpToSFwd, S::IS_P, M::SnpRespDataPtl, D},
    {S::UDR_P, E::SnpToIFwd, S::IS_P, M::SnpRespDataPtl, D},
    {S::UDR_P, E::SnpToMakeI, S::IS_P, M::SnpResp_I, 0},
    {S::WBP_P, E::SnpToS, S::WBI_P, M::SnpRespDataPtl, D},
    {S::WBP_P, E::SnpToSC, S::WBI_P, M::SnpRespDataPtl, D},
    {S::WBP_P, E::SnpToI, S::WBI_P, M::SnpRespDataPtl, D},
    {S::WBP_P, E::SnpToSFwd, S::WBI_P, M::SnpRespDataPtl, D},
    {S::WBP_P, E::SnpToIFwd, S::WBI_P, M::SnpRespDataPtl, D},
    {S::WBP_P, E::SnpToMakeI, S::WBI_P, M::SnpResp_I, 0},
    // ... an empty line's load outstanding, which the directory lists as
    // the owner: nothing held
    {S::IS_P, E::SnpToMakeI, S::IS_P, M::SnpResp_I, 0},
};

using C = DirCond;
using W = SnoopWhom;
using U = DirUpdate;
constexpr std::uint8_t Mw = kHomeMemWrite, Na = kHomeNoAck, Fw = kHomeForward, At = kHomeAtomic, Mg = kHomeMigrate,
                       Wl = kHomeWriteLine, Ow = kHomeOwned, Ue = kHomeEmpty;

// The home's table: how it serves each request, by the requester's standing
// in the directory. A (request, standing) pair without a row is a protocol
// error, proved unreachable by the exhaustive search.
constexpr HomeRow kHome[] = {
    {M::ReadShared, C::Invalid, W::None, M::None, M::CompDataUC, U::MakeOwner, 0},  // the only copy: unique
    {M::ReadShared, C::Sharers, W::None, M::None, M::CompDataSC, U::AddSharer, 0},
    {M::ReadShared, C::Owner, W::Owner, M::SnpToSC, M::CompDataSC, U::AddSharer, 0},
    {M::ReadUnique, C::Invalid, W::None, M::None, M::CompDataUC, U::MakeOwner, 0},
    {M::ReadUnique, C::Sharers, W::Others, M::SnpToI, M::CompDataUC, U::MakeOwner, 0},
    {M::ReadUnique, C::Owner, W::Others, M::SnpToI, M::CompDataUC, U::MakeOwner, 0},
    // A read from an agent the directory still lists, which gave its clean
    // copy up silently (a caching agent's Drop): served as from one not
    // listed, its stale place taken by the new one.
    {M::ReadShared, C::SharerReq, W::None, M::None, M::CompDataSC, U::AddSharer, 0},
    {M::ReadShared, C::OwnerReq, W::None, M::None, M::CompDataUC, U::MakeOwner, 0},
    {M::ReadUnique, C::SharerReq, W::Others, M::SnpToI, M::CompDataUC, U::MakeOwner, 0},
    {M::ReadUnique, C::OwnerReq, W::None, M::None, M::CompDataUC, U::MakeOwner, 0},
    {M::ReadUnique, C::OwnerSharerReq, W::Others, M::SnpToI, M::CompDataUC, U::MakeOwner, 0},
    // An upgrade whose copy survived needs no data; one whose copy was lost
    // to a snoop meanwhile gets the line with its data.
    {M::CleanUnique, C::SharerReq, W::Others, M::SnpToI, M::CompUC, U::MakeOwner, 0},
    {M::CleanUnique, C::Invalid, W::None, M::None, M::CompDataUC, U::MakeOwner, 0},
    {M::CleanUnique, C::Sharers, W::Others, M::SnpToI, M::CompDataUC, U::MakeOwner, 0},
    {M::CleanUnique, C::Owner, W::Others, M::SnpToI, M::CompDataUC, U::MakeOwner, 0},
    // ... and with a dirty owner among the sharers (SD): the owner's own
    // upgrade, and a sharer's (the owner's dirty data comes home)
    {M::CleanUnique, C::OwnerReq, W::Others, M::SnpToI, M::CompUC, U::MakeOwner, 0},
    {M::CleanUnique, C::OwnerSharerReq, W::Others, M::SnpToI, M::CompUC, U::MakeOwner, 0},
    {M::Evict, C::SharerReq, W::None, M::None, M::WBAck, U::Remove, Na},
    {M::Evict, C::OwnerSharerReq, W::None, M::None, M::WBAck, U::Remove, Na},
    {M::Evict, C::OwnerReq, W::None, M::None, M::WBAck, U::Remove, Na},
    // An eviction or write-back whose line a snoop took first: nothing to do.
    {M::Evict, C::Invalid, W::None, M::None, M::WBAck, U::Keep, Na},
    {M::Evict, C::Sharers, W::None, M::None, M::WBAck, U::Keep, Na},
    {M::Evict, C::Owner, W::None, M::None, M::WBAck, U::Keep, Na},
    {M::WriteBack, C::OwnerReq, W::None, M::None, M::WBAck, U::Remove, Mw | Na},
    {M::WriteBack, C::Invalid, W::None, M::None, M::WBAck, U::Keep, Na},
    {M::WriteBack, C::Sharers, W::None, M::None, M::WBAck, U::Keep, Na},
    {M::WriteBack, C::Owner, W::None, M::None, M::WBAck, U::Keep, Na},
    // Atomics, from a requester that holds no copy: every copy goes first
    // (an owner's dirty data comes home), and the requester gets the old
    // value (AtomicStore: a plain Comp) and no copy.
    {M::AtomicStore, C::Invalid, W::None, M::None, M::Comp, U::Keep, At | Na},
    {M::AtomicStore, C::Sharers, W::Others, M::SnpToI, M::Comp, U::Keep, At | Na},
    {M::AtomicStore, C::Owner, W::Others, M::SnpToI, M::Comp, U::Keep, At | Na},
    {M::AtomicLoad, C::Invalid, W::None, M::None, M::CompDataAtomic, U::Keep, At | Na},
    {M::AtomicLoad, C::Sharers, W::Others, M::SnpToI, M::CompDataAtomic, U::Keep, At | Na},
    {M::AtomicLoad, C::Owner, W::Others, M::SnpToI, M::CompDataAtomic, U::Keep, At | Na},
    {M::AtomicSwap, C::Invalid, W::None, M::None, M::CompDataAtomic, U::Keep, At | Na},
    {M::AtomicSwap, C::Sharers, W::Others, M::SnpToI, M::CompDataAtomic, U::Keep, At | Na},
    {M::AtomicSwap, C::Owner, W::Others, M::SnpToI, M::CompDataAtomic, U::Keep, At | Na},
    {M::AtomicCompare, C::Invalid, W::None, M::None, M::CompDataAtomic, U::Keep, At | Na},
    {M::AtomicCompare, C::Sharers, W::Others, M::SnpToI, M::CompDataAtomic, U::Keep, At | Na},
    {M::AtomicCompare, C::Owner, W::Others, M::SnpToI, M::CompDataAtomic, U::Keep, At | Na},
    // Accesses that keep no copy. A ReadOnce takes memory's value, a unique
    // owner snooped to shared first (its dirty data comes home); the home
    // holds the line until the CompAck. A WriteUnique invalidates every
    // copy, then writes its line; no CompAck (the requester holds nothing).
    {M::ReadOnce, C::Invalid, W::None, M::None, M::CompDataI, U::Keep, 0},
    {M::ReadOnce, C::Sharers, W::None, M::None, M::CompDataI, U::Keep, 0},
    {M::ReadOnce, C::Owner, W::Owner, M::SnpToSC, M::CompDataI, U::Keep, 0},
    {M::WriteUnique, C::Invalid, W::None, M::None, M::Comp, U::Keep, Wl | Na},
    {M::WriteUnique, C::Sharers, W::Others, M::SnpToI, M::Comp, U::Keep, Wl | Na},
    {M::WriteUnique, C::Owner, W::Others, M::SnpToI, M::Comp, U::Keep, Wl | Na},
    // A MakeUnique: every other copy invalidated (an owner's dirty data
    // dropped: the requester overwrites the line), the line granted unique
    // with no data.
    {M::MakeUnique, C::Invalid, W::None, M::None, M::CompUC, U::MakeOwner, 0},
    {M::MakeUnique, C::Sharers, W::Others, M::SnpToMakeI, M::CompUC, U::MakeOwner, 0},
    {M::MakeUnique, C::Owner, W::Others, M::SnpToMakeI, M::CompUC, U::MakeOwner, 0},
    // A ReadClean: a clean copy only, an owner's dirty data sent home.
    {M::ReadClean, C::Invalid, W::None, M::None, M::CompDataUC, U::MakeOwner, 0},
    {M::ReadClean, C::Sharers, W::None, M::None, M::CompDataSC, U::AddSharer, 0},
    {M::ReadClean, C::Owner, W::Owner, M::SnpToSC, M::CompDataSC, U::AddSharer, 0},
    // Accesses to a line no agent caches: memory's value, or the whole
    // line written, with no snoop (a line some agent holds has no row).
    {M::ReadNoSnp, C::Invalid, W::None, M::None, M::CompDataI, U::Keep, 0},
    {M::WriteNoSnp, C::Invalid, W::None, M::None, M::Comp, U::Keep, Wl | Na},
    // A forwarding home's rows, taking the place of the rows above for the
    // same request and standing: a request that finds a unique owner asks
    // it to send the line to the requester.
    {M::ReadShared, C::Owner, W::Owner, M::SnpToSFwd, M::CompDataSC, U::AddSharer, Fw},
    {M::ReadUnique, C::Owner, W::Owner, M::SnpToIFwd, M::CompDataUC, U::MakeOwner, Fw},
    {M::CleanUnique, C::Owner, W::Owner, M::SnpToIFwd, M::CompDataUC, U::MakeOwner, Fw},
    {M::ReadClean, C::Owner, W::Owner, M::SnpToSFwd, M::CompDataSC, U::AddSharer, Fw},
    // A dirty-sharing home's row: a ReadShared that finds an owner lets a
    // dirty one keep its line (SD), and takes its copy for the requester.
    {M::ReadShared, C::Owner, W::Owner, M::SnpToS, M::CompDataSC, U::AddSharer, Ow},
    {M::ReadShared, C::OwnerSharerReq, W::Owner, M::SnpToS, M::CompDataSC, U::AddSharer, Ow},  // a silent dropper's
    // A migratory home's row: a ReadShared that finds a unique owner is
    // served as a ReadUnique is, the owner's dirty data coming home. Not
    // with forwarding: an owner would have to pass its dirty line on as
    // dirty, a grant (UD) the protocol does not have; the search finds the
    // stale memory a clean one leaves.
    {M::ReadShared, C::Owner, W::Others, M::SnpToI, M::CompDataUC, U::MakeOwner, Mg},
    // A partial line's write-back: its lanes merged into memory's. Stale
    // (a snoop took the lanes first): nothing to do.
    {M::WriteBackPtl, C::OwnerReq, W::None, M::None, M::WBAck, U::Remove, Mw | Na},
    {M::WriteBackPtl, C::Invalid, W::None, M::None, M::WBAck, U::Keep, Na},
    {M::WriteBackPtl, C::Sharers, W::None, M::None, M::WBAck, U::Keep, Na},
    {M::WriteBackPtl, C::Owner, W::None, M::None, M::WBAck, U::Keep, Na},
    // An empty-granting home's rows: a CleanUnique from a requester that
    // holds no copy is granted unique without data, every other copy
    // invalidated first (an owner's dirty data comes home). Listed last: a
    // forwarding home's row for an owner comes first (its owner sends the
    // line, and the requester takes it whole).
    {M::CleanUnique, C::Invalid, W::None, M::None, M::CompUC, U::MakeOwner, Ue},
    {M::CleanUnique, C::Sharers, W::Others, M::SnpToI, M::CompUC, U::MakeOwner, Ue},
    {M::CleanUnique, C::Owner, W::Others, M::SnpToI, M::CompUC, U::MakeOwner, Ue},
};

// Direct look-up tables, built once from the rows: one home table per
// set of policies (bit 0: forwarding, 1: migratory, 2: dirty sharing; a
// home takes one, home_row; bit 3: empty grants, beside any), each holding, per request and standing, the
// policy's own row where it has one, the plain row otherwise.
struct Index {
  static constexpr int kPolicies = 16;
  std::array<const RnRow*, kRnStates * kRnEvents> rn{};
  std::array<std::array<const HomeRow*, kMsgTypes * static_cast<int>(DirCond::Count)>, kPolicies> home{};
  static int at(MsgType req, DirCond c) { return static_cast<int>(req) * static_cast<int>(DirCond::Count) + static_cast<int>(c); }
  static int policy_of(std::uint8_t ops) {
    return ((ops & kHomeForward) ? 1 : 0) | ((ops & kHomeMigrate) ? 2 : 0) | ((ops & kHomeOwned) ? 4 : 0) |
           ((ops & kHomeEmpty) ? 8 : 0);
  }
  Index() {
    for (const RnRow& r : kRn) rn[static_cast<int>(r.state) * kRnEvents + static_cast<int>(r.event)] = &r;
    for (int p = 0; p < kPolicies; ++p)
      for (const HomeRow& r : kHome) {
        const int need = policy_of(r.ops);
        if ((need & p) != need) continue;
        const HomeRow*& slot = home[static_cast<std::size_t>(p)][static_cast<std::size_t>(at(r.req, r.cond))];
        if (!slot || __builtin_popcount(static_cast<unsigned>(need)) > __builtin_popcount(static_cast<unsigned>(policy_of(slot->ops))))
          slot = &r;
      }
  }
};
const Index& index() {
  static const Index i;
  return i;
}
}  // namespace

const char* msg_name(MsgType m) { return m == MsgType::None ? "None" : kMsgInfo[static_cast<int>(m)].name; }
bool msg_line_data(MsgType m) { return msg_data_bytes(m) == kLineBytes; }
bool msg_to_memory(MsgType m) {
  return msg_line_data(m) && m != M::SnpRespData_SD && m != M::CompDataSC && m != M::CompDataUC && m != M::CompDataI;
}
bool msg_partial(MsgType m) { return m == M::WriteBackPtl || m == M::SnpRespDataPtl; }
std::uint32_t class_data_bytes(MsgClass c) {
  std::uint32_t n = 0;
  for (const MsgInfo& i : kMsgInfo)
    if (i.cls == c) n = std::max(n, i.bytes);
  return n;
}

std::uint64_t rmw_apply(const Rmw& rmw, std::uint64_t old) {
  switch (rmw.op) {
    case AtomicOp::Store:
    case AtomicOp::Load: return old + rmw.operand;
    case AtomicOp::Swap: return rmw.operand;
    case AtomicOp::Compare: return old == rmw.compare ? rmw.operand : old;
  }
  return old;
}

MsgType atomic_request(AtomicOp op) {
  static constexpr MsgType k[] = {M::AtomicStore, M::AtomicLoad, M::AtomicSwap, M::AtomicCompare};
  return k[static_cast<int>(op)];
}
bool msg_atomic(MsgType m) { return m == M::AtomicStore || m == M::AtomicLoad || m == M::AtomicSwap || m == M::AtomicCompare; }
AtomicOp atomic_op_of(MsgType m) {
  return m == M::AtomicStore ? AtomicOp::Store : m == M::AtomicLoad ? AtomicOp::Load : m == M::AtomicSwap ? AtomicOp::Swap : AtomicOp::Compare;
}

const char* rn_state_name(RnState s) {
  static const char* const n[] = {"I",     "SC",   "UC",   "UD",    "SD",   "UCE",  "UDP",  "IS_P",  "IM_P", "SM_P",
                                  "SMI_P", "SDM_P", "EV_P", "WB_P", "WBI_P", "AT_P", "RO_P", "WU_P", "MU_P", "UDR_P", "WBP_P"};
  static_assert(sizeof n / sizeof n[0] == kRnStates, "a name per state");
  return n[static_cast<int>(s)];
}
bool rn_stable(RnState s) {
  return s == S::I || s == S::SC || s == S::UC || s == S::UD || s == S::SD || s == S::UCE || s == S::UDP;
}
bool rn_dirty(RnState s) { return s == S::UD || s == S::SD || s == S::SDM_P || s == S::UDP || s == S::UDR_P; }

const char* rn_event_name(RnEvent e) {
  static const char* const n[] = {"Load",       "Store",      "Replace",        "AtomicStore", "AtomicLoad", "AtomicSwap",
                                  "AtomicCompare", "ReadOnce", "WriteUnique", "StoreLine", "ReadClean", "ReadNoSnp",
                                  "WriteNoSnp", "StorePtl", "Drop", "SnpToS",   "SnpToSC",   "SnpToI",
                                  "SnpToSFwd",  "SnpToIFwd",  "SnpToMakeI", "CompDataSC", "CompDataUC", "CompDataAtomic", "CompDataI", "CompUC",
                                  "Comp",       "WBAck"};
  static_assert(sizeof n / sizeof n[0] == kRnEvents, "a name per event");
  return n[static_cast<int>(e)];
}

RnEvent rn_event_of(MsgType m) {
  switch (m) {
    case M::SnpToS: return E::SnpToS;
    case M::SnpToSC: return E::SnpToSC;
    case M::SnpToI: return E::SnpToI;
    case M::SnpToSFwd: return E::SnpToSFwd;
    case M::SnpToIFwd: return E::SnpToIFwd;
    case M::SnpToMakeI: return E::SnpToMakeI;
    case M::CompDataSC: return E::CompDataSC;
    case M::CompDataUC: return E::CompDataUC;
    case M::CompDataAtomic: return E::CompDataAtomic;
    case M::CompDataI: return E::CompDataI;
    case M::CompUC: return E::CompUC;
    case M::Comp: return E::Comp;
    case M::WBAck: return E::WBAck;
    default: return E::Count;
  }
}

RnEvent core_event(RnEvent e, RnState s) {
  if (s == S::I || (e != E::ReadOnce && e != E::WriteUnique && e != E::StoreLine && e != E::StorePtl && e != E::ReadClean))
    return e;
  return e == E::ReadOnce || e == E::ReadClean ? E::Load : E::Store;
}

RnEvent atomic_event(AtomicOp op) {
  static constexpr RnEvent k[] = {E::AtomicStore, E::AtomicLoad, E::AtomicSwap, E::AtomicCompare};
  return k[static_cast<int>(op)];
}
AtomicOp atomic_op_of(RnEvent e) {
  for (AtomicOp op : {AtomicOp::Store, AtomicOp::Load, AtomicOp::Swap, AtomicOp::Compare})
    if (atomic_event(op) == e) return op;
  throw SimError(std::string("event ") + rn_event_name(e) + " is no far atomic");
}

const RnRow* rn_row(RnState s, RnEvent e) { return index().rn[static_cast<int>(s) * kRnEvents + static_cast<int>(e)]; }

const char* dir_state_name(DirState s) {
  static const char* const n[] = {"I", "S", "U", "O"};
  return n[static_cast<int>(s)];
}
const char* dir_cond_name(DirCond c) {
  static const char* const n[] = {"Invalid", "Sharers", "SharerReq", "Owner", "OwnerReq", "OwnerSharerReq"};
  return n[static_cast<int>(c)];
}

const HomeRow* home_row(MsgType req, DirCond c, bool forward, bool migrate, bool owned, bool empty) {
  // One policy's rows: a forwarding home neither migrates (see the
  // migratory row) nor keeps dirty lines shared, a dirty-sharing one does
  // not migrate; empty grants go with any of them.
  const unsigned p = (forward ? 1u : owned ? 4u : migrate ? 2u : 0u) | (empty ? 8u : 0u);
  return index().home[p][static_cast<std::size_t>(Index::at(req, c))];
}

bool msg_forwarded(MsgType m) { return m == M::SnpRespFwded_I || m == M::SnpRespFwded_SC || m == M::SnpRespDataFwded_SC; }

const RnRow* rn_rows(int* n) {
  *n = static_cast<int>(sizeof kRn / sizeof kRn[0]);
  return kRn;
}
const HomeRow* home_rows(int* n) {
  *n = static_cast<int>(sizeof kHome / sizeof kHome[0]);
  return kHome;
}

}  // namespace hx::coherence
