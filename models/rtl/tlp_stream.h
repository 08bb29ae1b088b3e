// The generic TLP-stream interface between the fabric and a user's design,
// as open PCIe cores use it: four valid/ready streams, each carrying TLPs
// as a header bus plus a DW-aligned data bus with DW strobes and sop/eop.
//
//   rx_req  fabric -> design  requests to the design's BARs (MWr, MRd)
//   rx_cpl  fabric -> design  completions of the design's reads
//   tx_req  design -> fabric  the design's requests (MWr, MRd)
//   tx_cpl  design -> fabric  completions of the host's reads of its BARs
//
// Each stream P has P_hdr[127:0], P_data[W-1:0], P_strb[W/32-1:0], P_sop,
// P_eop, P_valid and P_ready (driven by the receiver). The header bus holds
// the PCIe TLP header (PCIe Base Specification sec. 2.2) with DW0 in bits
// [127:96], DW1 in [95:64], DW2 in [63:32], DW3 in [31:0]; it is valid on the
// sop beat. The data of a TLP starts at lane 0 of its first beat: DW k of
// the payload is in bits [32k+31:32k] of beat k / (W/32); a strobe bit per
// valid DW. A request's data starts with the DW holding its first byte
// (the address's low two bits and the first/last byte enables say which
// bytes count); a completion's data starts with the DW holding the byte at
// its lower address.
//
// A design may leave out streams it never uses (all of a stream's ports, or
// none). Besides: clk (required); rst_n (active low) or rst (active high);
// the configuration inputs cfg_requester_id[15:0], cfg_max_payload[2:0] and
// cfg_max_read_req[2:0] (0 = 128 B ... 5 = 4096 B), cfg_rcb_128b,
// cfg_bus_master_en; and MSI: msi_valid, msi_vector[4:0] out, msi_ready in
// (optional: without it every offered MSI is taken).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "models/rtl/rtl_model.h"

namespace hx::rtl {

// A port as the build saw it (before a model exists).
struct PortShape {
  std::string name;
  int bits = 0;
  PortDir dir = PortDir::In;
};

// What is wrong with a design's ports for the TLP-stream interface at
// data width `w` bits ("" if nothing): missing or extra parts of a stream,
// wrong widths or directions, no clock.
std::string tlp_stream_port_error(const std::vector<PortShape>& ports, int w);

// TLP header fields (the subset the interface carries).
enum class HdrType : std::uint8_t { MemRd, MemWr, Cpl, CplD, Other };
struct TlpHeader {
  HdrType type = HdrType::Other;
  bool four_dw = false;
  std::uint32_t length_dw = 0;  // 1..1024
  std::uint16_t requester = 0, completer = 0;
  std::uint8_t tag = 0;
  std::uint8_t first_be = 0, last_be = 0;
  std::uint64_t addr = 0;       // requests: DW-aligned address
  std::uint16_t byte_count = 0; // completions: bytes left, this one included (4096 as 0 on the wire)
  std::uint8_t lower_addr = 0;  // completions
  std::uint8_t status = 0;      // completions: 0 successful
  // Requests: the first byte's address and the number of bytes the enables
  // cover (contiguous); false if the enables are not a valid pattern.
  bool byte_range(std::uint64_t& first, std::uint32_t& len) const;
};
// To and from the 16-byte header bus value (little-endian bytes of the 128-bit vector).
void encode_header(const TlpHeader& h, std::uint8_t out[16]);
TlpHeader decode_header(const std::uint8_t in[16]);
// A request header for bytes [addr, addr+len) (len 0: a zero-length read).
TlpHeader request_header(HdrType type, std::uint64_t addr, std::uint32_t len);

}  // namespace hx::rtl
