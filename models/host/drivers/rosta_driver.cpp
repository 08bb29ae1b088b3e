#include "models/host/drivers/rosta_driver.h"

#include "models/core/payload.h"

namespace hx::host::drivers {

void RostaDriver::describe(dma::RostaDma::Job& job, std::uint64_t buf, std::uint64_t bytes) {
  for (std::uint64_t off = 0; off < bytes; off += 4096) job.descs.push_back(dma::Segment{buf + off, 4096});
}

RostaCallTimes RostaDriver::call(int core, dma::RostaDma::Job& job) {
  RostaCallTimes t;
  t.entered = m_cpu.now();
  m_cpu.syscall(core);
  m_cpu.pin_pages(core, job.descs.size());
  for (std::size_t d = 0; d < job.descs.size(); ++d)
    for (int k = 0; k < m_cfg.desc_mmio_writes; ++k)
      m_cpu.mmio_write_uc(core, m_bar + dma::kRostaDescRegs + ((d * 16 + static_cast<std::size_t>(k) * 8) & 0xff8), 8,
                          kMemoryStream, d);
  m_dev.load(&job);
  m_cpu.mmio_write_uc(core, m_bar + dma::kRostaDoorbell, 4, kMemoryStream, 0);
  t.doorbell = m_cpu.now();
  m_cpu.wait_msi(core, job.msi_vector);
  t.returned = m_cpu.now();
  return t;
}

}  // namespace hx::host::drivers
