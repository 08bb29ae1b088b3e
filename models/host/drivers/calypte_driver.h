// The host side of Calypte's DMA (S004, the ndp-tool loop): a channel's F2H
// ring and pointer-update lines given to the engine, and an H2F packet sent
// by write-combined MMIO: its data into the channel's data window, a fence,
// its header into the channel's header register, a fence. Arrivals are the
// application's to poll for, on the update lines.
//
// Simplifications: the ring and update addresses reach the engine by
// `CalypteApi` calls, not by its configuration registers; the H2F pointer
// update the engine writes is not read back (the window is never full in
// the studies: one packet at a time).
#pragma once
#include <cstdint>

#include "models/core/ledger.h"
#include "models/dma/calypte_dma.h"
#include "models/host/host_cpu.h"

namespace hx::host::drivers {

class CalypteDriver {
 public:
  // `bar`: the engine's BAR0, with its H2F data windows and header registers.
  CalypteDriver(HostCpu& cpu, dma::CalypteApi& dev, std::uint64_t bar) : m_cpu(cpu), m_dev(dev), m_bar(bar) {}

  // Channel ch's F2H ring of `bytes` at `ring`, the engine writing its
  // pointer to `update` after each packet.
  void open_f2h(int ch, std::uint64_t ring, std::uint64_t bytes, std::uint64_t update) {
    m_dev.set_f2h_ring(ch, ring, bytes, update);
  }
  // Channel ch's H2F pointer-update line.
  void open_h2f(int ch, std::uint64_t update) { m_dev.set_h2f_update(ch, update); }

  // Send an H2F packet of `bytes` on channel ch, from a thread on `core`:
  // the data (bytes `off`... of pattern `stream`) from the core, then its
  // header, sequence number `seq`, whose store carries `led` on.
  void send(int core, int ch, std::uint32_t bytes, std::uint64_t stream, std::uint64_t off, std::uint64_t seq,
            Ledger* led = nullptr);
  // The same with the data copied from host memory at `src` (a received
  // packet sent back).
  void send_from(int core, int ch, std::uint64_t src, std::uint32_t bytes, std::uint64_t stream, std::uint64_t off,
                 std::uint64_t seq, Ledger* led = nullptr);

 private:
  std::uint64_t data_window(int ch) const { return m_bar + dma::kCalypteH2FData + (static_cast<std::uint64_t>(ch) << 20); }
  std::uint64_t header_reg(int ch) const { return m_bar + dma::kCalypteH2FHeader + static_cast<std::uint64_t>(ch) * 8; }
  void header(int core, int ch, std::uint64_t seq, Ledger* led);

  HostCpu& m_cpu;
  dma::CalypteApi& m_dev;
  std::uint64_t m_bar;
};

}  // namespace hx::host::drivers
