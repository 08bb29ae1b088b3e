#include "src/sim/analytic.h"

#include <cmath>

#include "models/pcie/protocol.h"

namespace hx::sim {

namespace {
// ACK/UpdateFC limits (bytes between DLLPs) as the pcie-bench model encodes
// the spec tables; rows gen1..gen3 (gen4+ reuse gen3), widths x1..x16,
// columns MPS 128..4096 (reference data: pcie_constants.yaml, S010).
const int kAckLimit[3][5][6] = {
    {{237, 416, 559, 1071, 2095, 4143}, {128, 217, 289, 545, 1057, 2081}, {73, 118, 154, 282, 538, 1050},
     {67, 107, 86, 150, 278, 534}, {48, 72, 86, 150, 278, 534}},
    {{288, 467, 610, 1122, 2146, 4194}, {179, 268, 340, 596, 1108, 2132}, {124, 169, 205, 333, 589, 1101},
     {118, 158, 137, 201, 329, 585}, {99, 123, 137, 201, 329, 585}},
    {{333, 512, 655, 1167, 2191, 4239}, {224, 313, 385, 641, 1153, 2177}, {169, 214, 250, 378, 634, 1146},
     {163, 203, 182, 246, 374, 630}, {144, 168, 182, 246, 374, 630}},
};
int width_row(int w) { return w == 1 ? 0 : w == 2 ? 1 : w == 4 ? 2 : w == 8 ? 3 : w == 16 ? 4 : -1; }
int mps_col(int m) {
  for (int i = 0, v = 128; i < 6; ++i, v *= 2)
    if (v == m) return i;
  return -1;
}
}  // namespace

namespace {
// The raw payload rate of a direction (B/s), or 0 for a shape outside the table.
double raw_rate(int gen, int width, int mps) {
  if (!pcie::valid_generation(gen) || gen > 5 || width_row(width) < 0 || mps_col(mps) < 0) return 0;
  const auto& g = pcie::generation(gen);
  return g.gts * 1e9 * pcie::encoding_traits(g.encoding).efficiency * width / 8.0;
}
// Wire bytes of `tlps` TLPs carrying `payload` bytes with `header_B` headers,
// with the ACK and UpdateFC DLLPs the receiver sends back at the spec's limits.
double wire_with_dllps(int gen, int width, int mps, int payload, int tlps, int header_B) {
  const double wire = payload + tlps * (header_B + 8.0);
  const double limit = kAckLimit[std::min(gen, 3) - 1][width_row(width)][mps_col(mps)];
  return wire + 2.0 * 8.0 * wire / limit;  // one ACK and one UpdateFC per limit
}
}  // namespace

std::optional<double> pcie_write_bw(int gen, int width, int mps, int payload, int header_B) {
  const double raw = raw_rate(gen, width, mps);
  if (raw == 0 || payload <= 0) return std::nullopt;
  return raw * payload / wire_with_dllps(gen, width, mps, payload, (payload + mps - 1) / mps, header_B);
}

namespace {
// `payload` bytes read with requests of `mrrs` (`header_B` each) upstream
// and completions of `cpl` (3-DW headers) downstream; with `writeback`, the
// same bytes also go upstream in writes of `mps`. The slower direction bounds it.
std::optional<double> read_shaped_bw(int gen, int width, int mps, int mrrs, int cpl, int payload, int header_B, bool writeback) {
  const double raw = raw_rate(gen, width, mps);
  if (raw == 0 || payload <= 0 || mrrs <= 0 || cpl <= 0) return std::nullopt;
  const int requests = (payload + mrrs - 1) / mrrs, writes = writeback ? (payload + mps - 1) / mps : 0;
  const double up = wire_with_dllps(gen, width, mps, writeback ? payload : 0, requests + writes, header_B);
  const double down = wire_with_dllps(gen, width, mps, payload, (payload + cpl - 1) / cpl, 12);
  return raw * payload / std::max(up, down);
}
}  // namespace

std::optional<double> pcie_read_bw(int gen, int width, int mps, int mrrs, int cpl, int payload, int header_B) {
  return read_shaped_bw(gen, width, mps, mrrs, cpl, payload, header_B, false);
}

std::optional<double> pcie_loopback_bw(int gen, int width, int mps, int mrrs, int cpl, int payload, int header_B) {
  return read_shaped_bw(gen, width, mps, mrrs, cpl, payload, header_B, true);
}

}  // namespace hx::sim
