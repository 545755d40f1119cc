#ifndef MOTE_FULLY_CONNECTED_PACKED_S8_H
#define MOTE_FULLY_CONNECTED_PACKED_S8_H

#include "mote_types.h"

/* FULLY_CONNECTED with sub-byte weights (int4 or int2 values) kept packed in flash: what
 * mote_fully_connected_s8 computes, from weights of `bits` bits, 8 / bits to a byte.
 *
 * Each weight row starts on a byte: row o is weights[o * row_bytes ...], row_bytes = ceil(accum_depth * bits / 8),
 * its values in order, the first in a byte's lowest bits, each field the value in two's complement (TFLite's
 * and ONNX's packing, mote.ir.subbyte); the unused fields of a row's last byte are zero.
 * The kernel reads a field f as the biased value u = f ^ half = w + half (half = 2^(bits - 1), one XOR per
 * byte for all its fields) and subtracts half * sum_d input[b][d] once per input row:
 * output[b][o] = requantize(bias[o] + (filter_offset - half) * sum_d input[b][d] + sum_d u[o][d] * input[b][d]). */
typedef struct {
  int32_t batches, accum_depth, out_depth; /* input [batches][accum_depth], output [batches][out_depth] */
  int32_t bits;                      /* 4 or 2 */
  int32_t row_bytes;                 /* ceil(accum_depth * bits / 8) */
  int32_t filter_offset;             /* -filter zero point (per-tensor weights) or 0, in [-127, 128] */
  int32_t output_offset;             /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;          /* -128 <= act_min <= act_max <= 127 */
  const uint8_t *weights;            /* [out_depth][row_bytes], packed as above */
  const int32_t *bias;               /* [out_depth], never NULL: as mote_fully_connected_params' bias
                                        (input offset folded in); |bias| + accum_depth * 128 * (128 + |filter_offset|)
                                        < 2^31 bounds every partial sum */
  const int32_t *multiplier;         /* [out_depth]: Q31 multiplier (a per-tensor one repeated) */
  const int32_t *left_mul, *right_mul; /* [out_depth]: see mote_output_stage.h */
} mote_fully_connected_packed_params;

/* Bit-exact with mote_fully_connected_s8 on the unpacked weights (TFLite Micro's FullyConnected with int4
 * filters). Needs no scratch. Returns MOTE_ERROR for a bit width other than 4 or 2. */
mote_status mote_fully_connected_packed_s8(const mote_fully_connected_packed_params *p, const int8_t *input,
                                           int8_t *output, mote_scratch scratch);

#endif
