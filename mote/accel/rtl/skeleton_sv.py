"""The SystemVerilog of `mote accel new NAME --rtl`: the skeleton's int8 pooling (max and average, NHWC) as RTL with the
ports of docs/rtl.md. A string.Template: `$name` is the module name."""

MAX_POOL_SV = '''\
// $name: an int8 pooling unit (max and average, NHWC) written by `mote accel new $name --rtl`. Edit it into yours.
//
// Ports: mote's RTL device contract (docs/rtl.md in mote's repository): a register port (reg_write,
// reg_index, reg_wdata, reg_rdata), busy, and one memory request port (a request is taken at an edge
// where mem_valid and mem_ready are high; a read's word arrives during the next cycle).
// Registers, in the order of accelerator.py's `registers`: 0 input, 1 output (addresses), 2 channels,
// 3 in_h, 4 in_w, 5 out_h, 6 out_w, 7 filter_h, 8 filter_w, 9 stride_h, 10 stride_w, 11 pad_top,
// 12 pad_left, 13 act_min, 14 act_max (signed), 15 mode (0: max, 1: average), 16 control (write nonzero:
// start), 17 status (1: done).
// Schedule: per output byte, one cycle per window tap (a read, or nothing for a tap in the padding,
// the reply of the previous tap taken meanwhile) and one cycle to write it: filter_h*filter_w + 1.
// Average: the sum of the taps inside the input over their count, rounded half away from zero (a
// combinational divider, as simple as it gets; a real design would pipeline it).
module $name (
    input  logic        clk,
    input  logic        rst,
    input  logic        reg_write,
    input  logic [7:0]  reg_index,
    input  logic [31:0] reg_wdata,
    output logic [31:0] reg_rdata,
    output logic        busy,
    output logic        mem_valid,
    output logic        mem_write,
    output logic [31:0] mem_addr,
    output logic [31:0] mem_wdata,
    output logic [3:0]  mem_wstrb,
    input  logic        mem_ready,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic        mem_rvalid,
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [31:0] mem_rdata
);
  localparam logic [7:0] NREGS = 8'd18, MODE = 8'd15, CONTROL = 8'd16, STATUS = 8'd17;
  logic [31:0] regs [NREGS];

  typedef enum logic [1:0] {IDLE, TAPS, WRITE} state_t;
  state_t state;
  logic [31:0] oy, ox, ch, fy, fx, op;  // the output byte, the tap, the output pointer
  logic signed [7:0] best;
  logic signed [31:0] sum;  // average: the taps inside the input so far, and their count
  logic [31:0] count;
  logic first;       // the first tap of an output: no reply of this output to take yet
  logic pad;         // the previous tap lay in the padding (no request was made)
  logic [1:0] lane;  // the byte lane of the previous request

  wire [31:0] channels = regs[2], in_h = regs[3], in_w = regs[4], out_h = regs[5], out_w = regs[6];
  wire [31:0] filter_h = regs[7], filter_w = regs[8];
  wire signed [31:0] iy = $$signed(oy * regs[9] + fy) - $$signed(regs[11]);
  wire signed [31:0] ix = $$signed(ox * regs[10] + fx) - $$signed(regs[12]);
  wire in_input = iy >= 0 && iy < $$signed(in_h) && ix >= 0 && ix < $$signed(in_w);
  wire [31:0] tap_addr = regs[0] + ($$unsigned(iy) * in_w + $$unsigned(ix)) * channels + ch;
  wire [7:0] reply_byte = mem_rdata[8 * lane +: 8];
  wire signed [7:0] reply = pad ? -8'sd128 : $$signed(reply_byte);
  wire signed [7:0] seen = first ? -8'sd128 : (reply > best ? reply : best);  // max so far, this reply in
  wire signed [31:0] reply32 = {{24{reply[7]}}, reply};
  wire signed [31:0] total = first ? 32'sd0 : sum + (pad ? 32'sd0 : reply32);  // this reply in
  wire [31:0] taken = first ? 32'd0 : count + (pad ? 32'd0 : 32'd1);
  wire signed [31:0] divisor = taken == 0 ? 32'sd1 : $$signed(taken);
  wire signed [31:0] half = $$signed(taken >> 1);
  wire signed [31:0] mean = total > 0 ? (total + half) / divisor : (total - half) / divisor;  // truncating
  wire signed [31:0] seen32 = regs[MODE[4:0]] == 1 ? mean : {{24{seen[7]}}, seen};
  wire signed [31:0] act_min = regs[13], act_max = regs[14];
  wire signed [31:0] low = seen32 < act_min ? act_min : seen32;
  wire [7:0] result = 8'(low > act_max ? act_max : low);

  assign busy = state != IDLE;
  assign reg_rdata = reg_index == STATUS ? {31'b0, state == IDLE} :
                     (reg_index < NREGS ? regs[reg_index[4:0]] : 32'b0);

  always_comb begin
    mem_valid = 1'b0;
    mem_write = 1'b0;
    mem_addr = 32'b0;
    mem_wdata = {4{result}};
    mem_wstrb = 4'b0;
    case (state)
      TAPS: begin mem_valid = in_input; mem_addr = {tap_addr[31:2], 2'b00}; end
      WRITE: begin mem_valid = 1'b1; mem_write = 1'b1; mem_addr = {op[31:2], 2'b00}; mem_wstrb = 4'b1 << op[1:0]; end
      default: ;
    endcase
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      state <= IDLE;
      for (int i = 0; i < NREGS; i++) regs[i] <= 32'b0;
    end else if (state == IDLE) begin
      if (reg_write && reg_index < NREGS) regs[reg_index[4:0]] <= reg_wdata;
      if (reg_write && reg_index == CONTROL && reg_wdata != 0) begin
        oy <= 0; ox <= 0; ch <= 0; fy <= 0; fx <= 0; first <= 1'b1;
        op <= regs[1];
        state <= regs[2] == 0 || regs[5] == 0 || regs[6] == 0 || regs[7] == 0 || regs[8] == 0 ? IDLE : TAPS;
      end
    end else if (mem_ready) begin
      case (state)
        TAPS: begin
          best <= seen;
          sum <= total;
          count <= taken;
          first <= 1'b0;
          pad <= !in_input;
          lane <= tap_addr[1:0];
          if (fx + 1 < filter_w) fx <= fx + 1;
          else begin
            fx <= 0;
            if (fy + 1 < filter_h) fy <= fy + 1;
            else begin fy <= 0; state <= WRITE; end
          end
        end
        WRITE: begin
          op <= op + 1;
          first <= 1'b1;
          state <= TAPS;
          if (ch + 1 < channels) ch <= ch + 1;
          else begin
            ch <= 0;
            if (ox + 1 < out_w) ox <= ox + 1;
            else begin
              ox <= 0;
              if (oy + 1 < out_h) oy <= oy + 1;
              else state <= IDLE;
            end
          end
        end
        default: state <= IDLE;
      endcase
    end
  end
endmodule
'''
