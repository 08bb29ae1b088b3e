// Closed-form PCIe bandwidth in the manner of the pcie-bench model (S010):
// wire bytes per TLP (payload + header + 8 B PHY/DLL) plus ACK and UpdateFC
// DLLPs at the spec's scheduling limits, over the raw link rate.
#pragma once
#include <optional>

namespace hx::sim {

// Bytes per second of payload for a stream of `payload`-byte writes split at
// `mps`; nullopt for link shapes outside the table.
std::optional<double> pcie_write_bw(int gen, int width, int mps, int payload, int header_B);

// Bytes per second of payload for a stream of `payload`-byte reads: requests
// of at most `mrrs` bytes upstream (`header_B` each), completions of at most
// `cpl` bytes downstream (3-DW headers); the slower direction bounds it.
std::optional<double> pcie_read_bw(int gen, int width, int mps, int mrrs, int cpl, int payload, int header_B);

// Bytes per second moved by a device that reads `payload` bytes and writes
// them back (a loopback: Coyote's perf_local): upstream its requests and
// its writes of at most `mps` share the wire, downstream the completions;
// the slower direction bounds it.
std::optional<double> pcie_loopback_bw(int gen, int width, int mps, int mrrs, int cpl, int payload, int header_B);

}  // namespace hx::sim
