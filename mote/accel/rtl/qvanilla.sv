// QVanilla in RTL: an int8 convolution (stride 1, one group) plus an int32 bias, writing int32
// accumulators, with the registers of mote/accel/qvanilla.py. Its ports follow mote's RTL device
// contract (docs/rtl.md): a register port, a busy flag and one memory request port.
//
// Registers (index: name): 0 ifmap, 1 weights, 2 bias, 3 result (byte addresses), 4 oc, 5 iw, 6 ih,
// 7 ic, 8 kh, 9 kw, 10 izp, 11 kzp (signed), 12 control (write nonzero: start), 13 status (1: done),
// 14 wbits (the weight width: 4 or 2; any other value, 0 included, is 8).
// Layouts: ifmap [ic][ih][iw] int8, bias [oc] int32, result [oc][oh][ow] int32 with oh = ih - kh + 1,
// ow = iw - kw + 1. Weights [oc][ic][kh][kw]: int8, or at 4 and 2 bits one packed row per output
// channel (mote/accel/packing.py): each row starts on a byte and holds its ic*kh*kw weights in order,
// 8/wbits to a byte, the first in the byte's lowest bits, each in two's complement.
//
// Schedule: per output element, one bias read, then for each of the K = ic*kh*kw taps an ifmap byte
// read, preceded by a weight byte read for the taps that start a weight byte (every tap at 8 bits,
// every 2nd at 4, every 4th at 2); one request per cycle, the reply arriving the next cycle while the
// next request goes out; then one write of the sum: K + ceil(K*wbits/8) + 2 cycles per output element
// (2*K + 2 at 8 bits).
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
  localparam logic [7:0] NREGS = 8'd15, CONTROL = 8'd12, STATUS = 8'd13;
  logic [31:0] regs [NREGS];

  typedef enum logic [1:0] {IDLE, BIAS, TAPS, WRITE} state_t;
  typedef enum logic [1:0] {R_BIAS, R_WEIGHT, R_IFMAP} reply_t;
  state_t state;
  reply_t reply;              // in TAPS and WRITE: what the reply in this cycle answers
  logic phase_w;              // in TAPS: 1 issues the weight byte that tap k starts, 0 the ifmap byte of tap k
  logic [31:0] k, taps;       // the tap being fetched, and K
  logic [31:0] kx, ky;        // the tap's column and row within the filter
  logic [31:0] ox, oy, oc_i;  // the output element
  logic [31:0] oh, ow;
  logic [31:0] xp, xbase, wp, wbase, bp, rp;  // byte pointers
  logic [31:0] row_step, plane_step;
  logic signed [31:0] acc;
  logic [1:0] lane;           // the byte lane of the request the reply answers
  logic [3:0] wb;             // the job's weight width: 8, 4 or 2
  logic [1:0] slot, last_slot;  // tap k's field within its weight byte, and the last field's index
  logic [7:0] wbyte;          // the weight byte, the current tap's field in its low bits

  wire signed [31:0] izp = regs[10];
  wire signed [31:0] kzp = regs[11];
  wire [7:0] reply_byte = mem_rdata[8 * lane +: 8];
  wire signed [31:0] reply_s8 = {{24{reply_byte[7]}}, reply_byte};
  wire signed [31:0] weight = wb == 4'd4 ? {{28{wbyte[3]}}, wbyte[3:0]} :
                              wb == 4'd2 ? {{30{wbyte[1]}}, wbyte[1:0]} : {{24{wbyte[7]}}, wbyte};
  wire signed [31:0] product = (reply_s8 - izp) * (weight - kzp);  // when the reply is an ifmap byte

  assign busy = state != IDLE;
  assign reg_rdata = reg_index == STATUS ? {31'b0, state == IDLE} :
                     (reg_index < NREGS ? regs[reg_index[3:0]] : 32'b0);

  always_comb begin
    mem_valid = 1'b0;
    mem_write = 1'b0;
    mem_addr = 32'b0;
    mem_wdata = acc + product;  // WRITE: the last ifmap byte arrives in this cycle
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
        wb <= regs[14] == 4 ? 4'd4 : regs[14] == 2 ? 4'd2 : 4'd8;
        last_slot <= regs[14] == 4 ? 2'd1 : regs[14] == 2 ? 2'd3 : 2'd0;
        ox <= 0; oy <= 0; oc_i <= 0;
        state <= regs[4] == 0 || regs[7] == 0 ? IDLE : BIAS;
      end
    end else if (mem_ready) begin
      case (state)
        BIAS: begin
          k <= 0; kx <= 0; ky <= 0; slot <= 0; phase_w <= 1'b1;
          reply <= R_BIAS;
          xp <= xbase;
          wp <= wbase;
          state <= TAPS;
        end
        TAPS: begin
          case (reply)  // take the reply to the previous request
            R_BIAS: acc <= mem_rdata;
            R_WEIGHT: wbyte <= reply_byte;
            default: begin acc <= acc + product; wbyte <= wbyte >> wb; end
          endcase
          if (phase_w) begin  // a weight byte out (each is read once, so wp ends past the row)
            reply <= R_WEIGHT;
            lane <= wp[1:0];
            wp <= wp + 1;
            phase_w <= 1'b0;
          end else begin  // the ifmap byte of tap k out
            reply <= R_IFMAP;
            lane <= xp[1:0];
            if (kx + 1 < regs[9]) begin
              kx <= kx + 1; xp <= xp + 1;
            end else if (ky + 1 < regs[8]) begin
              kx <= 0; ky <= ky + 1; xp <= xp + row_step;
            end else begin
              kx <= 0; ky <= 0; xp <= xp + plane_step;
            end
            slot <= slot == last_slot ? 2'd0 : slot + 2'd1;
            phase_w <= slot == last_slot;
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
