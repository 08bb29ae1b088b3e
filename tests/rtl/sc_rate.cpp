// The RTL engine Verilated with --sc, driven by an sc_clock: the same F2H
// streaming as `hxsim bench`'s rtl_raw (the --cc model alone), to compare the
// two ways of putting the RTL under the SystemC kernel. Prints cycles per
// wall second. Usage: rtl_sc_rate [cycles]
#include <systemc>

#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "Vhx_dma_top_sc.h"

SC_MODULE(Driver) {
  sc_core::sc_in<bool> clk;
  sc_core::sc_out<bool> rst_n, f2h_valid, f2h_sop, f2h_eop, rq_ready, cc_ready, h2f_ready, cq_valid, cq_sop, cq_eop, rc_valid;
  sc_core::sc_in<bool> f2h_ready;
  sc_core::sc_out<sc_dt::sc_bv<256>> f2h_data, cq_data, rc_data;
  sc_core::sc_out<uint32_t> f2h_chan, f2h_len, cq_type, cq_addr, cq_len, cq_tag;
  std::uint64_t n = 0;
  unsigned beat = 0;
  void tick() {
    // Sampled at the rising edge: set up the next beat after it.
    if (n == 2) rst_n.write(true);
    if (n == 3) {  // ring base, then size, of channel 0
      cq_valid.write(true);
      cq_addr.write(0);
      cq_data.write(sc_dt::sc_bv<256>(0x100000000ull));
    } else if (n == 4) {
      cq_addr.write(8);
      cq_data.write(sc_dt::sc_bv<256>(1u << 20));
    } else if (n == 5) {
      cq_valid.write(false);
    } else if (n > 5) {
      if (f2h_valid.read() && f2h_ready.read()) beat = beat + 1 == 47 ? 0 : beat + 1;
      f2h_valid.write(true);
      f2h_sop.write(beat == 0);
      f2h_eop.write(beat == 46);
      f2h_len.write(1500);
      f2h_data.write(sc_dt::sc_bv<256>(n));
    }
    ++n;
  }
  SC_CTOR(Driver) {
    SC_METHOD(tick);
    sensitive << clk.pos();
    dont_initialize();
  }
};

int sc_main(int argc, char** argv) {
  const std::uint64_t cycles = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 2000000;
  sc_core::sc_clock clk("clk", 4, sc_core::SC_NS);
  sc_core::sc_signal<bool> rst_n, f2h_valid, f2h_ready, f2h_sop, f2h_eop, rq_valid, rq_ready, rq_sop, rq_eop, cq_valid,
      cq_ready, cq_sop, cq_eop, cc_valid, cc_ready, rc_valid, rc_ready, h2f_valid, h2f_ready, h2f_sop, h2f_eop;
  sc_core::sc_signal<sc_dt::sc_bv<256>> f2h_data, cq_data, rq_data, rc_data, h2f_data;
  sc_core::sc_signal<uint32_t> f2h_chan, f2h_len, cq_type, cq_addr, cq_len, cq_tag, cc_tag, rq_type, rq_len, h2f_chan, h2f_len;
  sc_core::sc_signal<uint64_t> cc_data, rq_addr;
  Vhx_dma_top_sc top("top");
  top.clk(clk);
  top.rst_n(rst_n);
  top.cq_valid(cq_valid); top.cq_ready(cq_ready); top.cq_sop(cq_sop); top.cq_eop(cq_eop); top.cq_type(cq_type);
  top.cq_addr(cq_addr); top.cq_len(cq_len); top.cq_tag(cq_tag); top.cq_data(cq_data);
  top.cc_valid(cc_valid); top.cc_ready(cc_ready); top.cc_tag(cc_tag); top.cc_data(cc_data);
  top.rq_valid(rq_valid); top.rq_ready(rq_ready); top.rq_sop(rq_sop); top.rq_eop(rq_eop); top.rq_type(rq_type);
  top.rq_addr(rq_addr); top.rq_len(rq_len); top.rq_data(rq_data);
  top.rc_valid(rc_valid); top.rc_data(rc_data); top.rc_ready(rc_ready);
  top.f2h_valid(f2h_valid); top.f2h_ready(f2h_ready); top.f2h_sop(f2h_sop); top.f2h_eop(f2h_eop); top.f2h_data(f2h_data);
  top.f2h_chan(f2h_chan); top.f2h_len(f2h_len);
  top.h2f_valid(h2f_valid); top.h2f_ready(h2f_ready); top.h2f_sop(h2f_sop); top.h2f_eop(h2f_eop); top.h2f_data(h2f_data);
  top.h2f_chan(h2f_chan); top.h2f_len(h2f_len);
  Driver d("driver");
  d.clk(clk);
  d.rst_n(rst_n); d.f2h_valid(f2h_valid); d.f2h_sop(f2h_sop); d.f2h_eop(f2h_eop); d.rq_ready(rq_ready); d.cc_ready(cc_ready);
  d.h2f_ready(h2f_ready); d.cq_valid(cq_valid); d.cq_sop(cq_sop); d.cq_eop(cq_eop); d.rc_valid(rc_valid); d.f2h_ready(f2h_ready);
  d.f2h_data(f2h_data); d.cq_data(cq_data); d.rc_data(rc_data); d.f2h_chan(f2h_chan); d.f2h_len(f2h_len); d.cq_type(cq_type);
  d.cq_addr(cq_addr); d.cq_len(cq_len); d.cq_tag(cq_tag);
  rq_ready.write(true);
  cc_ready.write(true);
  h2f_ready.write(true);
  cq_sop.write(true);
  cq_eop.write(true);
  cq_len.write(8);
  const auto t0 = std::chrono::steady_clock::now();
  sc_core::sc_start(static_cast<double>(cycles) * 4, sc_core::SC_NS);
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("rtl_sc_rate: %.2f M cycles/s (%llu cycles, --sc model under an sc_clock)\n", static_cast<double>(cycles) / s / 1e6,
              static_cast<unsigned long long>(cycles));
  return 0;
}
