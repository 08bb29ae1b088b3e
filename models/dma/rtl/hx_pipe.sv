// A latency pipeline of STAGES registered stages on a valid/ready stream,
// at full throughput: a stage takes a beat when it is empty or when its own
// beat moves on in the same cycle. It stands for the register stages of the
// engine's datapath (header parsing, address generation) that the
// behavioural model summarises as f2h_cycles / h2f_cycles.
module hx_pipe #(
  parameter int W = 8,
  parameter int STAGES = 1
) (
  input  logic         clk,
  input  logic         rst_n,
  input  logic         in_valid,
  output logic         in_ready,
  input  logic [W-1:0] in_data,
  output logic         out_valid,
  input  logic         out_ready,
  output logic [W-1:0] out_data
);
  if (STAGES == 0) begin : g_wire
    assign out_valid = in_valid;
    assign in_ready  = out_ready;
    assign out_data  = in_data;
  end else begin : g_regs
    logic         v [STAGES];
    logic [W-1:0] d [STAGES];
    logic         move [STAGES];   // stage i hands its beat on this cycle
    always_comb begin
      move[STAGES-1] = v[STAGES-1] && out_ready;
      for (int i = STAGES - 2; i >= 0; i--) move[i] = v[i] && (!v[i+1] || move[i+1]);
    end
    assign in_ready  = !v[0] || move[0];
    assign out_valid = v[STAGES-1];
    assign out_data  = d[STAGES-1];
    always_ff @(posedge clk or negedge rst_n) begin
      if (!rst_n) begin
        for (int i = 0; i < STAGES; i++) v[i] <= 1'b0;
      end else begin
        for (int i = STAGES - 1; i >= 1; i--)
          if (!v[i] || move[i]) v[i] <= move[i-1];
        if (!v[0] || move[0]) v[0] <= in_valid;
      end
    end
    always_ff @(posedge clk) begin
      for (int i = STAGES - 1; i >= 1; i--)
        if ((!v[i] || move[i]) && move[i-1]) d[i] <= d[i-1];
      if ((!v[0] || move[0]) && in_valid) d[0] <= in_data;
    end
  end
endmodule
