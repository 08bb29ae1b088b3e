// The Rosta engine's driver (S001): what one read() or write() call on its
// character device does on the host. A workload describes the transfer and
// times the call; the driver's steps and their costs are here.
//
// Simplifications: the descriptors' register writes carry no bytes (the
// engine takes the job from `RostaDma::load`, as its descriptor FIFO would
// hold it); pages are pinned at the CPU model's per-page cost, without
// faulting them in; one call per thread, sleeping until the engine's MSI.
#pragma once
#include <cstdint>

#include "models/core/tick.h"
#include "models/dma/rosta_dma.h"
#include "models/host/host_cpu.h"

namespace hx::host::drivers {

struct RostaDriverConfig {
  int desc_mmio_writes = 2;  // 8 B UC register writes per descriptor (address and length)
};

// When one call's steps happened.
struct RostaCallTimes {
  Tick entered = 0;   // the thread made the call
  Tick doorbell = 0;  // the doorbell's store was done: the engine runs
  Tick returned = 0;  // the MSI woke the thread
};

class RostaDriver {
 public:
  // `bar`: the engine's BAR0, where its descriptor registers and doorbell are.
  RostaDriver(HostCpu& cpu, dma::RostaDma& dev, std::uint64_t bar, const RostaDriverConfig& cfg)
      : m_cpu(cpu), m_dev(dev), m_bar(bar), m_cfg(cfg) {}

  // A transfer of `bytes` (whole 4 KiB pages) at host address `buf`, as the
  // driver describes it to the engine: one descriptor per page.
  static void describe(dma::RostaDma::Job& job, std::uint64_t buf, std::uint64_t bytes);

  // The call, from a host thread on `core`: the system call, the job's pages
  // pinned, its descriptors written by UC MMIO, the doorbell; then the
  // thread sleeps until the engine's MSI (`job.msi_vector`).
  RostaCallTimes call(int core, dma::RostaDma::Job& job);

 private:
  HostCpu& m_cpu;
  dma::RostaDma& m_dev;
  std::uint64_t m_bar;
  RostaDriverConfig m_cfg;
};

}  // namespace hx::host::drivers
