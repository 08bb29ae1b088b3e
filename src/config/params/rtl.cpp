// Parameters of a user's RTL endpoint (docs/rtl.md).
#include "models/rtl/interfaces.h"
#include "src/config/params/declare.h"

namespace hx::cfg {

const ParamTable<rtl::RtlDeviceConfig>& rtl_params() {
  using C = rtl::RtlDeviceConfig;
  static const ParamTable<C> t = {
      P<C>("interface", "choice", &C::interface, options(rtl::interface_kinds()),
           "how the design connects: tlp_stream (header and DW-aligned data streams) or usp (the UltraScale+ hard "
           "block's CQ, CC, "
           "RQ and RC interfaces); docs/rtl.md",
           [](C& c, const Cursor& v) { c.interface = v.scalar(); }),
      P<C>("data_width", "int", &C::data_width, int_set({64, 128, 256, 512}, "a stream width"),
           "bits of each stream's data bus",
           [](C& c, const Cursor& v) { c.data_width = static_cast<int>(v.integer()); }),
      P<C>("clock", "frequency", &C::clock_mhz, {}, "the design's clock",
           [](C& c, const Cursor& v) { c.clock_mhz = v.freq_mhz(); }),
      P<C>("reset_cycles", "int", &C::reset_cycles, ints(1, 1 << 20),
           "cycles the design is held in reset before time 0",
           [](C& c, const Cursor& v) { c.reset_cycles = static_cast<int>(v.integer()); }),
      P<C>("idle_cycles", "int", &C::idle_cycles, ints(1, 1 << 20),
           "cycles without a handshake after which the clock stops until an input changes (the clocking contract, "
           "docs/rtl.md)",
           [](C& c, const Cursor& v) { c.idle_cycles = static_cast<int>(v.integer()); }),
      P<C>("free_running", "bool", &C::free_running, {},
           "the clock runs from reset until the driver is done, for designs that change state on their own",
           [](C& c, const Cursor& v) { c.free_running = v.boolean(); }),
      P<C>("wave", "string", &C::wave, {},
           "write the design's signals to this VCD file (point K of a sweep: NAME.K.vcd)",
           [](C& c, const Cursor& v) { c.wave = v.scalar(); }),
      P<C>("tx_depth", "int", &C::tx_depth, ints(1, 4096),
           "TLPs the endpoint queues from tx_req before tx_req_ready drops",
           [](C& c, const Cursor& v) { c.tx_depth = static_cast<int>(v.integer()); }),
      P<C>("inject_completion_error", "bool", &C::corrupt_completion, {},
           "a test of the data checks: change one byte of the design's first completion after its checksum (the run "
           "must fail)",
           [](C& c, const Cursor& v) { c.corrupt_completion = v.boolean(); }),
  };
  return t;
}

}  // namespace hx::cfg
