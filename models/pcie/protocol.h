// PCIe protocol definitions, apart from the components that use them
// (STYLE.md rule 1). Sizes follow the PCIe Base Specification:
//  - TLP header: 3 DW (12 B) for 32-bit addresses and completions, 4 DW (16 B)
//    for 64-bit addresses and messages; optional 4 B ECRC digest (sec. 2.2).
//  - Data link layer: 2 B sequence number + 4 B LCRC (sec. 3.6).
//  - Physical framing: Gen1/2 add STP and END symbols (1 B each, sec. 4.2.1);
//    Gen3-5 use a 4-symbol STP token that carries the sequence number and no
//    END (sec. 4.2.2.3), so both come to 8 B per TLP beyond the header. The
//    pcie-bench model (S010) uses the same 8 B for every generation.
//  - DLLPs (ACK, UpdateFC) are 8 B on the wire in every non-flit generation.
#pragma once
#include <cstdint>
#include <string>

#include "models/core/tick.h"
#include "models/link/vc_arbiter.h"

namespace hx::pcie {

enum class Encoding : std::uint8_t { k8b10b, k128b130b, kFlit };

struct Generation {
  int gen;
  double gts;            // transfer rate per lane, GT/s
  Encoding encoding;     // its costs: encoding_traits
  const char* name;
};

// What an encoding costs: payload bits per line bit, PHY framing + DLL bytes
// added to every TLP, bytes of one DLLP on the wire. A link whose rate is
// not its generation's keeps the framing of its encoding.
struct EncodingTraits {
  double efficiency;
  int tlp_framing_B;
  int dllp_B;
  const char* name;  // "8b10b", "128b130b", "flit"
};
const EncodingTraits& encoding_traits(Encoding e);
bool parse_encoding(const std::string& s, Encoding* out);

// Data table, gen 1..6. Gen6 flit mode is approximated as in the pcie-bench
// model (242 of 256 bytes of a flit carry TLP/DLLP bytes; no per-TLP LCRC).
const Generation& generation(int gen);
bool valid_generation(int gen);
// The link widths PCIe defines, in lanes.
inline constexpr int kLinkWidths[] = {1, 2, 4, 8, 16, 32};

// Flow-control classes (sec. 2.6.1): posted, non-posted, completion.
enum class FcClass : std::uint8_t { P = 0, NP = 1, Cpl = 2 };
constexpr int kFcClasses = 3;
constexpr int kMaxVcs = link::kMaxVcs;  // VC0-VC7 (sec. 2.5); VC0: PCIe and ATS; VC1: CCIX (S000)

// Transaction kinds. Beyond memory reads/writes and completions the enum
// reserves the message families that later models carry over the same ports:
// ATS translation requests/completions and invalidations (on VC0), CCIX
// protocol messages (on VC1) and MSI writes are ordinary MWr.
enum class TlpKind : std::uint8_t {
  MemWr,
  MemRd,
  Cpl,      // completion without data (UR, or a response to a non-posted write)
  CplD,     // completion with data
  Msg,      // message without data (e.g. ATS invalidation completion)
  MsgD,     // message with data (e.g. ATS invalidation request, CCIX message)
  AtsReq,   // translation request: non-posted memory read with AT=01b
  // AtomicOps (sec. 6.15): non-posted requests with data, executed by the
  // completer on the addressed memory and answered by a CplD carrying the
  // original value. FetchAdd and Swap carry one operand of 4 or 8 B; CAS
  // carries two (compare, then swap) of 4 or 8 B each.
  FetchAdd,
  Swap,
  Cas,
};

const char* kind_name(TlpKind k);

inline FcClass fc_class(TlpKind k) {
  switch (k) {
    case TlpKind::MemWr:
    case TlpKind::Msg:
    case TlpKind::MsgD:
      return FcClass::P;
    case TlpKind::MemRd:
    case TlpKind::AtsReq:
    case TlpKind::FetchAdd:
    case TlpKind::Swap:
    case TlpKind::Cas:
      return FcClass::NP;
    default:
      return FcClass::Cpl;
  }
}

inline bool is_atomic(TlpKind k) { return k == TlpKind::FetchAdd || k == TlpKind::Swap || k == TlpKind::Cas; }

inline bool carries_data(TlpKind k) {
  return k == TlpKind::MemWr || k == TlpKind::CplD || k == TlpKind::MsgD || is_atomic(k);
}

// The operand size of an AtomicOp of `len` payload bytes (CAS: two operands),
// or 0 if the size is not one the spec allows here (4 or 8 B operands).
inline std::uint32_t atomic_operand_B(TlpKind k, std::uint32_t len) {
  const std::uint32_t op = k == TlpKind::Cas ? len / 2 : len;
  return (op == 4 || op == 8) && (k != TlpKind::Cas || len == 2 * op) ? op : 0;
}

constexpr int kCreditDataUnit = 16;  // one data credit = 4 DW (sec. 2.6.1)

}  // namespace hx::pcie
