// F2H (card to host) controller of the Calypte-style DMA: a packet from user
// logic is written into its channel's ring buffer in host memory as 128 B
// writes that never cross a 4 KiB boundary, passing the user data through
// beat by beat (cut-through), then one 8 B write tells the host the new write
// pointer. A packet starts on a 64 B line of the ring and never wraps inside
// it: if it would pass the end, it starts again at offset 0.
module hx_dma_f2h #(
  parameter int CHANNELS = 16,
  parameter int DATA_W   = 256,
  parameter int CHW      = (CHANNELS > 1) ? $clog2(CHANNELS) : 1
) (
  input  logic              clk,
  input  logic              rst_n,
  // register writes from the CSR block
  input  logic              csr_we,
  input  logic [CHW-1:0]    csr_ch,
  input  logic [4:0]        csr_off,
  input  logic [63:0]       csr_wdata,
  // packets from user logic
  input  logic              f2h_valid,
  output logic              f2h_ready,
  input  logic              f2h_sop,
  input  logic              f2h_eop,
  input  logic [DATA_W-1:0] f2h_data,
  input  logic [CHW-1:0]    f2h_chan,
  input  logic [15:0]       f2h_len,
  // requester requests toward the PCIe block
  output logic              rq_valid,
  input  logic              rq_ready,
  output logic              rq_sop,
  output logic              rq_eop,
  output logic [1:0]        rq_type,
  output logic [63:0]       rq_addr,
  output logic [12:0]       rq_len,
  output logic [DATA_W-1:0] rq_data
);
  localparam int BYTES = DATA_W / 8;

  logic [63:0] ring_base [CHANNELS];
  logic [31:0] ring_size [CHANNELS];
  logic [63:0] upd_addr  [CHANNELS];
  logic [31:0] wptr      [CHANNELS];

  typedef enum logic [1:0] { S_IDLE, S_DATA, S_UPD } state_t;
  state_t      state;
  logic [CHW-1:0] ch;
  logic [31:0] off;        // ring offset of the next byte
  logic [15:0] remaining;  // bytes of the packet still to write
  logic [12:0] seg_left;   // bytes left in the current segment (0: a new one starts)
  logic [31:0] next_wptr;

  // The segment that starts at the next byte: 128 B, or less at the packet's
  // end or at a 4 KiB boundary of the host address.
  logic [63:0] cur_addr;
  logic [12:0] to_4k, seg_len;
  assign cur_addr = ring_base[ch] + {32'd0, off};
  assign to_4k    = 13'd4096 - {1'b0, cur_addr[11:0]};
  always_comb begin
    seg_len = 13'(hx_dma_pkg::SEG_B);
    if (remaining < {3'd0, seg_len}) seg_len = remaining[12:0];
    if (to_4k < seg_len) seg_len = to_4k;
  end

  wire starting = (seg_left == 13'd0);
  wire [12:0] this_seg = starting ? seg_len : seg_left;
  wire last_beat = (this_seg <= 13'(BYTES));

  always_comb begin
    rq_valid  = 1'b0;
    rq_sop    = 1'b0;
    rq_eop    = 1'b0;
    rq_type   = hx_dma_pkg::REQ_MWR;
    rq_addr   = cur_addr;
    rq_len    = this_seg;
    rq_data   = f2h_data;
    f2h_ready = 1'b0;
    case (state)
      S_DATA: begin
        rq_valid  = f2h_valid;
        rq_sop    = starting;
        rq_eop    = last_beat;
        f2h_ready = rq_ready;
      end
      S_UPD: begin
        rq_valid = 1'b1;
        rq_sop   = 1'b1;
        rq_eop   = 1'b1;
        rq_addr  = upd_addr[ch];
        rq_len   = 13'(hx_dma_pkg::UPD_B);
        rq_data  = '0;
        rq_data[31:0] = next_wptr;
      end
      default: ;
    endcase
  end

  wire [12:0] beat_bytes = last_beat ? this_seg : 13'(BYTES);

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state     <= S_IDLE;
      ch        <= '0;
      off       <= '0;
      remaining <= '0;
      seg_left  <= '0;
      next_wptr <= '0;
      for (int i = 0; i < CHANNELS; i++) begin
        ring_base[i] <= '0;
        ring_size[i] <= '0;
        upd_addr[i]  <= '0;
        wptr[i]      <= '0;
      end
    end else begin
      if (csr_we) begin
        case (csr_off)
          hx_dma_pkg::CSR_F2H_BASE: begin ring_base[csr_ch] <= csr_wdata; wptr[csr_ch] <= '0; end
          hx_dma_pkg::CSR_F2H_SIZE: ring_size[csr_ch] <= csr_wdata[31:0];
          hx_dma_pkg::CSR_F2H_UPD:  upd_addr[csr_ch]  <= csr_wdata;
          default: ;
        endcase
      end
      case (state)
        S_IDLE: if (f2h_valid && f2h_sop) begin
          ch        <= f2h_chan;
          remaining <= f2h_len;
          seg_left  <= '0;
          // no wrap inside a packet: start over at 0 if it would pass the end
          off       <= (wptr[f2h_chan] + {16'd0, f2h_len} > ring_size[f2h_chan]) ? 32'd0 : wptr[f2h_chan];
          state     <= S_DATA;
        end
        S_DATA: if (f2h_valid && rq_ready) begin
          off       <= off + {19'd0, beat_bytes};
          remaining <= remaining - {3'd0, beat_bytes};
          seg_left  <= this_seg - beat_bytes;
          if (f2h_eop) begin
            // the next packet starts on a 64 B line
            next_wptr <= (off + {19'd0, beat_bytes} + 32'd63) & ~32'd63;
            state     <= S_UPD;
          end
        end
        S_UPD: if (rq_ready) begin
          wptr[ch] <= next_wptr;
          state    <= S_IDLE;
        end
        default: state <= S_IDLE;
      endcase
    end
  end
endmodule
