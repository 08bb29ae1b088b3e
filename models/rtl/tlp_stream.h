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
// cfg_max_read_req[2:0] (0 = 128 B ... 5 = 4096 B), cfg_rcb_128b (the root
// port's RCB is 128 B), cfg_bus_master_en; and MSI: msi_valid,
// msi_vector[4:0] out, msi_ready in (optional: without it every offered MSI
// is taken).
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "models/rtl/rtl_model.h"
#include "models/rtl/shim.h"
#include "models/rtl/tlp_header.h"

namespace hx::rtl {

// What is wrong with a design's ports for the TLP-stream interface at
// data width `w` bits ("" if nothing): missing or extra parts of a stream,
// wrong widths or directions, no clock.
std::string tlp_stream_port_error(const std::vector<PortShape>& ports, int w);

// To and from the 16-byte header bus value (little-endian bytes of the 128-bit vector).
void encode_header(const TlpHeader& h, std::uint8_t out[16]);
TlpHeader decode_header(const std::uint8_t in[16]);

// log2(size / 128): how Max_Payload_Size and Max_Read_Request_Size are encoded.
std::uint64_t size_code(int bytes);

class TlpStreamShim final : public Shim {
 public:
  TlpStreamShim(RtlModel& model, int data_width, std::string device, const std::uint64_t& cycle);
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
  bool msi_busy() const override;

 private:
  struct Ports {
    const RtlPort *hdr = nullptr, *data = nullptr, *strb = nullptr, *sop = nullptr, *eop = nullptr, *valid = nullptr,
                  *ready = nullptr;
  };
  // A TLP the design is driving out, beat by beat.
  struct Asm {
    bool open = false;
    Packet p;
    std::uint32_t dws_left = 0;
  };
  bool sample_offered(Way w, Packet& out, bool& done) override;
  const Ports& port(Way w) const { return m_p[static_cast<std::size_t>(w)]; }
  std::array<Ports, 4> m_p{};
  std::array<Asm, 2> m_asm{};  // TxReq, TxCpl
  const RtlPort *m_msi_valid = nullptr, *m_msi_vector = nullptr, *m_msi_ready = nullptr;
  bool m_msi_space = false;  // what msi_ready says now
};

}  // namespace hx::rtl
