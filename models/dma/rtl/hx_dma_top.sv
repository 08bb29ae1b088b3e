// Calypte-style low-latency DMA engine (S004), synthesizable: F2H and H2F
// controllers with CHANNELS channels, a CSR block on BAR0, and the TLP-level
// interfaces of a PCIe hard block, simplified from the vendors' streaming
// interfaces: requester request (rq_*, writes to host memory; header fields
// on the first beat), requester completion (rc_*, unused: this engine never
// reads host memory), completer request (cq_*, host MMIO to BAR0) and
// completer completion (cc_*, answers to CSR reads).
// BAR0 map: hx_dma_pkg. CSR reads: 0xfe8 scratch, 0xff0 ID, 0xff8 channels.
module hx_dma_top #(
  parameter int CHANNELS = 16,
  parameter int DATA_W   = 256,
  parameter int MAX_PKT  = 2048,
  parameter int F2H_STAGES = 10,   // datapath register stages, user logic -> F2H engine
  parameter int H2F_STAGES = 10,   // H2F engine -> user logic
  parameter int CHW      = (CHANNELS > 1) ? $clog2(CHANNELS) : 1
) (
  input  logic              clk,
  input  logic              rst_n,
  // completer request: host MMIO writes and reads of BAR0
  input  logic              cq_valid,
  output logic              cq_ready,
  input  logic              cq_sop,
  input  logic              cq_eop,
  input  logic [1:0]        cq_type,
  input  logic [31:0]       cq_addr,
  input  logic [12:0]       cq_len,
  input  logic [7:0]        cq_tag,
  input  logic [DATA_W-1:0] cq_data,
  // completer completion: CSR read data
  output logic              cc_valid,
  input  logic              cc_ready,
  output logic [7:0]        cc_tag,
  output logic [63:0]       cc_data,
  // requester request: writes to host memory
  output logic              rq_valid,
  input  logic              rq_ready,
  output logic              rq_sop,
  output logic              rq_eop,
  output logic [1:0]        rq_type,
  output logic [63:0]       rq_addr,
  output logic [12:0]       rq_len,
  output logic [DATA_W-1:0] rq_data,
  // requester completion (no reads are issued: always ready, ignored)
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic              rc_valid,
  input  logic [DATA_W-1:0] rc_data,
  /* verilator lint_on UNUSEDSIGNAL */
  output logic              rc_ready,
  // user logic: packets to the host
  input  logic              f2h_valid,
  output logic              f2h_ready,
  input  logic              f2h_sop,
  input  logic              f2h_eop,
  input  logic [DATA_W-1:0] f2h_data,
  input  logic [CHW-1:0]    f2h_chan,
  input  logic [15:0]       f2h_len,
  // user logic: packets from the host
  output logic              h2f_valid,
  input  logic              h2f_ready,
  output logic              h2f_sop,
  output logic              h2f_eop,
  output logic [DATA_W-1:0] h2f_data,
  output logic [CHW-1:0]    h2f_chan,
  output logic [15:0]       h2f_len
);
  localparam int BYTES = DATA_W / 8;
  localparam int BW    = $clog2(BYTES);
  assign rc_ready = 1'b1;

  // ---- completer request decode, one beat at a time
  logic        in_pkt;            // inside a multi-beat write
  logic [31:0] beat_addr;         // BAR offset of the current beat
  logic [12:0] beat_left;         // bytes of the request from the current beat on
  wire  [31:0] a    = (cq_sop || !in_pkt) ? cq_addr : beat_addr;
  wire  [12:0] left = (cq_sop || !in_pkt) ? cq_len  : beat_left;
  wire         wr   = cq_valid && cq_ready && cq_type == hx_dma_pkg::REQ_MWR;
  wire         rd   = cq_valid && cq_ready && cq_type == hx_dma_pkg::REQ_MRD;
  wire         is_csr  = a < hx_dma_pkg::CSR_LIMIT;
  wire         is_hdr  = a >= hx_dma_pkg::H2F_HDR_BASE && a < hx_dma_pkg::H2F_DATA_BASE;
  wire         is_data = a >= hx_dma_pkg::H2F_DATA_BASE;
  // The window offset: channel in bits 20 up, byte offset below (only its
  // buffer's part is used).
  /* verilator lint_off UNUSEDSIGNAL */
  wire  [31:0] data_off = a - hx_dma_pkg::H2F_DATA_BASE;
  /* verilator lint_on UNUSEDSIGNAL */

  logic        hdr_ready;
  logic [63:0] scratch;
  // A header write waits for the H2F engine; a CSR read for the completion port.
  assign cq_ready = !(cq_valid && cq_type == hx_dma_pkg::REQ_MWR && is_hdr && !hdr_ready) && !cc_valid;

  logic [DATA_W/8-1:0] be;
  always_comb begin
    for (int b = 0; b < BYTES; b++) be[b] = 13'(b) < left;
  end

  wire          csr_we    = wr && is_csr && a[11:5] < 7'(CHANNELS);
  wire [CHW-1:0] csr_ch   = a[5 +: CHW];
  wire [4:0]    csr_off   = a[4:0];
  wire [63:0]   csr_wdata = cq_data[63:0];

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      in_pkt    <= 1'b0;
      beat_addr <= '0;
      beat_left <= '0;
      cc_valid  <= 1'b0;
      cc_tag    <= '0;
      cc_data   <= '0;
      scratch   <= '0;
    end else begin
      if (cq_valid && cq_ready) begin
        in_pkt    <= !cq_eop;
        beat_addr <= a + 32'(BYTES);
        beat_left <= (left > 13'(BYTES)) ? left - 13'(BYTES) : 13'd0;
      end
      if (wr && a == 32'h0000_0fe8) scratch <= cq_data[63:0];
      if (cc_valid && cc_ready) cc_valid <= 1'b0;
      if (rd) begin
        cc_valid <= 1'b1;
        cc_tag   <= cq_tag;
        case (a[11:0])
          12'hfe8: cc_data <= scratch;
          12'hff0: cc_data <= 64'h4858_444d_0001_0000;  // "HXDM", version 1.0
          12'hff8: cc_data <= 64'(CHANNELS) | (64'(DATA_W) << 32);
          default: cc_data <= '0;
        endcase
      end
    end
  end

  // ---- engines
  logic f2h_rq_valid, f2h_rq_ready, f2h_rq_sop, f2h_rq_eop;
  logic [1:0] f2h_rq_type;
  logic [63:0] f2h_rq_addr;
  logic [12:0] f2h_rq_len;
  logic [DATA_W-1:0] f2h_rq_data;
  logic h2f_rq_valid, h2f_rq_ready;
  logic [63:0] h2f_rq_addr;
  logic [DATA_W-1:0] h2f_rq_data;

  // Datapath stages between the user interfaces and the engines.
  localparam int FW = DATA_W + CHW + 18;
  logic p_f2h_valid, p_f2h_ready, p_f2h_sop, p_f2h_eop;
  logic [DATA_W-1:0] p_f2h_data;
  logic [CHW-1:0] p_f2h_chan;
  logic [15:0] p_f2h_len;
  hx_pipe #(.W(FW), .STAGES(F2H_STAGES)) u_f2h_pipe (
    .clk, .rst_n, .in_valid(f2h_valid), .in_ready(f2h_ready), .in_data({f2h_sop, f2h_eop, f2h_chan, f2h_len, f2h_data}),
    .out_valid(p_f2h_valid), .out_ready(p_f2h_ready), .out_data({p_f2h_sop, p_f2h_eop, p_f2h_chan, p_f2h_len, p_f2h_data}));
  logic e_h2f_valid, e_h2f_ready, e_h2f_sop, e_h2f_eop;
  logic [DATA_W-1:0] e_h2f_data;
  logic [CHW-1:0] e_h2f_chan;
  logic [15:0] e_h2f_len;
  hx_pipe #(.W(FW), .STAGES(H2F_STAGES)) u_h2f_pipe (
    .clk, .rst_n, .in_valid(e_h2f_valid), .in_ready(e_h2f_ready), .in_data({e_h2f_sop, e_h2f_eop, e_h2f_chan, e_h2f_len, e_h2f_data}),
    .out_valid(h2f_valid), .out_ready(h2f_ready), .out_data({h2f_sop, h2f_eop, h2f_chan, h2f_len, h2f_data}));

  hx_dma_f2h #(.CHANNELS(CHANNELS), .DATA_W(DATA_W)) u_f2h (
    .clk, .rst_n, .csr_we, .csr_ch, .csr_off, .csr_wdata,
    .f2h_valid(p_f2h_valid), .f2h_ready(p_f2h_ready), .f2h_sop(p_f2h_sop), .f2h_eop(p_f2h_eop), .f2h_data(p_f2h_data),
    .f2h_chan(p_f2h_chan), .f2h_len(p_f2h_len),
    .rq_valid(f2h_rq_valid), .rq_ready(f2h_rq_ready), .rq_sop(f2h_rq_sop), .rq_eop(f2h_rq_eop),
    .rq_type(f2h_rq_type), .rq_addr(f2h_rq_addr), .rq_len(f2h_rq_len), .rq_data(f2h_rq_data));

  hx_dma_h2f #(.CHANNELS(CHANNELS), .DATA_W(DATA_W), .MAX_PKT(MAX_PKT)) u_h2f (
    .clk, .rst_n, .csr_we, .csr_ch, .csr_off, .csr_wdata,
    .wr_valid(wr && is_data), .wr_ch(data_off[20 +: CHW]), .wr_off({data_off[15:BW], BW'(0)}), .wr_be(be), .wr_data(cq_data),
    .hdr_valid(cq_valid && cq_type == hx_dma_pkg::REQ_MWR && is_hdr && !cc_valid), .hdr_ready,
    .hdr_ch(a[3 +: CHW]), .hdr_len(cq_data[15:0]),
    .h2f_valid(e_h2f_valid), .h2f_ready(e_h2f_ready), .h2f_sop(e_h2f_sop), .h2f_eop(e_h2f_eop), .h2f_data(e_h2f_data),
    .h2f_chan(e_h2f_chan), .h2f_len(e_h2f_len),
    .rq_valid(h2f_rq_valid), .rq_ready(h2f_rq_ready), .rq_addr(h2f_rq_addr), .rq_data(h2f_rq_data));

  // ---- requester request arbiter: a TLP is never interleaved; between
  // TLPs the single-beat H2F pointer update goes first; a beat offered and
  // not yet taken stays offered (the choice is held until it is taken).
  logic busy_f2h;  // an F2H TLP has started and not ended
  logic held, held_h2f;
  wire  pick_h2f = held ? held_h2f : (h2f_rq_valid && !busy_f2h);
  always_comb begin
    if (pick_h2f) begin
      rq_valid = 1'b1;
      rq_sop   = 1'b1;
      rq_eop   = 1'b1;
      rq_type  = hx_dma_pkg::REQ_MWR;
      rq_addr  = h2f_rq_addr;
      rq_len   = 13'(hx_dma_pkg::UPD_B);
      rq_data  = h2f_rq_data;
    end else begin
      rq_valid = f2h_rq_valid;
      rq_sop   = f2h_rq_sop;
      rq_eop   = f2h_rq_eop;
      rq_type  = f2h_rq_type;
      rq_addr  = f2h_rq_addr;
      rq_len   = f2h_rq_len;
      rq_data  = f2h_rq_data;
    end
  end
  assign h2f_rq_ready = pick_h2f && rq_ready;
  assign f2h_rq_ready = !pick_h2f && rq_ready;

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      busy_f2h <= 1'b0;
      held     <= 1'b0;
      held_h2f <= 1'b0;
    end else begin
      if (!pick_h2f && f2h_rq_valid && rq_ready) busy_f2h <= !f2h_rq_eop;
      held     <= rq_valid && !rq_ready;
      held_h2f <= pick_h2f;
    end
  end
endmodule
