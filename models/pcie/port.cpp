#include "models/pcie/port.h"

#include "models/core/error.h"
#include "models/link/link_end_impl.h"

namespace hx::link {
template class LinkEnd<pcie::PcieLinkTraits>;
}  // namespace hx::link

namespace hx::pcie {

namespace {
// SKP ordered sets: 4 B every 1538 B (S010, pcie_constants.yaml skp_ordered_set).
constexpr double kSkpFraction = 4.0 / 1538.0;
}  // namespace

const char* PcieLinkTraits::class_name(int cls) {
  static const char* const names[] = {"P", "NP", "Cpl"};
  return names[cls];
}

double lane_gts(const LinkConfig& l) { return l.rate_gts > 0 ? l.rate_gts : generation(l.gen).gts; }

Encoding link_encoding(const LinkConfig& l) { return l.encoding_set ? l.encoding : generation(l.gen).encoding; }

double link_bytes_per_ns(const LinkConfig& l) {
  const Encoding e = link_encoding(l);
  double rate_Bpns = lane_gts(l) * encoding_traits(e).efficiency * l.width / 8.0;
  if (l.skp && e != Encoding::kFlit) rate_Bpns *= (1.0 - kSkpFraction);
  return rate_Bpns;
}

double write_payload_bytes_per_ns(const LinkConfig& l, int payload, int tx_align_B) {
  const auto p = static_cast<std::uint32_t>(payload);
  const std::uint32_t wire = tlp_wire_bytes(16, (p + 3u) & ~3u, static_cast<std::uint32_t>(encoding_traits(link_encoding(l)).tlp_framing_B),
                                            false, static_cast<std::uint32_t>(tlp_align(l, tx_align_B)));
  return link_bytes_per_ns(l) * payload / wire;
}

link::Wire PcieLinkTraits::wire(const LinkConfig& l, const PortConfig& tx) {
  const EncodingTraits& g = encoding_traits(link_encoding(l));
  link::Wire w;
  w.ps_per_byte = 1000.0 / link_bytes_per_ns(l);
  // Gen1/2 start STP on lane 0 (lane 4m on wider links): TLPs occupy whole
  // 4-byte symbol columns on x4 and wider links (spec 4.2.1). The
  // transmitter's datapath beat can be coarser (tx_align_B).
  w.align = static_cast<std::uint32_t>(tlp_align(l, tx.tx_align_B));
  w.framing_B = static_cast<std::uint32_t>(g.tlp_framing_B);
  w.ctrl_B = static_cast<std::uint32_t>(g.dllp_B);
  return w;
}

void PcieLinkTraits::check_transmit(const PciePort& tx, const Tlp& t) {
  if (!carries_data(t.kind)) return;
  if (t.len > static_cast<std::uint32_t>(tx.config().mps))
    sim_fail(tx.name(), std::string("transmitting a ") + kind_name(t.kind) + " of " + std::to_string(t.len) +
                            " B above this port's MPS " + std::to_string(tx.config().mps));
  if (t.len > static_cast<std::uint32_t>(tx.peer()->config().mps))
    sim_fail(tx.name(), std::string("malformed TLP: a ") + kind_name(t.kind) + " of " + std::to_string(t.len) +
                            " B to a receiver whose MPS is " + std::to_string(tx.peer()->config().mps));
}

}  // namespace hx::pcie
