#ifndef MOTE_FULLY_CONNECTED_S8_H
#define MOTE_FULLY_CONNECTED_S8_H

#include "mote_types.h"

/* output[b][o] = requantize(bias[o] + filter_offset * sum_d input[b][d] + sum_d weights[o][d] * input[b][d]),
 * which equals TFLite's sum_d (weights + filter_offset) * (input + input_offset) + model bias because the
 * input-offset terms are folded into `bias` at compile time. */
typedef struct {
  int32_t batches, accum_depth, out_depth; /* input [batches][accum_depth], output [batches][out_depth] */
  int32_t filter_offset;             /* -filter zero point (per-tensor weights) or 0, in [-127, 128] */
  int32_t output_offset;             /* output zero point, in [-128, 127] */
  int32_t act_min, act_max;          /* -128 <= act_min <= act_max <= 127 */
  const int8_t *weights;             /* [out_depth][accum_depth] */
  const int32_t *bias;               /* [out_depth], never NULL: model bias (or 0)
                                        + input_offset * sum_d weights[o][d]
                                        + accum_depth * filter_offset * input_offset;
                                        |bias| + accum_depth * 128 * (128 + |filter_offset|) < 2^31 */
  const int32_t *multiplier;         /* [out_depth]: Q31 multiplier (a per-tensor one repeated) */
  const int32_t *left_mul, *right_mul; /* [out_depth]: TFLite's shift as 2^max(shift, 0) and
                                        2^(31 - max(-shift, 0)) (see mote_output_stage.h) */
} mote_fully_connected_params;

/* Bit-exact with TFLite Micro's int8 FullyConnected / FullyConnectedPerChannel. Needs no scratch.
 * Each input row meets the weights sixteen output rows at a time (four per dot product), then
 * four, then one at a time. */
mote_status mote_fully_connected_s8(const mote_fully_connected_params *p, const int8_t *input, int8_t *output,
                                    mote_scratch scratch);

#endif
