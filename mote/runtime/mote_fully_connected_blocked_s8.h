#ifndef MOTE_FULLY_CONNECTED_BLOCKED_S8_H
#define MOTE_FULLY_CONNECTED_BLOCKED_S8_H

#include "mote_types.h"

/* FULLY_CONNECTED for scalar cores: sixteen output rows at a time in registers (the out_depth % 16 rows
 * left as blocks of 8, 4 and the last 1 to 3, each width a constant of its own loop), so that each input
 * byte loaded feeds a multiply-add per row from weights read in order through one pointer (interleaved at
 * compile time, [block][accum_depth][rows of the block]). Same arithmetic as mote_fully_connected_s8:
 * output[b][o] = requantize(bias[o] + filter_offset * sum_d input[b][d] + sum_d w[o][d] * input[b][d]). */
typedef struct {
  int32_t batches, accum_depth, out_depth; /* input [batches][accum_depth], output [batches][out_depth] */
  int32_t filter_offset;             /* -filter zero point (per-tensor weights) or 0, in [-127, 128] */
  int32_t output_offset;             /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;          /* -128 <= act_min <= act_max <= 127 */
  const int8_t *weights;             /* the blocks in order, [accum_depth][rows of the block] each */
  const int32_t *bias;               /* [out_depth], as mote_fully_connected_s8's bias */
  const int32_t *multiplier;         /* [out_depth]: Q31 multiplier (a per-tensor one repeated) */
  const int32_t *left_mul, *right_mul; /* [out_depth]: TFLite's shift as 2^max(shift, 0) and
                                        2^(31 - max(-shift, 0)) (see mote_output_stage.h) */
} mote_fully_connected_blocked_params;

/* Bit-exact with mote_fully_connected_s8 on the same layer. Needs no scratch. */
mote_status mote_fully_connected_blocked_s8(const mote_fully_connected_blocked_params *p, const int8_t *input,
                                            int8_t *output, mote_scratch scratch);

#endif
