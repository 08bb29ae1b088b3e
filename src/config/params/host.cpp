// Host parameters: the root complex, its cores and the link between two sockets' root complexes.
#include "src/config/params/declare.h"

namespace hx::cfg {

const ParamTable<host::RootComplexConfig>& rc_params() {
  using C = host::RootComplexConfig;
  static const ParamTable<C> t = {
      P<C>("inbound_latency", "time", &C::inbound_latency, {}, "root port receive to memory request (IIO pipeline)",
           [](C& c, const Cursor& v) { c.inbound_latency = v.time(); }),
      P<C>("outbound_latency", "time", &C::outbound_latency, {},
           "core MMIO store to root port transmit; completion to core",
           [](C& c, const Cursor& v) { c.outbound_latency = v.time(); }),
      P<C>("completion_latency", "time", &C::completion_latency, {},
           "read data ready to completion queued at the root port",
           [](C& c, const Cursor& v) { c.completion_latency = v.time(); }),
      P<C>("read_line_interval", "time", &C::read_line_interval, {},
           "one inbound read request fetches one cache line per this interval",
           [](C& c, const Cursor& v) { c.read_line_interval = v.time(); }),
      P<C>("line_interval", "time", &C::line_interval, {},
           "shared inbound line pipeline: one coherent line read or write per this interval",
           [](C& c, const Cursor& v) { c.line_interval = v.time(); }),
      P<C>("cpl_max", "size", &C::cpl_max_B, pow2_bytes(64, 4096),
           "largest completion payload the root complex sends (also limited by MPS)",
           [](C& c, const Cursor& v) { c.cpl_max_B = static_cast<int>(v.size()); }),
      P<C>("rcb", "size", &C::rcb_B, byte_set({64, 128}), "read completion boundary",
           [](C& c, const Cursor& v) { c.rcb_B = static_cast<int>(v.size()); }),
      P<C>("cpl_combine_min", "size", &C::cpl_combine_min_B, bytes(0, 4096),
           "read requests touching fewer lines than this many bytes' worth are answered one RCB "
           "per completion, even when more data is ready (0: always combine up to cpl_max)",
           [](C& c, const Cursor& v) { c.cpl_combine_min_B = static_cast<int>(v.size()); }),
      P<C>("posted_buffer", "int", &C::posted_buffer, ints(1, 1 << 20),
           "inbound posted writes the root complex holds before memory commits them",
           [](C& c, const Cursor& v) { c.posted_buffer = static_cast<int>(v.integer()); }),
      P<C>("read_trackers", "int", &C::read_trackers, ints(0, 1 << 20),
           "inbound memory reads the root complex tracks at once, each from its arrival "
           "through translation and memory to its last completion (0 = unlimited)",
           [](C& c, const Cursor& v) { c.read_trackers = static_cast<int>(v.integer()); }),
      P<C>("p2p", "bool", &C::p2p, {},
           "forward peer-to-peer requests between root ports (and reflect ACS-redirected ones)",
           [](C& c, const Cursor& v) { c.p2p = v.boolean(); }),
      P<C>("atomic_completer", "bool", &C::atomic_completer, {},
           "root ports complete AtomicOps (FetchAdd, Swap, CAS of 4 or 8 B operands) on DRAM (AtomicOp Completer "
           "Supported)",
           [](C& c, const Cursor& v) { c.atomic_completer = v.boolean(); }),
      P<C>("dram_base", "size", &C::dram_base, {}, "first address of host DRAM",
           [](C& c, const Cursor& v) { c.dram_base = v.size(); }),
      P<C>("dram_size", "size", &C::dram_size, {},
           "host DRAM size", [](C& c, const Cursor& v) { c.dram_size = v.size(); }),
  };
  return t;
}

const ParamTable<host::HostCpuConfig>& cpu_params() {
  using C = host::HostCpuConfig;
  static const ParamTable<C> t = {
      P<C>("cores", "int", &C::cores, ints(1, 4096), "cores available to software threads",
           [](C& c, const Cursor& v) { c.cores = static_cast<int>(v.integer()); }),
      P<C>("syscall", "time", &C::syscall_cost, {}, "system call entry and exit",
           [](C& c, const Cursor& v) { c.syscall_cost = v.time(); }),
      P<C>("pin_page", "time", &C::pin_page_cost, {}, "pinning one 4 KiB user page",
           [](C& c, const Cursor& v) { c.pin_page_cost = v.time(); }),
      P<C>("uc_write", "time", &C::uc_write_cost, {}, "core stall per UC MMIO store",
           [](C& c, const Cursor& v) { c.uc_write_cost = v.time(); }),
      P<C>("wc_line", "time", &C::wc_line_cost, {}, "core time per 64 B write-combined MMIO line",
           [](C& c, const Cursor& v) { c.wc_line_cost = v.time(); }),
      P<C>("fence", "time", &C::fence_cost, {}, "store fence after WC stores",
           [](C& c, const Cursor& v) { c.fence_cost = v.time(); }),
      P<C>("irq_latency", "time", &C::irq_latency, {}, "MSI arrival to the waiting thread running",
           [](C& c, const Cursor& v) { c.irq_latency = v.time(); }),
      P<C>("poll_period", "time", &C::poll_period, {}, "one iteration of a polling loop",
           [](C& c, const Cursor& v) { c.poll_period = v.time(); }),
      P<C>("poll_miss", "time", &C::poll_miss, {}, "fetching a polled line after a device write invalidated it",
           [](C& c, const Cursor& v) { c.poll_miss = v.time(); }),
      P<C>("copy_line", "time", &C::copy_line_cost, {}, "core reading one cache line of a received buffer",
           [](C& c, const Cursor& v) { c.copy_line_cost = v.time(); }),
      P<C>("os_tick_period", "time", &C::os_tick_period, {}, "OS timer tick period per core (0 = no OS noise)",
           [](C& c, const Cursor& v) { c.os_tick_period = v.time(); }),
      P<C>("far_mmio", "time", &C::far_mmio, {}, "extra time of a UC MMIO store from a core on the far socket",
           [](C& c, const Cursor& v) { c.far_mmio = v.time(); }),
      P<C>("os_tick_cost", "time", &C::os_tick_cost, {}, "time a timer tick takes from the running thread",
           [](C& c, const Cursor& v) { c.os_tick_cost = v.time(); }),
  };
  return t;
}

const ParamTable<host::SocketLinkConfig>& socket_link_params() {
  using C = host::SocketLinkConfig;
  static const ParamTable<C> t = {
      P<C>("latency", "time", &C::latency, {},
           "one way, a message's flight from one root complex to the other (half the 106 ns a far "
           "line adds to LAT_DMA_RD 64 B on the Ivy Bridge E5-2620 v2, S011: topologies/s011_ivb_e5_2620v2.yaml)",
           [](C& c, const Cursor& v) { c.latency = v.time(); }),
      P<C>("bandwidth", "bandwidth", [](const C& c) { return c.GBps * 1e9; }, {},
           "line data, each direction (QPI 1.1 at 8 GT/s: 20 lanes, 64 of every 80 bits "
           "data; 0 = no limit)",
           [](C& c, const Cursor& v) { c.GBps = v.bandwidth() / 1e9; }),
  };
  return t;
}

}  // namespace hx::cfg
