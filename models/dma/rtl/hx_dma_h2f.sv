// H2F (host to card) controller of the Calypte-style DMA: the host writes a
// packet into its channel's window of BAR0 (write-combined lines), then the
// 8 B DMA header with the packet length; the header releases the packet from
// the channel's buffer to user logic, and the controller writes the number of
// bytes it has consumed back to host memory (the H2F pointer update).
// One packet buffer of MAX_PKT bytes per channel, in block RAM.
module hx_dma_h2f #(
  parameter int CHANNELS = 16,
  parameter int DATA_W   = 256,
  parameter int MAX_PKT  = 2048,
  parameter int CHW      = (CHANNELS > 1) ? $clog2(CHANNELS) : 1
) (
  input  logic              clk,
  input  logic              rst_n,
  input  logic              csr_we,
  input  logic [CHW-1:0]    csr_ch,
  input  logic [4:0]        csr_off,
  input  logic [63:0]       csr_wdata,
  // packet data written by the host: one beat, byte offset inside the
  // channel's window (beat aligned), byte count in this beat
  input  logic              wr_valid,
  input  logic [CHW-1:0]    wr_ch,
  /* verilator lint_off UNUSEDSIGNAL */
  input  logic [15:0]       wr_off,     // bits above the buffer and below a beat are ignored
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic [DATA_W/8-1:0] wr_be,
  input  logic [DATA_W-1:0] wr_data,
  // DMA header written by the host: releases a packet of hdr_len bytes
  input  logic              hdr_valid,
  output logic              hdr_ready,
  input  logic [CHW-1:0]    hdr_ch,
  input  logic [15:0]       hdr_len,
  // packets to user logic
  output logic              h2f_valid,
  input  logic              h2f_ready,
  output logic              h2f_sop,
  output logic              h2f_eop,
  output logic [DATA_W-1:0] h2f_data,
  output logic [CHW-1:0]    h2f_chan,
  output logic [15:0]       h2f_len,
  // pointer update toward the PCIe block (requester request)
  output logic              rq_valid,
  input  logic              rq_ready,
  output logic [63:0]       rq_addr,
  output logic [DATA_W-1:0] rq_data
);
  localparam int BYTES = DATA_W / 8;
  localparam int WORDS = MAX_PKT / BYTES;          // per channel
  localparam int WAW   = $clog2(WORDS);
  localparam int AW    = $clog2(CHANNELS * WORDS);

  logic [DATA_W-1:0] mem [CHANNELS * WORDS];
  logic [63:0] upd_addr [CHANNELS];
  logic [31:0] consumed [CHANNELS];

  // Host writes into the buffer, with byte enables.
  wire [AW-1:0] waddr = AW'({wr_ch, wr_off[WAW + $clog2(BYTES) - 1:$clog2(BYTES)]});
  always_ff @(posedge clk) begin
    if (wr_valid)
      for (int b = 0; b < BYTES; b++)
        if (wr_be[b]) mem[waddr][8*b +: 8] <= wr_data[8*b +: 8];
  end

  typedef enum logic [1:0] { S_IDLE, S_SEND, S_UPD } state_t;
  state_t state;
  logic [CHW-1:0] ch;
  logic [15:0] len, left;   // packet length; bytes not yet handed to the output register
  logic [WAW-1:0] idx;

  assign hdr_ready = (state == S_IDLE);
  assign h2f_chan  = ch;
  assign h2f_len   = len;
  assign rq_valid  = (state == S_UPD);
  assign rq_addr   = upd_addr[ch];
  always_comb begin
    rq_data = '0;
    rq_data[31:0] = consumed[ch];
  end

  // The output register is loaded straight from the buffer (a synchronous
  // read: block RAM with its output register) whenever it is empty or taken.
  wire load = (state == S_SEND) && (left != 16'd0) && (!h2f_valid || h2f_ready);

  always_ff @(posedge clk or negedge rst_n) begin
    if (!rst_n) begin
      state     <= S_IDLE;
      ch        <= '0;
      len       <= '0;
      left      <= '0;
      idx       <= '0;
      h2f_valid <= 1'b0;
      h2f_sop   <= 1'b0;
      h2f_eop   <= 1'b0;
      for (int i = 0; i < CHANNELS; i++) begin
        upd_addr[i] <= '0;
        consumed[i] <= '0;
      end
    end else begin
      if (csr_we && csr_off == hx_dma_pkg::CSR_H2F_UPD) upd_addr[csr_ch] <= csr_wdata;
      if (!load && h2f_valid && h2f_ready) h2f_valid <= 1'b0;
      case (state)
        S_IDLE: if (hdr_valid) begin
          ch    <= hdr_ch;
          len   <= hdr_len;
          left  <= hdr_len;
          idx   <= '0;
          state <= (hdr_len == 16'd0) ? S_UPD : S_SEND;
        end
        S_SEND: begin
          if (load) begin
            h2f_valid <= 1'b1;
            h2f_sop   <= (left == len);
            h2f_eop   <= (left <= 16'(BYTES));
            left      <= (left <= 16'(BYTES)) ? 16'd0 : left - 16'(BYTES);
            idx       <= idx + 1'b1;
          end
          // done once the last beat has been taken
          if (left == 16'd0 && h2f_valid && h2f_ready) begin
            consumed[ch] <= consumed[ch] + {16'd0, len};
            state        <= S_UPD;
          end
        end
        S_UPD: if (rq_ready) state <= S_IDLE;
        default: state <= S_IDLE;
      endcase
    end
  end

  always_ff @(posedge clk) begin
    if (load) h2f_data <= mem[AW'({ch, idx})];
  end
endmodule
