// Test fixture of the co-simulation harness (tb/cosim.test.ts, tb/fst.test.ts, tb/bench.ts): a four-entry byte FIFO with a
// ready/valid output, a hold output while it is full and offered a byte, a 70-bit input folded into
// a 70-bit accumulator (VlWide ports on both sides), a 36-bit input and a 40-bit output (QData), and
// inputs that trigger $fatal and $error.
//
// Per cycle, before the rising edge:
//   hold_o      = in_valid_i && count == 4         (the byte is not taken)
//   out_valid_o = count != 0, out_data_o = oldest byte
// On the rising edge: pop when out_valid_o && out_ready_i; push when in_valid_i && !hold_o, and then
//   acc  <= rotate_left_1(acc) ^ wide_i
//   wsum <= wsum + wide_i[39:0]  (mod 2^40)
module tbfix_fifo (
  input  logic        clk_i,
  input  logic        rst_ni,
  input  logic        in_valid_i,
  input  logic [7:0]  in_data_i,
  input  logic [69:0] wide_i,
  /* verilator lint_off UNUSEDSIGNAL */ // only observed by the harness's captures
  input  logic [35:0] tag_i,
  input  logic        probe_i,
  /* verilator lint_on UNUSEDSIGNAL */
  input  logic        fatal_i,
  input  logic        error_i,
  input  logic        out_ready_i,
  output logic        hold_o,
  output logic        out_valid_o,
  output logic [7:0]  out_data_o,
  output logic [69:0] acc_o,
  output logic [39:0] wsum_o,
  output logic [2:0]  count_o
);
  localparam int unsigned Depth = 4;

  logic [7:0]  mem_q [Depth];
  logic [7:0]  mem_d [Depth];
  logic [1:0]  rd_q, rd_d, wr_q, wr_d;
  logic [2:0]  count_q, count_d;
  logic [69:0] acc_q, acc_d;
  logic [39:0] wsum_q, wsum_d;
  logic        push, pop;

  assign hold_o      = in_valid_i && (count_q == 3'd4);
  assign push        = in_valid_i && !hold_o;
  assign out_valid_o = count_q != 3'd0;
  assign pop         = out_valid_o && out_ready_i;
  assign out_data_o  = mem_q[rd_q];
  assign acc_o       = acc_q;
  assign wsum_o      = wsum_q;
  assign count_o     = count_q;

  always_comb begin
    mem_d   = mem_q;
    rd_d    = rd_q;
    wr_d    = wr_q;
    count_d = count_q;
    acc_d   = acc_q;
    wsum_d  = wsum_q;
    if (push) begin
      mem_d[wr_q] = in_data_i;
      wr_d        = wr_q + 2'd1;
      acc_d       = {acc_q[68:0], acc_q[69]} ^ wide_i;
      wsum_d      = wsum_q + wide_i[39:0];
    end
    if (pop) begin
      rd_d = rd_q + 2'd1;
    end
    if (push && !pop) begin
      count_d = count_q + 3'd1;
    end else if (pop && !push) begin
      count_d = count_q - 3'd1;
    end
  end

  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      mem_q   <= '{default: 8'h00};
      rd_q    <= 2'd0;
      wr_q    <= 2'd0;
      count_q <= 3'd0;
      acc_q   <= 70'h0;
      wsum_q  <= 40'h0;
    end else begin
      mem_q   <= mem_d;
      rd_q    <= rd_d;
      wr_q    <= wr_d;
      count_q <= count_d;
      acc_q   <= acc_d;
      wsum_q  <= wsum_d;
    end
  end

`ifndef SYNTHESIS
  always_ff @(posedge clk_i or negedge rst_ni) begin
    if (!rst_ni) begin
      // nothing to check in reset
    end else begin
      if (fatal_i) begin
        $fatal(1, "tbfix_fifo: fatal_i was set");
      end
      if (error_i) begin
        $error("tbfix_fifo: error_i was set");
      end
    end
  end
`endif
endmodule
