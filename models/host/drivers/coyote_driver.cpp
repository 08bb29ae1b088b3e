#include "models/host/drivers/coyote_driver.h"

#include "models/core/payload.h"

namespace hx::host::drivers {

void CoyoteDriver::spawn_miss_handler(const std::string& name, int core) {
  m_cpu.spawn(name, core, [this](int c) {
    for (;;) {
      m_cpu.wait_msi(c, m_cfg.msi_vector);
      m_cpu.compute(c, m_cfg.driver_miss);
      m_cpu.mmio_write_uc(c, m_bar + dma::kCoyoteTlbFill, 8, kMemoryStream, 0);
    }
  });
}

void CoyoteDriver::invoke(int core, std::uint64_t src, std::uint64_t dst, std::uint32_t bytes, Ledger* led) {
  m_dev.post(src, dst, bytes);
  for (int k = m_cfg.invoke_writes - 1; k >= 0; --k)
    m_cpu.mmio_write_uc(core, m_bar + dma::kCoyoteInvoke - 8 * static_cast<std::uint64_t>(k), 8, kMemoryStream, 0,
                        k == 0 ? led : nullptr);
}

}  // namespace hx::host::drivers
