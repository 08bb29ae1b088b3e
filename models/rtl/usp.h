// The Xilinx UltraScale+ PCIe hard block's user interfaces (PG213, the
// integrated block for PCI Express; the UltraScale Gen3 block of PG156 has
// the same ones up to 256 bits), as a design sees them, at 64, 128, 256 or
// 512 bits, with straddling off and DWORD-aligned data:
//
//   CQ  m_axis_cq_*  core -> design  requests to the design's BARs
//   CC  s_axis_cc_*  design -> core  completions of those requests
//   RQ  s_axis_rq_*  design -> core  the design's requests
//   RC  m_axis_rc_*  core -> design  completions of the design's reads
//
// Each is an AXI4-Stream with tdata[W-1:0], tkeep[W/32-1:0] (one bit per
// DW, contiguous from DW 0), tlast, tvalid, tready and tuser. A TLP is one
// packet: its descriptor (16 bytes on CQ and RQ, 12 on RC and CC) in the
// first DWs, its payload right after it. Descriptors and tuser:
//
//   CQ descriptor: [1:0] address type, [63:2] address, [74:64] dword count,
//     [78:75] request type (0 memory read, 1 memory write), [95:80]
//     requester ID, [103:96] tag, [111:104] target function, [114:112] BAR,
//     [120:115] BAR aperture (log2 of its size), [123:121] TC, [126:124]
//     attributes. tuser (85 or 88 bits): [3:0] first BE, [7:4] last BE,
//     [39:8] byte enables of tdata's bytes, [40] sop.
//   RC descriptor: [11:0] lower address, [15:12] error code, [28:16] byte
//     count, [30] request completed, [42:32] dword count, [45:43] status,
//     [46] poisoned, [63:48] requester ID, [71:64] tag, [87:72] completer
//     ID. tuser (75 bits): [31:0] byte enables, [32] is_sof_0, [37:34]
//     is_eof_0 ({last DW's lane, 1}), [42] discontinue.
//   RQ descriptor: [1:0] address type, [63:2] address, [74:64] dword count,
//     [78:75] request type, [79] poisoned, [95:80] requester ID, [103:96]
//     tag (the design's own tags), [119:104] completer ID, [120] requester
//     ID enable, [123:121] TC, [126:124] attributes, [127] force ECRC.
//     tuser (60 or 62 bits): [3:0] first BE, [7:4] last BE, [11] discontinue.
//   CC descriptor: [6:0] lower address, [9:8] address type, [28:16] byte
//     count, [29] locked read, [42:32] dword count, [45:43] status, [46]
//     poisoned, [63:48] requester ID, [71:64] tag, [87:72] completer ID,
//     [88] completer ID enable. tuser (33 bits): [0] discontinue.
//   At 512 bits the descriptors are the same and tuser is wider: CQ (183)
//     first BE [3:0], last BE [11:8], byte enables [79:16], is_sop[0] [80],
//     is_eop[0] [86], is_eop0_ptr [91:88]; RC (161) byte enables [63:0],
//     is_sop[0] [64], is_eop[0] [76], is_eop0_ptr [83:80]; RQ (137) first BE
//     [3:0], last BE [11:8], discontinue [36]; CC (81) discontinue [16].
//     With straddling off tlast frames the packets; the is_sop/is_eop
//     vectors a design drives are not read.
//
// Besides: user_clk (or clk); user_reset or rst (active high), or rst_n;
// the configuration inputs cfg_max_payload[1:0] (or [2:0]),
// cfg_max_read_req[2:0], cfg_function_status[15:0] (memory space and bus
// master enabled), cfg_rcb_status (bit 0: 128 B); and MSI:
// cfg_interrupt_msi_int[31:0] out (one bit, for one cycle, asks for that
// vector, taken on its 0-to-1 transition), cfg_interrupt_msi_sent in (one cycle, when it has gone),
// cfg_interrupt_msi_fail and cfg_interrupt_msi_enable in. A tready a design
// drives may be 1 or 22 bits wide, one it takes 1 or 4 (bit 0 counts).
// Other ports of the hard block are not driven: they read 0.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/rtl/shim.h"

namespace hx::rtl {

std::string usp_port_error(const std::vector<PortShape>& ports, int w);

class UspShim final : public Shim {
 public:
  UspShim(RtlModel& model, int data_width, std::string device, const std::uint64_t& cycle);
  const char* stream(Way w) const override;
  bool has(Way w) const override;
  void configure(const LinkSettings& s) override;
  std::uint32_t beats(Way w, const Packet& p) const override;
  void drive(Way w, const Packet* p, std::uint32_t beat) override;
  bool taken(Way w) const override;
  void set_ready(Way w, bool ready) override;
  bool assembling() const override { return m_asm[0].open || m_asm[1].open; }
  void msi_drive(bool space) override;
  bool msi_sample(bool space, std::uint32_t& vector) override;
  bool msi_busy() const override { return m_msi_pending || m_msi_sent_next; }

  // The descriptors, as DWs (exposed for tests).
  static void encode_cq(const TlpHeader& h, int bar_aperture, std::uint32_t out[4]);
  static void encode_rc(const TlpHeader& h, std::uint32_t bytes_here, std::uint32_t out[3]);

 private:
  struct Ports {
    const RtlPort *data = nullptr, *user = nullptr, *last = nullptr, *keep = nullptr, *valid = nullptr, *ready = nullptr;
  };
  // A TLP the design is driving out, DW by DW.
  struct Asm {
    bool open = false, decoded = false;
    std::vector<std::uint32_t> dws;
    std::uint32_t total = 0;  // descriptor and payload DWs, once decoded
    std::uint8_t first_be = 0, last_be = 0;
    TlpHeader h;
  };
  bool sample_offered(Way w, Packet& out, bool& done) override;
  const Ports& port(Way w) const { return m_p[static_cast<std::size_t>(w)]; }
  void decode(Way w, Asm& a);
  std::array<Ports, 4> m_p{};
  std::array<Asm, 2> m_asm{};  // RQ, CC
  bool m_wide;  // the 512-bit interface: tuser fields elsewhere
  int m_bar_aperture = 0;
  std::uint16_t m_rid = 0;
  std::vector<std::uint8_t> m_user;  // scratch: a tuser value
  const RtlPort *m_msi_int = nullptr, *m_msi_sent = nullptr;
  bool m_msi_pending = false, m_msi_sent_next = false;
  std::uint32_t m_msi_vector = 0;
  std::uint64_t m_msi_prev = 0;
};

}  // namespace hx::rtl
