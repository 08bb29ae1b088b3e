// Host parameters: the root complex, its cores and the link between two sockets' root complexes.
#include "src/config/params/declare.h"

namespace hx::cfg {

const ParamTable<host::RootComplexConfig>& rc_params() {
  using C = host::RootComplexConfig;
  static const ParamTable<C> t = {
      P<C>("inbound_latency", "time", "100ns", {}, "root port receive to memory request (IIO pipeline)",
           [](C& c, const Cursor& v) { c.inbound_latency = v.time(); }),
      P<C>("outbound_latency", "time", "100ns", {}, "core MMIO store to root port transmit; completion to core",
           [](C& c, const Cursor& v) { c.outbound_latency = v.time(); }),
      P<C>("completion_latency", "time", "0ns", {}, "read data ready to completion queued at the root port",
           [](C& c, const Cursor& v) { c.completion_latency = v.time(); }),
      P<C>("read_line_interval", "time", "10ns", {},
           "one inbound read request fetches one cache line per this interval",
           [](C& c, const Cursor& v) { c.read_line_interval = v.time(); }),
      P<C>("line_interval", "time", "5ns", {},
           "shared inbound line pipeline: one coherent line read or write per this interval",
           [](C& c, const Cursor& v) { c.line_interval = v.time(); }),
      P<C>("cpl_max", "size", "256B", pow2_bytes(64, 4096),
           "largest completion payload the root complex sends (also limited by MPS)",
           [](C& c, const Cursor& v) { c.cpl_max_B = static_cast<int>(v.size()); }),
      P<C>("rcb", "size", "64B", byte_set({64, 128}), "read completion boundary",
           [](C& c, const Cursor& v) { c.rcb_B = static_cast<int>(v.size()); }),
      P<C>("cpl_combine_min", "size", "0B", bytes(0, 4096),
           "read requests touching fewer lines than this many bytes' worth are answered one RCB "
           "per completion, even when more data is ready (0: always combine up to cpl_max)",
           [](C& c, const Cursor& v) { c.cpl_combine_min_B = static_cast<int>(v.size()); }),
      P<C>("posted_buffer", "int", "64", ints(1, 1 << 20),
           "inbound posted writes the root complex holds before memory commits them",
           [](C& c, const Cursor& v) { c.posted_buffer = static_cast<int>(v.integer()); }),
      P<C>("read_trackers", "int", "0", ints(0, 1 << 20),
           "inbound memory reads the root complex tracks at once, each from its arrival "
           "through translation and memory to its last completion (0 = unlimited)",
           [](C& c, const Cursor& v) { c.read_trackers = static_cast<int>(v.integer()); }),
      P<C>("p2p", "bool", "true", {},
           "forward peer-to-peer requests between root ports (and reflect ACS-redirected ones)",
           [](C& c, const Cursor& v) { c.p2p = v.boolean(); }),
      P<C>("atomic_completer", "bool", "false", {},
           "root ports complete AtomicOps (FetchAdd, Swap, CAS of 4 or 8 B operands) on DRAM (AtomicOp Completer "
           "Supported)",
           [](C& c, const Cursor& v) { c.atomic_completer = v.boolean(); }),
      P<C>("dram_base", "size", "4GiB", {}, "first address of host DRAM",
           [](C& c, const Cursor& v) { c.dram_base = v.size(); }),
      P<C>("dram_size", "size", "64GiB", {}, "host DRAM size", [](C& c, const Cursor& v) { c.dram_size = v.size(); }),
  };
  return t;
}

const ParamTable<host::HostCpuConfig>& cpu_params() {
  using C = host::HostCpuConfig;
  static const ParamTable<C> t = {
      P<C>("cores", "int", "8", ints(1, 4096), "cores available to software threads",
           [](C& c, const Cursor& v) { c.cores = static_cast<int>(v.integer()); }),
      P<C>("syscall", "time", "1us", {}, "system call entry and exit",
           [](C& c, const Cursor& v) { c.syscall_cost = v.time(); }),
      P<C>("pin_page", "time", "100ns", {}, "pinning one 4 KiB user page",
           [](C& c, const Cursor& v) { c.pin_page_cost = v.time(); }),
      P<C>("uc_write", "time", "200ns", {}, "core stall per UC MMIO store",
           [](C& c, const Cursor& v) { c.uc_write_cost = v.time(); }),
      P<C>("wc_line", "time", "5ns", {}, "core time per 64 B write-combined MMIO line",
           [](C& c, const Cursor& v) { c.wc_line_cost = v.time(); }),
      P<C>("fence", "time", "20ns", {}, "store fence after WC stores",
           [](C& c, const Cursor& v) { c.fence_cost = v.time(); }),
      P<C>("irq_latency", "time", "3us", {}, "MSI arrival to the waiting thread running",
           [](C& c, const Cursor& v) { c.irq_latency = v.time(); }),
      P<C>("poll_period", "time", "20ns", {}, "one iteration of a polling loop",
           [](C& c, const Cursor& v) { c.poll_period = v.time(); }),
      P<C>("poll_miss", "time", "60ns", {}, "fetching a polled line after a device write invalidated it",
           [](C& c, const Cursor& v) { c.poll_miss = v.time(); }),
      P<C>("copy_line", "time", "2ns", {}, "core reading one cache line of a received buffer",
           [](C& c, const Cursor& v) { c.copy_line_cost = v.time(); }),
      P<C>("os_tick_period", "time", "4ms", {}, "OS timer tick period per core (0 = no OS noise)",
           [](C& c, const Cursor& v) { c.os_tick_period = v.time(); }),
      P<C>("far_mmio", "time", "0ns", {}, "extra time of a UC MMIO store from a core on the far socket",
           [](C& c, const Cursor& v) { c.far_mmio = v.time(); }),
      P<C>("os_tick_cost", "time", "15us", {}, "time a timer tick takes from the running thread",
           [](C& c, const Cursor& v) { c.os_tick_cost = v.time(); }),
  };
  return t;
}

const ParamTable<host::SocketLinkConfig>& socket_link_params() {
  using C = host::SocketLinkConfig;
  static const ParamTable<C> t = {
      P<C>("latency", "time", "53ns", {},
           "one way, a message's flight from one root complex to the other (half the 106 ns a far "
           "line adds to LAT_DMA_RD 64 B on the Ivy Bridge E5-2620 v2, S011: topologies/s011_ivb_e5_2620v2.yaml)",
           [](C& c, const Cursor& v) { c.latency = v.time(); }),
      P<C>("bandwidth", "bandwidth", "16GB/s", {},
           "line data, each direction (QPI 1.1 at 8 GT/s: 20 lanes, 64 of every 80 bits "
           "data; 0 = no limit)",
           [](C& c, const Cursor& v) { c.GBps = v.bandwidth() / 1e9; }),
  };
  return t;
}

}  // namespace hx::cfg
