// Coyote's host driver (S003's perf_local): the FPGA MMU's miss handler, the
// mapping of user buffers, and a transfer's invocation by register writes.
// Its costs are the device's declared parameters (`coyote:` driver_miss,
// invoke_writes): the driver is written for that device.
//
// Simplifications: the register writes carry no bytes (the engine takes a
// transfer's addresses from `CoyoteDma::post`, as its invocation registers
// would hold them); a miss is answered by one UC write that fills the TLB
// (the real driver walks its page tables in host software, `driver_miss`).
#pragma once
#include <cstdint>
#include <string>

#include "models/core/ledger.h"
#include "models/dma/coyote_dma.h"
#include "models/host/host_cpu.h"

namespace hx::host::drivers {

class CoyoteDriver {
 public:
  // `bar`: the device's BAR0, where its invocation and TLB-fill registers are.
  CoyoteDriver(HostCpu& cpu, dma::CoyoteDma& dev, std::uint64_t bar, const dma::CoyoteConfig& cfg)
      : m_cpu(cpu), m_dev(dev), m_bar(bar), m_cfg(cfg) {}

  // A user buffer of `span` bytes at `addr` in pages of 2^page_shift, mapped
  // in the FPGA MMU; the translations of its first `preload` bytes are in
  // the MMU's TLBs already (0: every page misses first).
  void map(std::uint64_t addr, std::uint64_t span, unsigned page_shift, std::uint64_t preload) {
    m_dev.map(addr, span, page_shift, preload);
  }
  // The page the device writes each transfer's completion into.
  void set_writeback(std::uint64_t page) {
    m_writeback = page;
    m_dev.set_writeback(page);
  }
  // Where the completion of transfer n is written (512 slots of 8 B).
  std::uint64_t writeback_slot(int n) const { return m_writeback + 8 * static_cast<std::uint64_t>(n % 512); }

  // The miss handler, a thread of its own on `core`: each MMU miss is an
  // interrupt, the driver's work, and the TLB fill by MMIO.
  void spawn_miss_handler(const std::string& name, int core);

  // Invoke a transfer of `bytes` from `src` to `dst`, from a thread on
  // `core`: its register writes by UC MMIO, the last of which starts it and
  // carries `led` (a timed transfer's ledger) on.
  void invoke(int core, std::uint64_t src, std::uint64_t dst, std::uint32_t bytes, Ledger* led = nullptr);

 private:
  HostCpu& m_cpu;
  dma::CoyoteDma& m_dev;
  std::uint64_t m_bar;
  dma::CoyoteConfig m_cfg;
  std::uint64_t m_writeback = 0;
};

}  // namespace hx::host::drivers
