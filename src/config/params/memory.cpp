// Memory parameters: a socket's controller, its channels and LLC.
#include "src/config/params/declare.h"

namespace hx::cfg {

const ParamTable<mem::MemoryConfig>& memory_params() {
  using C = mem::MemoryConfig;
  static const ParamTable<C> t = {
      P<C>("read_latency", "time", &C::read_latency, {}, "memory controller read latency (request to data)",
           [](C& c, const Cursor& v) { c.read_latency = v.time(); }),
      P<C>("write_latency", "time", &C::write_latency, {}, "write accept to commit",
           [](C& c, const Cursor& v) { c.write_latency = v.time(); }),
      P<C>("channel_bw", "bandwidth", [](const C& c) { return c.channel_GBps * 1e9; }, bandwidth_from(1e3, "1KB/s"),
           "bandwidth of one memory channel",
           [](C& c, const Cursor& v) { c.channel_GBps = v.bandwidth() / 1e9; }),
      P<C>("channels", "int", &C::channels, ints(1, 64), "independent channels, interleaved by line",
           [](C& c, const Cursor& v) { c.channels = static_cast<int>(v.integer()); }),
      P<C>("rmw_extra", "time", &C::rmw_extra, {},
           "extra channel occupancy of a partial-line write (read-modify-write turnaround)",
           [](C& c, const Cursor& v) { c.rmw_extra = v.time(); }),
      P<C>("partial_rmw", "bool", &C::partial_rmw, {},
           "partial-line writes read-modify-write DRAM (false: DDIO, the LLC merges them)",
           [](C& c, const Cursor& v) { c.partial_rmw = v.boolean(); }),
      P<C>("llc_forward", "time", &C::llc_forward, {},
           "with a root complex on each socket: from a snoop's arrival from another socket to the line leaving "
           "this LLC when it holds it (a DMA read of a line homed there that only this LLC holds)",
           [](C& c, const Cursor& v) { c.llc_forward = v.time(); }),
      P<C>("llc_size", "size", &C::llc_size, bytes(0, std::uint64_t{1} << 30),
           "last-level cache that DMA reads look up (0 = none: every read at read_latency); "
           "DMA writes allocate in it (DDIO)",
           [](C& c, const Cursor& v) { c.llc_size = v.size(); }),
      P<C>("llc_ways", "int", &C::llc_ways, ints(1, 64), "LLC associativity",
           [](C& c, const Cursor& v) { c.llc_ways = static_cast<int>(v.integer()); }),
      P<C>("ddio_ways", "int", &C::ddio_ways, ints(0, 64),
           "LLC ways of each set a DMA write that misses may allocate in (DDIO's share, "
           "Intel's IIO LLC WAYS; 0 = any way); at most llc_ways",
           [](C& c, const Cursor& v) { c.ddio_ways = static_cast<int>(v.integer()); }),
      P<C>("llc_replacement", "choice", [](const C& c) { return replacement_word(c.llc_replacement); }, replacement(),
           "LLC replacement: lru, plru (tree pseudo-LRU) or random",
           [](C& c, const Cursor& v) { c.llc_replacement = replacement_policy(v); }),
      P<C>("llc_miss", "time", &C::llc_miss, {},
           "extra latency of a DMA read that misses the LLC (read_latency is a hit's)",
           [](C& c, const Cursor& v) { c.llc_miss = v.time(); }),
  };
  return t;
}

}  // namespace hx::cfg
