// The UltraScale+ interfaces' descriptors and port rules (models/rtl/usp.h),
// alone: fields at the bit positions of the product guide's descriptor
// tables, and the port check a design's top module must pass.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "models/rtl/usp.h"

namespace hx::rtl {
namespace {

// A completer-request descriptor for a 2-DW write at 0x1'0000'1008 from
// requester 0x0100 with tag 0x2a to a 64 KiB BAR: address in bits [63:2],
// dword count [74:64], request type 1 [78:75], requester [95:80], tag
// [103:96], BAR aperture 16 [120:115].
TEST(Usp, ACompleterRequestDescriptorHasTheGuidesFields) {
  TlpHeader h = request_header(HdrType::MemWr, 0x1'0000'1008ull, 8);
  h.requester = 0x0100;
  h.tag = 0x2a;
  std::uint32_t d[4];
  UspShim::encode_cq(h, 16, d);
  EXPECT_EQ(d[0], 0x0000'1008u);
  EXPECT_EQ(d[1], 0x0000'0001u);
  EXPECT_EQ(d[2], 0x0100'0000u | 1u << 11 | 2u);
  EXPECT_EQ(d[3], 16u << 19 | 0x2au);
}

// A requester-completion descriptor: lower address [11:0], byte count
// [28:16], request completed [30] only on the last completion, dword count
// [42:32], requester [63:48], tag [71:64], completer [87:72].
TEST(Usp, ARequesterCompletionDescriptorHasTheGuidesFields) {
  TlpHeader h;
  h.type = HdrType::CplD;
  h.lower_addr = 0xf40;
  h.byte_count = 192;
  h.length_dw = 16;
  h.requester = 0x0100;
  h.completer = 0x0000;
  h.tag = 0x20;
  std::uint32_t d[3];
  UspShim::encode_rc(h, 64, d);  // 64 of the 192 bytes left: not the last
  EXPECT_EQ(d[0], 192u << 16 | 0xf40u);
  EXPECT_EQ(d[1], 0x0100u << 16 | 16u);
  EXPECT_EQ(d[2], 0x20u);
  h.byte_count = 64;
  UspShim::encode_rc(h, 64, d);
  EXPECT_EQ(d[0], 1u << 30 | 64u << 16 | 0xf40u);
}

std::vector<PortShape> axis(const std::string& p, bool from_core, int w, int user, int ready) {
  const PortDir fwd = from_core ? PortDir::In : PortDir::Out, back = from_core ? PortDir::Out : PortDir::In;
  return {{p + "_tdata", w, fwd},  {p + "_tuser", user, fwd},  {p + "_tlast", 1, fwd},
          {p + "_tkeep", w / 32, fwd}, {p + "_tvalid", 1, fwd}, {p + "_tready", ready, back}};
}

// Whole interfaces pass, with either of the guide's tuser and tready widths;
// a wrong tuser width, a missing tready and a wrong direction are each named.
TEST(Usp, ThePortCheckNamesWhatIsWrong) {
  std::vector<PortShape> ports = {{"user_clk", 1, PortDir::In}, {"user_reset", 1, PortDir::In}};
  for (const auto& p : axis("m_axis_cq", true, 256, 88, 22)) ports.push_back(p);
  for (const auto& p : axis("s_axis_cc", false, 256, 33, 4)) ports.push_back(p);
  EXPECT_EQ(usp_port_error(ports, 256), "");
  auto us = ports;
  us[3].bits = 85;   // the UltraScale block's CQ tuser
  us[7].bits = 1;    // a one-bit tready
  EXPECT_EQ(usp_port_error(us, 256), "");
  auto wrong = ports;
  wrong[3].bits = 60;
  EXPECT_NE(usp_port_error(wrong, 256).find("m_axis_cq_tuser is 60 bits wide, not 85 or 88"), std::string::npos);
  auto missing = ports;
  missing.pop_back();  // s_axis_cc_tready
  EXPECT_NE(usp_port_error(missing, 256).find("no port s_axis_cc_tready"), std::string::npos);
  auto turned = ports;
  turned[2].dir = PortDir::Out;  // m_axis_cq_tdata
  EXPECT_NE(usp_port_error(turned, 256).find("m_axis_cq_tdata must be an input"), std::string::npos);
  EXPECT_NE(usp_port_error({{"user_clk", 1, PortDir::In}}, 256).find("none of the interfaces"), std::string::npos);
  auto msi = ports;
  msi.push_back({"cfg_interrupt_msi_int", 32, PortDir::Out});
  EXPECT_NE(usp_port_error(msi, 256).find("no port cfg_interrupt_msi_sent"), std::string::npos);
}

// At 512 bits tuser has the 512-bit layouts' widths, and the 256-bit ones
// are named as wrong.
TEST(Usp, The512BitInterfaceHasItsOwnTuserWidths) {
  std::vector<PortShape> ports = {{"user_clk", 1, PortDir::In}};
  for (const auto& p : axis("m_axis_cq", true, 512, 183, 22)) ports.push_back(p);
  for (const auto& p : axis("m_axis_rc", true, 512, 161, 22)) ports.push_back(p);
  for (const auto& p : axis("s_axis_rq", false, 512, 137, 4)) ports.push_back(p);
  for (const auto& p : axis("s_axis_cc", false, 512, 81, 4)) ports.push_back(p);
  EXPECT_EQ(usp_port_error(ports, 512), "");
  ports[2].bits = 88;
  EXPECT_NE(usp_port_error(ports, 512).find("m_axis_cq_tuser is 88 bits wide, not 183"), std::string::npos);
}

}  // namespace
}  // namespace hx::rtl
