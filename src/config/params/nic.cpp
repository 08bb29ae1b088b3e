// NIC parameters: a NIC's software on the socket interconnect and NICs on PCIe.
#include "src/config/params/declare.h"

namespace hx::cfg {

// The software of a NIC on the socket interconnect: its platform's costs.
// The design options and the traffic are the workload's (nic_loop).
const ParamTable<nic::CoherentNicConfig>& coherent_nic_params() {
  using C = nic::CoherentNicConfig;
  static const ParamTable<C> t = {
      P<C>("poll_loop", "time", &C::poll_loop, {},
           "a polling loop's iteration: from a polled line's copy taken away to reading it again",
           [](C& c, const Cursor& v) { c.poll_loop = v.time(); }),
      P<C>("host_per_packet", "time", &C::host_per_packet, {},
           "the driver's work per packet on a host core, sending and receiving each",
           [](C& c, const Cursor& v) { c.host_per_packet = v.time(); }),
      P<C>("nic_per_packet", "time", &C::nic_per_packet, {}, "the NIC engine's work per packet",
           [](C& c, const Cursor& v) { c.nic_per_packet = v.time(); }),
      P<C>("socket", "int", &C::nic_socket, ints(1, 7),
           "the socket whose cores are the NIC's engines (the host's cores are socket 0's; one of sockets.count)",
           [](C& c, const Cursor& v) { c.nic_socket = static_cast<int>(v.integer()); }),
  };
  return t;
}

// A NIC on PCIe: the parameter set of one product (the E810's, the
// ConnectX-6's). Its traffic is the nic_loop workload's.
const ParamTable<nic::PcieNicConfig>& pcie_nic_params() {
  using C = nic::PcieNicConfig;
  const auto desc_sizes = [] { return byte_set({16, 32, 64}); };
  static const ParamTable<C> t = {
      P<C>("tx_desc", "size", &C::tx_desc_B, desc_sizes(), "a TX descriptor (ConnectX: a work queue entry)",
           [](C& c, const Cursor& v) { c.tx_desc_B = static_cast<std::uint32_t>(v.size()); }),
      P<C>("rx_desc", "size", &C::rx_desc_B, desc_sizes(), "an RX descriptor",
           [](C& c, const Cursor& v) { c.rx_desc_B = static_cast<std::uint32_t>(v.size()); }),
      P<C>("completion", "size", &C::cqe_B, desc_sizes(),
           "an RX completion the NIC writes per packet (E810: the descriptor written back; ConnectX: a CQE)",
           [](C& c, const Cursor& v) { c.cqe_B = static_cast<std::uint32_t>(v.size()); }),
      P<C>("doorbell", "choice", [](const C& c) { return c.doorbell_wc ? "wc" : "uc"; }, options({"uc", "wc"}),
           "how the driver writes a tail register: uc (an uncached store) or wc (write-combined, then a fence)",
           [](C& c, const Cursor& v) { c.doorbell_wc = v.scalar() == "wc"; }),
      P<C>("push_desc", "bool", &C::push_desc, {},
           "TX descriptors written into the NIC by WC stores with the doorbell, not fetched (ConnectX's BlueFlame)",
           [](C& c, const Cursor& v) { c.push_desc = v.boolean(); }),
      P<C>("desc_fetch", "int", &C::desc_fetch, ints(1, 256), "descriptors one descriptor read fetches at most",
           [](C& c, const Cursor& v) { c.desc_fetch = static_cast<int>(v.integer()); }),
      P<C>("max_reads", "int", &C::max_reads, ints(1, 256), "DMA reads in flight at most",
           [](C& c, const Cursor& v) { c.max_reads = static_cast<int>(v.integer()); }),
      P<C>("tx_wb_every", "int", &C::tx_wb_every, ints(1, 1024), "TX descriptors done per write-back of the count",
           [](C& c, const Cursor& v) { c.tx_wb_every = static_cast<int>(v.integer()); }),
      P<C>("rx_cache", "int", &C::rx_cache, ints(1, 4096), "RX descriptors the NIC holds fetched at most",
           [](C& c, const Cursor& v) { c.rx_cache = static_cast<int>(v.integer()); }),
      P<C>("per_packet", "time", &C::per_packet, {}, "a queue's TX or RX engine per packet",
           [](C& c, const Cursor& v) { c.per_packet = v.time(); }),
      P<C>("tx_pipeline", "time", &C::tx_pipeline, {}, "a packet's last byte read to its first bit on the wire",
           [](C& c, const Cursor& v) { c.tx_pipeline = v.time(); }),
      P<C>("rx_pipeline", "time", &C::rx_pipeline, {}, "a packet's last bit in to its first write to host memory",
           [](C& c, const Cursor& v) { c.rx_pipeline = v.time(); }),
      P<C>("line_rate", "bandwidth", [](const C& c) { return c.line_Gbps * 1e9 / 8; },
           bandwidth_from(125e3, "125KB/s (1 Mb/s)"),
           "the port's line rate (100 Gb/s: 12.5GB/s)",
           [](C& c, const Cursor& v) { c.line_Gbps = v.bandwidth() * 8 / 1e9; }),
      P<C>("loopback", "time", &C::loopback, {}, "the wire or PHY loopback back to the NIC's receiver",
           [](C& c, const Cursor& v) { c.loopback = v.time(); }),
      P<C>("irq_interval", "time", &C::irq_interval, {}, "interrupt moderation: a queue's MSIs at least this far apart",
           [](C& c, const Cursor& v) { c.irq_interval = v.time(); }),
      P<C>("driver_per_packet", "time", &C::driver_per_packet, {},
           "the driver's work per packet on a host core, sending and receiving each",
           [](C& c, const Cursor& v) { c.driver_per_packet = v.time(); }),
      P<C>("rx_buffer", "size", &C::rx_buffer, bytes(0, 64ull << 20),
           "the RX packet buffer, shared by the queues: a received packet holds its bytes until its data and completion "
           "writes have left on the link (waiting for a descriptor, or for the link); one that does not fit is dropped "
           "(0: unlimited, as if link flow control paused the sender: nothing is dropped)",
           [](C& c, const Cursor& v) { c.rx_buffer = v.size(); }),
  };
  return t;
}

}  // namespace hx::cfg
