// The TLP-stream interface's header format and port rules
// (models/rtl/tlp_stream.h), alone: headers as the PCIe Base Specification
// lays them out, byte enables for every alignment, and the port check a
// design's top module must pass.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "models/rtl/tlp_stream.h"

namespace hx::rtl {
namespace {

// DW k of a header bus value (DW0 in bits [127:96]).
std::uint32_t dw(const std::uint8_t* b, int k) {
  const int at = (3 - k) * 4;
  return static_cast<std::uint32_t>(b[at]) | static_cast<std::uint32_t>(b[at + 1]) << 8 |
         static_cast<std::uint32_t>(b[at + 2]) << 16 | static_cast<std::uint32_t>(b[at + 3]) << 24;
}

// A 3-DW MWr of 8 bytes at 0x1004: Fmt 010, Type 00000, Length 2; the
// requester, tag and byte enables in DW1; the address in DW2.
TEST(TlpStream, AMemoryWriteHeaderIsLaidOutAsTheSpecSays) {
  TlpHeader h = request_header(HdrType::MemWr, 0x1004, 8);
  h.requester = 0x0100;
  h.tag = 0x2a;
  std::uint8_t b[16];
  encode_header(h, b);
  EXPECT_EQ(dw(b, 0), 0x40000002u);
  EXPECT_EQ(dw(b, 1), 0x01002affu);
  EXPECT_EQ(dw(b, 2), 0x00001004u);
  EXPECT_EQ(dw(b, 3), 0u);
  const TlpHeader d = decode_header(b);
  EXPECT_EQ(d.type, HdrType::MemWr);
  EXPECT_FALSE(d.four_dw);
  EXPECT_EQ(d.length_dw, 2u);
  EXPECT_EQ(d.requester, 0x0100);
  EXPECT_EQ(d.tag, 0x2a);
  EXPECT_EQ(d.addr, 0x1004u);
}

// Above 4 GiB: the 4-DW format, the address's upper half in DW2.
TEST(TlpStream, AReadAbove4GiBUsesTheFourDwHeader) {
  const TlpHeader h = request_header(HdrType::MemRd, 0x1'2345'6780ull, 128);
  std::uint8_t b[16];
  encode_header(h, b);
  EXPECT_EQ(dw(b, 0) >> 29, 1u);  // Fmt 001: 4 DW, no data
  EXPECT_EQ(dw(b, 0) & 0x3ff, 32u);
  EXPECT_EQ(dw(b, 2), 0x1u);
  EXPECT_EQ(dw(b, 3), 0x23456780u);
  EXPECT_EQ(decode_header(b).addr, 0x1'2345'6780ull);
}

// A completion: Byte Count and Lower Address, the completer and requester.
TEST(TlpStream, ACompletionHeaderCarriesItsByteCountAndLowerAddress) {
  TlpHeader h;
  h.type = HdrType::CplD;
  h.length_dw = 3;
  h.completer = 0x0200;
  h.requester = 0x0100;
  h.tag = 7;
  h.byte_count = 4096;  // 0 on the wire
  h.lower_addr = 0x45;
  std::uint8_t b[16];
  encode_header(h, b);
  EXPECT_EQ(dw(b, 0), 0x4a000003u);
  EXPECT_EQ(dw(b, 1), 0x02000000u);
  EXPECT_EQ(dw(b, 2), 0x01000745u);
  const TlpHeader d = decode_header(b);
  EXPECT_EQ(d.type, HdrType::CplD);
  EXPECT_EQ(d.byte_count, 4096);
  EXPECT_EQ(d.lower_addr, 0x45);
}

// Every start and end within a DW: the enables cover exactly the bytes,
// and byte_range gives them back.
TEST(TlpStream, ByteEnablesRoundTripForEveryAlignment) {
  for (std::uint64_t a = 0x100; a < 0x108; ++a)
    for (std::uint32_t n = 1; n <= 13; ++n) {
      const TlpHeader h = request_header(HdrType::MemWr, a, n);
      std::uint64_t first = 0;
      std::uint32_t len = 0;
      ASSERT_TRUE(h.byte_range(first, len)) << a << " " << n;
      EXPECT_EQ(first, a);
      EXPECT_EQ(len, n);
      EXPECT_EQ(h.length_dw, ((a + n - 1) >> 2) - (a >> 2) + 1);
    }
  TlpHeader bad = request_header(HdrType::MemWr, 0x100, 8);
  bad.first_be = 0x5;  // not contiguous
  std::uint64_t f = 0;
  std::uint32_t l = 0;
  EXPECT_FALSE(bad.byte_range(f, l));
  bad = request_header(HdrType::MemWr, 0x100, 4);
  bad.last_be = 0xf;  // a one-DW request has no last enables
  EXPECT_FALSE(bad.byte_range(f, l));
}

std::vector<PortShape> stream(const std::string& p, bool rx, int w) {
  const PortDir fwd = rx ? PortDir::In : PortDir::Out, back = rx ? PortDir::Out : PortDir::In;
  return {{p + "_hdr", 128, fwd}, {p + "_data", w, fwd}, {p + "_strb", w / 32, fwd}, {p + "_sop", 1, fwd},
          {p + "_eop", 1, fwd},   {p + "_valid", 1, fwd}, {p + "_ready", 1, back}};
}

// A design with a clock and whole streams passes; a missing port, a wrong
// width and a wrong direction are each named.
TEST(TlpStream, ThePortCheckNamesWhatIsWrong) {
  std::vector<PortShape> ports = {{"clk", 1, PortDir::In}, {"rst_n", 1, PortDir::In}};
  for (const auto& p : stream("rx_req", true, 128)) ports.push_back(p);
  for (const auto& p : stream("tx_cpl", false, 128)) ports.push_back(p);
  EXPECT_EQ(tlp_stream_port_error(ports, 128), "");
  EXPECT_NE(tlp_stream_port_error(ports, 256).find("rx_req_data is 128 bits wide, not 256"), std::string::npos);
  auto missing = ports;
  missing.pop_back();  // tx_cpl_ready
  EXPECT_NE(tlp_stream_port_error(missing, 128).find("no port tx_cpl_ready"), std::string::npos);
  auto turned = ports;
  turned[2].dir = PortDir::Out;  // rx_req_hdr
  EXPECT_NE(tlp_stream_port_error(turned, 128).find("rx_req_hdr must be an input"), std::string::npos);
  EXPECT_NE(tlp_stream_port_error({{"clk", 1, PortDir::In}}, 128).find("none of the streams"), std::string::npos);
}

}  // namespace
}  // namespace hx::rtl
