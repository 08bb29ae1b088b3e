// The in-tree Calypte-style engine (hx_dma_top) as a design of your own, on
// hxsim's generic TLP-stream interface (models/rtl/tlp_stream.h), with user
// logic in RTL, one of three (parameter USER):
//  - USER = 0: every packet the host sends (H2F) goes straight back to it
//    (F2H) on the same channel: S004's HFH loopback;
//  - USER = 1: a write of the user register SEND sends one packet of the
//    bytes written on channel 0 (F2H), and the user logic times, in clock
//    cycles, from its first beat taken by the engine to the first beat of
//    the packet the host sends back (H2F): S004's FHF round trip, as the
//    FPGA times it. It checks the bytes that come back against those it
//    sent. The cycle counter runs on the clock, so a study sets
//    `free_running: true` (the clocking contract, docs/rtl.md);
//  - USER = 2: a write of the user register BURST sends packets back to
//    back, round-robin over channels 0 to C-1, then a 64 B marker on
//    channel C (the Calypte F2H burst whose rate the host measures).
// With `device: rtl` it runs through the same shim, checkers and scripted
// driver as any user's design (configs/s004_rtl_generic.yaml,
// configs/s004_rtl_generic_fhf.yaml, configs/s004_rtl_generic_burst.yaml,
// docs/rtl.md).
//
// User registers (BAR0, 8 B each; the engine's map leaves them free):
// 0x2000 SEND (write: a packet of data[15:0] bytes), 0x2008 DONE (round
// trips timed), 0x2010 LAST (the last one, in cycles), 0x2018 BAD (beats
// that came back different), 0x2020 BURST (write: data[15:0] bytes a
// packet, data[31:16] packets, data[39:32] channels C, 1 to CHANNELS - 1).
// The wrapper answers their reads in place of the engine (which reads
// them as zero); with USER 0 and 2 they read as zero.
//
// Outside: host writes and reads of BAR0 arrive on rx_req; the engine's
// writes to host memory leave on tx_req; the answers to register reads on
// tx_cpl. The engine never reads host memory, so there is no rx_cpl stream,
// and it raises no MSI (the host polls the pointer updates).
// Inside: hx_dma_top's completer request (cq_*) and completion (cc_*) and
// its requester request (rq_*), which carry byte addresses and byte lengths.
//
// What the wrapper assumes of the traffic, as the engine does: host writes
// start on a DW (registers are 8 B; an H2F window takes whole beats), and
// the engine's own writes start on a DW (its ring places packets on 64 B
// lines; the update addresses must be DW-aligned). A register read may ask
// for one DW of a register or both: the wrapper reads the 8 B register and
// returns the DWs asked for.
module hx_dma_stream #(
  parameter int CHANNELS   = 16,
  parameter int DATA_W     = 256,
  parameter int MAX_PKT    = 2048,
  parameter int F2H_STAGES = 10,
  parameter int H2F_STAGES = 10,
  parameter int BAR_BITS   = 25,  // BAR0 address bits the engine decodes (H2F windows: 1 MiB per channel from 1 MiB)
  parameter int USER       = 0    // the user logic: 0 loops H2F packets back (HFH), 1 sends and times packets (FHF), 2 bursts
) (
  input  logic                 clk,
  input  logic                 rst_n,
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [127:0]         rx_req_hdr,    // the fields of memory requests (TC, attributes: not used)
  input  logic [DATA_W-1:0]    rx_req_data,
  input  logic [DATA_W/32-1:0] rx_req_strb,   // the engine takes its byte count from the header
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic                 rx_req_sop,
  input  logic                 rx_req_eop,
  input  logic                 rx_req_valid,
  output logic                 rx_req_ready,
  output logic [127:0]         tx_req_hdr,
  output logic [DATA_W-1:0]    tx_req_data,
  output logic [DATA_W/32-1:0] tx_req_strb,
  output logic                 tx_req_sop,
  output logic                 tx_req_eop,
  output logic                 tx_req_valid,
  input  logic                 tx_req_ready,
  output logic [127:0]         tx_cpl_hdr,
  output logic [DATA_W-1:0]    tx_cpl_data,
  output logic [DATA_W/32-1:0] tx_cpl_strb,
  output logic                 tx_cpl_sop,
  output logic                 tx_cpl_eop,
  output logic                 tx_cpl_valid,
  input  logic                 tx_cpl_ready,
  input  logic [15:0]          cfg_requester_id
);
  localparam int L   = DATA_W / 32;  // DW lanes per beat
  localparam int BYTES = DATA_W / 8;  // bytes per beat
  localparam logic [31:0] USER_BASE = 32'h0000_2000;  // the user registers
  localparam int CHW = (CHANNELS > 1) ? $clog2(CHANNELS) : 1;

  // Byte enables: disabled bytes below the first enabled one, and above the last.
  function automatic logic [2:0] lead(input logic [3:0] be);
    lead = be[0] ? 3'd0 : be[1] ? 3'd1 : be[2] ? 3'd2 : be[3] ? 3'd3 : 3'd4;
  endfunction
  function automatic logic [2:0] trail(input logic [3:0] be);
    trail = be[3] ? 3'd0 : be[2] ? 3'd1 : be[1] ? 3'd2 : be[0] ? 3'd3 : 3'd4;
  endfunction

  // ---------------- host requests -> the engine's completer request
  wire [1:0]  q_fmt  = rx_req_hdr[126:125];   // has data, 4 DW header
  wire [10:0] q_ndw  = (rx_req_hdr[105:96] == 10'd0) ? 11'd1024 : {1'b0, rx_req_hdr[105:96]};
  wire [3:0]  q_lbe  = rx_req_hdr[71:68];
  wire [3:0]  q_fbe  = rx_req_hdr[67:64];
  /* verilator lint_off UNUSEDSIGNAL */
  wire [63:0] q_addr = q_fmt[0] ? rx_req_hdr[63:0] : {32'h0, rx_req_hdr[63:32]};
  /* verilator lint_on UNUSEDSIGNAL */
  // Write or read: from the header at the first beat, held for the rest.
  logic       q_wr_held;
  wire        q_wr   = rx_req_sop ? q_fmt[1] : q_wr_held;
  wire [12:0] q_bytes = {q_ndw, 2'b00} - 13'(lead(q_fbe)) - 13'(trail(q_ndw == 11'd1 ? q_fbe : q_lbe));
  wire [31:0] q_off  = 32'(q_addr[BAR_BITS-1:0]);

  logic        cq_ready;
  logic        cc_valid;
  logic [63:0] cc_data;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [7:0]  cc_tag;     // one read at a time: the wrapper keeps the read's fields itself
  /* verilator lint_on UNUSEDSIGNAL */
  assign rx_req_ready = cq_ready;

  // The register read being answered: its requester, tag, DWs, first byte.
  logic [15:0] rd_rid;
  logic [7:0]  rd_tag;
  logic [10:0] rd_ndw;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [12:0] rd_bytes;   // a byte count of 4096 is 0 in the header's 12 bits
  /* verilator lint_on UNUSEDSIGNAL */
  logic [6:0]  rd_low;
  logic        rd_hi;   // it starts at the register's upper DW
  logic        rd_user; // a user register's read (the wrapper answers it)
  logic [1:0]  rd_sel;  // which one
  wire         q_user = q_off[31:5] == 27'(USER_BASE >> 5);
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      rd_rid <= '0; rd_tag <= '0; rd_ndw <= '0; rd_bytes <= '0; rd_low <= '0; rd_hi <= 1'b0;
      rd_user <= 1'b0; rd_sel <= '0;
      q_wr_held <= 1'b0;
    end else if (rx_req_valid && rx_req_ready && rx_req_sop) begin
      q_wr_held <= q_wr;
      if (!q_wr) begin
        rd_rid   <= rx_req_hdr[95:80];
        rd_tag   <= rx_req_hdr[79:72];
        rd_ndw   <= q_ndw;
        rd_bytes <= q_bytes;
        rd_low   <= q_addr[6:0] + 7'(lead(q_fbe));
        rd_hi    <= q_addr[2];
        rd_user  <= q_user;
        rd_sel   <= q_off[4:3];
      end
    end
  end

  // ---------------- register answers -> completions with data
  logic [63:0] user_q;   // the user register a read names (the user logic's)
  wire  [63:0] cpl_q = rd_user ? user_q : cc_data;
  assign tx_cpl_valid = cc_valid;
  assign tx_cpl_sop   = 1'b1;
  assign tx_cpl_eop   = 1'b1;
  assign tx_cpl_hdr   = {3'b010, 5'b01010, 14'b0, rd_ndw[9:0],
                         cfg_requester_id, 3'b000, 1'b0, rd_bytes[11:0],
                         rd_rid, rd_tag, 1'b0, rd_low,
                         32'h0};
  always_comb begin
    tx_cpl_data = '0;
    tx_cpl_strb = '0;
    for (int k = 0; k < L; k++) begin
      if (11'(k) < rd_ndw) begin
        tx_cpl_strb[k] = 1'b1;
        // DWs past the register read as zero
        if (k == 0) tx_cpl_data[31:0] = rd_hi ? cpl_q[63:32] : cpl_q[31:0];
        else if (k == 1 && !rd_hi) tx_cpl_data[63:32] = cpl_q[63:32];
      end
    end
  end

  // ---------------- the engine's writes -> requests
  logic        rq_valid, rq_sop, rq_eop;
  logic [1:0]  rq_type;
  /* verilator lint_off UNUSEDSIGNAL */
  logic [63:0] rq_addr;    // DW-aligned
  /* verilator lint_on UNUSEDSIGNAL */
  logic [12:0] rq_len;
  wire  [10:0] w_ndw  = 11'((rq_len + 13'd3) >> 2);
  wire  [3:0]  w_last = (rq_len[1:0] == 2'd0) ? 4'hf : 4'((5'd1 << rq_len[1:0]) - 5'd1);
  wire  [3:0]  w_fbe  = (w_ndw == 11'd1) ? w_last : 4'hf;
  wire  [3:0]  w_lbe  = (w_ndw == 11'd1) ? 4'h0 : w_last;
  wire         w_four = |rq_addr[63:32];
  wire         w_data = rq_type == hx_dma_pkg::REQ_MWR;
  wire  [31:0] w_dw0  = {1'b0, w_data, w_four, 5'b00000, 14'b0, w_ndw[9:0]};
  wire  [31:0] w_dw1  = {cfg_requester_id, 8'h00, w_lbe, w_fbe};
  assign tx_req_valid = rq_valid;
  assign tx_req_sop   = rq_sop;
  assign tx_req_eop   = rq_eop;
  assign tx_req_hdr   = w_four ? {w_dw0, w_dw1, rq_addr[63:32], rq_addr[31:2], 2'b00}
                               : {w_dw0, w_dw1, rq_addr[31:2], 2'b00, 32'h0};
  // DWs of the current TLP not yet sent: its length at the first beat.
  logic [10:0] w_left;
  wire  [10:0] w_now = rq_sop ? w_ndw : w_left;
  always_comb begin
    tx_req_strb = '0;
    for (int k = 0; k < L; k++) tx_req_strb[k] = w_data && 11'(k) < w_now;
  end
  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) w_left <= '0;
    else if (rq_valid && tx_req_ready) w_left <= (w_now > 11'(L)) ? w_now - 11'(L) : 11'd0;
  end

  // ---------------- user logic (parameter USER)
  // Whether beat k is the last of a packet of n bytes (the generators').
  function automatic logic last_beat(input logic [15:0] k, input logic [15:0] n);
    last_beat = (32'(k) + 32'd1) * 32'(BYTES) >= 32'(n);
  endfunction
  logic              h2f_valid, h2f_ready, h2f_sop, h2f_eop;
  logic [DATA_W-1:0] h2f_data;
  logic [CHW-1:0]    h2f_chan;
  logic [15:0]       h2f_len;
  logic              f2h_valid, f2h_ready, f2h_sop, f2h_eop;
  logic [DATA_W-1:0] f2h_data;
  logic [CHW-1:0]    f2h_chan;
  logic [15:0]       f2h_len;
  generate
    if (USER == 0) begin : g_loopback
      // Every H2F packet back out as an F2H packet, through two beats of
      // buffer between the engine's two user streams, so that the H2F
      // side's ready is a register, not a path through the F2H side.
      localparam int UW = DATA_W + CHW + 18;
      logic [UW-1:0] lb_q [2];
      logic [1:0]    lb_n;
      logic          lb_rd, lb_wr;
      wire           lb_push = h2f_valid && h2f_ready;
      wire           lb_pop  = f2h_valid && f2h_ready;
      assign h2f_ready = lb_n != 2'd2;
      assign f2h_valid = lb_n != 2'd0;
      assign {f2h_sop, f2h_eop, f2h_chan, f2h_len, f2h_data} = lb_q[lb_rd];
      always_ff @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
          lb_n <= '0; lb_rd <= 1'b0; lb_wr <= 1'b0;
        end else begin
          lb_n  <= lb_n + {1'b0, lb_push} - {1'b0, lb_pop};
          if (lb_push) lb_wr <= !lb_wr;
          if (lb_pop) lb_rd <= !lb_rd;
        end
      end
      always_ff @(posedge clk) if (lb_push) lb_q[lb_wr] <= {h2f_sop, h2f_eop, h2f_chan, h2f_len, h2f_data};
      assign user_q = '0;
      /* verilator lint_off UNUSEDSIGNAL */
      wire [1:0] rd_sel_unused = rd_sel;  // no user registers: their reads are zero
      /* verilator lint_on UNUSEDSIGNAL */
    end else if (USER == 1) begin : g_fhf
      // A packet on each write of SEND (one at a time: a write while one
      // is still going out is ignored), timed from its first beat taken
      // to the first beat of the next packet the host sends back.
      // Beat k of a packet: DW j is {k, j} (16 bits each) with a fixed mask.
      function automatic logic [DATA_W-1:0] beat_of(input logic [15:0] k);
        for (int j = 0; j < L; j++) beat_of[32*j +: 32] = {k, 16'(j)} ^ 32'ha5a5_0000;
      endfunction
      // The bytes of beat k that a packet of n bytes has.
      function automatic logic [DATA_W-1:0] mask_of(input logic [15:0] k, input logic [15:0] n);
        for (int b = 0; b < BYTES; b++) mask_of[8*b +: 8] = (32'(k) * 32'(BYTES) + 32'(b) < 32'(n)) ? 8'hff : 8'h00;
      endfunction
      wire         send = rx_req_valid && rx_req_ready && rx_req_sop && q_wr && q_off == USER_BASE;
      logic [63:0] cycle, t_sent, last, done_n, bad;
      logic        sending, waiting;
      logic [15:0] s_len, s_beat, r_beat;
      assign f2h_valid = sending;
      assign f2h_sop   = s_beat == 16'd0;
      assign f2h_eop   = last_beat(s_beat, s_len);
      assign f2h_chan  = '0;
      assign f2h_len   = s_len;
      assign f2h_data  = beat_of(s_beat);
      assign h2f_ready = 1'b1;
      /* verilator lint_off UNUSEDSIGNAL */
      wire [CHW-1:0] h2f_chan_unused = h2f_chan;  // every packet is timed, whatever its channel
      /* verilator lint_on UNUSEDSIGNAL */
      wire        h_fire = h2f_valid && h2f_ready;
      wire [15:0] h_beat = h2f_sop ? 16'd0 : r_beat;
      wire        h_bad  = |((h2f_data ^ beat_of(h_beat)) & mask_of(h_beat, h2f_len));
      always_comb begin
        case (rd_sel)
          2'd1:    user_q = done_n;
          2'd2:    user_q = last;
          2'd3:    user_q = bad;
          default: user_q = '0;
        endcase
      end
      always_ff @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
          cycle <= '0; t_sent <= '0; last <= '0; done_n <= '0; bad <= '0;
          sending <= 1'b0; waiting <= 1'b0; s_len <= '0; s_beat <= '0; r_beat <= '0;
        end else begin
          cycle <= cycle + 64'd1;
          if (send && !sending && rx_req_data[15:0] != 16'd0) begin
            sending <= 1'b1;
            s_len   <= rx_req_data[15:0];
            s_beat  <= '0;
          end
          if (f2h_valid && f2h_ready) begin
            if (f2h_sop) begin
              t_sent  <= cycle;
              waiting <= 1'b1;
            end
            if (f2h_eop) sending <= 1'b0;
            s_beat <= f2h_eop ? 16'd0 : s_beat + 16'd1;
          end
          if (h_fire) begin
            if (h2f_sop && waiting) begin
              last    <= cycle - t_sent;
              done_n  <= done_n + 64'd1;
              waiting <= 1'b0;
            end
            if (h_bad) bad <= bad + 64'd1;
            r_beat <= h2f_eop ? 16'd0 : h_beat + 16'd1;
          end
        end
      end
    end else begin : g_burst
      // On a write of BURST (while no burst is going out): `packets`
      // packets of `size` bytes, packet k on channel k mod C, back to back,
      // then a 64 B marker on channel C; the engine writes each channel's
      // packets into its ring in order, so the marker's pointer update
      // tells the host the burst is in.
      wire         go = rx_req_valid && rx_req_ready && rx_req_sop && q_wr && q_off == USER_BASE + 32'h20;
      logic        active, marker;
      logic [15:0] b_size, b_left, b_beat;   // b_left: packets still to send before the marker
      logic [7:0]  b_chans;
      logic [CHW-1:0] b_ch;
      wire  [15:0] len = marker ? 16'd64 : b_size;
      assign f2h_valid = active;
      assign f2h_sop   = b_beat == 16'd0;
      assign f2h_eop   = last_beat(b_beat, len);
      assign f2h_chan  = marker ? CHW'(b_chans) : b_ch;
      assign f2h_len   = len;
      always_comb
        for (int j = 0; j < L; j++) f2h_data[32*j +: 32] = {b_beat, 16'(j)} ^ {16'h5a5a, b_left};
      assign h2f_ready = 1'b1;
      assign user_q    = '0;
      /* verilator lint_off UNUSEDSIGNAL */
      wire [1:0] rd_sel_unused = rd_sel;  // no readable user registers
      wire h2f_unused = ^{h2f_valid, h2f_sop, h2f_eop, h2f_data, h2f_chan, h2f_len};  // nothing comes back
      /* verilator lint_on UNUSEDSIGNAL */
      always_ff @(posedge clk or negedge rst_n) begin
        if (!rst_n) begin
          active <= 1'b0; marker <= 1'b0; b_size <= '0; b_left <= '0; b_beat <= '0; b_chans <= '0; b_ch <= '0;
        end else begin
          if (go && !active && rx_req_data[15:0] != 16'd0 && rx_req_data[39:32] != 8'd0 &&
              32'(rx_req_data[39:32]) < 32'(CHANNELS)) begin
            active  <= 1'b1;
            b_size  <= rx_req_data[15:0];
            b_left  <= rx_req_data[31:16];
            b_chans <= rx_req_data[39:32];
            b_ch    <= '0;
            b_beat  <= '0;
            marker  <= rx_req_data[31:16] == 16'd0;
          end
          if (f2h_valid && f2h_ready) begin
            b_beat <= f2h_eop ? 16'd0 : b_beat + 16'd1;
            if (f2h_eop) begin
              if (marker) begin
                active <= 1'b0;
                marker <= 1'b0;
              end else begin
                b_left <= b_left - 16'd1;
                marker <= b_left == 16'd1;
                b_ch   <= (32'(b_ch) + 32'd1 == 32'(b_chans)) ? '0 : b_ch + CHW'(1);
              end
            end
          end
        end
      end
    end
  endgenerate

  /* verilator lint_off UNUSEDSIGNAL */
  logic rc_ready_unused;   // the engine reads nothing
  /* verilator lint_on UNUSEDSIGNAL */
  hx_dma_top #(.CHANNELS(CHANNELS), .DATA_W(DATA_W), .MAX_PKT(MAX_PKT), .F2H_STAGES(F2H_STAGES),
               .H2F_STAGES(H2F_STAGES)) u_dma (
    .clk, .rst_n,
    .cq_valid(rx_req_valid), .cq_ready, .cq_sop(rx_req_sop), .cq_eop(rx_req_eop),
    .cq_type(q_wr ? hx_dma_pkg::REQ_MWR : hx_dma_pkg::REQ_MRD),
    // a register read asks for the whole 8 B register
    .cq_addr(q_wr ? q_off : {q_off[31:3], 3'b000}), .cq_len(q_bytes), .cq_tag(rx_req_hdr[79:72]), .cq_data(rx_req_data),
    .cc_valid, .cc_ready(tx_cpl_ready), .cc_tag, .cc_data,
    .rq_valid, .rq_ready(tx_req_ready), .rq_sop, .rq_eop, .rq_type, .rq_addr, .rq_len, .rq_data(tx_req_data),
    .rc_valid(1'b0), .rc_data('0), .rc_ready(rc_ready_unused),
    .f2h_valid, .f2h_ready, .f2h_sop, .f2h_eop, .f2h_data, .f2h_chan, .f2h_len,
    .h2f_valid, .h2f_ready, .h2f_sop, .h2f_eop, .h2f_data, .h2f_chan, .h2f_len);
endmodule
