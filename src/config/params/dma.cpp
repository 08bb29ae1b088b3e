// DMA engine parameters: Rosta, Calypte, Coyote and the pcie-bench engine.
#include "src/config/params/declare.h"

namespace hx::cfg {

const ParamTable<dma::RostaConfig>& rosta_params() {
  using C = dma::RostaConfig;
  static const ParamTable<C> t = {
      P<C>("clock", "frequency", &C::clock_mhz, {}, "engine clock (64-bit AXI-Stream datapath)",
           [](C& c, const Cursor& v) { c.clock_mhz = v.freq_mhz(); }),
      P<C>("desc_gap_cycles", "int", &C::desc_gap_cycles, ints(0, 1 << 20),
           "cycles between the last TLP of a descriptor and the first of the next",
           [](C& c, const Cursor& v) { c.desc_gap_cycles = static_cast<int>(v.integer()); }),
      P<C>("max_reads", "int", &C::max_reads, ints(1, 1024), "outstanding read requests of the engine",
           [](C& c, const Cursor& v) { c.max_reads = static_cast<int>(v.integer()); }),
      P<C>("fifo_tlps", "int", &C::fifo_tlps, ints(1, 4096), "TLPs the engine may run ahead of the link",
           [](C& c, const Cursor& v) { c.fifo_tlps = static_cast<int>(v.integer()); }),
  };
  return t;
}

const ParamTable<dma::CalypteConfig>& calypte_params() {
  using C = dma::CalypteConfig;
  static const ParamTable<C> t = {
      P<C>("clock", "frequency", &C::clock_mhz, {}, "controller clock",
           [](C& c, const Cursor& v) { c.clock_mhz = v.freq_mhz(); }),
      P<C>("f2h_cycles", "int", &C::f2h_cycles, ints(0, 1 << 20), "F2H pipeline: packet in to first PCIe write",
           [](C& c, const Cursor& v) { c.f2h_cycles = static_cast<int>(v.integer()); }),
      P<C>("h2f_cycles", "int", &C::h2f_cycles, ints(0, 1 << 20), "H2F pipeline: DMA header in to packet out",
           [](C& c, const Cursor& v) { c.h2f_cycles = static_cast<int>(v.integer()); }),
      P<C>("segment", "size", &C::segment_B, pow2_bytes(64, 4096), "F2H PCIe write size a packet is cut into (S004)",
           [](C& c, const Cursor& v) { c.segment_B = static_cast<int>(v.size()); }),
      P<C>("channels", "int", &C::channels, ints(1, 256), "virtual channels",
           [](C& c, const Cursor& v) { c.channels = static_cast<int>(v.integer()); }),
      P<C>("bus_bits", "int", &C::bus_bits, int_set({64, 128, 256, 512}, "a datapath width"),
           "user datapath width in bits",
           [](C& c, const Cursor& v) { c.bus_bits = static_cast<int>(v.integer()); }),
      P<C>("model", "choice", [](const C& c) { return c.rtl ? "rtl" : "behavioural"; }, options({"behavioural", "rtl"}),
           "behavioural, or rtl: the synthesizable engine co-simulated with Verilator (16 channels, 256 bit)",
           [](C& c, const Cursor& v) { c.rtl = v.scalar() == "rtl"; }),
      P<C>("wave", "string", &C::wave, {},
           "with model rtl: write the RTL's signals to this VCD file (point K of a sweep: NAME.K.vcd)",
           [](C& c, const Cursor& v) { c.wave = v.scalar(); }),
      P<C>("user_ready_every", "int", &C::user_ready_every, ints(1, 1000),
           "with model rtl: user logic takes an H2F beat one cycle in N (back-pressure)",
           [](C& c, const Cursor& v) { c.user_ready_every = static_cast<int>(v.integer()); }),
  };
  return t;
}

const ParamTable<dma::CoyoteConfig>& coyote_params() {
  using C = dma::CoyoteConfig;
  static const ParamTable<C> t = {
      P<C>("clock", "frequency", &C::clock_mhz, {}, "shell clock",
           [](C& c, const Cursor& v) { c.clock_mhz = v.freq_mhz(); }),
      P<C>("pmtu", "size", &C::pmtu_B, pow2_bytes(64, 4096),
           "largest packet a transfer is cut into (never across 4 KiB)",
           [](C& c, const Cursor& v) { c.pmtu_B = static_cast<int>(v.size()); }),
      P<C>("outstanding", "int", &C::outstanding, ints(1, 1024), "packets in flight",
           [](C& c, const Cursor& v) { c.outstanding = static_cast<int>(v.integer()); }),
      P<C>("cmd_cycles", "int", &C::cmd_cycles, ints(0, 1 << 20), "invocation register write to the first packet",
           [](C& c, const Cursor& v) { c.cmd_cycles = static_cast<int>(v.integer()); }),
      P<C>("loop_cycles", "int", &C::loop_cycles, ints(0, 1 << 20), "user logic loopback per packet",
           [](C& c, const Cursor& v) { c.loop_cycles = static_cast<int>(v.integer()); }),
      P<C>("done_cycles", "int", &C::done_cycles, ints(0, 1 << 20),
           "last write of a transfer to its completion writeback",
           [](C& c, const Cursor& v) { c.done_cycles = static_cast<int>(v.integer()); }),
      P<C>("bus", "size", &C::bus_B, pow2_bytes(8, 4096), "user logic stream width: one beat a cycle",
           [](C& c, const Cursor& v) { c.bus_B = static_cast<int>(v.size()); }),
      P<C>("xfer_gap_cycles", "int", &C::xfer_gap_cycles, ints(0, 1 << 20),
           "a transfer enters the user logic stream this long after the previous transfer's last beat",
           [](C& c, const Cursor& v) { c.xfer_gap_cycles = static_cast<int>(v.integer()); }),
      P<C>("tlb_cycles", "int", &C::tlb_cycles, ints(0, 1 << 20), "one MMU translation (hit)",
           [](C& c, const Cursor& v) { c.tlb_cycles = static_cast<int>(v.integer()); }),
      P<C>("stlb_entries", "int", [](const C& c) { return c.stlb.entries; }, ints(1, 1 << 20),
           "small-page (4 KiB) TLB entries",
           [](C& c, const Cursor& v) { c.stlb.entries = static_cast<int>(v.integer()); }),
      P<C>("stlb_ways", "int", [](const C& c) { return c.stlb.ways; }, ints(0, 1 << 20), "small-page TLB ways",
           [](C& c, const Cursor& v) { c.stlb.ways = static_cast<int>(v.integer()); }),
      P<C>("ltlb_entries", "int", [](const C& c) { return c.ltlb.entries; }, ints(1, 1 << 20),
           "large-page (2 MiB) TLB entries",
           [](C& c, const Cursor& v) { c.ltlb.entries = static_cast<int>(v.integer()); }),
      P<C>("ltlb_ways", "int", [](const C& c) { return c.ltlb.ways; }, ints(0, 1 << 20), "large-page TLB ways",
           [](C& c, const Cursor& v) { c.ltlb.ways = static_cast<int>(v.integer()); }),
      P<C>("tlb_replacement", "choice", [](const C& c) { return replacement_word(c.stlb.replacement); }, replacement(),
           "replacement of both TLBs: lru, plru (tree pseudo-LRU) or random",
           [](C& c, const Cursor& v) { c.stlb.replacement = c.ltlb.replacement = replacement_policy(v); }),
      P<C>("invoke_writes", "int", &C::invoke_writes, ints(1, 64),
           "8 B UC register writes the driver makes per invocation",
           [](C& c, const Cursor& v) { c.invoke_writes = static_cast<int>(v.integer()); }),
      P<C>("driver_miss", "time", &C::driver_miss, {}, "host driver work per MMU miss, after the interrupt reaches it",
           [](C& c, const Cursor& v) { c.driver_miss = v.time(); }),
  };
  return t;
}

const ParamTable<dma::BenchDmaConfig>& bench_params() {
  using C = dma::BenchDmaConfig;
  static const ParamTable<C> t = {
      P<C>("issue_interval", "time", &C::issue_interval, {}, "minimum time between DMA commands",
           [](C& c, const Cursor& v) { c.issue_interval = v.time(); }),
      P<C>("cmd_latency", "time", &C::cmd_latency, {}, "command to first TLP handed to the hard block",
           [](C& c, const Cursor& v) { c.cmd_latency = v.time(); }),
      P<C>("done_latency", "time", &C::done_latency, {}, "last data to command complete",
           [](C& c, const Cursor& v) { c.done_latency = v.time(); }),
      P<C>("read_byte_time", "time", &C::read_byte_time, {},
           "per-byte time to move read data into device memory, per command",
           [](C& c, const Cursor& v) { c.read_byte_time = v.time(); }),
      P<C>("read_partial_interval", "time", &C::read_partial_interval, {},
           "minimum time between read commands whose length ends in part of a 4-byte word (its last word stored with a byte mask)",
           [](C& c, const Cursor& v) { c.read_partial_interval = v.time(); }),
      P<C>("write_byte_time", "time", &C::write_byte_time, {},
           "per-byte time to fetch write data before a write command issues",
           [](C& c, const Cursor& v) { c.write_byte_time = v.time(); }),
      P<C>("write_interval", "time", &C::write_interval, {},
           "minimum time between write commands, whatever their size (the write data path's command period)",
           [](C& c, const Cursor& v) { c.write_interval = v.time(); }),
      P<C>("write_tlp_interval", "time", &C::write_tlp_interval, {},
           "added to write_interval for each TLP of a write command after its first (the write path forms one TLP at a time)",
           [](C& c, const Cursor& v) { c.write_tlp_interval = v.time(); }),
      P<C>("write_payload", "size", &C::write_payload, pow2_bytes(4, 4096, true),
           "largest payload of a write TLP the engine forms, 0 = MPS (writes are also cut at MPS)",
           [](C& c, const Cursor& v) { c.write_payload = static_cast<std::uint32_t>(v.size()); }),
      P<C>("max_outstanding", "int", &C::max_outstanding, ints(1, 4096), "DMA commands in flight",
           [](C& c, const Cursor& v) { c.max_outstanding = static_cast<int>(v.integer()); }),
      P<C>("retire_in_order", "bool", &C::retire_in_order, {},
           "signal each command's completion only after every older command's (an in-order DMA queue)",
           [](C& c, const Cursor& v) { c.retire_in_order = v.boolean(); }),
      P<C>("ats", "bool", &C::ats, {},
           "translate addresses with ATS through an on-device ATC (needs the host's IOMMU on)",
           [](C& c, const Cursor& v) { c.ats = v.boolean(); }),
      P<C>("atc_entries", "int", [](const C& c) { return c.atc.entries; }, ints(1, 1 << 16), "ATC entries",
           [](C& c, const Cursor& v) { c.atc.entries = static_cast<int>(v.integer()); }),
      P<C>("atc_ways", "int", [](const C& c) { return c.atc.ways; }, ints(0, 1 << 16),
           "ATC associativity (0 = fully associative)",
           [](C& c, const Cursor& v) { c.atc.ways = static_cast<int>(v.integer()); }),
      P<C>("atc_replacement", "choice", [](const C& c) { return replacement_word(c.atc.replacement); }, replacement(),
           "ATC replacement: lru, plru (tree pseudo-LRU) or random",
           [](C& c, const Cursor& v) { c.atc.replacement = replacement_policy(v); }),
      P<C>("atc_lookup", "time", [](const C& c) { return c.atc.lookup; }, {}, "ATC lookup, hit or miss",
           [](C& c, const Cursor& v) { c.atc.lookup = v.time(); }),
      P<C>("atc_miss", "time", &C::atc_miss, {},
           "ATS-switch time on an ATC miss besides the translation round trip (request, fill, replay)",
           [](C& c, const Cursor& v) { c.atc_miss = v.time(); }),
      P<C>("atc_prefetch", "int", &C::atc_prefetch, ints(0, 63), "following 4 KiB pages requested with each ATC miss",
           [](C& c, const Cursor& v) { c.atc_prefetch = static_cast<int>(v.integer()); }),
  };
  return t;
}

}  // namespace hx::cfg
