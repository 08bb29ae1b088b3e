// Shared constants of the Calypte-style DMA engine (S004): BAR0 map, TLP
// request types on the simplified hard-block interfaces, segment size.
// yosys 0.23 and Verilator both accept `pkg::name` references (no import).
package hx_dma_pkg;
  // Request types on the requester-request (rq_*) and completer-request (cq_*) ports.
  localparam logic [1:0] REQ_MWR = 2'd0;
  localparam logic [1:0] REQ_MRD = 2'd1;

  // BAR0 map (bytes). CSR block: 32 B per channel.
  localparam logic [31:0] CSR_LIMIT     = 32'h0000_1000;
  localparam logic [31:0] H2F_HDR_BASE  = 32'h0008_0000;  // 8 B per channel: packet length
  localparam logic [31:0] H2F_DATA_BASE = 32'h0010_0000;  // 1 MiB window per channel
  // Per-channel CSR offsets inside its 32 B.
  localparam logic [4:0] CSR_F2H_BASE = 5'd0;   // ring base address
  localparam logic [4:0] CSR_F2H_SIZE = 5'd8;   // ring size in bytes (power of two)
  localparam logic [4:0] CSR_F2H_UPD  = 5'd16;  // host address of the F2H pointer update
  localparam logic [4:0] CSR_H2F_UPD  = 5'd24;  // host address of the H2F pointer update

  localparam int SEG_B = 128;   // F2H write size a packet is cut into
  localparam int UPD_B = 8;     // pointer update write
endpackage
