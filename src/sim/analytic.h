// Closed-form PCIe bandwidth in the manner of the pcie-bench model (S010):
// wire bytes per TLP (payload + header + 8 B PHY/DLL) plus ACK and UpdateFC
// DLLPs at the spec's scheduling limits, over the raw link rate.
#pragma once
#include <optional>

namespace hx::sim {

// Bytes per second of payload for a stream of `payload`-byte writes split at
// `mps`; nullopt for link shapes outside the table.
std::optional<double> pcie_write_bw(int gen, int width, int mps, int payload, int header_B);

}  // namespace hx::sim
