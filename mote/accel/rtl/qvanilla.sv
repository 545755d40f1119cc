// QVanilla in RTL: an int8 convolution (stride 1, one group) plus an int32 bias, writing int32
// accumulators, with the registers of mote/accel/qvanilla.py. Its ports follow mote's RTL device
// contract (docs/rtl.md): a register port, a busy flag and one memory request port.
//
// Registers (index: name): 0 ifmap, 1 weights, 2 bias, 3 result (byte addresses), 4 oc, 5 iw, 6 ih,
// 7 ic, 8 kh, 9 kw, 10 izp, 11 kzp (signed), 12 control (write nonzero: start), 13 status (1: done).
// Layouts: ifmap [ic][ih][iw] int8, weights [oc][ic][kh][kw] int8, bias [oc] int32, result
// [oc][oh][ow] int32 with oh = ih - kh + 1, ow = iw - kw + 1.
//
// Schedule: per output element, one bias read, then for each of the K = ic*kh*kw taps an ifmap byte
// read and a weight byte read (one request per cycle, the reply arriving the next cycle while the
// next request goes out), then one write of the sum: 2*K + 2 cycles per output element.
module qvanilla (
    input  logic        clk,
    input  logic        rst,
    // register port: a write takes effect at the clock edge; reg_rdata shows register reg_index
    input  logic        reg_write,
    input  logic [7:0]  reg_index,
    input  logic [31:0] reg_wdata,
    output logic [31:0] reg_rdata,
    output logic        busy,
    // memory port: a request is taken at an edge where mem_valid and mem_ready are high; a read's
    // word arrives on mem_rdata with mem_rvalid high during the following cycle
    output logic        mem_valid,
    output logic        mem_write,
    output logic [31:0] mem_addr,
    output logic [31:0] mem_wdata,
    output logic [3:0]  mem_wstrb,
    input  logic        mem_ready,
    /* verilator lint_off UNUSEDSIGNAL */
    input  logic        mem_rvalid,   // this design relies on the fixed one-cycle reply instead
    /* verilator lint_on UNUSEDSIGNAL */
    input  logic [31:0] mem_rdata
);
  localparam logic [7:0] NREGS = 8'd14, CONTROL = 8'd12, STATUS = 8'd13;
  logic [31:0] regs [NREGS];

  typedef enum logic [1:0] {IDLE, BIAS, TAPS, WRITE} state_t;
  state_t state;
  logic phase_w;              // in TAPS: 0 issues the ifmap byte of tap k, 1 its weight byte
  logic [31:0] k, taps;       // the tap being fetched, and K
  logic [31:0] kx, ky;        // the tap's column and row within the filter
  logic [31:0] ox, oy, oc_i;  // the output element
  logic [31:0] oh, ow;
  logic [31:0] xp, xbase, wp, wbase, bp, rp;  // byte pointers
  logic [31:0] row_step, plane_step;
  logic signed [31:0] acc, xval;
  logic [1:0] lane;           // the byte lane of the request the reply answers
  logic reply_bias;           // the reply in this cycle is the bias word

  wire signed [31:0] izp = regs[10];
  wire signed [31:0] kzp = regs[11];
  wire [7:0] reply_byte = mem_rdata[8 * lane +: 8];
  wire signed [31:0] reply_s8 = {{24{reply_byte[7]}}, reply_byte};
  wire signed [31:0] product = (xval - izp) * (reply_s8 - kzp);

  assign busy = state != IDLE;
  assign reg_rdata = reg_index == STATUS ? {31'b0, state == IDLE} :
                     (reg_index < NREGS ? regs[reg_index[3:0]] : 32'b0);

  always_comb begin
    mem_valid = 1'b0;
    mem_write = 1'b0;
    mem_addr = 32'b0;
    mem_wdata = acc + product;  // WRITE: the last weight byte arrives in this cycle
    mem_wstrb = 4'b0;
    case (state)
      BIAS: begin mem_valid = 1'b1; mem_addr = bp; end
      TAPS: begin mem_valid = 1'b1; mem_addr = {phase_w ? wp[31:2] : xp[31:2], 2'b00}; end
      WRITE: begin mem_valid = 1'b1; mem_write = 1'b1; mem_addr = rp; mem_wstrb = 4'hf; end
      default: ;
    endcase
  end

  always_ff @(posedge clk) begin
    if (rst) begin
      state <= IDLE;
      for (int i = 0; i < NREGS; i++) regs[i] <= 32'b0;
    end else if (state == IDLE) begin
      if (reg_write && reg_index < NREGS) regs[reg_index[3:0]] <= reg_wdata;
      if (reg_write && reg_index == CONTROL && reg_wdata != 0) begin
        oh <= regs[6] - regs[8] + 1;
        ow <= regs[5] - regs[9] + 1;
        taps <= regs[7] * regs[8] * regs[9];
        row_step <= regs[5] - regs[9] + 1;
        plane_step <= regs[6] * regs[5] - (regs[8] - 1) * regs[5] - (regs[9] - 1);
        xbase <= regs[0];
        xp <= regs[0];
        wbase <= regs[1];
        wp <= regs[1];
        bp <= regs[2];
        rp <= regs[3];
        ox <= 0; oy <= 0; oc_i <= 0;
        state <= regs[4] == 0 || regs[7] == 0 ? IDLE : BIAS;
      end
    end else if (mem_ready) begin
      case (state)
        BIAS: begin
          k <= 0; kx <= 0; ky <= 0; phase_w <= 1'b0;
          reply_bias <= 1'b1;
          xp <= xbase;
          wp <= wbase;
          state <= TAPS;
        end
        TAPS: begin
          if (!phase_w) begin  // ifmap byte out; the reply is the bias or the previous weight byte
            if (reply_bias) acc <= mem_rdata;
            else acc <= acc + product;
            reply_bias <= 1'b0;
            lane <= xp[1:0];
            if (kx + 1 < regs[9]) begin
              kx <= kx + 1; xp <= xp + 1;
            end else if (ky + 1 < regs[8]) begin
              kx <= 0; ky <= ky + 1; xp <= xp + row_step;
            end else begin
              kx <= 0; ky <= 0; xp <= xp + plane_step;
            end
            phase_w <= 1'b1;
          end else begin  // weight byte out; the reply is the ifmap byte
            xval <= reply_s8;
            lane <= wp[1:0];
            wp <= wp + 1;
            phase_w <= 1'b0;
            k <= k + 1;
            if (k + 1 == taps) state <= WRITE;
          end
        end
        WRITE: begin
          rp <= rp + 4;
          if (ox + 1 < ow) begin
            ox <= ox + 1; xbase <= xbase + 1; state <= BIAS;
          end else if (oy + 1 < oh) begin
            ox <= 0; oy <= oy + 1; xbase <= xbase + regs[9]; state <= BIAS;
          end else if (oc_i + 1 < regs[4]) begin
            ox <= 0; oy <= 0; oc_i <= oc_i + 1; xbase <= regs[0]; wbase <= wp; bp <= bp + 4; state <= BIAS;
          end else begin
            state <= IDLE;
          end
        end
        default: state <= IDLE;
      endcase
    end
  end
endmodule
