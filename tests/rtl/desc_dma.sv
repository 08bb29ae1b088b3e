// A small descriptor-based DMA engine on hxsim's TLP-stream interface
// (docs/rtl.md), written as a user would bring one: it reads descriptors
// from a ring in host memory, copies each descriptor's source buffer from
// host memory into card RAM with DMA reads, writes it from card RAM to the
// destination buffer with DMA writes, then writes its done count to a host
// address and raises MSI 0 if the descriptor asks.
//
// Registers (32-bit, at BAR0 offsets):
//   0x00 RING_LO  0x04 RING_HI   descriptor ring base in host memory
//   0x08 COUNT                   descriptors to run on the next doorbell
//   0x0C DOORBELL                write: run COUNT descriptors from the ring base
//   0x10 DONE                    descriptors finished since reset (read only)
//   0x14 STAT_LO  0x18 STAT_HI   where DONE is written after each descriptor (0: nowhere)
//   0x1C ID                      0x48584453, read only
// Descriptor (32 B): src[63:0], dst[63:0], len[31:0] (bytes: a multiple of 4,
// at most the card RAM), flags[31:0] (bit 0: MSI when done), 8 B unused.
// Buffers and the ring are 4-byte aligned.
module desc_dma #(
    parameter int DATA_W = 128,
    parameter int RAM_DW = 1024,  // card RAM in 32-bit words
    parameter int CHUNK_DW = 32   // largest read or write it issues (128 B: within any MPS and MRRS)
) (
    input  logic                clk,
    input  logic                rst_n,
    input  logic [127:0]        rx_req_hdr,
    input  logic [DATA_W-1:0]   rx_req_data,
    input  logic [DATA_W/32-1:0] rx_req_strb,
    input  logic                rx_req_sop,
    input  logic                rx_req_eop,
    input  logic                rx_req_valid,
    output logic                rx_req_ready,
    input  logic [127:0]        rx_cpl_hdr,
    input  logic [DATA_W-1:0]   rx_cpl_data,
    input  logic [DATA_W/32-1:0] rx_cpl_strb,
    input  logic                rx_cpl_sop,
    input  logic                rx_cpl_eop,
    input  logic                rx_cpl_valid,
    output logic                rx_cpl_ready,
    output logic [127:0]        tx_req_hdr,
    output logic [DATA_W-1:0]   tx_req_data,
    output logic [DATA_W/32-1:0] tx_req_strb,
    output logic                tx_req_sop,
    output logic                tx_req_eop,
    output logic                tx_req_valid,
    input  logic                tx_req_ready,
    output logic [127:0]        tx_cpl_hdr,
    output logic [DATA_W-1:0]   tx_cpl_data,
    output logic [DATA_W/32-1:0] tx_cpl_strb,
    output logic                tx_cpl_sop,
    output logic                tx_cpl_eop,
    output logic                tx_cpl_valid,
    input  logic                tx_cpl_ready,
    input  logic [15:0]         cfg_requester_id,
    output logic                msi_valid,
    output logic [4:0]          msi_vector,
    input  logic                msi_ready
);
  localparam int L = DATA_W / 32;  // DW lanes per beat

  // Header of a memory request for `ndw` whole DWs at DW-aligned `a`.
  function automatic logic [127:0] req_hdr(input logic wr, input logic [63:0] a, input logic [10:0] ndw,
                                           input logic [7:0] tag, input logic [15:0] rid);
    logic four;
    logic [31:0] d0, d1;
    four = |a[63:32];
    d0 = {wr ? (four ? 3'b011 : 3'b010) : (four ? 3'b001 : 3'b000), 5'b00000, 14'b0, ndw[9:0]};
    d1 = {rid, tag, (ndw == 11'd1) ? 4'h0 : 4'hf, 4'hf};
    if (four) req_hdr = {d0, d1, a[63:32], a[31:2], 2'b00};
    else req_hdr = {d0, d1, a[31:2], 2'b00, 32'h0};
  endfunction

  // ---------------- registers ----------------
  logic [31:0] ring_lo, ring_hi, count, done_cnt, stat_lo, stat_hi;
  logic        doorbell;
  // a host read waiting for its completion
  logic        rd_pend;
  logic [15:0] rd_rid;
  logic [7:0]  rd_tag;
  logic [6:0]  rd_low;
  logic [5:0]  rd_reg;
  logic [1:0]  rd_ndw;

  function automatic logic [31:0] reg_value(input logic [5:0] r);
    case (r)
      6'd0: reg_value = ring_lo;
      6'd1: reg_value = ring_hi;
      6'd2: reg_value = count;
      6'd4: reg_value = done_cnt;
      6'd5: reg_value = stat_lo;
      6'd6: reg_value = stat_hi;
      6'd7: reg_value = 32'h48584453;
      default: reg_value = 32'h0;
    endcase
  endfunction

  assign rx_req_ready = !rd_pend;
  wire [2:0] rq_fmt = rx_req_hdr[127:125];
  wire [9:0] rq_len = rx_req_hdr[105:96];
  wire [63:0] rq_addr = rq_fmt[0] ? {rx_req_hdr[63:32], rx_req_hdr[31:0]} : {32'h0, rx_req_hdr[63:32]};
  wire [5:0] rq_reg = rq_addr[7:2];

  // completions of host reads
  assign tx_cpl_valid = rd_pend;
  assign tx_cpl_sop = 1'b1;
  assign tx_cpl_eop = 1'b1;
  assign tx_cpl_hdr = {3'b010, 5'b01010, 14'b0, 8'h0, rd_ndw,
                       cfg_requester_id, 3'b000, 1'b0, 8'h0, rd_ndw, 2'b00,
                       rd_rid, rd_tag, 1'b0, rd_low,
                       32'h0};
  always_comb begin
    tx_cpl_data = '0;
    tx_cpl_strb = '0;
    for (int k = 0; k < L; k++) begin
      if (k < int'(rd_ndw)) begin
        tx_cpl_data[32*k +: 32] = reg_value(rd_reg + 6'(k));
        tx_cpl_strb[k] = 1'b1;
      end
    end
  end

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      ring_lo <= 0; ring_hi <= 0; count <= 0; stat_lo <= 0; stat_hi <= 0;
      doorbell <= 0;
      rd_pend <= 0;
    end else begin
      doorbell <= 0;
      if (rd_pend && tx_cpl_ready) rd_pend <= 0;
      if (rx_req_valid && rx_req_ready && rx_req_sop) begin
        if (rq_fmt[1]) begin  // a write: one or two DWs
          for (int k = 0; k < 2 && k < L; k++) begin
            if (rx_req_strb[k]) begin
              case (rq_reg + 6'(k))
                6'd0: ring_lo <= rx_req_data[32*k +: 32];
                6'd1: ring_hi <= rx_req_data[32*k +: 32];
                6'd2: count <= rx_req_data[32*k +: 32];
                6'd3: doorbell <= 1;
                6'd5: stat_lo <= rx_req_data[32*k +: 32];
                6'd6: stat_hi <= rx_req_data[32*k +: 32];
                default: ;
              endcase
            end
          end
        end else begin  // a read
          rd_pend <= 1;
          rd_rid <= rx_req_hdr[95:80];
          rd_tag <= rx_req_hdr[79:72];
          rd_low <= rq_addr[6:0];
          rd_reg <= rq_reg;
          rd_ndw <= (rq_len >= 10'd2) ? 2'd2 : 2'd1;
        end
      end
    end
  end

  // ---------------- the engine ----------------
  typedef enum logic [3:0] {IDLE, DESC_RD, DESC_WAIT, SRC_RD, SRC_WAIT, DST_WR, STAT_WR, RAISE, NEXT} state_t;
  state_t st;
  logic [31:0] ram [RAM_DW];
  logic [31:0] desc [8];
  logic [31:0] left;        // descriptors left in this run
  logic [31:0] index;       // ring index of the current descriptor
  logic [31:0] off_dw;      // progress through the buffer, in DWs
  logic [10:0] chunk_dw;    // the current request's DWs
  logic [10:0] beat;        // beat of the TLP being sent
  wire  [63:0] src = {desc[1], desc[0]};
  wire  [63:0] dst = {desc[3], desc[2]};
  wire  [31:0] len_dw = desc[4] >> 2;

  // The next request's DWs: up to CHUNK_DW, never across 4 KiB.
  function automatic logic [10:0] next_chunk(input logic [63:0] a, input logic [31:0] rest_dw);
    logic [31:0] to_page, n;
    to_page = (32'd4096 - {20'h0, a[11:0]}) >> 2;
    n = rest_dw;
    if (n > CHUNK_DW) n = CHUNK_DW;
    if (n > to_page) n = to_page;
    next_chunk = n[10:0];
  endfunction

  wire [63:0] src_at = src + {off_dw, 2'b00};
  wire [63:0] dst_at = dst + {off_dw, 2'b00};
  wire [63:0] stat = {stat_hi, stat_lo};

  // what tx_req carries in each state
  always_comb begin
    tx_req_valid = 1'b0;
    tx_req_hdr = '0;
    tx_req_data = '0;
    tx_req_strb = '0;
    tx_req_sop = 1'b1;
    tx_req_eop = 1'b1;
    case (st)
      DESC_RD: begin
        tx_req_valid = 1'b1;
        tx_req_hdr = req_hdr(1'b0, {ring_hi, ring_lo} + {index, 5'b0}, 11'd8, 8'h10, cfg_requester_id);
      end
      SRC_RD: begin
        tx_req_valid = off_dw < len_dw;
        tx_req_hdr = req_hdr(1'b0, src_at, next_chunk(src_at, len_dw - off_dw), 8'h20, cfg_requester_id);
      end
      DST_WR: begin
        tx_req_valid = 1'b1;
        tx_req_hdr = req_hdr(1'b1, dst_at, chunk_dw, 8'h00, cfg_requester_id);
        tx_req_sop = beat == 0;
        tx_req_eop = 32'(beat + 1) * L >= 32'(chunk_dw);
        for (int k = 0; k < L; k++) begin
          if (32'(beat) * L + k < 32'(chunk_dw)) begin
            tx_req_data[32*k +: 32] = ram[off_dw + 32'(beat) * L + k];
            tx_req_strb[k] = 1'b1;
          end
        end
      end
      STAT_WR: begin
        tx_req_valid = stat != 0;
        tx_req_hdr = req_hdr(1'b1, stat, 11'd1, 8'h00, cfg_requester_id);
        tx_req_data[31:0] = done_cnt;
        tx_req_strb[0] = 1'b1;
      end
      default: ;
    endcase
  end
  assign msi_valid = st == RAISE;
  assign msi_vector = 5'd0;
  assign rx_cpl_ready = 1'b1;

  // completions: where their data goes
  wire [11:0] cpl_bytes_left = rx_cpl_hdr[75:64];
  logic [31:0] cpl_base;    // DW index of the current completion's first DW
  logic [10:0] cpl_beat;
  wire [31:0] base_now = rx_cpl_sop ? 32'(chunk_dw) - 32'(cpl_bytes_left >> 2) : cpl_base;
  wire [10:0] beat_now = rx_cpl_sop ? 11'd0 : cpl_beat;
  // the last completion of a read: its byte count is no more than its own bytes
  logic        cpl_last;
  wire         last_now = rx_cpl_sop ? 32'(cpl_bytes_left) <= {20'h0, rx_cpl_hdr[105:96], 2'b00} : cpl_last;

  always_ff @(posedge clk) begin
    if (!rst_n) begin
      st <= IDLE;
      done_cnt <= 0;
      left <= 0;
      index <= 0;
    end else begin
      if (rx_cpl_valid) begin
        for (int k = 0; k < L; k++) begin
          if (rx_cpl_strb[k]) begin
            if (st == DESC_WAIT) desc[3'(base_now + 32'(beat_now) * L + k)] <= rx_cpl_data[32*k +: 32];
            else ram[off_dw + base_now + 32'(beat_now) * L + k] <= rx_cpl_data[32*k +: 32];
          end
        end
        cpl_base <= base_now;
        cpl_beat <= beat_now + 1;
        cpl_last <= last_now;
      end
      case (st)
        IDLE:
          if (doorbell && count != 0) begin
            left <= count;
            index <= 0;
            st <= DESC_RD;
          end
        DESC_RD:
          if (tx_req_ready) begin
            chunk_dw <= 11'd8;
            st <= DESC_WAIT;
          end
        DESC_WAIT:
          if (rx_cpl_valid && rx_cpl_eop && last_now) begin
            off_dw <= 0;
            st <= SRC_RD;
          end
        SRC_RD:
          if (off_dw >= len_dw) begin
            off_dw <= 0;
            chunk_dw <= next_chunk(dst, len_dw);
            beat <= 0;
            if (len_dw == 0) done_cnt <= done_cnt + 1;
            st <= len_dw == 0 ? STAT_WR : DST_WR;
          end else if (tx_req_ready) begin
            chunk_dw <= next_chunk(src_at, len_dw - off_dw);
            st <= SRC_WAIT;
          end
        SRC_WAIT:
          if (rx_cpl_valid && rx_cpl_eop && last_now) begin
            off_dw <= off_dw + 32'(chunk_dw);
            st <= SRC_RD;
          end
        DST_WR:
          if (tx_req_ready) begin
            if (tx_req_eop) begin
              beat <= 0;
              if (off_dw + 32'(chunk_dw) >= len_dw) begin
                done_cnt <= done_cnt + 1;
                st <= STAT_WR;
              end else begin
                off_dw <= off_dw + 32'(chunk_dw);
                chunk_dw <= next_chunk(dst + {off_dw + 32'(chunk_dw), 2'b00}, len_dw - off_dw - 32'(chunk_dw));
              end
            end else begin
              beat <= beat + 1;
            end
          end
        STAT_WR:
          if (stat == 0) st <= desc[5][0] ? RAISE : NEXT;
          else if (tx_req_ready) st <= desc[5][0] ? RAISE : NEXT;
        RAISE:
          if (msi_ready) st <= NEXT;
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
