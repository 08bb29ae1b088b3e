// A small descriptor-based DMA engine on the UltraScale+ PCIe hard block's
// user interfaces (CQ, CC, RQ, RC at 64, 128, 256 or 512 bits, straddling
// off, DWORD-aligned; docs/rtl.md), written as a user would bring one. It reads
// descriptors from a ring in host memory, copies each descriptor's source
// buffer from host memory into card RAM with DMA reads, writes it from card
// RAM to the destination buffer with DMA writes, then writes its done count
// to a host address and raises MSI vector 0 if the descriptor asks.
//
// Registers (32-bit, at BAR0 offsets), as desc_dma.sv has them:
//   0x00 RING_LO  0x04 RING_HI   descriptor ring base in host memory
//   0x08 COUNT                   descriptors to run on the next doorbell
//   0x0C DOORBELL                write: run COUNT descriptors from the ring base
//   0x10 DONE                    descriptors finished since reset (read only)
//   0x14 STAT_LO  0x18 STAT_HI   where DONE is written after each descriptor (0: nowhere)
//   0x1C ID                      0x48585553, read only
// Descriptor (32 B): src[63:0], dst[63:0], len[31:0] (bytes: a multiple of 4,
// at most the card RAM), flags[31:0] (bit 0: MSI when done), 8 B unused.
// Host reads and writes of the registers are one or two whole DWs.
//
// Every packet on the four interfaces is a descriptor (4 DWs on CQ and RQ,
// 3 on CC and RC) followed by the payload; DW i of a packet sits in lane
// i % L of beat i / L. The engine works in those packet DW indices, so one
// source serves every width.
module usp_dma #(
    parameter int DATA_W = 256,
    parameter int RAM_DW = 1024,  // card RAM in 32-bit words
    parameter int CHUNK_DW = 32,  // largest read or write it issues (128 B), within MPS and MRRS
    // tuser widths: the 512-bit interface has its own layouts
    parameter int CQ_USER = DATA_W == 512 ? 183 : 88,
    parameter int CC_USER = DATA_W == 512 ? 81 : 33,
    parameter int RQ_USER = DATA_W == 512 ? 137 : 62,
    parameter int RC_USER = DATA_W == 512 ? 161 : 75
) (
    input  logic                  user_clk,
    input  logic                  user_reset,
    // completer request: the host's reads and writes of the registers
    input  logic [DATA_W-1:0]     m_axis_cq_tdata,
    input  logic [CQ_USER-1:0]    m_axis_cq_tuser,
    input  logic                  m_axis_cq_tlast,
    input  logic [DATA_W/32-1:0]  m_axis_cq_tkeep,
    input  logic                  m_axis_cq_tvalid,
    output logic                  m_axis_cq_tready,
    // completer completion: answers to the host's reads
    output logic [DATA_W-1:0]     s_axis_cc_tdata,
    output logic [CC_USER-1:0]    s_axis_cc_tuser,
    output logic                  s_axis_cc_tlast,
    output logic [DATA_W/32-1:0]  s_axis_cc_tkeep,
    output logic                  s_axis_cc_tvalid,
    input  logic [3:0]            s_axis_cc_tready,
    // requester request: the engine's reads and writes of host memory
    output logic [DATA_W-1:0]     s_axis_rq_tdata,
    output logic [RQ_USER-1:0]    s_axis_rq_tuser,
    output logic                  s_axis_rq_tlast,
    output logic [DATA_W/32-1:0]  s_axis_rq_tkeep,
    output logic                  s_axis_rq_tvalid,
    input  logic [3:0]            s_axis_rq_tready,
    // requester completion: the data of its reads
    input  logic [DATA_W-1:0]     m_axis_rc_tdata,
    input  logic [RC_USER-1:0]    m_axis_rc_tuser,
    input  logic                  m_axis_rc_tlast,
    input  logic [DATA_W/32-1:0]  m_axis_rc_tkeep,
    input  logic                  m_axis_rc_tvalid,
    output logic                  m_axis_rc_tready,
    input  logic [1:0]            cfg_max_payload,
    input  logic [2:0]            cfg_max_read_req,
    output logic [31:0]           cfg_interrupt_msi_int,
    input  logic                  cfg_interrupt_msi_sent,
    input  logic                  cfg_interrupt_msi_fail
);
  localparam int L = DATA_W / 32;  // DW lanes per beat

  // ---------------- registers: CQ in, CC out ----------------
  logic [31:0] ring_lo, ring_hi, count, done_cnt, stat_lo, stat_hi;
  logic        doorbell;
  logic [31:0] cq_buf [8];  // the request packet: descriptor and up to four payload DWs
  logic [4:0]  cq_cnt;      // its DWs so far
  logic        cq_full;     // a whole packet waits to be acted on
  logic        rd_pend;     // a read waits for its completion
  logic [15:0] rd_rid;
  logic [7:0]  rd_tag;
  logic [6:0]  rd_low;
  logic [5:0]  rd_reg;
  logic [2:0]  rd_ndw;
  logic [2:0]  cc_beat;

  function automatic logic [31:0] reg_value(input logic [5:0] r);
    case (r)
      6'd0: reg_value = ring_lo;
      6'd1: reg_value = ring_hi;
      6'd2: reg_value = count;
      6'd4: reg_value = done_cnt;
      6'd5: reg_value = stat_lo;
      6'd6: reg_value = stat_hi;
      6'd7: reg_value = 32'h48585553;
      default: reg_value = 32'h0;
    endcase
  endfunction

  assign m_axis_cq_tready = !cq_full && !rd_pend;
  wire [5:0]  cq_reg  = cq_buf[0][7:2];
  wire [10:0] cq_ndw  = cq_buf[2][10:0];
  wire [3:0]  cq_type = cq_buf[2][14:11];

  // The completion: descriptor DWs 0-2, then the register values.
  wire [31:0] cc_d0 = {3'b000, 13'({rd_ndw, 2'b00}), 6'b0, 2'b00, 1'b0, rd_low};
  wire [31:0] cc_d1 = {rd_rid, 1'b0, 1'b0, 3'b000, 8'h0, rd_ndw};
  wire [31:0] cc_d2 = {8'h0, 16'h0, rd_tag};
  wire [3:0]  cc_total = 4'd3 + 4'(rd_ndw);
  assign s_axis_cc_tvalid = rd_pend;
  assign s_axis_cc_tuser = '0;
  assign s_axis_cc_tlast = 32'(cc_beat + 1) * L >= 32'(cc_total);
  always_comb begin
    s_axis_cc_tdata = '0;
    s_axis_cc_tkeep = '0;
    for (int k = 0; k < L; k++) begin
      automatic int i = int'(cc_beat) * L + k;
      if (i < int'(cc_total)) begin
        s_axis_cc_tkeep[k] = 1'b1;
        if (i == 0) s_axis_cc_tdata[32*k +: 32] = cc_d0;
        else if (i == 1) s_axis_cc_tdata[32*k +: 32] = cc_d1;
        else if (i == 2) s_axis_cc_tdata[32*k +: 32] = cc_d2;
        else s_axis_cc_tdata[32*k +: 32] = reg_value(rd_reg + 6'(i - 3));
      end
    end
  end

  always_ff @(posedge user_clk) begin
    if (user_reset) begin
      ring_lo <= 0; ring_hi <= 0; count <= 0; stat_lo <= 0; stat_hi <= 0;
      doorbell <= 0;
      cq_cnt <= 0; cq_full <= 0;
      rd_pend <= 0; cc_beat <= 0;
    end else begin
      doorbell <= 0;
      if (m_axis_cq_tvalid && m_axis_cq_tready) begin
        for (int k = 0; k < L; k++)
          if (m_axis_cq_tkeep[k] && int'(cq_cnt) + k < 8) cq_buf[3'(int'(cq_cnt) + k)] <= m_axis_cq_tdata[32*k +: 32];
        cq_cnt <= cq_cnt + 5'(L);
        if (m_axis_cq_tlast) cq_full <= 1;
      end
      if (cq_full) begin
        cq_full <= 0;
        cq_cnt <= 0;
        if (cq_type == 4'd1) begin  // a write of one or two DWs
          for (int j = 0; j < 2; j++) begin
            if (j < int'(cq_ndw)) begin
              case (cq_reg + 6'(j))
                6'd0: ring_lo <= cq_buf[4 + j];
                6'd1: ring_hi <= cq_buf[4 + j];
                6'd2: count <= cq_buf[4 + j];
                6'd3: doorbell <= 1;
                6'd5: stat_lo <= cq_buf[4 + j];
                6'd6: stat_hi <= cq_buf[4 + j];
                default: ;
              endcase
            end
          end
        end else if (cq_type == 4'd0) begin  // a read
          rd_pend <= 1;
          cc_beat <= 0;
          rd_rid <= cq_buf[2][31:16];
          rd_tag <= cq_buf[3][7:0];
          rd_low <= cq_buf[0][6:0];
          rd_reg <= cq_reg;
          rd_ndw <= cq_ndw >= 11'd2 ? 3'd2 : 3'd1;
        end
      end
      if (rd_pend && s_axis_cc_tready[0]) begin
        if (s_axis_cc_tlast) begin
          rd_pend <= 0;
          cc_beat <= 0;
        end else begin
          cc_beat <= cc_beat + 1;
        end
      end
    end
  end

  // ---------------- the engine: RQ out, RC in ----------------
  typedef enum logic [3:0] {IDLE, DESC_RD, DESC_WAIT, SRC_RD, SRC_WAIT, DST_WR, STAT_WR, RAISE, RAISE_WAIT, NEXT} state_t;
  state_t st;
  logic [31:0] ram [RAM_DW];
  logic [31:0] desc [8];
  logic [31:0] left;        // descriptors left in this run
  logic [31:0] index;       // ring index of the current descriptor
  logic [31:0] off_dw;      // progress through the buffer, in DWs
  logic [10:0] chunk_dw;    // the current request's DWs
  logic [10:0] rq_beat;     // beat of the request packet being sent
  wire  [63:0] src = {desc[1], desc[0]};
  wire  [63:0] dst = {desc[3], desc[2]};
  wire  [31:0] len_dw = desc[4] >> 2;
  wire  [31:0] wr_max = 32'd32 << cfg_max_payload;   // MPS in DWs
  wire  [31:0] rd_max = 32'd32 << cfg_max_read_req;  // MRRS in DWs

  // The next request's DWs: up to CHUNK_DW and the limit, never across 4 KiB.
  function automatic logic [10:0] next_chunk(input logic [63:0] a, input logic [31:0] rest_dw, input logic [31:0] limit);
    logic [31:0] to_page, n;
    to_page = (32'd4096 - {20'h0, a[11:0]}) >> 2;
    n = rest_dw;
    if (n > CHUNK_DW) n = CHUNK_DW;
    if (n > limit) n = limit;
    if (n > to_page) n = to_page;
    next_chunk = n[10:0];
  endfunction

  wire [63:0] src_at = src + {off_dw, 2'b00};
  wire [63:0] dst_at = dst + {off_dw, 2'b00};
  wire [63:0] stat = {stat_hi, stat_lo};

  // The request in each state: address, DWs, write or read, tag.
  logic [63:0] rq_addr;
  logic [10:0] rq_ndw;
  logic        rq_wr, rq_want;
  logic [7:0]  rq_tag;
  always_comb begin
    rq_want = 1'b0;
    rq_addr = '0;
    rq_ndw = 11'd1;
    rq_wr = 1'b0;
    rq_tag = 8'h00;
    case (st)
      DESC_RD: begin
        rq_want = 1'b1;
        rq_addr = {ring_hi, ring_lo} + {index, 5'b0};
        rq_ndw = 11'd8;
        rq_tag = 8'h10;
      end
      SRC_RD: begin
        rq_want = off_dw < len_dw;
        rq_addr = src_at;
        rq_ndw = next_chunk(src_at, len_dw - off_dw, rd_max);
        rq_tag = 8'h20;
      end
      DST_WR: begin
        rq_want = 1'b1;
        rq_addr = dst_at;
        rq_ndw = chunk_dw;
        rq_wr = 1'b1;
      end
      STAT_WR: begin
        rq_want = stat != 0;
        rq_addr = stat;
        rq_wr = 1'b1;
      end
      default: ;
    endcase
  end
  wire [31:0] rq_total = 32'd4 + (rq_wr ? 32'(rq_ndw) : 32'd0);
  wire [31:0] rq_d2 = {16'h0, 1'b0, (rq_wr ? 4'd1 : 4'd0), rq_ndw};
  wire [31:0] rq_d3 = {8'h0, 16'h0, rq_tag};
  assign s_axis_rq_tvalid = rq_want;
  assign s_axis_rq_tlast = 32'(rq_beat + 1) * L >= rq_total;
  // first BE in [3:0]; last BE in [7:4], or [11:8] at 512 bits (none for one DW)
  wire [3:0] rq_last_be = rq_ndw == 11'd1 ? 4'h0 : 4'hf;
  assign s_axis_rq_tuser = DATA_W == 512 ? RQ_USER'({rq_last_be, 4'h0, 4'hf}) : RQ_USER'({rq_last_be, 4'hf});
  always_comb begin
    s_axis_rq_tdata = '0;
    s_axis_rq_tkeep = '0;
    for (int k = 0; k < L; k++) begin
      automatic int i = int'(rq_beat) * L + k;
      if (32'(i) < rq_total) begin
        s_axis_rq_tkeep[k] = 1'b1;
        case (i)
          0: s_axis_rq_tdata[32*k +: 32] = {rq_addr[31:2], 2'b00};
          1: s_axis_rq_tdata[32*k +: 32] = rq_addr[63:32];
          2: s_axis_rq_tdata[32*k +: 32] = rq_d2;
          3: s_axis_rq_tdata[32*k +: 32] = rq_d3;
          default: s_axis_rq_tdata[32*k +: 32] = st == STAT_WR ? done_cnt : ram[off_dw + 32'(i - 4)];
        endcase
      end
    end
  end
  wire rq_sent = rq_want && s_axis_rq_tready[0] && s_axis_rq_tlast;

  assign cfg_interrupt_msi_int = {31'h0, st == RAISE};
  assign m_axis_rc_tready = 1'b1;

  // Completions: where their data goes. The descriptor's byte count says how
  // far into the read a completion starts; request-completed marks the last.
  logic [10:0] rc_beat;
  logic [31:0] rc_base;
  logic        rc_last;
  wire  [12:0] rc_bytes_left = m_axis_rc_tdata[28:16];
  wire  [31:0] base_now = rc_beat == 0 ? 32'(chunk_dw) - 32'(rc_bytes_left >> 2) : rc_base;
  wire         last_now = rc_beat == 0 ? m_axis_rc_tdata[30] : rc_last;

  always_ff @(posedge user_clk) begin
    if (user_reset) begin
      st <= IDLE;
      done_cnt <= 0;
      left <= 0;
      index <= 0;
      rq_beat <= 0;
      rc_beat <= 0;
    end else begin
      if (m_axis_rc_tvalid) begin
        for (int k = 0; k < L; k++) begin
          automatic int i = int'(rc_beat) * L + k;
          if (m_axis_rc_tkeep[k] && i >= 3) begin
            if (st == DESC_WAIT) desc[3'(base_now + 32'(i - 3))] <= m_axis_rc_tdata[32*k +: 32];
            else ram[off_dw + base_now + 32'(i - 3)] <= m_axis_rc_tdata[32*k +: 32];
          end
        end
        rc_base <= base_now;
        rc_last <= last_now;
        rc_beat <= m_axis_rc_tlast ? 11'd0 : rc_beat + 1;
      end
      if (rq_want && s_axis_rq_tready[0]) rq_beat <= s_axis_rq_tlast ? 11'd0 : rq_beat + 1;
      case (st)
        IDLE:
          if (doorbell && count != 0) begin
            left <= count;
            index <= 0;
            st <= DESC_RD;
          end
        DESC_RD:
          if (rq_sent) begin
            chunk_dw <= 11'd8;
            st <= DESC_WAIT;
          end
        DESC_WAIT:
          if (m_axis_rc_tvalid && m_axis_rc_tlast && last_now) begin
            off_dw <= 0;
            st <= SRC_RD;
          end
        SRC_RD:
          if (off_dw >= len_dw) begin
            off_dw <= 0;
            chunk_dw <= next_chunk(dst, len_dw, wr_max);
            if (len_dw == 0) done_cnt <= done_cnt + 1;
            st <= len_dw == 0 ? STAT_WR : DST_WR;
          end else if (rq_sent) begin
            chunk_dw <= rq_ndw;
            st <= SRC_WAIT;
          end
        SRC_WAIT:
          if (m_axis_rc_tvalid && m_axis_rc_tlast && last_now) begin
            off_dw <= off_dw + 32'(chunk_dw);
            st <= SRC_RD;
          end
        DST_WR:
          if (rq_sent) begin
            if (off_dw + 32'(chunk_dw) >= len_dw) begin
              done_cnt <= done_cnt + 1;
              st <= STAT_WR;
            end else begin
              off_dw <= off_dw + 32'(chunk_dw);
              chunk_dw <= next_chunk(dst + {off_dw + 32'(chunk_dw), 2'b00}, len_dw - off_dw - 32'(chunk_dw), wr_max);
            end
          end
        STAT_WR:
          if (stat == 0 || rq_sent) st <= desc[5][0] ? RAISE : NEXT;
        RAISE: st <= RAISE_WAIT;  // the request: one cycle of cfg_interrupt_msi_int
        RAISE_WAIT:
          if (cfg_interrupt_msi_sent || cfg_interrupt_msi_fail) st <= NEXT;
        NEXT: begin
          index <= index + 1;
          left <= left - 1;
          st <= left == 1 ? IDLE : DESC_RD;
        end
        default: st <= IDLE;
      endcase
    end
  end
endmodule
