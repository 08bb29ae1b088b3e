// The transaction object carried through the fabric. Pooled (core/pool.h):
// the hot path never allocates. Payload bytes are not copied hop by hop; a
// TLP carries the 64-bit checksum of its bytes (core/payload.h) and either
// a pattern reference (pure traffic: the fast path) or, when its producer
// has real data, a pooled buffer of the bytes themselves.
#pragma once
#include <cstdint>
#include <cstring>
#include <vector>

#include "models/core/ledger.h"
#include "models/core/payload.h"
#include "models/core/pool.h"
#include "models/core/tick.h"
#include "models/pcie/protocol.h"
#include "models/pcie/routing.h"

namespace hx::pcie {

struct alignas(64) Tlp {
  static constexpr const char* kPoolName = "a TLP";
  // What every hop reads, in the first 64 bytes (the rest is read where a
  // TLP is made or consumed).
  TlpKind kind = TlpKind::MemWr;
  std::uint8_t vc = 0;
  bool addr64 = false;
  bool ecrc = false;
  std::uint8_t short_header_B = 0;  // a protocol's own header replacing PCIe's (CCIX optimised: 4 B); 0: none
  std::uint8_t at = 0;           // address type (sec. 2.2.4.1): 0 untranslated, 2 translated
  bool by_id = false;            // a message routed by ID to `target` (sec. 2.2.8)
  // MRd: the requester wants the data itself in its completions (a device
  // that reads descriptors or data it will use), not only its checksum.
  bool want_bytes = false;
  std::uint32_t len = 0;         // payload bytes carried (0 for MRd)
  std::uint32_t req_len = 0;     // MRd: bytes requested; CplD: byte count remaining incl. this one
  std::uint64_t addr = 0;        // request address; for completions the address of its first byte
  Tick ready = 0;                // earliest time it may be transmitted
  Tick rx_start = 0;             // when its first byte reached the receiver of its latest hop
  std::uint64_t seq = 0;         // arrival order inside a component (ordering rules)
  std::uint16_t src_port = 0;    // ingress port inside a component
  std::uint16_t hops = 0;
  std::uint16_t tag = 0;
  std::uint16_t msg_code = 0;    // message / coherence opcode; ATS completion: log2 page size
  void* ctx = nullptr;           // originator's context (opaque to the fabric)

  Rid requester = 0;             // segment, bus:dev.fn of the requester
  Rid completer = 0;             // for completions
  Rid target = 0;                // a message routed by ID: its destination ID (0: the root complex)
  std::uint64_t checksum = 0;    // of the payload bytes
  // What the payload bytes are: bytes [data_off, data_off+len) of the
  // deterministic pattern stream `data_stream` (see pattern_byte). A memory
  // that stores a write regenerates them from here and checks `checksum`.
  std::uint64_t data_stream = 0;
  std::uint64_t data_off = 0;
  // Or the bytes themselves (then data_stream/data_off mean nothing): set
  // with set_bytes; a consumer reads them with payload().
  PayloadBytes* bytes = nullptr;
  Ledger* ledger = nullptr;      // where its time went, when a workload times it (models/core/ledger.h)
  std::uint64_t id = 0;          // unique per simulation: conservation checks
  // AtomicOp operands (FetchAdd: the addend; Swap: the new value; CAS: the
  // compare value, then the swap value) and, in its completion, the
  // original value (operand[0]). Little-endian values of the operand size.
  std::uint64_t operand[2] = {0, 0};
  Tick created = 0;              // when its producer made it
  void release_parts() {
    drop_ledger(ledger);
    drop_bytes(bytes);
  }
  // Carry [p, p+n) as real bytes: len and checksum follow.
  void set_bytes(const std::uint8_t* p, std::uint32_t n) {
    drop_bytes(bytes);
    bytes = take_bytes(p, n);
    len = n;
    checksum = bytes_checksum(bytes->b, n);
  }
  // Whether the payload is what its producer checksummed.
  bool payload_intact() const {
    return bytes ? bytes->n == len && bytes_checksum(bytes->b, len) == checksum
                 : pattern_checksum(data_stream, data_off, len) == checksum;
  }
  // The payload's bytes, real or regenerated from the pattern, into out[0..len).
  void payload(std::uint8_t* out) const {
    if (bytes) std::memcpy(out, bytes->b, len);
    else pattern_fill(data_stream, data_off, out, len);
  }

  FcClass fc() const { return fc_class(kind); }
  int header_B() const {
    if (short_header_B) return short_header_B;
    switch (kind) {
      case TlpKind::MemWr:
      case TlpKind::MemRd:
      case TlpKind::AtsReq:
      case TlpKind::FetchAdd:
      case TlpKind::Swap:
      case TlpKind::Cas:
        return addr64 ? 16 : 12;
      case TlpKind::Msg:
      case TlpKind::MsgD:
        return 16;
      default:
        return 12;
    }
  }
  // Payload on the wire is whole DWs.
  std::uint32_t payload_wire_B() const { return carries_data(kind) ? ((len + 3u) & ~3u) : 0u; }
  int data_credits() const {
    return carries_data(kind) ? static_cast<int>((payload_wire_B() + kCreditDataUnit - 1) / kCreditDataUnit) : 0;
  }
};

// The process's TLPs: TlpPool::instance().get() / put().
using TlpPool = Pool<Tlp>;

// Whether a memory request to `addr` needs the 4-DW header: below 4 GiB the
// 3-DW (32-bit address) format is required (PCIe sec. 2.2.4.1).
inline bool needs_addr64(std::uint64_t addr) { return addr >= (1ull << 32); }

}  // namespace hx::pcie
