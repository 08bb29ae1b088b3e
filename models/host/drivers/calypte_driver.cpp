#include "models/host/drivers/calypte_driver.h"

#include "models/core/payload.h"

namespace hx::host::drivers {

void CalypteDriver::header(int core, int ch, std::uint64_t seq, Ledger* led) {
  m_cpu.fence(core);
  m_cpu.mmio_write_wc(core, header_reg(ch), 8, kMemoryStream, seq, led);
  m_cpu.fence(core);
}

void CalypteDriver::send(int core, int ch, std::uint32_t bytes, std::uint64_t stream, std::uint64_t off,
                         std::uint64_t seq, Ledger* led) {
  m_cpu.mmio_write_wc(core, data_window(ch), bytes, stream, off);
  header(core, ch, seq, led);
}

void CalypteDriver::send_from(int core, int ch, std::uint64_t src, std::uint32_t bytes, std::uint64_t stream,
                              std::uint64_t off, std::uint64_t seq, Ledger* led) {
  m_cpu.mmio_copy_wc(core, data_window(ch), src, bytes, stream, off);
  header(core, ch, seq, led);
}

}  // namespace hx::host::drivers
